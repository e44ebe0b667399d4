// SPDX-License-Identifier: Apache-2.0
// The .shape file (layout, checks and costs in include/cuzk/io/shape_file.hpp).
//
// Both directions see the payload as a list of segments (a section's bytes
// in memory and its offset in the payload) and the digest as a hash of
// fixed chunks of the payload: chunk k hashes the parts of the segments that
// fall in [k * chunk, (k + 1) * chunk). Writing hashes the chunks in
// parallel from memory, then streams the header and the segments through
// the atomic writer. Reading allocates the vectors from the header's counts
// (already checked against the file's length, so a corrupt count cannot
// make it allocate more than the file holds), then each parallel task
// preads one chunk straight into the vectors and hashes what it read.

#include <cuzk/io/shape_file.hpp>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <bit>
#include <cerrno>
#include <cstring>
#include <exception>
#include <limits>
#include <ostream>
#include <span>
#include <stdexcept>
#include <type_traits>
#include <vector>

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>
#include <tbb/parallel_reduce.h>

#include <cuzk/gadgets/native_sha256.hpp>
#include <cuzk/io/format_error.hpp>
#include <cuzk/io/hex.hpp>

#include "atomic_write.hpp"

namespace cuzk::io {

namespace {

using r1cs::csr_matrix;
using r1cs::fr;
using r1cs::r1cs_shape;
using sha256 = gadgets::native::sha256_hasher;
using digest = gadgets::native::sha256_digest;

static_assert(std::endian::native == std::endian::little, "the payload is the vectors' little-endian memory");
static_assert(sizeof(fr) == 32 && std::is_trivially_copyable_v<fr>, "an Fr is stored as its 32 bytes");

constexpr const char* kind = "shape";
constexpr std::array<char, 8> magic{'c', 'u', 'z', 'k', 's', 'h', 'a', 'p'};
constexpr std::size_t fixed_header_bytes = 120;
constexpr std::size_t digest_offset = 88;
constexpr std::uint32_t max_id_length = 256;
/// 64 MiB: ~140 chunks for the 8.9 GiB PoRep shape (enough tasks for 16+
/// cores), few enough that the list of chunk digests is small.
constexpr std::uint32_t chunk_log2 = 26;
constexpr std::uint32_t min_chunk_log2 = 16, max_chunk_log2 = 34;
/// Bounds that keep every size computation below 2^64 (and are far above
/// any Filecoin circuit: the 32 GiB PoRep has ~1.3e8 rows per partition).
constexpr std::uint64_t max_rows = std::uint64_t(1) << 40;
constexpr std::uint64_t max_nnz = std::uint64_t(1) << 44;
constexpr std::uint64_t max_variables = std::numeric_limits<std::uint32_t>::max();

template <class Byte>
struct segment {
  const char* name;
  std::uint64_t offset;  ///< in the payload
  Byte* data;
  std::uint64_t size;
};

std::uint64_t words_for(std::uint64_t bits) { return (bits + 63) / 64; }

/// The segments of a shape with the header's counts, in payload order.
/// |data(i, bytes)| supplies the memory of segment i.
template <class Byte, class Data>
std::vector<segment<Byte>> payload_segments(const shape_file_header& h, Data data) {
  const std::uint64_t rows = h.num_constraints + 1;
  struct piece {
    const char* name;
    std::uint64_t size;
  };
  // clang-format off
  const piece pieces[] = {
      {"coeffs", h.num_coeffs * 32},
      {"A row_ptr", rows * 8},       {"A cols", h.nnz_a * 4},          {"A coeff_ids", h.nnz_a * 4},
      {"B row_ptr", rows * 8},       {"B cols", h.nnz_b * 4},          {"B coeff_ids", h.nnz_b * 4},
      {"C row_ptr", rows * 8},       {"C cols", h.nnz_c * 4},          {"C coeff_ids", h.nnz_c * 4},
      {"a_aux_density", words_for(h.num_aux) * 8}, {"b_input_density", words_for(h.num_inputs) * 8},
      {"b_aux_density", words_for(h.num_aux) * 8},
  };
  // clang-format on
  std::vector<segment<Byte>> out;
  std::uint64_t off = 0;
  for (std::size_t i = 0; i < std::size(pieces); ++i) {
    out.push_back({pieces[i].name, off, data(i), pieces[i].size});
    off += pieces[i].size;
  }
  return out;
}

std::uint64_t payload_size(const shape_file_header& h) {
  const auto segs = payload_segments<const std::uint8_t>(h, [](std::size_t) { return nullptr; });
  return segs.back().offset + segs.back().size;
}

// ---- header bytes -------------------------------------------------------------------

void put_u32(std::uint8_t* p, std::uint32_t v) { std::memcpy(p, &v, 4); }
void put_u64(std::uint8_t* p, std::uint64_t v) { std::memcpy(p, &v, 8); }
std::uint32_t get_u32(const std::uint8_t* p) {
  std::uint32_t v;
  std::memcpy(&v, p, 4);
  return v;
}
std::uint64_t get_u64(const std::uint8_t* p) {
  std::uint64_t v;
  std::memcpy(&v, p, 8);
  return v;
}

/// Header bytes [0, 120) with a zero digest, then the circuit id.
std::vector<std::uint8_t> encode_header(const shape_file_header& h, std::uint32_t log2) {
  std::vector<std::uint8_t> b(fixed_header_bytes + h.key.circuit_id.size(), 0);
  std::memcpy(b.data(), magic.data(), magic.size());
  put_u32(&b[8], shape_file_format_version);
  put_u32(&b[12], h.key.shape_version);
  put_u32(&b[16], std::uint32_t(h.key.circuit_id.size()));
  put_u32(&b[20], log2);
  put_u64(&b[24], h.num_inputs);
  put_u64(&b[32], h.num_aux);
  put_u64(&b[40], h.num_constraints);
  put_u64(&b[48], h.num_coeffs);
  put_u64(&b[56], h.nnz_a);
  put_u64(&b[64], h.nnz_b);
  put_u64(&b[72], h.nnz_c);
  put_u64(&b[80], h.payload_bytes);
  std::memcpy(&b[fixed_header_bytes], h.key.circuit_id.data(), h.key.circuit_id.size());
  return b;
}

/// SHA-256 of each payload chunk, the chunks in parallel. |hash_chunk(k, h)|
/// feeds chunk k into |h| (and, when reading, fetches it first).
template <class F>
std::vector<digest> chunk_digests(std::uint64_t payload, std::uint32_t log2, F hash_chunk) {
  const std::uint64_t chunk = std::uint64_t(1) << log2;
  const std::size_t n = std::size_t((payload + chunk - 1) >> log2);
  std::vector<digest> out(n);
  std::vector<std::exception_ptr> errors(n);
  tbb::parallel_for(std::size_t(0), n, [&](std::size_t k) {
    try {
      sha256 h;
      hash_chunk(k, h);
      out[k] = h.finalize();
    } catch (...) {
      errors[k] = std::current_exception();
    }
  });
  for (const auto& e : errors)
    if (e) std::rethrow_exception(e);
  return out;
}

/// Calls |f(segment, begin, length)| for the parts of the segments inside
/// payload bytes [lo, hi), in order.
template <class Byte, class F>
void for_parts(const std::vector<segment<Byte>>& segs, std::uint64_t lo, std::uint64_t hi, F f) {
  for (const auto& s : segs) {
    const std::uint64_t b = std::max(lo, s.offset), e = std::min(hi, s.offset + s.size);
    if (b < e) f(s, b - s.offset, e - b);
  }
}

digest file_digest(std::span<const std::uint8_t> header_bytes, const std::vector<digest>& chunks) {
  sha256 h;
  h.update(header_bytes.first(digest_offset));
  h.update(header_bytes.subspan(fixed_header_bytes));
  for (const digest& d : chunks) h.update(d);
  return h.finalize();
}

// ---- checked arithmetic and errors ----------------------------------------------------

[[noreturn]] void fail(const std::filesystem::path& path, const std::string& section, std::uint64_t offset,
                       const std::string& detail) {
  throw format_error(kind, path.string(), section, offset, detail);
}

std::string n(std::uint64_t v) { return std::to_string(v); }

struct open_file {
  int fd = -1;
  std::uint64_t size = 0;
  open_file(const std::filesystem::path& path) {
    fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) fail(path, "", format_error::no_offset, std::string("cannot open: ") + std::strerror(errno));
    struct stat st {};
    if (::fstat(fd, &st) != 0) {
      const int err = errno;
      ::close(fd);
      fail(path, "", format_error::no_offset, std::string("cannot stat: ") + std::strerror(err));
    }
    if (!S_ISREG(st.st_mode)) {
      ::close(fd);
      fail(path, "", format_error::no_offset, "not a regular file");
    }
    size = std::uint64_t(st.st_size);
  }
  open_file(const open_file&) = delete;
  open_file& operator=(const open_file&) = delete;
  ~open_file() { ::close(fd); }
};

/// Reads exactly |len| bytes at |off| (pread may return less per call).
void read_exactly(const open_file& f, const std::filesystem::path& path, const char* section, std::uint64_t off,
                  std::uint8_t* dst, std::uint64_t len) {
  while (len > 0) {
    const std::size_t ask = std::size_t(std::min<std::uint64_t>(len, std::uint64_t(1) << 30));
    const ssize_t got = ::pread(f.fd, dst, ask, off_t(off));
    if (got < 0) {
      if (errno == EINTR) continue;
      fail(path, section, off, std::string("read failed: ") + std::strerror(errno));
    }
    if (got == 0) fail(path, section, off, "truncated while reading (the file shrank under the reader)");
    dst += got;
    off += std::uint64_t(got);
    len -= std::uint64_t(got);
  }
}

/// The decoded and checked header of |f|, and its bytes (for the digest).
shape_file_header parse_header(const open_file& f, const std::filesystem::path& path, std::vector<std::uint8_t>& bytes,
                               std::uint32_t& log2, digest& stored) {
  if (f.size < fixed_header_bytes)
    fail(path, "header", 0, "truncated: " + n(f.size) + " bytes, the header alone needs " + n(fixed_header_bytes));
  bytes.resize(fixed_header_bytes);
  read_exactly(f, path, "header", 0, bytes.data(), fixed_header_bytes);
  const std::uint8_t* b = bytes.data();
  if (std::memcmp(b, magic.data(), magic.size()) != 0) fail(path, "header", 0, "not a cuzk shape file (bad magic)");
  const std::uint32_t version = get_u32(b + 8);
  if (version != shape_file_format_version)
    fail(path, "header", 8,
         "format version " + n(version) + ", this build reads version " + n(shape_file_format_version));
  shape_file_header h;
  h.key.shape_version = get_u32(b + 12);
  const std::uint32_t id_len = get_u32(b + 16);
  if (id_len == 0 || id_len > max_id_length)
    fail(path, "header", 16, "circuit id length " + n(id_len) + " is not in [1, " + n(max_id_length) + "]");
  log2 = get_u32(b + 20);
  if (log2 < min_chunk_log2 || log2 > max_chunk_log2)
    fail(path, "header", 20,
         "digest chunk size 2^" + n(log2) + " is not in [2^" + n(min_chunk_log2) + ", 2^" + n(max_chunk_log2) + "]");
  h.num_inputs = get_u64(b + 24);
  h.num_aux = get_u64(b + 32);
  h.num_constraints = get_u64(b + 40);
  h.num_coeffs = get_u64(b + 48);
  h.nnz_a = get_u64(b + 56);
  h.nnz_b = get_u64(b + 64);
  h.nnz_c = get_u64(b + 72);
  h.payload_bytes = get_u64(b + 80);
  std::memcpy(stored.data(), b + digest_offset, stored.size());
  if (h.num_inputs == 0 || h.num_inputs > max_variables || h.num_aux > max_variables ||
      h.num_inputs + h.num_aux > max_variables)
    fail(path, "header", 24,
         n(h.num_inputs) + " inputs and " + n(h.num_aux) +
             " aux: need at least one input (ONE) and fewer than 2^32 variables");
  if (h.num_constraints >= max_rows) fail(path, "header", 40, n(h.num_constraints) + " constraints (at most 2^40)");
  if (h.num_coeffs < 2 || h.num_coeffs > max_variables)
    fail(path, "header", 48, n(h.num_coeffs) + " coefficients: the dictionary holds 1 and -1 and fewer than 2^32");
  for (const auto& [off, v] : {std::pair{56, h.nnz_a}, std::pair{64, h.nnz_b}, std::pair{72, h.nnz_c}})
    if (v >= max_nnz) fail(path, "header", std::uint64_t(off), n(v) + " non-zeros in one matrix (at most 2^44)");
  const std::uint64_t expected = payload_size(h);
  if (h.payload_bytes != expected)
    fail(path, "header", 80,
         "the header says " + n(h.payload_bytes) + " payload bytes, its counts need " + n(expected));
  const std::uint64_t total = fixed_header_bytes + id_len + expected;
  if (f.size < total)
    fail(path, "payload", f.size, "truncated: " + n(f.size) + " bytes, the header's counts need " + n(total));
  if (f.size > total) fail(path, "payload", total, n(f.size - total) + " trailing bytes after the payload");
  bytes.resize(fixed_header_bytes + id_len);
  read_exactly(f, path, "header", fixed_header_bytes, bytes.data() + fixed_header_bytes, id_len);
  h.key.circuit_id.assign(reinterpret_cast<const char*>(bytes.data() + fixed_header_bytes), id_len);
  return h;
}

// ---- structure ----------------------------------------------------------------------

constexpr std::uint64_t none = ~std::uint64_t(0);

/// Lowest i in [0, count) with bad(i), or |none|; in parallel.
template <class Bad>
std::uint64_t first_bad(std::uint64_t count, Bad bad) {
  return tbb::parallel_reduce(
      tbb::blocked_range<std::uint64_t>(0, count, 1 << 14), none,
      [&](const tbb::blocked_range<std::uint64_t>& r, std::uint64_t best) {
        for (std::uint64_t i = r.begin(); i != r.end() && i < best; ++i)
          if (bad(i)) return i;
        return best;
      },
      [](std::uint64_t a, std::uint64_t b) { return std::min(a, b); });
}

/// Checks one matrix; |segs| are its three segments (for offsets).
void check_matrix(const std::filesystem::path& path, std::uint64_t payload_at, const char* name, const csr_matrix& m,
                  const segment<std::uint8_t>* segs, std::uint64_t num_variables, std::uint64_t num_coeffs) {
  const std::string mat = std::string("matrix ") + name;
  const auto at = [&](int s, std::uint64_t index, std::uint64_t size) {
    return payload_at + segs[s].offset + index * size;
  };
  const std::uint64_t rows = m.rows(), nnz = m.nnz();
  if (m.row_ptr[0] != 0) fail(path, mat + " row_ptr", at(0, 0, 8), "row_ptr[0] is " + n(m.row_ptr[0]) + ", not 0");
  const std::uint64_t dec = first_bad(rows, [&](std::uint64_t i) { return m.row_ptr[i + 1] < m.row_ptr[i]; });
  if (dec != none)
    fail(path, mat + " row_ptr", at(0, dec + 1, 8),
         "row_ptr decreases at row " + n(dec) + " (" + n(m.row_ptr[dec]) + " then " + n(m.row_ptr[dec + 1]) + ")");
  if (m.row_ptr[rows] != nnz)
    fail(path, mat + " row_ptr", at(0, rows, 8),
         "row_ptr ends at " + n(m.row_ptr[rows]) + ", the matrix has " + n(nnz) + " non-zeros");
  // Rows in parallel; a row's entries in order (columns strictly increasing).
  const std::uint64_t bad_row = first_bad(rows, [&](std::uint64_t i) {
    std::uint64_t prev = none;
    for (std::uint64_t k = m.row_ptr[i]; k != m.row_ptr[i + 1]; ++k) {
      const std::uint64_t c = m.cols[k];
      if (c >= num_variables || (prev != none && c <= prev) || m.coeff_ids[k] >= num_coeffs) return true;
      prev = c;
    }
    return false;
  });
  if (bad_row == none) return;
  std::uint64_t prev = none;
  for (std::uint64_t k = m.row_ptr[bad_row]; k != m.row_ptr[bad_row + 1]; ++k) {
    const std::uint64_t c = m.cols[k];
    const std::string where = " (row " + n(bad_row) + ", non-zero " + n(k) + ")";
    if (c >= num_variables)
      fail(path, mat + " cols", at(1, k, 4),
           "column " + n(c) + " is not below num_variables " + n(num_variables) + where);
    if (prev != none && c <= prev)
      fail(path, mat + " cols", at(1, k, 4), "column " + n(c) + " after " + n(prev) + ": not increasing" + where);
    if (m.coeff_ids[k] >= num_coeffs)
      fail(path, mat + " coeff_ids", at(2, k, 4),
           "coefficient id " + n(m.coeff_ids[k]) + " is not below the dictionary size " + n(num_coeffs) + where);
    prev = c;
  }
}

void check_coeffs(const std::filesystem::path& path, std::uint64_t at, const std::vector<fr>& coeffs) {
  const std::uint64_t bad =
      first_bad(coeffs.size(), [&](std::uint64_t i) { return ff::detail::geq(coeffs[i].raw(), fr::modulus); });
  if (bad != none) fail(path, "coeffs", at + bad * 32, "coefficient " + n(bad) + " is not reduced (>= p)");
  if (coeffs[r1cs_shape::coeff_one] != fr::one()) fail(path, "coeffs", at, "coefficient 0 is not 1");
  if (coeffs[r1cs_shape::coeff_minus_one] != -fr::one()) fail(path, "coeffs", at + 32, "coefficient 1 is not -1");
}

/// The density masks the matrices imply (shape_cs's rule: aux j is present
/// in A if some row of A has it; input i / aux j in B likewise), one pass
/// over the columns of A and B in parallel. Bits are set with relaxed
/// atomic ORs, each after a plain load so that words already set (the ONE
/// column of every row) are only read, not fought over.
struct implied_density {
  std::vector<std::uint64_t> a_aux, b_input, b_aux;
};
implied_density implied_masks(const r1cs_shape& s) {
  implied_density d{std::vector<std::uint64_t>(words_for(s.num_aux)),
                    std::vector<std::uint64_t>(words_for(s.num_inputs)),
                    std::vector<std::uint64_t>(words_for(s.num_aux))};
  const auto mark = [](std::vector<std::uint64_t>& w, std::uint64_t i) {
    std::atomic_ref<std::uint64_t> word(w[i >> 6]);
    const std::uint64_t bit = std::uint64_t(1) << (i & 63);
    if ((word.load(std::memory_order_relaxed) & bit) == 0) word.fetch_or(bit, std::memory_order_relaxed);
  };
  const std::uint64_t n_in = s.num_inputs;
  tbb::parallel_for(tbb::blocked_range<std::size_t>(0, s.a.nnz(), 1 << 16), [&](const auto& r) {
    for (std::size_t k = r.begin(); k != r.end(); ++k)
      if (s.a.cols[k] >= n_in) mark(d.a_aux, s.a.cols[k] - n_in);
  });
  tbb::parallel_for(tbb::blocked_range<std::size_t>(0, s.b.nnz(), 1 << 16), [&](const auto& r) {
    for (std::size_t k = r.begin(); k != r.end(); ++k) {
      const std::uint64_t c = s.b.cols[k];
      if (c >= n_in) mark(d.b_aux, c - n_in);
      else mark(d.b_input, c);
    }
  });
  return d;
}

/// |stored| must equal |implied| (the masks the matrices imply).
void check_density(const std::filesystem::path& path, const segment<std::uint8_t>& s, std::uint64_t payload_at,
                   const std::vector<std::uint64_t>& stored, const std::vector<std::uint64_t>& implied) {
  const std::uint64_t w = first_bad(stored.size(), [&](std::uint64_t i) { return stored[i] != implied[i]; });
  if (w == none) return;
  const std::uint64_t v = w * 64 + std::uint64_t(std::countr_zero(stored[w] ^ implied[w]));
  fail(path, s.name, payload_at + s.offset + w * 8,
       "variable " + n(v) + " is " + ((stored[w] >> (v & 63)) & 1 ? "marked present" : "not marked") +
           " but the matrices say it is " + ((implied[w] >> (v & 63)) & 1 ? "present" : "absent"));
}

/// The mask of |bits| variables from |words| (bits past |bits| must be zero).
r1cs::density_mask to_mask(const std::filesystem::path& path, const segment<std::uint8_t>& s, std::uint64_t payload_at,
                           const std::vector<std::uint64_t>& words, std::uint64_t bits) {
  if ((bits & 63) != 0 && (words.back() >> (bits & 63)) != 0)
    fail(path, s.name, payload_at + s.offset + (words.size() - 1) * 8,
         "bits set past variable " + n(bits) + " (the mask covers " + n(bits) + " variables)");
  r1cs::density_mask m(bits);
  // Set bits word by word: the mask keeps its words private; the cost is
  // one step per present variable, spread over the workers (distinct words,
  // so no two tasks touch the same one).
  tbb::parallel_for(tbb::blocked_range<std::size_t>(0, words.size(), 1 << 12),
                    [&](const tbb::blocked_range<std::size_t>& r) {
                      for (std::size_t w = r.begin(); w != r.end(); ++w)
                        for (std::uint64_t v = words[w]; v != 0; v &= v - 1)
                          m.set(w * 64 + std::size_t(std::countr_zero(v)));
                    });
  return m;
}

}  // namespace

// ---- writing --------------------------------------------------------------------------

void write_shape_file(const std::filesystem::path& path, const r1cs_shape& shape, const shape_key& key) {
  const auto bad = [&](const std::string& why) {
    return std::invalid_argument("write_shape_file '" + path.string() + "': " + why);
  };
  if (key.circuit_id.empty() || key.circuit_id.size() > max_id_length)
    throw bad("circuit id of " + n(key.circuit_id.size()) + " bytes (1 to " + n(max_id_length) + ")");
  if (shape.num_inputs == 0 || shape.num_variables() > max_variables)
    throw bad(n(shape.num_inputs) + " inputs and " + n(shape.num_aux) + " aux variables");
  if (shape.coeffs.size() < 2 || shape.coeffs.size() > max_variables)
    throw bad(n(shape.coeffs.size()) + " coefficients");
  for (const csr_matrix* m : {&shape.a, &shape.b, &shape.c})
    if (m->row_ptr.size() != shape.num_constraints + 1 || m->cols.size() != m->coeff_ids.size() ||
        m->row_ptr.back() != m->cols.size())
      throw bad("a matrix whose row_ptr, cols and coeff_ids disagree with each other or with num_constraints");
  if (shape.a_aux_density.size() != shape.num_aux || shape.b_aux_density.size() != shape.num_aux ||
      shape.b_input_density.size() != shape.num_inputs)
    throw bad("density masks of other lengths than num_aux / num_inputs / num_aux");

  shape_file_header h;
  h.key = key;
  h.num_inputs = shape.num_inputs;
  h.num_aux = shape.num_aux;
  h.num_constraints = shape.num_constraints;
  h.num_coeffs = shape.coeffs.size();
  h.nnz_a = shape.a.nnz();
  h.nnz_b = shape.b.nnz();
  h.nnz_c = shape.c.nnz();
  h.payload_bytes = payload_size(h);

  const auto bytes_of = [](const auto& v) { return reinterpret_cast<const std::uint8_t*>(v.data()); };
  // clang-format off
  const std::uint8_t* mem[] = {
      bytes_of(shape.coeffs),
      bytes_of(shape.a.row_ptr), bytes_of(shape.a.cols), bytes_of(shape.a.coeff_ids),
      bytes_of(shape.b.row_ptr), bytes_of(shape.b.cols), bytes_of(shape.b.coeff_ids),
      bytes_of(shape.c.row_ptr), bytes_of(shape.c.cols), bytes_of(shape.c.coeff_ids),
      bytes_of(shape.a_aux_density.words()), bytes_of(shape.b_input_density.words()),
      bytes_of(shape.b_aux_density.words()),
  };
  // clang-format on
  const auto segs = payload_segments<const std::uint8_t>(h, [&](std::size_t i) { return mem[i]; });

  std::vector<std::uint8_t> header = encode_header(h, chunk_log2);
  const std::uint64_t chunk = std::uint64_t(1) << chunk_log2;
  const auto chunks = chunk_digests(h.payload_bytes, chunk_log2, [&](std::size_t k, sha256& hs) {
    for_parts(segs, k * chunk, std::min(h.payload_bytes, (k + 1) * chunk),
              [&](const auto& s, std::uint64_t b, std::uint64_t len) {
                hs.update({s.data + b, std::size_t(len)});
              });
  });
  const digest d = file_digest(header, chunks);
  std::memcpy(&header[digest_offset], d.data(), d.size());

  detail::write_file_atomically(path, kind, [&](std::ostream& out) {
    const auto put = [&](const std::uint8_t* p, std::uint64_t len) {
      // pieces of 1 GiB: a streamsize is signed and some libc writes cap at 2 GiB
      for (std::uint64_t done = 0; done < len && out;) {
        const std::uint64_t step = std::min<std::uint64_t>(len - done, std::uint64_t(1) << 30);
        out.write(reinterpret_cast<const char*>(p + done), std::streamsize(step));
        done += step;
      }
    };
    put(header.data(), header.size());
    for (const auto& s : segs) put(s.data, s.size);
  });
}

// ---- reading --------------------------------------------------------------------------

shape_file_header read_shape_file_header(const std::filesystem::path& path) {
  const open_file f(path);
  std::vector<std::uint8_t> bytes;
  std::uint32_t log2 = 0;
  digest stored{};
  return parse_header(f, path, bytes, log2, stored);
}

r1cs_shape read_shape_file(const std::filesystem::path& path, const shape_key& expected) {
  const open_file f(path);
  std::vector<std::uint8_t> header;
  std::uint32_t log2 = 0;
  digest stored{};
  const shape_file_header h = parse_header(f, path, header, log2, stored);
  if (!(h.key == expected))
    fail(path, "header", 12,
         "holds circuit '" + h.key.circuit_id + "' shape version " + n(h.key.shape_version) + ", expected '" +
             expected.circuit_id + "' version " + n(expected.shape_version) + " (stale)");

  r1cs_shape s;
  s.num_inputs = h.num_inputs;
  s.num_aux = h.num_aux;
  s.num_constraints = h.num_constraints;
  s.coeffs.resize(h.num_coeffs);
  for (auto [m, nnz] : {std::pair{&s.a, h.nnz_a}, std::pair{&s.b, h.nnz_b}, std::pair{&s.c, h.nnz_c}}) {
    m->row_ptr.resize(h.num_constraints + 1);
    m->cols.resize(nnz);
    m->coeff_ids.resize(nnz);
  }
  std::vector<std::uint64_t> a_aux(words_for(h.num_aux)), b_in(words_for(h.num_inputs)), b_aux(words_for(h.num_aux));
  const auto bytes_of = [](auto& v) { return reinterpret_cast<std::uint8_t*>(v.data()); };
  std::uint8_t* mem[] = {
      bytes_of(s.coeffs),    bytes_of(s.a.row_ptr),   bytes_of(s.a.cols),      bytes_of(s.a.coeff_ids),
      bytes_of(s.b.row_ptr), bytes_of(s.b.cols),      bytes_of(s.b.coeff_ids), bytes_of(s.c.row_ptr),
      bytes_of(s.c.cols),    bytes_of(s.c.coeff_ids), bytes_of(a_aux),         bytes_of(b_in),
      bytes_of(b_aux),
  };
  const auto segs = payload_segments<std::uint8_t>(h, [&](std::size_t i) { return mem[i]; });
  const std::uint64_t payload_at = header.size();

  const std::uint64_t chunk = std::uint64_t(1) << log2;
  const auto chunks = chunk_digests(h.payload_bytes, log2, [&](std::size_t k, sha256& hs) {
    for_parts(segs, k * chunk, std::min(h.payload_bytes, (k + 1) * chunk),
              [&](const auto& sg, std::uint64_t b, std::uint64_t len) {
                read_exactly(f, path, sg.name, payload_at + sg.offset + b, sg.data + b, len);
                hs.update({sg.data + b, std::size_t(len)});
              });
  });
  const digest actual = file_digest(header, chunks);
  if (actual != stored)
    fail(path, "header", digest_offset,
         "digest mismatch: the header says " + to_hex(stored) + ", the contents hash to " + to_hex(actual) +
             " (the file is corrupt)");

  // The digest matched; the structure is checked anyway, so that a shape
  // that would index out of bounds never leaves this function whatever
  // wrote the file.
  check_coeffs(path, payload_at + segs[0].offset, s.coeffs);
  const std::uint64_t nv = s.num_variables();
  check_matrix(path, payload_at, "A", s.a, &segs[1], nv, h.num_coeffs);
  check_matrix(path, payload_at, "B", s.b, &segs[4], nv, h.num_coeffs);
  check_matrix(path, payload_at, "C", s.c, &segs[7], nv, h.num_coeffs);
  // Bits past the end first (the clearer message), then agreement with
  // the matrices; a mask that disagrees would pair the MSM's points with
  // the wrong variables.
  s.a_aux_density = to_mask(path, segs[10], payload_at, a_aux, h.num_aux);
  s.b_input_density = to_mask(path, segs[11], payload_at, b_in, h.num_inputs);
  s.b_aux_density = to_mask(path, segs[12], payload_at, b_aux, h.num_aux);
  const implied_density d = implied_masks(s);
  check_density(path, segs[10], payload_at, a_aux, d.a_aux);
  check_density(path, segs[11], payload_at, b_in, d.b_input);
  check_density(path, segs[12], payload_at, b_aux, d.b_aux);
  return s;
}

}  // namespace cuzk::io
