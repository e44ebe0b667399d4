// SPDX-License-Identifier: Apache-2.0
#pragma once
// ZCash-format encoding of BLS12-381 points (zkcrypto/bls12_381
// src/notes/serialization.rs; the format of Filecoin parameter files and
// proofs, see docs/FORMATS.md §3).
//
//   G1 compressed 48 B: x            G1 uncompressed  96 B: x || y
//   G2 compressed 96 B: x            G2 uncompressed 192 B: x || y
// Fp is 48 bytes big-endian canonical; Fp2 is c1 || c0. The three top bits of
// byte 0 are flags: 0x80 compressed, 0x40 infinity (every other bit zero),
// 0x20 sign (compressed, non-infinity only: y is the lexicographically
// largest of {y, -y}; for Fp2 decided on c1, on c0 when c1 == 0).
//
// Decoding checks, in this order, each failure with its own decode_error:
// length; compression flag against the kind asked for; sign flag on an
// uncompressed encoding; infinity flag with the sign flag / with any other
// bit set; every coordinate (each Fp2 half) canonical (< p); for compressed,
// x^3 + b a square; for uncompressed, y^2 == x^3 + b; and, unless the caller
// opts out (trusted parameter files), membership of the prime-order subgroup.
//
// Costs: encoding is one from-Montgomery conversion per Fp. Compressed
// decoding is dominated by the square root (one Fp exponentiation for G1,
// two Fp2 exponentiations for G2); the subgroup check (subgroup.hpp) is
// ~130 doublings for G1 and ~65 Fp2 doublings for G2; uncompressed decoding
// without the subgroup check is a few multiplications.

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <stdexcept>
#include <string_view>

#include <cuzk/ec/bls12_381.hpp>

namespace cuzk::ec {

inline constexpr std::size_t g1_compressed_size = 48;
inline constexpr std::size_t g1_uncompressed_size = 96;
inline constexpr std::size_t g2_compressed_size = 96;
inline constexpr std::size_t g2_uncompressed_size = 192;

/// Why an encoding was rejected; none means success.
enum class decode_error : std::uint8_t {
  none = 0,
  wrong_length,               ///< not the byte length of the requested kind
  compression_flag_mismatch,  ///< 0x80 set on uncompressed / clear on compressed
  sign_flag_on_uncompressed,  ///< 0x20 set on an uncompressed encoding
  infinity_with_sign,         ///< 0x40 together with 0x20
  infinity_not_zero,          ///< 0x40 with some other bit set
  non_canonical_coordinate,   ///< an Fp value (or Fp2 half) >= p
  x_not_on_curve,             ///< compressed: x^3 + b has no square root
  point_not_on_curve,         ///< uncompressed: y^2 != x^3 + b
  not_in_subgroup,            ///< on the curve but not in the order-r subgroup
};

/// Human-readable description naming the violated rule.
std::string_view decode_error_message(decode_error e) noexcept;

/// Thrown by decode_result::value() on a failed decode.
class decode_failure : public std::runtime_error {
 public:
  explicit decode_failure(decode_error e);
  decode_error code() const noexcept { return _code; }

 private:
  decode_error _code;
};

/// Either a point (error == none) or the reason for rejection.
template <class Point>
struct decode_result {
  Point point = Point::identity();  ///< meaningful only when ok()
  decode_error error = decode_error::none;

  constexpr bool ok() const noexcept { return error == decode_error::none; }
  constexpr explicit operator bool() const noexcept { return ok(); }
  /// The point, or throws decode_failure.
  const Point& value() const {
    if (!ok()) throw decode_failure(error);
    return point;
  }
};

struct decode_options {
  /// Off only for trusted inputs (parameter files already verified once).
  bool check_subgroup = true;
};

// ---- single points ------------------------------------------------------

std::array<std::uint8_t, g1_compressed_size> encode_g1_compressed(const g1_affine& p);
std::array<std::uint8_t, g1_uncompressed_size> encode_g1_uncompressed(const g1_affine& p);
std::array<std::uint8_t, g2_compressed_size> encode_g2_compressed(const g2_affine& p);
std::array<std::uint8_t, g2_uncompressed_size> encode_g2_uncompressed(const g2_affine& p);

decode_result<g1_affine> decode_g1_compressed(std::span<const std::uint8_t> in, decode_options opt = {});
decode_result<g1_affine> decode_g1_uncompressed(std::span<const std::uint8_t> in, decode_options opt = {});
decode_result<g2_affine> decode_g2_compressed(std::span<const std::uint8_t> in, decode_options opt = {});
decode_result<g2_affine> decode_g2_uncompressed(std::span<const std::uint8_t> in, decode_options opt = {});

// ---- arrays ---------------------------------------------------------------

struct batch_decode_options {
  bool check_subgroup = true;
  /// Decode and validate with tbb::parallel_for (the calling thread joins in).
  bool parallel = true;
};

/// Outcome of a batch decode: on failure, the lowest failing index and why.
struct batch_decode_result {
  static constexpr std::size_t no_index = ~std::size_t(0);
  decode_error error = decode_error::none;
  /// First bad point; no_index when the whole batch is malformed (wrong length).
  std::size_t index = no_index;

  constexpr bool ok() const noexcept { return error == decode_error::none; }
  constexpr explicit operator bool() const noexcept { return ok(); }
};

/// Decodes out.size() consecutive uncompressed encodings from |in|, which
/// must hold exactly out.size() * {96|192} bytes (else wrong_length, no_index).
/// On failure the contents of |out| are unspecified; the reported index is the
/// lowest failing one whether or not the work ran in parallel.
batch_decode_result decode_g1s_uncompressed(std::span<const std::uint8_t> in, std::span<g1_affine> out,
                                            batch_decode_options opt = {});
batch_decode_result decode_g2s_uncompressed(std::span<const std::uint8_t> in, std::span<g2_affine> out,
                                            batch_decode_options opt = {});
/// The same for compressed encodings (48 / 96 bytes each).
batch_decode_result decode_g1s_compressed(std::span<const std::uint8_t> in, std::span<g1_affine> out,
                                          batch_decode_options opt = {});
batch_decode_result decode_g2s_compressed(std::span<const std::uint8_t> in, std::span<g2_affine> out,
                                          batch_decode_options opt = {});

}  // namespace cuzk::ec
