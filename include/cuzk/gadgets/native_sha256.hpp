// SPDX-License-Identifier: Apache-2.0
#pragma once
// Native SHA-256 through OpenSSL's EVP interface, and Filecoin's 254-bit
// truncation, after rust-fil-proofs `filecoin-hashers/src/sha256.rs`:
// Sha256Function::hash(data) = sha256(data) with byte 31 &= 0x3f
// (Sha256Domain::trim_to_fr32), and hash2(a, b) = the same over a || b.
// The trimmed digest, read as 32 little-endian bytes, is the field element
// the circuit side (sha256_hasher::hash_circuit in sha256.hpp) packs.
//
// Costs: OpenSSL's SHA-256 (SHA-NI where the CPU has it); one EVP context
// per hasher object. Errors from OpenSSL throw std::runtime_error.

#include <openssl/evp.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <span>
#include <stdexcept>

#include <cuzk/ff/bls12_381.hpp>

namespace cuzk::gadgets::native {

using sha256_digest = std::array<std::uint8_t, 32>;

/// Incremental SHA-256 (RAII over an EVP_MD_CTX).
class sha256_hasher {
 public:
  sha256_hasher() : _ctx(EVP_MD_CTX_new()) {
    if (!_ctx || EVP_DigestInit_ex(_ctx, EVP_sha256(), nullptr) != 1) {
      EVP_MD_CTX_free(_ctx);
      throw std::runtime_error("native sha256: EVP_DigestInit_ex failed");
    }
  }
  sha256_hasher(const sha256_hasher&) = delete;
  sha256_hasher& operator=(const sha256_hasher&) = delete;
  ~sha256_hasher() { EVP_MD_CTX_free(_ctx); }

  sha256_hasher& update(std::span<const std::uint8_t> data) {
    if (EVP_DigestUpdate(_ctx, data.data(), data.size()) != 1)
      throw std::runtime_error("native sha256: EVP_DigestUpdate failed");
    return *this;
  }

  /// The digest; the hasher is reset for a new message.
  sha256_digest finalize() {
    sha256_digest out;
    unsigned int len = 0;
    if (EVP_DigestFinal_ex(_ctx, out.data(), &len) != 1 || len != out.size() ||
        EVP_DigestInit_ex(_ctx, EVP_sha256(), nullptr) != 1)
      throw std::runtime_error("native sha256: EVP_DigestFinal_ex failed");
    return out;
  }

 private:
  EVP_MD_CTX* _ctx;
};

/// SHA-256 of |data|.
inline sha256_digest sha256(std::span<const std::uint8_t> data) { return sha256_hasher().update(data).finalize(); }

/// SHA-256 of the concatenation of |parts|.
inline sha256_digest sha256(std::initializer_list<std::span<const std::uint8_t>> parts) {
  sha256_hasher h;
  for (std::span<const std::uint8_t> p : parts) h.update(p);
  return h.finalize();
}

/// Clears the top two bits so that the little-endian value is < 2^254 < r
/// (Sha256Domain::trim_to_fr32).
inline void trim_to_fr32(sha256_digest& d) noexcept { d[31] &= 0x3f; }

/// Filecoin's Sha256Function::hash: SHA-256, then trim_to_fr32.
inline sha256_digest sha256_fr32(std::span<const std::uint8_t> data) {
  sha256_digest d = sha256(data);
  trim_to_fr32(d);
  return d;
}

/// Filecoin's Sha256Function::hash2: SHA-256 of a || b, then trim_to_fr32.
inline sha256_digest sha256_fr32(std::span<const std::uint8_t> a, std::span<const std::uint8_t> b) {
  sha256_digest d = sha256({a, b});
  trim_to_fr32(d);
  return d;
}

/// The field element whose little-endian bytes are |d| (|d| trimmed, so
/// it is always canonical).
inline ff::fr fr_from_fr32(const sha256_digest& d) {
  const std::optional<ff::fr> x = ff::fr::from_bytes_le(d.data());
  if (!x) throw std::invalid_argument("native sha256: digest is not a canonical Fr (not trimmed?)");
  return *x;
}

}  // namespace cuzk::gadgets::native
