// SPDX-License-Identifier: Apache-2.0
// C1 JSON reader (io::parse_c1_json / read_c1_file, see
// include/cuzk/io/porep_c1.hpp and docs/FORMATS.md §4.2).
//
// Method: a schema-driven pull parser over the text (the tokenizer is
// porep_c1_json_cursor.hpp). The registered proof
// fixes every count in the document (partitions, challenges, path levels,
// arities, layers, parents), so each array is checked against its expected
// length while it is read and nothing is ever allocated from a length the
// input claims. Values go straight into io::c1_output: a 32-byte domain is
// read as 32 integers into a stack buffer and converted to an Fr, with no
// intermediate DOM. We do not use nlohmann::json here on purpose: its DOM
// spends a heap vector of 32 x 16-byte values per domain (~1 GB for the
// ~36 MB of a 32 GiB C1) and parses several times slower; the grammar we
// need (objects, arrays, unsigned integers, strings, null) is small.
//
// Strictness mirrors serde_json deserializing SealCommitPhase1Output, with a
// few deliberate extras: unknown keys are errors (serde would ignore them),
// every domain of the vanilla proofs (and comm_r, comm_d, replica_id) must
// be a canonical Fr (bellperson would fail later), and the labeling proofs
// must carry layer_index 1..layers and one challenge node. Keys may come in
// any order (serde accepts that); vanilla_proofs met before registered_proof
// is skipped and read again once the proof type is known.
//
// Errors: io::format_error, kind "c1 json", section = JSON path of the
// problem (e.g. vanilla_proofs.StackedDrg2KiBV1[0][1].comm_d_proofs.data),
// offset = byte offset in the text (inside the base64-decoded Phase1Out of
// a wrapper the offset is given in the message instead).
//
// Cost: one pass, about 10 M integers for a 32 GiB C1. Measured on the
// shared 2-core dev VM (Release, under load): a 32 GiB C1 (10 x 18
// challenges, 38.7 MB) parses in 0.22 s (~175 MB/s) with no memory beyond
// the c1_output; nlohmann::json::parse of the same text took 2.65 s and
// ~160 MB of DOM.

#include <cuzk/io/base64.hpp>
#include <cuzk/io/format_error.hpp>
#include <cuzk/io/porep_c1.hpp>

#include <array>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <optional>
#include <string>
#include <utility>

#include <sys/stat.h>

#include "porep_c1_json_cursor.hpp"

namespace cuzk::io {

namespace {

using c1_json::cursor;
using c1_json::kind_name;
using c1_json::quoted;

constexpr std::size_t labeling_parents = 37;  // stacked/vanilla TOTAL_PARENTS
constexpr std::size_t drg_parent_count = 6;   // BASE_DEGREE
constexpr std::size_t exp_parent_count = 8;   // EXP_DEGREE

// Expected shape of one Merkle proof (ProofData variant and path lengths).
struct tree_shape {
  merkle_proof_kind kind;
  std::uint32_t base_arity, base_levels, sub_arity, top_arity;
};

const char* variant_name(merkle_proof_kind k) {
  switch (k) {
    case merkle_proof_kind::single: return "Single";
    case merkle_proof_kind::sub: return "Sub";
    case merkle_proof_kind::top: return "Top";
  }
  return "?";
}

// ---- the C1 schema ---------------------------------------------------------

std::vector<merkle_path_element> read_path(cursor& c, std::uint32_t arity, std::uint32_t levels) {
  std::vector<merkle_path_element> path(levels);
  static constexpr std::array<std::string_view, 1> inclusion_fields{"path"};
  static constexpr std::array<std::string_view, 2> element_fields{"hashes", "index"};
  c.object(inclusion_fields, [&](std::size_t) {
    c.array(levels, levels == 1 ? "path element" : "path elements", [&](std::size_t i) {
      merkle_path_element& e = path[i];
      c.object(element_fields, [&](std::size_t f) {
        if (f == 0) {
          e.hashes.resize(arity - 1);
          const std::string what = "hashes (arity " + std::to_string(arity) + ")";
          c.array(arity - 1, what.c_str(), [&](std::size_t j) { e.hashes[j] = c.domain(); });
        } else {
          const char* at = (c.ws(), c.pos());
          e.index = c.u64("index");
          if (e.index >= arity)
            c.fail_at(at, "index " + std::to_string(e.index) + " is not below the arity " + std::to_string(arity));
        }
      });
    });
  });
  return path;
}

merkle_proof read_merkle_proof(cursor& c, const tree_shape& shape) {
  merkle_proof p;
  p.kind = shape.kind;
  static constexpr std::array<std::string_view, 1> proof_fields{"data"};
  static constexpr std::array<std::string_view, 3> variants{"Single", "Sub", "Top"};
  static constexpr std::array<std::string_view, 3> single_fields{"root", "leaf", "path"};
  static constexpr std::array<std::string_view, 4> sub_fields{"base_proof", "sub_proof", "root", "leaf"};
  static constexpr std::array<std::string_view, 5> top_fields{"base_proof", "sub_proof", "top_proof", "root", "leaf"};
  c.object(proof_fields, [&](std::size_t) {
    // ProofData: an externally tagged enum, i.e. an object with one key.
    c.expect('{', "a ProofData object {\"Single\"|\"Sub\"|\"Top\": {...}}");
    const char* at = (c.ws(), c.pos());
    if (c.peek() != '"')
      c.fail("expected a ProofData variant key (\"Single\", \"Sub\" or \"Top\"), found " + c.found());
    const std::string_view key = c.string("a key");
    std::size_t v = 0;
    while (v < variants.size() && variants[v] != key) ++v;
    if (v == variants.size())
      c.fail_at(at, "unknown ProofData variant " + quoted(key) + " (expected \"Single\", \"Sub\" or \"Top\")");
    if (merkle_proof_kind(v) != shape.kind)
      c.fail_at(at, std::string("ProofData variant ") + variant_name(merkle_proof_kind(v)) +
                        " does not fit the tree shape (expected " + variant_name(shape.kind) + ")");
    c.expect(':', "':' after a key");
    const std::size_t m = c.mark();
    c.push_key(variants[v]);
    const auto read_root_leaf = [&](std::size_t f, std::size_t root_at) {
      if (f == root_at) p.root = c.domain();
      else p.leaf = c.domain();
    };
    switch (shape.kind) {
      case merkle_proof_kind::single:
        c.object(single_fields, [&](std::size_t f) {
          if (f == 2) p.base = read_path(c, shape.base_arity, shape.base_levels);
          else read_root_leaf(f, 0);
        });
        break;
      case merkle_proof_kind::sub:
        c.object(sub_fields, [&](std::size_t f) {
          if (f == 0) p.base = read_path(c, shape.base_arity, shape.base_levels);
          else if (f == 1) p.sub = read_path(c, shape.sub_arity, 1);
          else read_root_leaf(f, 2);
        });
        break;
      case merkle_proof_kind::top:
        c.object(top_fields, [&](std::size_t f) {
          if (f == 0) p.base = read_path(c, shape.base_arity, shape.base_levels);
          else if (f == 1) p.sub = read_path(c, shape.sub_arity, 1);
          else if (f == 2) p.top = read_path(c, shape.top_arity, 1);
          else read_root_leaf(f, 3);
        });
        break;
    }
    c.reset(m);
    if (c.peek() == ',') c.fail("ProofData must have exactly one variant key");
    c.expect('}', "'}' closing ProofData");
  });
  return p;
}

struct c1_shape {
  const seal_proof_info* info;
  tree_shape d, r;
};

c1_shape shape_of(const seal_proof_info& info) {
  c1_shape s{&info, {}, {}};
  s.d = {merkle_proof_kind::single, 2, info.tree_d_levels(), 0, 0};
  const merkle_proof_kind k = info.sub_arity == 0   ? merkle_proof_kind::single
                              : info.top_arity == 0 ? merkle_proof_kind::sub
                                                    : merkle_proof_kind::top;
  s.r = {k, info.base_arity, info.tree_r_base_levels(), info.sub_arity, info.top_arity};
  return s;
}

porep_column_proof read_column_proof(cursor& c, const c1_shape& s) {
  porep_column_proof cp;
  static constexpr std::array<std::string_view, 2> fields{"column", "inclusion_proof"};
  static constexpr std::array<std::string_view, 3> column_fields{"index", "rows", "_h"};
  c.object(fields, [&](std::size_t f) {
    if (f == 1) {
      cp.inclusion_proof = read_merkle_proof(c, s.r);
      return;
    }
    c.object(column_fields, [&](std::size_t g) {
      if (g == 0) {
        const char* at = (c.ws(), c.pos());
        cp.index = c.u32("index");
        if (cp.index >= s.info->nodes)
          c.fail_at(at, "node index " + std::to_string(cp.index) + " is not below the " +
                            std::to_string(s.info->nodes) + " nodes of the sector");
      } else if (g == 1) {
        cp.rows.resize(s.info->layers);
        c.array(s.info->layers, "rows (one per layer)", [&](std::size_t i) { cp.rows[i] = c.domain(); });
      } else {
        c.null("_h");
      }
    });
  });
  return cp;
}

porep_labeling_proof read_labeling_proof(cursor& c, const c1_shape& s, std::uint32_t want_layer) {
  porep_labeling_proof lp;
  static constexpr std::array<std::string_view, 3> fields{"parents", "layer_index", "node"};
  c.object(fields, [&](std::size_t f) {
    const char* at = (c.ws(), c.pos());
    if (f == 0) {
      lp.parents.resize(labeling_parents);
      c.array(labeling_parents, "parents", [&](std::size_t i) { lp.parents[i] = c.domain(); });
    } else if (f == 1) {
      lp.layer_index = c.u32("layer_index");
      if (lp.layer_index != want_layer)
        c.fail_at(at, "layer_index " + std::to_string(lp.layer_index) + ", expected " + std::to_string(want_layer));
    } else {
      lp.node = c.u64("node");
      if (lp.node >= s.info->nodes)
        c.fail_at(at, "node " + std::to_string(lp.node) + " is not below the " + std::to_string(s.info->nodes) +
                          " nodes of the sector");
    }
  });
  return lp;
}

porep_challenge_proof read_challenge_proof(cursor& c, const c1_shape& s) {
  porep_challenge_proof p;
  static constexpr std::array<std::string_view, 5> fields{"comm_d_proofs", "comm_r_last_proof", "replica_column_proofs",
                                                          "labeling_proofs", "encoding_proof"};
  static constexpr std::array<std::string_view, 3> rcp_fields{"c_x", "drg_parents", "exp_parents"};
  const char* start = (c.ws(), c.pos());
  c.object(fields, [&](std::size_t f) {
    switch (f) {
      case 0: p.comm_d_proof = read_merkle_proof(c, s.d); break;
      case 1: p.comm_r_last_proof = read_merkle_proof(c, s.r); break;
      case 2:
        c.object(rcp_fields, [&](std::size_t g) {
          if (g == 0) {
            p.c_x = read_column_proof(c, s);
          } else {
            auto& v = g == 1 ? p.drg_parents : p.exp_parents;
            const std::size_t n = g == 1 ? drg_parent_count : exp_parent_count;
            v.resize(n);
            c.array(n, g == 1 ? "DRG parent columns" : "expander parent columns",
                    [&](std::size_t i) { v[i] = read_column_proof(c, s); });
          }
        });
        break;
      case 3:
        p.labeling_proofs.resize(s.info->layers);
        c.array(s.info->layers, "labeling proofs (one per layer)",
                [&](std::size_t i) { p.labeling_proofs[i] = read_labeling_proof(c, s, std::uint32_t(i + 1)); });
        break;
      default: p.encoding_proof = read_labeling_proof(c, s, s.info->layers); break;
    }
  });
  // One challenge: every labeling proof, the encoding proof and c_x name it.
  const std::uint64_t node = p.labeling_proofs[0].node;
  for (std::size_t l = 1; l < p.labeling_proofs.size(); ++l)
    if (p.labeling_proofs[l].node != node)
      c.fail_at(start, "labeling_proofs[" + std::to_string(l) + "].node " + std::to_string(p.labeling_proofs[l].node) +
                           " differs from labeling_proofs[0].node " + std::to_string(node));
  if (p.encoding_proof.node != node)
    c.fail_at(start, "encoding_proof.node " + std::to_string(p.encoding_proof.node) +
                         " differs from labeling_proofs[0].node " + std::to_string(node));
  if (p.c_x.index != node)
    c.fail_at(start, "replica_column_proofs.c_x.column.index " + std::to_string(p.c_x.index) +
                         " differs from the challenge " + std::to_string(node));
  return p;
}

void read_vanilla_proofs(cursor& c, const c1_shape& s, c1_output& out) {
  const seal_proof_info& info = *s.info;
  c.expect('{', "an object {\"<shape>\": [partitions]}");
  const char* key_at = (c.ws(), c.pos());
  if (c.peek() == '}') c.fail("missing the vanilla proof shape key " + quoted(info.shape_name));
  const std::string_view key = c.string("a key");
  if (key != info.shape_name) {
    bool known = false;
    for (const seal_proof_info& p : seal_proofs()) known |= p.shape_name == key;
    c.fail_at(key_at, std::string(known ? "vanilla proof shape " : "unknown vanilla proof shape ") + quoted(key) +
                          " does not match registered_proof " + std::string(info.name) + " (expected " +
                          quoted(info.shape_name) + ")");
  }
  c.expect(':', "':' after a key");
  const std::size_t m = c.mark();
  c.push_key(info.shape_name);
  out.partitions.resize(info.partitions);
  c.array(info.partitions, "partitions", [&](std::size_t k) {
    std::vector<porep_challenge_proof>& part = out.partitions[k];
    part.resize(info.challenges_per_partition);
    c.array(info.challenges_per_partition, "challenge proofs",
            [&](std::size_t i) { part[i] = read_challenge_proof(c, s); });
  });
  c.reset(m);
  if (c.peek() == ',') c.fail("vanilla_proofs must hold exactly one shape key");
  c.expect('}', "'}' closing vanilla_proofs");
}

/// The bare SealCommitPhase1Output object.
c1_output read_c1_object(cursor& c) {
  c1_output out;
  static constexpr std::array<std::string_view, 7> fields{"registered_proof", "vanilla_proofs", "comm_r", "comm_d",
                                                          "replica_id",       "seed",           "ticket"};
  const char* deferred = nullptr;  // vanilla_proofs met before registered_proof
  c1_shape shape{};
  const auto canonical = [&](const bytes32& b, const char* at) {
    if (!ff::fr::from_bytes_le(b.data())) c.fail_at(at, "not a canonical field element (value >= r)");
  };
  c.object(fields, [&](std::size_t f) {
    const char* at = (c.ws(), c.pos());
    switch (f) {
      case 0: {
        const std::string_view name = c.string("the registered proof name (a string)");
        out.proof = find_seal_proof(name);
        if (!out.proof) c.fail_at(at, "unknown registered proof " + quoted(name));
        shape = shape_of(*out.proof);
        break;
      }
      case 1:
        if (out.proof) {
          read_vanilla_proofs(c, shape, out);
        } else {
          deferred = at;
          c.skip_value();
        }
        break;
      case 2:
        c.bytes32(out.comm_r.data());
        canonical(out.comm_r, at);
        break;
      case 3:
        c.bytes32(out.comm_d.data());
        canonical(out.comm_d, at);
        break;
      case 4:
        c.bytes32(out.replica_id.data());
        canonical(out.replica_id, at);
        break;
      case 5: c.bytes32(out.seed.data()); break;
      default: c.bytes32(out.ticket.data()); break;
    }
  });
  if (deferred) {
    const char* resume = c.pos();
    const std::size_t m = c.mark();
    c.push_key("vanilla_proofs");
    c.seek(deferred);
    read_vanilla_proofs(c, shape, out);
    c.reset(m);
    c.seek(resume);
  }
  return out;
}

// ---- the lotus-bench / curio wrapper ----------------------------------------

c1_output read_wrapper(cursor& c, std::string_view label) {
  static constexpr std::array<std::string_view, 3> fields{"SectorNum", "Phase1Out", "SectorSize"};
  std::optional<c1_output> out;
  std::uint64_t sector_size = 0;
  const char* size_at = nullptr;
  c.object(fields, [&](std::size_t f) {
    const char* at = (c.ws(), c.pos());
    if (f == 0) {
      c.u64("SectorNum");
    } else if (f == 2) {
      size_at = at;
      sector_size = c.u64("SectorSize");
    } else {
      const std::string_view b64 = c.string("a base64 string");
      // Strict (Go's base64.StdEncoding): one spelling per C1.
      std::string inner;
      if (const auto e = decode_base64(b64, base64_mode::strict, inner)) c.fail_at(at, e->message());
      cursor ic(inner, label, "Phase1Out", /*inner=*/true);
      if (ic.peek() != '{') ic.fail("expected the C1 JSON object, found " + ic.found());
      out = read_c1_object(ic);
      if (!ic.at_end()) ic.fail("trailing characters after the C1 JSON object");
    }
  });
  if (sector_size != out->proof->sector_size) {
    c.push_key("SectorSize");
    c.fail_at(size_at, "SectorSize " + std::to_string(sector_size) + " does not match registered_proof " +
                           std::string(out->proof->name) + " (" + std::to_string(out->proof->sector_size) + " bytes)");
  }
  return std::move(*out);
}

}  // namespace

c1_output parse_c1_json(std::string_view text, std::string_view label) {
  if (text.size() > c1_json_max_bytes)
    throw format_error(kind_name, std::string(label), "", format_error::no_offset,
                       "input of " + std::to_string(text.size()) + " bytes exceeds the limit of " +
                           std::to_string(c1_json_max_bytes) + " bytes");
  cursor c(text, label, "", false);
  // Which form: peek at the first key of the top-level object.
  c.expect('{', "a JSON object (the C1 output or its {SectorNum, Phase1Out, SectorSize} wrapper)");
  bool wrapper = false;
  if (c.peek() == '"') {
    const std::string_view first = c.string("a key");
    wrapper = first == "SectorNum" || first == "Phase1Out" || first == "SectorSize";
  }
  c.seek(text.data());
  c1_output out = wrapper ? read_wrapper(c, label) : read_c1_object(c);
  if (!c.at_end()) c.fail("trailing characters after the JSON object");
  return out;
}

c1_output read_c1_file(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0)
    throw format_error(kind_name, path, "", format_error::no_offset,
                       std::string("cannot stat: ") + std::strerror(errno));
  if (!S_ISREG(st.st_mode)) throw format_error(kind_name, path, "", format_error::no_offset, "not a regular file");
  if (std::uint64_t(st.st_size) > c1_json_max_bytes)
    throw format_error(kind_name, path, "", format_error::no_offset,
                       "file of " + std::to_string(st.st_size) + " bytes exceeds the limit of " +
                           std::to_string(c1_json_max_bytes) + " bytes");
  std::ifstream in(path, std::ios::binary);
  if (!in)
    throw format_error(kind_name, path, "", format_error::no_offset,
                       std::string("cannot open: ") + std::strerror(errno));
  std::string text(std::size_t(st.st_size), '\0');
  in.read(text.data(), std::streamsize(text.size()));
  if (std::size_t(in.gcount()) != text.size())
    throw format_error(kind_name, path, "", format_error::no_offset,
                       "short read: " + std::to_string(in.gcount()) + " of " + std::to_string(text.size()) + " bytes");
  return parse_c1_json(text, path);
}

}  // namespace cuzk::io
