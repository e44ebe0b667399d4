// SPDX-License-Identifier: Apache-2.0
#pragma once
// Private helpers of the bincode readers and writers (PoSt and SnapDeals
// vanilla proofs): a cursor over the bytes that keeps the field path of what
// it is decoding, so every error is an io::format_error naming the field
// and the byte offset where decoding stopped; the MerkleProof (ProofData
// Single/Sub/Top) codec shared by both formats; and the little-endian
// writers. bincode 1 defaults: u64 LE lengths, u32 LE enum tags, usize as
// u64, 32-byte domains raw (see include/cuzk/io/post_vanilla.hpp).
// Cost: one pass over the bytes, one canonical check per domain.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <cuzk/io/format_error.hpp>
#include <cuzk/io/merkle_proof.hpp>

namespace cuzk::io::bincode {

inline constexpr std::size_t domain_size = 32;
// Smallest encodings, used to bound Vec lengths by the bytes that remain.
inline constexpr std::size_t min_path_element = 8 + 8;                    // empty hashes, index
inline constexpr std::size_t min_merkle_proof = 4 + 8 + 2 * domain_size;  // Single, empty path

class bincode_reader {
 public:
  bincode_reader(std::span<const std::uint8_t> bytes, std::string_view label, const char* kind)
      : _bytes(bytes), _label(label), _kind(kind) {}

  // ---- field path ----
  void push(std::string name) { _path.push_back(std::move(name)); }
  void pop() { _path.pop_back(); }
  void push_index(std::size_t i) {
    std::string& s = _path.back();
    s += '[';
    s += std::to_string(i);
    s += ']';
  }
  void pop_index() {
    std::string& s = _path.back();
    s.erase(s.rfind('['));
  }

  [[noreturn]] void fail(std::size_t offset, const std::string& detail) const {
    std::string where;
    for (const std::string& p : _path) {
      if (!where.empty()) where += '.';
      where += p;
    }
    throw format_error(_kind, std::string(_label), where, offset, detail);
  }

  std::size_t remaining() const noexcept { return _bytes.size() - _pos; }
  std::size_t offset() const noexcept { return _pos; }

  void need(std::size_t n, const char* what) const {
    if (remaining() < n)
      fail(_pos, std::string("truncated: ") + what + " needs " + std::to_string(n) + " bytes, " +
                     std::to_string(remaining()) + " left");
  }

  std::uint64_t u64(const char* what = "u64") {
    need(8, what);
    std::uint64_t v = 0;
    for (int i = 0; i < 8; ++i) v |= std::uint64_t(_bytes[_pos + std::size_t(i)]) << (8 * i);
    _pos += 8;
    return v;
  }

  std::uint32_t u32(const char* what = "u32") {
    need(4, what);
    std::uint32_t v = 0;
    for (int i = 0; i < 4; ++i) v |= std::uint32_t(_bytes[_pos + std::size_t(i)]) << (8 * i);
    _pos += 4;
    return v;
  }

  ff::fr domain(const char* name) {
    push(name);
    need(domain_size, "a 32-byte domain");
    const std::optional<ff::fr> v = ff::fr::from_bytes_le(_bytes.data() + _pos);
    if (!v) fail(_pos, "not a canonical field element (value >= r)");
    _pos += domain_size;
    pop();
    return *v;
  }

  // A Vec length that |min_element| bytes per element could still fit.
  std::size_t vec_len(std::size_t min_element) {
    const std::size_t at = _pos;
    const std::uint64_t n = u64("a Vec length");
    if (min_element != 0 && n > remaining() / min_element)
      fail(at, "truncated or corrupt: Vec length " + std::to_string(n) + " needs at least " +
                   std::to_string(min_element) + " bytes per element, " + std::to_string(remaining()) + " left");
    return std::size_t(n);
  }

  void finish() const {
    if (remaining() != 0) fail(_pos, std::to_string(remaining()) + " trailing bytes after the proof");
  }

 private:
  std::span<const std::uint8_t> _bytes;
  std::string_view _label;
  const char* _kind;
  std::size_t _pos = 0;
  std::vector<std::string> _path;
};

inline std::vector<merkle_path_element> read_inclusion_path(bincode_reader& r, const char* name) {
  r.push(std::string(name) + ".path");
  const std::size_t n = r.vec_len(min_path_element);
  std::vector<merkle_path_element> path(n);
  for (std::size_t i = 0; i < n; ++i) {
    r.push_index(i);
    r.push("hashes");
    const std::size_t h = r.vec_len(domain_size);
    path[i].hashes.reserve(h);
    for (std::size_t j = 0; j < h; ++j) {
      r.push_index(j);
      path[i].hashes.push_back(r.domain("value"));
      r.pop_index();
    }
    r.pop();
    r.push("index");
    path[i].index = r.u64("index");
    r.pop();
    r.pop_index();
  }
  r.pop();
  return path;
}

inline merkle_proof read_merkle_proof(bincode_reader& r) {
  merkle_proof p;
  r.push("data");
  const std::size_t tag_at = r.offset();
  const std::uint32_t tag = r.u32("the ProofData variant tag");
  if (tag > 2) r.fail(tag_at, "unknown ProofData variant tag " + std::to_string(tag) + " (0 Single, 1 Sub, 2 Top)");
  p.kind = merkle_proof_kind(tag);
  if (p.kind == merkle_proof_kind::single) {
    p.root = r.domain("root");
    p.leaf = r.domain("leaf");
    p.base = read_inclusion_path(r, "path");
  } else {
    p.base = read_inclusion_path(r, "base_proof");
    p.sub = read_inclusion_path(r, "sub_proof");
    if (p.kind == merkle_proof_kind::top) p.top = read_inclusion_path(r, "top_proof");
    p.root = r.domain("root");
    p.leaf = r.domain("leaf");
  }
  r.pop();
  return p;
}

// ---- writing ----

inline void put_u64(std::vector<std::uint8_t>& out, std::uint64_t v) {
  for (int i = 0; i < 8; ++i) out.push_back(std::uint8_t(v >> (8 * i)));
}
inline void put_u32(std::vector<std::uint8_t>& out, std::uint32_t v) {
  for (int i = 0; i < 4; ++i) out.push_back(std::uint8_t(v >> (8 * i)));
}
inline void put_domain(std::vector<std::uint8_t>& out, const ff::fr& v) {
  const std::size_t at = out.size();
  out.resize(at + domain_size);
  v.to_bytes_le(out.data() + at);
}
inline void put_path(std::vector<std::uint8_t>& out, const std::vector<merkle_path_element>& path) {
  put_u64(out, path.size());
  for (const merkle_path_element& e : path) {
    put_u64(out, e.hashes.size());
    for (const ff::fr& h : e.hashes) put_domain(out, h);
    put_u64(out, e.index);
  }
}
inline void put_merkle_proof(std::vector<std::uint8_t>& out, const merkle_proof& p) {
  put_u32(out, std::uint32_t(p.kind));
  if (p.kind == merkle_proof_kind::single) {
    put_domain(out, p.root);
    put_domain(out, p.leaf);
    put_path(out, p.base);
  } else {
    put_path(out, p.base);
    put_path(out, p.sub);
    if (p.kind == merkle_proof_kind::top) put_path(out, p.top);
    put_domain(out, p.root);
    put_domain(out, p.leaf);
  }
}

}  // namespace cuzk::io::bincode
