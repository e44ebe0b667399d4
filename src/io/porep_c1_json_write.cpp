// SPDX-License-Identifier: Apache-2.0
// C1 JSON writer (io::write_c1_json, see include/cuzk/io/porep_c1.hpp).
//
// Produces what serde_json::to_vec writes for rust-filecoin-proofs-api
// SealCommitPhase1Output: compact (no whitespace), fields in the Rust struct
// order, 32-byte values as arrays of decimal numbers, Column's PhantomData
// `_h` as null, ProofData as {"Single"|"Sub"|"Top": {...}} and the vanilla
// proofs under the shape's V1 name. The result parses back to an equal
// c1_output (parse_c1_json(write_c1_json(x)) == x).
//
// Cost: appends to one std::string reserved from an upper bound of the size
// (39 MB written for a 32 GiB C1); a byte costs one table lookup. Measured:
// ~0.3-0.6 s for a 32 GiB C1 on a loaded 2-core VM, mostly first-touch page
// faults of the output.

#include <cuzk/io/porep_c1.hpp>

#include <array>
#include <stdexcept>
#include <string>

namespace cuzk::io {

namespace {

/// "0".."255" as text, precomputed (unused tail characters are '\0').
struct byte_table {
  std::array<std::array<char, 4>, 256> text{};
  std::array<std::uint8_t, 256> len{};
  constexpr byte_table() {
    for (int v = 0; v < 256; ++v) {
      std::size_t n = 0;
      if (v >= 100) text[std::size_t(v)][n++] = char('0' + v / 100);
      if (v >= 10) text[std::size_t(v)][n++] = char('0' + v / 10 % 10);
      text[std::size_t(v)][n++] = char('0' + v % 10);
      len[std::size_t(v)] = std::uint8_t(n);
    }
  }
};
constexpr byte_table bytes_text;

class writer {
 public:
  explicit writer(std::size_t reserve) { _out.reserve(reserve); }

  void raw(std::string_view s) { _out += s; }
  void u64(std::uint64_t v) { _out += std::to_string(v); }

  void bytes(const std::uint8_t* b) {
    char buf[2 + 32 * 4];  // "[" + 32 x ("255" + ",") + "]"
    std::size_t n = 0;
    buf[n++] = '[';
    for (std::size_t i = 0; i < 32; ++i) {
      const auto& t = bytes_text.text[b[i]];
      buf[n] = t[0];
      buf[n + 1] = t[1];
      buf[n + 2] = t[2];
      n += bytes_text.len[b[i]];
      buf[n++] = ',';
    }
    buf[n - 1] = ']';
    _out.append(buf, n);
  }
  void domain(const ff::fr& v) {
    std::uint8_t b[32];
    v.to_bytes_le(b);
    bytes(b);
  }
  void domains(const std::vector<ff::fr>& v) {
    _out += '[';
    for (std::size_t i = 0; i < v.size(); ++i) {
      if (i) _out += ',';
      domain(v[i]);
    }
    _out += ']';
  }

  void path(const std::vector<merkle_path_element>& p) {
    _out += "{\"path\":[";
    for (std::size_t i = 0; i < p.size(); ++i) {
      if (i) _out += ',';
      _out += "{\"hashes\":";
      domains(p[i].hashes);
      _out += ",\"index\":";
      u64(p[i].index);
      _out += '}';
    }
    _out += "]}";
  }

  void merkle(const merkle_proof& p) {
    switch (p.kind) {
      case merkle_proof_kind::single:
        _out += "{\"data\":{\"Single\":{\"root\":";
        domain(p.root);
        _out += ",\"leaf\":";
        domain(p.leaf);
        _out += ",\"path\":";
        path(p.base);
        break;
      case merkle_proof_kind::sub:
      case merkle_proof_kind::top:
        _out += p.kind == merkle_proof_kind::sub ? "{\"data\":{\"Sub\":{\"base_proof\":"
                                                 : "{\"data\":{\"Top\":{\"base_proof\":";
        path(p.base);
        _out += ",\"sub_proof\":";
        path(p.sub);
        if (p.kind == merkle_proof_kind::top) {
          _out += ",\"top_proof\":";
          path(p.top);
        }
        _out += ",\"root\":";
        domain(p.root);
        _out += ",\"leaf\":";
        domain(p.leaf);
        break;
      default: throw std::invalid_argument("write_c1_json: unknown merkle_proof_kind");
    }
    _out += "}}}";
  }

  void column(const porep_column_proof& c) {
    _out += "{\"column\":{\"index\":";
    u64(c.index);
    _out += ",\"rows\":";
    domains(c.rows);
    _out += ",\"_h\":null},\"inclusion_proof\":";
    merkle(c.inclusion_proof);
    _out += '}';
  }
  void columns(const std::vector<porep_column_proof>& v) {
    _out += '[';
    for (std::size_t i = 0; i < v.size(); ++i) {
      if (i) _out += ',';
      column(v[i]);
    }
    _out += ']';
  }

  void labeling(const porep_labeling_proof& l) {
    _out += "{\"parents\":";
    domains(l.parents);
    _out += ",\"layer_index\":";
    u64(l.layer_index);
    _out += ",\"node\":";
    u64(l.node);
    _out += '}';
  }

  void challenge(const porep_challenge_proof& p) {
    _out += "{\"comm_d_proofs\":";
    merkle(p.comm_d_proof);
    _out += ",\"comm_r_last_proof\":";
    merkle(p.comm_r_last_proof);
    _out += ",\"replica_column_proofs\":{\"c_x\":";
    column(p.c_x);
    _out += ",\"drg_parents\":";
    columns(p.drg_parents);
    _out += ",\"exp_parents\":";
    columns(p.exp_parents);
    _out += "},\"labeling_proofs\":[";
    for (std::size_t i = 0; i < p.labeling_proofs.size(); ++i) {
      if (i) _out += ',';
      labeling(p.labeling_proofs[i]);
    }
    _out += "],\"encoding_proof\":";
    labeling(p.encoding_proof);
    _out += '}';
  }

  std::string take() { return std::move(_out); }

 private:
  std::string _out;
};

/// Size to reserve for the document.
std::size_t estimate_size(const c1_output& c1) {
  if (c1.partitions.empty() || c1.partitions[0].empty()) return 1024;
  const porep_challenge_proof& p = c1.partitions[0][0];
  const auto path_domains = [](const merkle_proof& m) {
    std::size_t n = 2;
    for (const auto* part : {&m.base, &m.sub, &m.top})
      for (const merkle_path_element& e : *part) n += e.hashes.size();
    return n;
  };
  std::size_t per = path_domains(p.comm_d_proof) + path_domains(p.comm_r_last_proof);
  per += (1 + p.drg_parents.size() + p.exp_parents.size()) * (p.c_x.rows.size() + path_domains(p.c_x.inclusion_proof));
  per += (p.labeling_proofs.size() + 1) * p.encoding_proof.parents.size();
  std::size_t challenges = 0;
  for (const auto& part : c1.partitions) challenges += part.size();
  // An upper bound: 130 characters per domain at most ("[" + 32 x "255," +
  // "]"), plus the keys. Reserved pages that are never written cost nothing,
  // while growing the string would copy it (and fault its pages) again.
  return challenges * per * 140 + 65536;
}

}  // namespace

std::string write_c1_json(const c1_output& c1) {
  if (!c1.proof) throw std::invalid_argument("write_c1_json: c1_output.proof is null");
  writer w(estimate_size(c1));
  w.raw("{\"registered_proof\":\"");
  w.raw(c1.proof->name);
  w.raw("\",\"vanilla_proofs\":{\"");
  w.raw(c1.proof->shape_name);
  w.raw("\":[");
  for (std::size_t k = 0; k < c1.partitions.size(); ++k) {
    if (k) w.raw(",");
    w.raw("[");
    for (std::size_t i = 0; i < c1.partitions[k].size(); ++i) {
      if (i) w.raw(",");
      w.challenge(c1.partitions[k][i]);
    }
    w.raw("]");
  }
  w.raw("]},\"comm_r\":");
  w.bytes(c1.comm_r.data());
  w.raw(",\"comm_d\":");
  w.bytes(c1.comm_d.data());
  w.raw(",\"replica_id\":");
  w.bytes(c1.replica_id.data());
  w.raw(",\"seed\":");
  w.bytes(c1.seed.data());
  w.raw(",\"ticket\":");
  w.bytes(c1.ticket.data());
  w.raw("}");
  return w.take();
}

}  // namespace cuzk::io
