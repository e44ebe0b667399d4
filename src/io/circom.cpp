// SPDX-License-Identifier: Apache-2.0
// Readers for circom .r1cs / .wtns and snarkjs Groth16 .zkey files on
// BLS12-381. Formats, method, invariants and costs: include/cuzk/io/circom.hpp.
//
// Every read goes through `cursor`, which knows the section it is in and the
// bytes left in it, so a short section, a count larger than the section or a
// value out of range becomes a format_error carrying the section name and the
// file offset of the field being decoded.
#include <cuzk/io/circom.hpp>

#include <algorithm>
#include <atomic>
#include <bit>
#include <cerrno>
#include <cstring>
#include <map>
#include <tuple>

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>

#include <cuzk/ec/subgroup.hpp>
#include <cuzk/io/hex.hpp>
#include <cuzk/sys/huge_pages.hpp>
#include <cuzk/io/mapped_file.hpp>

namespace cuzk::io {

static_assert(std::endian::native == std::endian::little,
              "zkey points are copied byte for byte into cuzk's little-endian limbs");

namespace {

std::string hex_be(const std::uint8_t* le, std::size_t n) { return "0x" + to_hex_reversed({le, n}); }

// ---- bounded reading ---------------------------------------------------

struct file_context {
  std::string kind;
  std::string path;
  std::span<const std::uint8_t> bytes;
};

class cursor {
 public:
  cursor(const file_context& ctx, std::string section, std::uint64_t begin, std::uint64_t end)
      : _ctx(&ctx), _section(std::move(section)), _pos(begin), _end(end) {}

  std::uint64_t pos() const { return _pos; }
  std::uint64_t remaining() const { return _end - _pos; }
  const std::string& section() const { return _section; }

  [[noreturn]] void fail(const std::string& detail) const { fail_at(_pos, detail); }
  [[noreturn]] void fail_at(std::uint64_t offset, const std::string& detail) const {
    throw format_error(_ctx->kind, _ctx->path, _section, offset, detail);
  }

  /// Fails unless |n| more bytes are left in the section.
  /// (|what| is only turned into a message on failure: this is on hot paths.)
  void need(std::uint64_t n, std::string_view what) const {
    if (n > remaining())
      fail("truncated: " + std::string(what) + " needs " + std::to_string(n) + " bytes, " +
           std::to_string(remaining()) + " left in the section");
  }
  const std::uint8_t* take(std::uint64_t n, std::string_view what) {
    need(n, what);
    const std::uint8_t* p = _ctx->bytes.data() + _pos;
    _pos += n;
    return p;
  }
  std::uint32_t u32(const char* what) {
    const std::uint8_t* p = take(4, what);
    return std::uint32_t(p[0]) | std::uint32_t(p[1]) << 8 | std::uint32_t(p[2]) << 16 | std::uint32_t(p[3]) << 24;
  }
  std::uint64_t u64(const char* what) {
    const std::uint8_t* p = take(8, what);
    std::uint64_t v = 0;
    for (int i = 7; i >= 0; --i) v = (v << 8) | p[i];
    return v;
  }
  /// Fails unless the section is fully consumed.
  void expect_end(const char* after) const {
    if (remaining() != 0)
      fail(std::to_string(remaining()) + " unexpected bytes after " + after +
           " (the section is longer than its content)");
  }
  /// Fails unless the section is exactly |n| bytes from here.
  void expect_exact(std::uint64_t n, const std::string& what) const {
    if (remaining() != n)
      fail("size mismatch: " + what + " take " + std::to_string(n) + " bytes but the section has " +
           std::to_string(remaining()));
  }

  // Field elements --------------------------------------------------------

  /// Canonical little-endian Fr (r1cs coefficients, witness values).
  ff::fr fr_canonical(const char* what) {
    const std::uint64_t at = _pos;
    const std::uint8_t* p = take(32, what);
    auto v = ff::fr::from_bytes_le(p);
    if (!v) fail_at(at, std::string(what) + " " + hex_be(p, 32) + " is not below r");
    return *v;
  }
  /// snarkjs section-4 value coef * 2^512 mod r, decoded to the element coef.
  ff::fr fr_coef_r2(const char* what) {
    const std::uint64_t at = _pos;
    const std::uint8_t* p = take(32, what);
    const auto raw = ff::fr::limbs_from_le(p);
    if (ff::detail::geq(raw, ff::fr::modulus)) fail_at(at, std::string(what) + " " + hex_be(p, 32) + " is not below r");
    // from_raw(raw) is the element coef * R; one Montgomery reduction
    // (to_canonical) divides by R and yields coef's Montgomery form.
    return ff::fr::from_raw(ff::fr::from_raw(raw).to_canonical());
  }

 private:
  const file_context* _ctx;
  std::string _section;
  std::uint64_t _pos, _end;
};

// ---- the iden3 container -----------------------------------------------

struct section_entry {
  std::uint64_t offset = 0, size = 0;
};

struct section_names {
  std::uint32_t id;
  const char* name;
};

std::string section_label(std::uint32_t id, std::span<const section_names> names) {
  for (const auto& n : names)
    if (n.id == id) return "section " + std::to_string(id) + " (" + n.name + ")";
  return "section " + std::to_string(id);
}

class container {
 public:
  container(const file_context& ctx, const char magic[4], std::uint32_t version, std::span<const section_names> names)
      : _ctx(ctx), _names(names) {
    cursor cur(ctx, "container header", 0, ctx.bytes.size());
    const std::uint8_t* m = cur.take(4, "magic");
    if (std::memcmp(m, magic, 4) != 0) {
      std::string got;
      for (int i = 0; i < 4; ++i) got += (m[i] >= 0x20 && m[i] < 0x7f) ? char(m[i]) : '?';
      cur.fail_at(0, "bad magic \"" + got + "\", expected \"" + std::string(magic, 4) + "\"");
    }
    const std::uint64_t version_at = cur.pos();
    const std::uint32_t v = cur.u32("version");
    if (v != version)
      cur.fail_at(version_at, "unsupported version " + std::to_string(v) + ", expected " + std::to_string(version));
    const std::uint32_t n_sections = cur.u32("section count");
    for (std::uint32_t i = 0; i < n_sections; ++i) {
      const std::uint64_t entry_at = cur.pos();
      const std::string what = "header of section entry " + std::to_string(i);
      cur.need(12, what);
      const std::uint32_t id = cur.u32("section id");
      const std::uint64_t size = cur.u64("section size");
      if (size > cur.remaining())
        cur.fail_at(entry_at, section_label(id, names) + " declares " + std::to_string(size) + " bytes but only " +
                                  std::to_string(cur.remaining()) + " remain in the file (truncated file?)");
      const bool known = std::any_of(names.begin(), names.end(), [&](const section_names& n) { return n.id == id; });
      if (known && _sections.count(id)) cur.fail_at(entry_at, "duplicate " + section_label(id, names));
      if (!_sections.count(id)) _sections[id] = {cur.pos(), size};
      cur.take(size, "section body");
    }
    if (cur.remaining() != 0)
      cur.fail(std::to_string(cur.remaining()) + " bytes after the last of the " + std::to_string(n_sections) +
               " declared sections");
  }

  bool has(std::uint32_t id) const { return _sections.count(id) != 0; }
  const section_entry& entry(std::uint32_t id) const { return _sections.at(id); }

  /// A cursor over section |id|; a missing section is an error.
  cursor open(std::uint32_t id) const {
    const auto it = _sections.find(id);
    if (it == _sections.end())
      throw format_error(_ctx.kind, _ctx.path, "container header", 8, "missing " + section_label(id, _names));
    return cursor(_ctx, section_label(id, _names), it->second.offset, it->second.offset + it->second.size);
  }

 private:
  const file_context& _ctx;
  std::span<const section_names> _names;
  std::map<std::uint32_t, section_entry> _sections;
};

// ---- the prime ---------------------------------------------------------

/// r of BN254 (circom's default prime), recognised only to say so.
constexpr ff::detail::limbs<4> bn254_r{0x43e1f593f0000001, 0x2833e84879b97091, 0xb85045b68181585d, 0x30644e72e131a029};

template <std::size_t N>
bool bytes_equal_limbs(const std::uint8_t* p, const ff::detail::limbs<N>& v) {
  for (std::size_t i = 0; i < 8 * N; ++i)
    if (p[i] != std::uint8_t(v[i / 8] >> (8 * (i % 8)))) return false;
  return true;
}

/// Reads u32 n8 then the prime; both must be BLS12-381's r (n8 = 32).
void expect_fr_prime(cursor& cur) {
  const std::uint64_t n8_at = cur.pos();
  const std::uint32_t n8 = cur.u32("field size n8");
  if (n8 != 32)
    cur.fail_at(n8_at, "field size n8 = " + std::to_string(n8) + ", expected 32 (the BLS12-381 scalar field)");
  const std::uint64_t prime_at = cur.pos();
  const std::uint8_t* p = cur.take(32, "prime");
  if (!bytes_equal_limbs(p, ff::fr::modulus)) {
    std::string detail = "wrong prime " + hex_be(p, 32);
    if (bytes_equal_limbs(p, bn254_r)) detail += " (BN254's r: compile with --prime bls12381)";
    std::uint8_t r_le[32];
    for (std::size_t i = 0; i < 32; ++i) r_le[i] = std::uint8_t(ff::fr::modulus[i / 8] >> (8 * (i % 8)));
    cur.fail_at(prime_at, detail + ", expected BLS12-381's r " + hex_be(r_le, 32));
  }
}

// ---- points ------------------------------------------------------------

bool below_q(const ff::fp& a) { return !ff::detail::geq(a.raw(), ff::fp::modulus); }
bool below_q(const ff::fp2& a) { return below_q(a.c0) && below_q(a.c1); }

/// Why a decoded point is unacceptable, or nullptr when it is fine.
template <class Affine>
const char* point_problem(const Affine& p, const zkey_options& opt) {
  if (!below_q(p.x) || !below_q(p.y)) return "has a coordinate that is not below q";
  if (opt.check_on_curve && !p.is_on_curve()) return "is not on the curve";
  if (opt.check_subgroup && !p.is_infinity() && !ec::is_in_subgroup(p)) return "is not in the prime-order subgroup";
  return nullptr;
}

/// Copies |count| affine points (LEM layout = cuzk layout) from the cursor and
/// validates them in parallel; the lowest bad index is reported.
template <class Affine>
std::vector<Affine> read_points(cursor& cur, std::uint64_t count, const char* what, const zkey_options& opt) {
  constexpr std::uint64_t sz = sizeof(Affine);
  static_assert(std::is_trivially_copyable_v<Affine>);
  cur.need(count * sz, std::to_string(count) + " " + what);  // count < 2^32, no overflow
  const std::uint64_t base = cur.pos();
  const std::uint8_t* src = cur.take(count * sz, what);
  std::vector<Affine> out;
  sys::reserve_on_huge_pages(out, count);
  out.resize(count);
  if (count) std::memcpy(static_cast<void*>(out.data()), src, count * sz);
  std::atomic<std::uint64_t> first_bad{count};
  tbb::parallel_for(tbb::blocked_range<std::size_t>(0, count, 1024), [&](const auto& range) {
    for (std::size_t i = range.begin(); i != range.end(); ++i) {
      if (i >= first_bad.load(std::memory_order_relaxed)) return;
      if (point_problem(out[i], opt)) {
        std::uint64_t cur_bad = first_bad.load();
        while (i < cur_bad && !first_bad.compare_exchange_weak(cur_bad, i)) {
        }
        return;
      }
    }
  });
  if (const std::uint64_t bad = first_bad.load(); bad < count)
    cur.fail_at(base + bad * sz,
                std::string(what) + " point " + std::to_string(bad) + " " + point_problem(out[bad], opt));
  return out;
}

template <class Affine>
Affine read_point(cursor& cur, const char* what, const zkey_options& opt) {
  return read_points<Affine>(cur, 1, what, opt)[0];
}

// ---- section tables ----------------------------------------------------

constexpr section_names r1cs_sections[] = {{1, "header"},
                                           {2, "constraints"},
                                           {3, "wire-to-label map"},
                                           {4, "custom gates list"},
                                           {5, "custom gates application"}};
constexpr section_names wtns_sections[] = {{1, "header"}, {2, "witness values"}};
constexpr section_names zkey_sections[] = {
    {1, "protocol"}, {2, "groth16 header"}, {3, "IC"}, {4, "coefficients"}, {5, "A"}, {6, "B1"}, {7, "B2"}, {8, "C"},
    {9, "H"},        {10, "contributions"}};

}  // namespace

// ---- .r1cs -------------------------------------------------------------

r1cs_file parse_r1cs(std::span<const std::uint8_t> bytes, std::string_view path) {
  const file_context ctx{"r1cs", std::string(path), bytes};
  const container file(ctx, "r1cs", 1, r1cs_sections);
  r1cs_file cs;

  {
    cursor cur = file.open(1);
    expect_fr_prime(cur);
    cs.n_wires = cur.u32("nWires");
    cs.n_pub_out = cur.u32("nPubOut");
    cs.n_pub_in = cur.u32("nPubIn");
    cs.n_prv_in = cur.u32("nPrvIn");
    cs.n_labels = cur.u64("nLabels");
    cs.n_constraints = cur.u32("nConstraints");
    cur.expect_end("the header fields");
    const std::uint64_t declared = 1 + std::uint64_t(cs.n_pub_out) + cs.n_pub_in + cs.n_prv_in;
    if (declared > cs.n_wires)
      cur.fail_at(file.entry(1).offset + 36, "1 + nPubOut + nPubIn + nPrvIn = " + std::to_string(declared) +
                                                 " exceeds nWires = " + std::to_string(cs.n_wires));
  }
  if (file.has(4) || file.has(5)) {
    cursor cur = file.open(file.has(4) ? 4 : 5);
    cur.fail("custom gates (PLONK only) are not supported for Groth16");
  }
  {
    cursor cur = file.open(2);
    // every constraint takes at least three 4-byte term counts
    cur.need(12 * std::uint64_t(cs.n_constraints),
             std::to_string(cs.n_constraints) + " constraints (header nConstraints)");
    cs.lc_start.reserve(3 * std::size_t(cs.n_constraints) + 1);
    cs.terms.reserve(std::size_t(cur.remaining() / 36));
    cs.lc_start.push_back(0);
    static const char* const lc_names[3] = {"A", "B", "C"};
    for (std::uint32_t c = 0; c < cs.n_constraints; ++c) {
      for (unsigned m = 0; m < 3; ++m) {
        const std::uint32_t n_terms = cur.u32("term count");
        if (36 * std::uint64_t(n_terms) > cur.remaining())
          cur.need(36 * std::uint64_t(n_terms), "constraint " + std::to_string(c) + " " + lc_names[m] + " with " +
                                                    std::to_string(n_terms) + " terms");
        for (std::uint32_t t = 0; t < n_terms; ++t) {
          const std::uint64_t wire_at = cur.pos();
          const std::uint32_t wire = cur.u32("wire id");
          if (wire >= cs.n_wires)
            cur.fail_at(wire_at, "constraint " + std::to_string(c) + " " + lc_names[m] + " uses wire " +
                                     std::to_string(wire) + " >= nWires " + std::to_string(cs.n_wires));
          cs.terms.push_back({wire, cur.fr_canonical("coefficient")});
        }
        cs.lc_start.push_back(cs.terms.size());
      }
    }
    cur.expect_end("the last constraint");
  }
  if (file.has(3)) {
    cursor cur = file.open(3);
    cur.expect_exact(8 * std::uint64_t(cs.n_wires), "nWires labels");
    cs.wire_labels.resize(cs.n_wires);
    for (auto& l : cs.wire_labels) l = cur.u64("label id");
  }
  return cs;
}

r1cs_file read_r1cs(const std::filesystem::path& path) {
  const mapped_file f(path, "r1cs", true);
  return parse_r1cs(f.bytes(), path.string());
}

// ---- .wtns -------------------------------------------------------------

wtns_file parse_wtns(std::span<const std::uint8_t> bytes, std::string_view path) {
  const file_context ctx{"wtns", std::string(path), bytes};
  const container file(ctx, "wtns", 2, wtns_sections);
  std::uint32_t n_witness = 0;
  {
    cursor cur = file.open(1);
    expect_fr_prime(cur);
    n_witness = cur.u32("nWitness");
    cur.expect_end("the header fields");
  }
  wtns_file w;
  cursor cur = file.open(2);
  cur.expect_exact(32 * std::uint64_t(n_witness), "the header's nWitness = " + std::to_string(n_witness) + " values");
  sys::reserve_on_huge_pages(w.values, n_witness);
  w.values.resize(n_witness);
  for (auto& v : w.values) v = cur.fr_canonical("witness value");
  return w;
}

wtns_file read_wtns(const std::filesystem::path& path) {
  const mapped_file f(path, "wtns", true);
  return parse_wtns(f.bytes(), path.string());
}

// ---- .zkey -------------------------------------------------------------

unsigned zkey_file::lg_domain_size() const { return unsigned(std::countr_zero(domain_size)); }

zkey_file parse_zkey(std::span<const std::uint8_t> bytes, std::string_view path, const zkey_options& opt) {
  using ec::g1_affine;
  using ec::g2_affine;
  const file_context ctx{"zkey", std::string(path), bytes};
  const container file(ctx, "zkey", 1, zkey_sections);
  zkey_file zk;
  {
    cursor cur = file.open(1);
    const std::uint32_t protocol = cur.u32("protocol id");
    if (protocol != 1) {
      const char* name = protocol == 2 ? " (plonk)" : protocol == 10 ? " (fflonk)" : "";
      cur.fail_at(cur.pos() - 4, "protocol " + std::to_string(protocol) + name + " is not Groth16 (1)");
    }
    cur.expect_end("the protocol id");
  }
  {
    cursor cur = file.open(2);
    const std::uint64_t n8q_at = cur.pos();
    const std::uint32_t n8q = cur.u32("n8q");
    if (n8q != 48)
      cur.fail_at(n8q_at, "base field size n8q = " + std::to_string(n8q) + ", expected 48 (BLS12-381's q)");
    const std::uint64_t q_at = cur.pos();
    const std::uint8_t* q = cur.take(48, "q");
    if (!bytes_equal_limbs(q, ff::fp::modulus))
      cur.fail_at(q_at, "wrong base field prime q " + hex_be(q, 48) + ", expected BLS12-381's q");
    expect_fr_prime(cur);
    zk.n_vars = cur.u32("nVars");
    const std::uint64_t n_public_at = cur.pos();
    zk.n_public = cur.u32("nPublic");
    const std::uint64_t domain_at = cur.pos();
    zk.domain_size = cur.u32("domainSize");
    cur.expect_exact(3 * sizeof(g1_affine) + 3 * sizeof(g2_affine), "alpha1, beta1, beta2, gamma2, delta1, delta2");
    if (std::uint64_t(zk.n_public) + 1 > zk.n_vars)
      cur.fail_at(n_public_at, "nPublic + 1 = " + std::to_string(std::uint64_t(zk.n_public) + 1) +
                                   " exceeds nVars = " + std::to_string(zk.n_vars));
    if (zk.domain_size == 0 || !std::has_single_bit(zk.domain_size))
      cur.fail_at(domain_at, "domainSize " + std::to_string(zk.domain_size) + " is not a power of two");
    if (zk.lg_domain_size() > lg_max_zkey_domain)
      cur.fail_at(domain_at, "domainSize 2^" + std::to_string(zk.lg_domain_size()) +
                                 " exceeds the supported maximum 2^" + std::to_string(lg_max_zkey_domain));
    if (zk.domain_size < std::uint64_t(zk.n_public) + 1)
      cur.fail_at(domain_at,
                  "domainSize " + std::to_string(zk.domain_size) + " cannot hold the nPublic + 1 public-input rows");
    zk.alpha1 = read_point<g1_affine>(cur, "alpha1", opt);
    zk.beta1 = read_point<g1_affine>(cur, "beta1", opt);
    zk.beta2 = read_point<g2_affine>(cur, "beta2", opt);
    zk.gamma2 = read_point<g2_affine>(cur, "gamma2", opt);
    zk.delta1 = read_point<g1_affine>(cur, "delta1", opt);
    zk.delta2 = read_point<g2_affine>(cur, "delta2", opt);
  }
  {
    cursor cur = file.open(3);
    const std::uint64_t n = std::uint64_t(zk.n_public) + 1;
    cur.expect_exact(n * sizeof(g1_affine), "nPublic + 1 = " + std::to_string(n) + " G1 points");
    zk.ic = read_points<g1_affine>(cur, n, "IC", opt);
  }
  {
    cursor cur = file.open(4);
    const std::uint32_t n_coef = cur.u32("nCoef");
    cur.expect_exact(44 * std::uint64_t(n_coef), "nCoef = " + std::to_string(n_coef) + " entries of 44 bytes");
    zk.coefs.resize(n_coef);
    for (std::uint32_t i = 0; i < n_coef; ++i) {
      zkey_coef& e = zk.coefs[i];
      const std::uint64_t at = cur.pos();
      e.matrix = cur.u32("matrix");
      e.row = cur.u32("row");
      e.signal = cur.u32("signal");
      if (e.matrix > 1)
        cur.fail_at(
            at, "entry " + std::to_string(i) + ": matrix " + std::to_string(e.matrix) + " is neither A (0) nor B (1)");
      if (e.row >= zk.domain_size)
        cur.fail_at(at + 4, "entry " + std::to_string(i) + ": row " + std::to_string(e.row) + " >= domainSize " +
                                std::to_string(zk.domain_size));
      if (e.signal >= zk.n_vars)
        cur.fail_at(at + 8, "entry " + std::to_string(i) + ": signal " + std::to_string(e.signal) + " >= nVars " +
                                std::to_string(zk.n_vars));
      e.coef = cur.fr_coef_r2("coefficient");
    }
  }
  const auto g1_section = [&](std::uint32_t id, std::uint64_t n, const char* what, std::vector<g1_affine>& out) {
    cursor cur = file.open(id);
    cur.expect_exact(n * sizeof(g1_affine), std::to_string(n) + " G1 points");
    out = read_points<g1_affine>(cur, n, what, opt);
  };
  g1_section(5, zk.n_vars, "A", zk.a);
  g1_section(6, zk.n_vars, "B1", zk.b1);
  {
    cursor cur = file.open(7);
    cur.expect_exact(std::uint64_t(zk.n_vars) * sizeof(g2_affine), std::to_string(zk.n_vars) + " G2 points");
    zk.b2 = read_points<g2_affine>(cur, zk.n_vars, "B2", opt);
  }
  g1_section(8, std::uint64_t(zk.n_vars) - zk.n_public - 1, "C", zk.c);
  g1_section(9, zk.domain_size, "H", zk.h);
  return zk;
}

zkey_file read_zkey(const std::filesystem::path& path, const zkey_options& options) {
  const mapped_file f(path, "zkey", true);
  return parse_zkey(f.bytes(), path.string(), options);
}

// ---- consistency -------------------------------------------------------

std::optional<std::size_t> first_unsatisfied_constraint(const r1cs_file& cs, std::span<const ff::fr> w) {
  if (w.size() != cs.n_wires)
    throw std::invalid_argument("witness has " + std::to_string(w.size()) + " values, the r1cs has " +
                                std::to_string(cs.n_wires) + " wires");
  const auto eval = [&](std::span<const r1cs_term> lc) {
    ff::fr acc = ff::fr::zero();
    for (const auto& t : lc) acc += t.coef * w[t.wire];
    return acc;
  };
  for (std::size_t c = 0; c < cs.n_constraints; ++c)
    if (eval(cs.lc(c, 0)) * eval(cs.lc(c, 1)) != eval(cs.lc(c, 2))) return c;
  return std::nullopt;
}

std::optional<std::string> zkey_mismatch(const r1cs_file& cs, const zkey_file& zk) {
  if (zk.n_vars != cs.n_wires)
    return "zkey nVars " + std::to_string(zk.n_vars) + " != r1cs nWires " + std::to_string(cs.n_wires);
  if (zk.n_public != cs.n_public())
    return "zkey nPublic " + std::to_string(zk.n_public) + " != r1cs nPubOut + nPubIn " + std::to_string(cs.n_public());
  const std::uint64_t rows = std::uint64_t(cs.n_constraints) + cs.n_public() + 1;
  if (zk.domain_size < rows || (zk.domain_size / 2 >= rows && zk.domain_size > 1))
    return "zkey domainSize " + std::to_string(zk.domain_size) +
           " is not the smallest power of two >= nConstraints + nPublic + 1 = " + std::to_string(rows);
  // Compare as sorted (matrix, row, signal) -> summed coefficient maps, so the
  // order of entries and split duplicate terms do not matter.
  using key = std::tuple<std::uint32_t, std::uint32_t, std::uint32_t>;
  const auto canon = [](std::vector<std::pair<key, ff::fr>> v) {
    std::sort(v.begin(), v.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    std::vector<std::pair<key, ff::fr>> out;
    for (const auto& e : v) {
      if (!out.empty() && out.back().first == e.first) out.back().second += e.second;
      else out.push_back(e);
    }
    std::erase_if(out, [](const auto& e) { return e.second.is_zero(); });
    return out;
  };
  std::vector<std::pair<key, ff::fr>> expect, got;
  for (std::uint32_t c = 0; c < cs.n_constraints; ++c)
    for (unsigned m = 0; m < 2; ++m)
      for (const auto& t : cs.lc(c, m)) expect.push_back({key{m, c, t.wire}, t.coef});
  for (std::uint32_t s = 0; s <= cs.n_public(); ++s) expect.push_back({key{0, cs.n_constraints + s, s}, ff::fr::one()});
  for (const auto& e : zk.coefs) got.push_back({key{e.matrix, e.row, e.signal}, e.coef});
  const auto a = canon(std::move(expect)), b = canon(std::move(got));
  for (std::size_t i = 0; i < std::min(a.size(), b.size()); ++i) {
    if (a[i].first != b[i].first || !(a[i].second == b[i].second)) {
      const auto& [m, row, sig] = a[i].first;
      return "coefficient section differs from the r1cs at (matrix " + std::to_string(m) + ", row " +
             std::to_string(row) + ", signal " + std::to_string(sig) + ")";
    }
  }
  if (a.size() != b.size())
    return "coefficient section has " + std::to_string(b.size()) + " distinct entries, r1cs A/B " +
           std::to_string(a.size());
  return std::nullopt;
}

}  // namespace cuzk::io
