// SPDX-License-Identifier: Apache-2.0
// Filecoin .vk / .params / .meta files and parameters.json digests (see
// include/cuzk/io/params.hpp for the layout and the error conventions).
//
// Writing encodes points in chunks that fit a 4 MiB buffer, each chunk in
// parallel, then hands the buffer to the stream; a file is written under a
// temporary name, synced and renamed into place (atomic_write.hpp), so a
// crash never leaves a truncated file under the final name. Reading maps the
// file, walks the u32 length fields with every count checked against the
// bytes left (64-bit arithmetic: a u32 count times 192 cannot overflow), then
// decodes all sections at once; each section's batch decode is itself
// parallel, and the first failure in file order is reported whatever the
// scheduling.

#include <cuzk/io/params.hpp>

#include <sys/stat.h>

#include <openssl/evp.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <exception>
#include <fstream>
#include <limits>
#include <memory>
#include <ostream>
#include <utility>

#include <nlohmann/json.hpp>
#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>
#include <tbb/parallel_reduce.h>

#include <cuzk/ec/serialization.hpp>
#include <cuzk/io/hex.hpp>

#include "atomic_write.hpp"

namespace cuzk::io {

namespace {

constexpr std::size_t g1_size = ec::g1_uncompressed_size;
constexpr std::size_t g2_size = ec::g2_uncompressed_size;

const char* kind_name(parameter_file_kind kind) { return kind == parameter_file_kind::verifying_key ? "vk" : "params"; }

/// Kind label for error messages about a file known only by its path.
const char* kind_of_path(const std::filesystem::path& path) {
  const auto ext = path.extension();
  if (ext == ".vk") return "vk";
  if (ext == ".meta") return "meta";
  return "params";
}

std::string quoted_section(std::string_view name) { return "section '" + std::string(name) + "'"; }

// ---- layout walking -------------------------------------------------------

class layout_walker {
 public:
  layout_walker(std::span<const std::uint8_t> bytes, parameter_file_kind kind, std::string label,
                std::vector<section>& out)
      : _bytes(bytes), _kind(kind), _label(std::move(label)), _out(out) {}

  std::uint64_t left() const { return _bytes.size() - _pos; }
  std::uint64_t pos() const { return _pos; }

  [[noreturn]] void fail(std::string_view name, std::uint64_t offset, const std::string& detail) const {
    throw format_error(kind_name(_kind), _label, quoted_section(name), offset, detail);
  }

  void single(std::string_view name, std::size_t size) {
    if (left() < size)
      fail(name, _pos,
           "truncated: the point needs " + std::to_string(size) + " bytes, " + std::to_string(left()) + " left");
    push(name, 1, size);
  }

  void vector(std::string_view name, std::size_t size) {
    if (left() < 4)
      fail(name, _pos, "truncated: the u32 length field needs 4 bytes, " + std::to_string(left()) + " left");
    const std::uint8_t* p = _bytes.data() + _pos;
    const std::uint64_t count =
        (std::uint64_t(p[0]) << 24) | (std::uint64_t(p[1]) << 16) | (std::uint64_t(p[2]) << 8) | std::uint64_t(p[3]);
    _pos += 4;
    const std::uint64_t need = count * size;  // <= (2^32 - 1) * 192: no overflow
    if (left() < need)
      fail(name, _pos,
           "truncated: the length field says " + std::to_string(count) + " points (" + std::to_string(need) +
               " bytes), " + std::to_string(left()) + " left");
    push(name, count, size);
  }

  void finish() const {
    if (left() != 0)
      throw format_error(kind_name(_kind), _label, "after " + quoted_section(_out.back().name), _pos,
                         std::to_string(left()) + " trailing bytes after the last section");
  }

 private:
  void push(std::string_view name, std::uint64_t count, std::size_t size) {
    const std::uint64_t n = count * size;
    _out.push_back(
        section{name, _pos, count, size, _bytes.subspan(static_cast<std::size_t>(_pos), static_cast<std::size_t>(n))});
    _pos += n;
  }

  std::span<const std::uint8_t> _bytes;
  parameter_file_kind _kind;
  std::string _label;
  std::vector<section>& _out;
  std::uint64_t _pos = 0;
};

// ---- decoding ---------------------------------------------------------------

/// Lowest index of a point at infinity, or |pts.size()|.
template <class Point>
std::size_t first_infinity(std::span<const Point> pts) {
  const std::size_t n = pts.size();
  return tbb::parallel_reduce(
      tbb::blocked_range<std::size_t>(0, n, 4096), n,
      [&](const tbb::blocked_range<std::size_t>& r, std::size_t best) {
        for (std::size_t i = r.begin(); i != r.end() && i < best; ++i)
          if (pts[i].is_infinity()) return i;
        return best;
      },
      [](std::size_t a, std::size_t b) { return std::min(a, b); });
}

/// Whether bellperson rejects the point at infinity in this section.
bool infinity_forbidden(std::string_view name) {
  return name == "ic" || name == "h" || name == "l" || name == "a" || name == "b_g1" || name == "b_g2";
}

/// Decodes points [first, first + out.size()) of |s| into |out|; indices in
/// messages count from the start of the section.
template <class Point>
void decode_section(const parameter_layout& layout, const section& s, std::uint64_t first, std::span<Point> out,
                    bool check_subgroup) {
  constexpr bool g2 = std::is_same_v<Point, ec::g2_affine>;
  const ec::batch_decode_options bopt{.check_subgroup = check_subgroup, .parallel = true};
  const std::span<const std::uint8_t> in =
      s.bytes.subspan(std::size_t(first * s.point_size), out.size() * s.point_size);
  ec::batch_decode_result r;
  if constexpr (g2) r = ec::decode_g2s_uncompressed(in, out, bopt);
  else r = ec::decode_g1s_uncompressed(in, out, bopt);
  const char* kind = kind_name(layout.kind());
  if (!r) {
    const std::uint64_t i = first + (r.index == ec::batch_decode_result::no_index ? 0 : r.index);
    throw format_error(kind, layout.label(), quoted_section(s.name), s.offset + i * s.point_size,
                       "point " + std::to_string(i) + " of " + std::to_string(s.count) + " (" + (g2 ? "G2" : "G1") +
                           "): " + std::string(ec::decode_error_message(r.error)));
  }
  if (infinity_forbidden(s.name)) {
    const std::size_t j = first_infinity<Point>(out);
    if (j != out.size()) {
      const std::uint64_t i = first + j;
      throw format_error(kind, layout.label(), quoted_section(s.name), s.offset + i * s.point_size,
                         "point " + std::to_string(i) + " of " + std::to_string(s.count) +
                             " is the point at infinity, which is not allowed in '" + std::string(s.name) +
                             "' (bellperson rejects it)");
    }
  }
}

template <class Point>
void decode_section(const parameter_layout& layout, const section& s, std::span<Point> out, bool check_subgroup) {
  decode_section(layout, s, 0, out, check_subgroup);
}

template <class Point>
void decode_range_checked(const parameter_layout& layout, const section& s, std::uint64_t first, std::span<Point> out,
                          const read_options& opt) {
  constexpr bool g2 = std::is_same_v<Point, ec::g2_affine>;
  if (s.is_g2() != g2)
    throw std::invalid_argument("decode_section_range: section '" + std::string(s.name) + "' holds " +
                                (s.is_g2() ? "G2" : "G1") + " points");
  if (first > s.count || out.size() > s.count - first)
    throw std::out_of_range("decode_section_range: points [" + std::to_string(first) + ", " +
                            std::to_string(first + out.size()) + ") of section '" + std::string(s.name) +
                            "', which holds " + std::to_string(s.count));
  decode_section(layout, s, first, out, opt.check_points);
}

/// Where each section's points go.
struct decode_target {
  const section* sec;
  std::span<ec::g1_affine> g1;
  std::span<ec::g2_affine> g2;
};

/// Decodes every target in parallel; rethrows the first failure in file order.
void decode_all(const parameter_layout& layout, std::span<const decode_target> targets, bool check_subgroup) {
  std::vector<std::exception_ptr> errors(targets.size());
  tbb::parallel_for(std::size_t(0), targets.size(), [&](std::size_t k) {
    try {
      const auto& t = targets[k];
      if (t.sec->is_g2()) decode_section(layout, *t.sec, t.g2, check_subgroup);
      else decode_section(layout, *t.sec, t.g1, check_subgroup);
    } catch (...) {
      errors[k] = std::current_exception();
    }
  });
  for (const auto& e : errors)
    if (e) std::rethrow_exception(e);
}

void add_vk_targets(const parameter_layout& layout, groth16::verifying_key& vk, std::vector<decode_target>& targets) {
  auto one_g1 = [&](std::string_view n, ec::g1_affine& p) { targets.push_back({&layout.at(n), std::span(&p, 1), {}}); };
  auto one_g2 = [&](std::string_view n, ec::g2_affine& p) { targets.push_back({&layout.at(n), {}, std::span(&p, 1)}); };
  one_g1("alpha_g1", vk.alpha_g1);
  one_g1("beta_g1", vk.beta_g1);
  one_g2("beta_g2", vk.beta_g2);
  one_g2("gamma_g2", vk.gamma_g2);
  one_g1("delta_g1", vk.delta_g1);
  one_g2("delta_g2", vk.delta_g2);
  const section& ic = layout.at("ic");
  vk.ic.resize(static_cast<std::size_t>(ic.count));
  targets.push_back({&ic, vk.ic, {}});
}

// ---- writing ------------------------------------------------------------------

/// Fixed-size staging buffer in front of an ostream.
class buffered_writer {
 public:
  static constexpr std::size_t capacity = std::size_t(4) << 20;

  explicit buffered_writer(std::ostream& out) : _out(out), _buf(new std::uint8_t[capacity]) {}

  /// Room for |n| <= capacity bytes at the end of the buffer.
  std::uint8_t* reserve(std::size_t n) {
    if (_used + n > capacity) flush();
    return _buf.get() + _used;
  }
  void commit(std::size_t n) { _used += n; }

  void put_u32(std::uint64_t v, std::string_view what) {
    if (v > std::numeric_limits<std::uint32_t>::max())
      throw std::length_error("cannot write '" + std::string(what) + "': " + std::to_string(v) +
                              " points do not fit the u32 length field");
    std::uint8_t* p = reserve(4);
    p[0] = std::uint8_t(v >> 24);
    p[1] = std::uint8_t(v >> 16);
    p[2] = std::uint8_t(v >> 8);
    p[3] = std::uint8_t(v);
    commit(4);
  }

  template <class Point>
  void put_points(std::span<const Point> pts) {
    constexpr bool g2 = std::is_same_v<Point, ec::g2_affine>;
    constexpr std::size_t size = g2 ? g2_size : g1_size;
    constexpr std::size_t chunk = capacity / size;
    for (std::size_t start = 0; start < pts.size(); start += chunk) {
      const std::size_t n = std::min(chunk, pts.size() - start);
      std::uint8_t* dst = reserve(n * size);
      tbb::parallel_for(tbb::blocked_range<std::size_t>(0, n, 1024), [&](const tbb::blocked_range<std::size_t>& r) {
        for (std::size_t i = r.begin(); i != r.end(); ++i) {
          if constexpr (g2) {
            const auto e = ec::encode_g2_uncompressed(pts[start + i]);
            std::memcpy(dst + i * size, e.data(), size);
          } else {
            const auto e = ec::encode_g1_uncompressed(pts[start + i]);
            std::memcpy(dst + i * size, e.data(), size);
          }
        }
      });
      commit(n * size);
    }
  }

  void flush() {
    if (_used == 0) return;
    _out.write(reinterpret_cast<const char*>(_buf.get()), std::streamsize(_used));
    if (!_out) throw std::runtime_error("parameter file write failed");
    _used = 0;
  }

 private:
  std::ostream& _out;
  std::unique_ptr<std::uint8_t[]> _buf;
  std::size_t _used = 0;
};

void put_verifying_key(buffered_writer& w, const groth16::verifying_key& vk) {
  w.put_points<ec::g1_affine>(std::span(&vk.alpha_g1, 1));
  w.put_points<ec::g1_affine>(std::span(&vk.beta_g1, 1));
  w.put_points<ec::g2_affine>(std::span(&vk.beta_g2, 1));
  w.put_points<ec::g2_affine>(std::span(&vk.gamma_g2, 1));
  w.put_points<ec::g1_affine>(std::span(&vk.delta_g1, 1));
  w.put_points<ec::g2_affine>(std::span(&vk.delta_g2, 1));
  w.put_u32(vk.ic.size(), "ic");
  w.put_points<ec::g1_affine>(vk.ic);
}

// ---- digests --------------------------------------------------------------------

struct evp_ctx {
  EVP_MD_CTX* ctx = EVP_MD_CTX_new();
  evp_ctx() {
    if (!ctx || EVP_DigestInit_ex(ctx, EVP_blake2b512(), nullptr) != 1)
      throw std::runtime_error("OpenSSL: cannot initialise BLAKE2b-512");
  }
  evp_ctx(const evp_ctx&) = delete;
  evp_ctx& operator=(const evp_ctx&) = delete;
  ~evp_ctx() { EVP_MD_CTX_free(ctx); }

  void update(const void* p, std::size_t n) {
    if (EVP_DigestUpdate(ctx, p, n) != 1) throw std::runtime_error("OpenSSL: BLAKE2b update failed");
  }
  /// First 16 bytes of the 64-byte digest as 32 lowercase hex chars.
  std::string hex16() {
    std::array<unsigned char, EVP_MAX_MD_SIZE> md{};
    unsigned int len = 0;
    if (EVP_DigestFinal_ex(ctx, md.data(), &len) != 1 || len != 64)
      throw std::runtime_error("OpenSSL: BLAKE2b final failed");
    return to_hex({md.data(), 16});
  }
};

}  // namespace

// ---- parameter_layout ---------------------------------------------------------

parameter_layout parameter_layout::parse(std::span<const std::uint8_t> bytes, parameter_file_kind kind,
                                         std::string_view label) {
  parameter_layout l;
  l._kind = kind;
  l._bytes = bytes;
  l._label = std::string(label);
  l._sections.reserve(12);
  layout_walker w(bytes, kind, l._label, l._sections);
  w.single("alpha_g1", g1_size);
  w.single("beta_g1", g1_size);
  w.single("beta_g2", g2_size);
  w.single("gamma_g2", g2_size);
  w.single("delta_g1", g1_size);
  w.single("delta_g2", g2_size);
  w.vector("ic", g1_size);
  if (kind == parameter_file_kind::parameters) {
    w.vector("h", g1_size);
    w.vector("l", g1_size);
    w.vector("a", g1_size);
    w.vector("b_g1", g1_size);
    w.vector("b_g2", g2_size);
  }
  w.finish();
  return l;
}

const section* parameter_layout::find(std::string_view name) const noexcept {
  for (const auto& s : _sections)
    if (s.name == name) return &s;
  return nullptr;
}

const section& parameter_layout::at(std::string_view name) const {
  if (const section* s = find(name)) return *s;
  throw std::out_of_range("parameter file '" + _label + "' has no section '" + std::string(name) + "'");
}

// ---- mapped_parameter_file ----------------------------------------------------

mapped_parameter_file::mapped_parameter_file(const std::filesystem::path& path, parameter_file_kind kind)
    : _path(path), _map(path, kind_name(kind)) {
  _layout = parameter_layout::parse(bytes(), kind, path.string());
}

// ---- reading ----------------------------------------------------------------------

groth16::verifying_key decode_verifying_key(const parameter_layout& layout, const read_options& opt) {
  groth16::verifying_key vk;
  std::vector<decode_target> targets;
  add_vk_targets(layout, vk, targets);
  decode_all(layout, targets, opt.check_points);
  return vk;
}

groth16::parameters decode_parameters(const parameter_layout& layout, const read_options& opt) {
  if (layout.kind() != parameter_file_kind::parameters)
    throw std::invalid_argument("decode_parameters: '" + layout.label() + "' was parsed as a .vk, not a .params");
  groth16::parameters p;
  std::vector<decode_target> targets;
  add_vk_targets(layout, p.vk, targets);
  auto g1s = [&](std::string_view n, std::vector<ec::g1_affine>& v) {
    const section& s = layout.at(n);
    v.resize(static_cast<std::size_t>(s.count));
    targets.push_back({&s, v, {}});
  };
  g1s("h", p.h);
  g1s("l", p.l);
  g1s("a", p.a);
  g1s("b_g1", p.b_g1);
  const section& b2 = layout.at("b_g2");
  p.b_g2.resize(static_cast<std::size_t>(b2.count));
  targets.push_back({&b2, {}, p.b_g2});
  decode_all(layout, targets, opt.check_points);
  return p;
}

void decode_section_range(const parameter_layout& layout, const section& s, std::uint64_t first,
                          std::span<ec::g1_affine> out, const read_options& opt) {
  decode_range_checked(layout, s, first, out, opt);
}

void decode_section_range(const parameter_layout& layout, const section& s, std::uint64_t first,
                          std::span<ec::g2_affine> out, const read_options& opt) {
  decode_range_checked(layout, s, first, out, opt);
}

namespace {
void maybe_check_digest(const std::filesystem::path& path, const read_options& opt) {
  if (!opt.check_digest) return;
  if (opt.parameters_json_path.empty())
    throw std::invalid_argument("read_options::check_digest needs parameters_json_path");
  verify_digest(path, opt.parameters_json_path);
}
}  // namespace

groth16::parameters read_parameters(const std::filesystem::path& path, const read_options& opt) {
  maybe_check_digest(path, opt);
  const mapped_parameter_file file(path, parameter_file_kind::parameters);
  return decode_parameters(file.layout(), opt);
}

groth16::verifying_key read_verifying_key(const std::filesystem::path& path, const read_options& opt) {
  maybe_check_digest(path, opt);
  const mapped_parameter_file file(path, parameter_file_kind::verifying_key);
  return decode_verifying_key(file.layout(), opt);
}

groth16::verifying_key read_verifying_key(std::span<const std::uint8_t> bytes, const read_options& opt,
                                          std::string_view label) {
  if (opt.check_digest) throw std::invalid_argument("read_verifying_key: check_digest needs a file, not bytes");
  const auto layout = parameter_layout::parse(bytes, parameter_file_kind::verifying_key, label);
  return decode_verifying_key(layout, opt);
}

// ---- writing ----------------------------------------------------------------------

void write_verifying_key(const groth16::verifying_key& vk, std::ostream& out) {
  buffered_writer w(out);
  put_verifying_key(w, vk);
  w.flush();
}

void write_verifying_key(const groth16::verifying_key& vk, const std::filesystem::path& path) {
  detail::write_file_atomically(path, "vk", [&](std::ostream& out) { write_verifying_key(vk, out); });
}

void write_parameters(const groth16::parameters& params, std::ostream& out) {
  buffered_writer w(out);
  put_verifying_key(w, params.vk);
  w.put_u32(params.h.size(), "h");
  w.put_points<ec::g1_affine>(params.h);
  w.put_u32(params.l.size(), "l");
  w.put_points<ec::g1_affine>(params.l);
  w.put_u32(params.a.size(), "a");
  w.put_points<ec::g1_affine>(params.a);
  w.put_u32(params.b_g1.size(), "b_g1");
  w.put_points<ec::g1_affine>(params.b_g1);
  w.put_u32(params.b_g2.size(), "b_g2");
  w.put_points<ec::g2_affine>(params.b_g2);
  w.flush();
}

void write_parameters(const groth16::parameters& params, const std::filesystem::path& path) {
  detail::write_file_atomically(path, "params", [&](std::ostream& out) { write_parameters(params, out); });
}

// ---- parameter_file_writer ---------------------------------------------------------

struct parameter_file_writer::impl {
  std::filesystem::path path, tmp;
  std::ofstream out;
  std::unique_ptr<buffered_writer> w;
  std::array<std::uint64_t, 5> want{}, have{};
  std::size_t current = 0;  // section being written: 0..3 G1 (h, l, a, b_g1), 4 b_g2
  bool finished = false;

  static constexpr std::array<const char*, 5> names = {"h", "l", "a", "b_g1", "b_g2"};

  /// Moves past complete sections up to |last|, writing each next one's length field.
  void advance(std::size_t last) {
    while (current < last && have[current] == want[current]) {
      ++current;
      w->put_u32(want[current], names[current]);
    }
  }
};

parameter_file_writer::parameter_file_writer(const std::filesystem::path& path, const groth16::verifying_key& vk,
                                             const counts& n)
    : _impl(std::make_unique<impl>()) {
  impl& d = *_impl;
  d.path = path;
  d.want = {n.h, n.l, n.a, n.b_g1, n.b_g2};
  for (std::size_t k = 0; k < d.want.size(); ++k)
    if (d.want[k] > std::numeric_limits<std::uint32_t>::max())
      throw std::length_error("cannot write '" + std::string(impl::names[k]) + "': " + std::to_string(d.want[k]) +
                              " points do not fit the u32 length field");
  detail::remove_orphaned_temporaries(path);  // a writer killed mid-file left up to ~47 GB
  d.tmp = detail::temporary_path_for(path);
  d.out.open(d.tmp, std::ios::binary | std::ios::trunc);
  if (!d.out)
    throw format_error("params", path.string(), "", format_error::no_offset,
                       "cannot create '" + d.tmp.string() + "': " + std::strerror(errno));
  d.w = std::make_unique<buffered_writer>(d.out);
  put_verifying_key(*d.w, vk);
  d.w->put_u32(d.want[0], "h");
}

parameter_file_writer::~parameter_file_writer() {
  if (!_impl || _impl->finished) return;
  _impl->out.close();
  std::error_code ec;
  std::filesystem::remove(_impl->tmp, ec);
}

void parameter_file_writer::append_g1(std::span<const ec::g1_affine> pts) {
  impl& d = *_impl;
  std::size_t at = 0;
  while (at < pts.size()) {
    d.advance(3);
    if (d.current > 3 || d.have[d.current] == d.want[d.current])
      throw std::logic_error("parameter_file_writer: " + std::to_string(pts.size() - at) +
                             " G1 points past the end of section 'b_g1'");
    const std::size_t n = std::size_t(std::min<std::uint64_t>(pts.size() - at, d.want[d.current] - d.have[d.current]));
    d.w->put_points<ec::g1_affine>(pts.subspan(at, n));
    d.have[d.current] += n;
    at += n;
  }
}

void parameter_file_writer::append_g2(std::span<const ec::g2_affine> pts) {
  impl& d = *_impl;
  d.advance(4);
  if (d.current != 4)
    throw std::logic_error(std::string("parameter_file_writer: G2 points while section '") + impl::names[d.current] +
                           "' is incomplete");
  if (pts.size() > d.want[4] - d.have[4])
    throw std::logic_error("parameter_file_writer: " + std::to_string(pts.size()) +
                           " G2 points past the end of section 'b_g2'");
  d.w->put_points<ec::g2_affine>(pts);
  d.have[4] += pts.size();
}

void parameter_file_writer::finish() {
  impl& d = *_impl;
  if (d.finished) throw std::logic_error("parameter_file_writer: finish() called twice");
  d.advance(4);
  for (std::size_t k = 0; k < d.want.size(); ++k)
    if (d.have[k] != d.want[k])
      throw std::logic_error("parameter_file_writer: section '" + std::string(impl::names[k]) + "' has " +
                             std::to_string(d.have[k]) + " of its " + std::to_string(d.want[k]) + " points");
  d.w->flush();
  d.out.flush();
  if (!d.out) throw format_error("params", d.path.string(), "", format_error::no_offset, "write failed");
  d.out.close();
  detail::commit_temporary(d.tmp, d.path, "params");
  d.finished = true;
}

void write_meta(const std::filesystem::path& path, std::uint64_t sector_size) {
  const std::string text = nlohmann::json{{"sector_size", sector_size}}.dump();
  detail::write_file_atomically(path, "meta", [&](std::ostream& out) { out << text; });
}

std::uint64_t read_meta(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    throw format_error("meta", path.string(), "", format_error::no_offset,
                       std::string("cannot open: ") + std::strerror(errno));
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(in);
  } catch (const nlohmann::json::parse_error& e) {
    throw format_error("meta", path.string(), "JSON syntax", e.byte, e.what());
  } catch (const nlohmann::json::exception& e) {  // out_of_range: a number literal beyond a double
    throw format_error("meta", path.string(), "JSON syntax", format_error::no_offset, e.what());
  }
  if (!j.is_object() || !j.contains("sector_size") || !j["sector_size"].is_number_unsigned())
    throw format_error("meta", path.string(), "", format_error::no_offset,
                       "expected {\"sector_size\": <unsigned integer>}");
  return j["sector_size"].get<std::uint64_t>();
}

// ---- digests and parameters.json -------------------------------------------------

digest_error::digest_error(std::string file, std::string expected, std::string actual, const std::string& message)
    : std::runtime_error(message), _file(std::move(file)), _expected(std::move(expected)), _actual(std::move(actual)) {}

std::map<std::string, parameter_entry> read_parameters_json(const std::filesystem::path& path) {
  const std::string kind = "parameters.json";
  std::ifstream in(path, std::ios::binary);
  if (!in)
    throw format_error(kind, path.string(), "", format_error::no_offset,
                       std::string("cannot open: ") + std::strerror(errno));
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(in);
  } catch (const nlohmann::json::parse_error& e) {
    throw format_error(kind, path.string(), "JSON syntax", e.byte, e.what());
  } catch (const nlohmann::json::exception& e) {  // out_of_range: a number literal beyond a double
    throw format_error(kind, path.string(), "JSON syntax", format_error::no_offset, e.what());
  }
  auto bad = [&](const std::string& where, const std::string& detail) -> format_error {
    return format_error(kind, path.string(), where, format_error::no_offset, detail);
  };
  if (!j.is_object()) throw bad("", "expected an object of file name -> entry");
  std::map<std::string, parameter_entry> out;
  for (const auto& [name, v] : j.items()) {
    const std::string where = "entry '" + name + "'";
    if (!v.is_object()) throw bad(where, "expected an object {cid, digest, sector_size}");
    parameter_entry e;
    if (v.contains("cid")) {
      if (!v["cid"].is_string()) throw bad(where, "'cid' is not a string");
      e.cid = v["cid"].get<std::string>();
    }
    if (v.contains("digest")) {
      if (!v["digest"].is_string()) throw bad(where, "'digest' is not a string");
      e.digest = v["digest"].get<std::string>();
    }
    if (v.contains("sector_size")) {
      if (!v["sector_size"].is_number_unsigned()) throw bad(where, "'sector_size' is not an unsigned integer");
      e.sector_size = v["sector_size"].get<std::uint64_t>();
    }
    out.emplace(name, std::move(e));
  }
  return out;
}

std::string bytes_digest(std::span<const std::uint8_t> bytes) {
  evp_ctx ctx;
  ctx.update(bytes.data(), bytes.size());
  return ctx.hex16();
}

std::string file_digest(const std::filesystem::path& path) {
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> f(std::fopen(path.c_str(), "rb"), &std::fclose);
  if (!f)
    throw format_error(kind_of_path(path), path.string(), "", format_error::no_offset,
                       std::string("cannot open for hashing: ") + std::strerror(errno));
  evp_ctx ctx;
  constexpr std::size_t chunk = std::size_t(4) << 20;
  std::unique_ptr<std::uint8_t[]> buf(new std::uint8_t[chunk]);
  for (;;) {
    const std::size_t n = std::fread(buf.get(), 1, chunk, f.get());
    if (n > 0) ctx.update(buf.get(), n);
    if (n < chunk) {
      if (std::ferror(f.get()))
        throw format_error(kind_of_path(path), path.string(), "", format_error::no_offset, "read error while hashing");
      break;
    }
  }
  return ctx.hex16();
}

digest_check verify_digest(const std::filesystem::path& file, const std::filesystem::path& parameters_json) {
  const auto entries = read_parameters_json(parameters_json);
  const std::string name = file.filename().string();
  const auto it = entries.find(name);
  digest_check out;
  if (it == entries.end()) {
    out.result = digest_check::status::no_entry;
    out.message = "'" + file.string() + "': no entry for '" + name + "' in '" + parameters_json.string() +
                  "'; digest not checked";
    return out;
  }
  const std::string& expected = it->second.digest;
  out.digest = file_digest(file);
  if (expected.empty())
    throw digest_error(file.string(), expected, out.digest,
                       "'" + file.string() + "': the entry for '" + name + "' in '" + parameters_json.string() +
                           "' has no digest (actual digest " + out.digest + ")");
  if (expected != out.digest)
    throw digest_error(file.string(), expected, out.digest,
                       "'" + file.string() + "': digest mismatch: parameters.json expects " + expected +
                           ", the file has " + out.digest);
  out.result = digest_check::status::match;
  out.message = "'" + file.string() + "': digest " + out.digest + " matches '" + parameters_json.string() + "'";
  return out;
}

namespace {
/// "dev ino size mtime_ns" of |file|, or "" when it cannot be stat'ed.
std::string file_identity_text(const std::filesystem::path& file) {
  struct stat st {};
  if (::stat(file.c_str(), &st) != 0) return {};
  return std::to_string(st.st_dev) + " " + std::to_string(st.st_ino) + " " + std::to_string(st.st_size) + " " +
         std::to_string(std::int64_t(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec);
}
}  // namespace

digest_check verify_digest_recorded(const std::filesystem::path& file, const std::filesystem::path& parameters_json) {
  std::filesystem::path record = file;
  record += ".verified";
  const std::string id = file_identity_text(file);
  if (!id.empty()) {
    std::ifstream in(record);
    std::string line;
    if (std::getline(in, line) && line.size() > id.size() + 1 && line.compare(0, id.size() + 1, id + " ") == 0) {
      digest_check out;
      out.digest = line.substr(id.size() + 1);
      out.message = "'" + file.string() + "': digest " + out.digest + " matched before (" + record.filename().string() +
                    ", same file identity)";
      return out;
    }
  }
  digest_check out = verify_digest(file, parameters_json);
  if (out.result == digest_check::status::match && !id.empty()) {
    try {
      detail::write_file_atomically(record, "verified", [&](std::ostream& o) { o << id << " " << out.digest << "\n"; });
    } catch (const std::exception&) {
      // read-only param_cache: hashed again next time
    }
  }
  return out;
}

}  // namespace cuzk::io
