// SPDX-License-Identifier: Apache-2.0
// ZCash-format point encoding and checked decoding. Format, check order and
// costs: see include/cuzk/ec/serialization.hpp.
//
// One template per direction covers G1 and G2; field_io<F> supplies the byte
// order of a coordinate (Fp: 48 bytes big-endian; Fp2: c1 || c0). Flags live
// in the top three bits of byte 0 and are masked off before the first
// coordinate is read, so a coordinate whose own top bits are set (an Fp2 c0
// half, or y) fails the canonical check as it must (p < 2^381).
#include <cuzk/ec/serialization.hpp>

#include <algorithm>
#include <atomic>
#include <optional>
#include <string>

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>

#include <cuzk/ec/subgroup.hpp>

namespace cuzk::ec {

namespace {

using ff::fp;
using ff::fp2;

constexpr std::uint8_t flag_compressed = 0x80;
constexpr std::uint8_t flag_infinity = 0x40;
constexpr std::uint8_t flag_sign = 0x20;
constexpr std::uint8_t flag_mask = flag_compressed | flag_infinity | flag_sign;

template <class F>
struct field_io;

template <>
struct field_io<fp> {
  static constexpr std::size_t size = 48;
  static void write(const fp& a, std::uint8_t* out) { a.to_bytes_be(out); }
  static std::optional<fp> read(const std::uint8_t* in) { return fp::from_bytes_be(in); }
};

template <>
struct field_io<fp2> {
  static constexpr std::size_t size = 96;
  static void write(const fp2& a, std::uint8_t* out) {
    a.c1.to_bytes_be(out);
    a.c0.to_bytes_be(out + 48);
  }
  static std::optional<fp2> read(const std::uint8_t* in) {
    const auto c1 = fp::from_bytes_be(in);
    const auto c0 = fp::from_bytes_be(in + 48);
    if (!c1 || !c0) return std::nullopt;
    return fp2{*c0, *c1};
  }
};

// Reads the first coordinate with the flag bits cleared.
template <class F>
std::optional<F> read_first(const std::uint8_t* in) {
  std::array<std::uint8_t, field_io<F>::size> buf;
  std::copy_n(in, buf.size(), buf.begin());
  buf[0] &= std::uint8_t(~flag_mask);
  return field_io<F>::read(buf.data());
}

template <class F>
F curve_rhs(const F& x) {
  return x.sqr() * x + curve_params<F>::b();
}

// True when every bit after the three flags is zero.
bool rest_is_zero(std::span<const std::uint8_t> in) {
  std::uint8_t acc = in[0] & std::uint8_t(~flag_mask);
  for (std::size_t i = 1; i < in.size(); ++i) acc |= in[i];
  return acc == 0;
}

template <class F, std::size_t N>
std::array<std::uint8_t, N> encode(const affine<F>& p, bool compressed) {
  std::array<std::uint8_t, N> out{};
  if (p.is_infinity()) {
    out[0] = flag_infinity | (compressed ? flag_compressed : 0);
    return out;
  }
  field_io<F>::write(p.x, out.data());
  if (compressed) {
    out[0] |= flag_compressed;
    if (p.y.lexicographically_largest()) out[0] |= flag_sign;
  } else {
    field_io<F>::write(p.y, out.data() + field_io<F>::size);
  }
  return out;
}

template <class F>
decode_result<affine<F>> fail(decode_error e) {
  return {affine<F>::identity(), e};
}

template <class F>
decode_result<affine<F>> decode_compressed(std::span<const std::uint8_t> in, decode_options opt) {
  if (in.size() != field_io<F>::size) return fail<F>(decode_error::wrong_length);
  const std::uint8_t flags = in[0];
  if (!(flags & flag_compressed)) return fail<F>(decode_error::compression_flag_mismatch);
  if (flags & flag_infinity) {
    if (flags & flag_sign) return fail<F>(decode_error::infinity_with_sign);
    if (!rest_is_zero(in)) return fail<F>(decode_error::infinity_not_zero);
    return {affine<F>::identity(), decode_error::none};
  }
  const auto x = read_first<F>(in.data());
  if (!x) return fail<F>(decode_error::non_canonical_coordinate);
  auto y = curve_rhs(*x).sqrt();
  if (!y) return fail<F>(decode_error::x_not_on_curve);
  if (y->lexicographically_largest() != bool(flags & flag_sign)) *y = -*y;
  const affine<F> p{*x, *y};
  if (opt.check_subgroup && !is_in_subgroup(p)) return fail<F>(decode_error::not_in_subgroup);
  return {p, decode_error::none};
}

template <class F>
decode_result<affine<F>> decode_uncompressed(std::span<const std::uint8_t> in, decode_options opt) {
  constexpr std::size_t n = field_io<F>::size;
  if (in.size() != 2 * n) return fail<F>(decode_error::wrong_length);
  const std::uint8_t flags = in[0];
  if (flags & flag_compressed) return fail<F>(decode_error::compression_flag_mismatch);
  if (flags & flag_sign) return fail<F>(decode_error::sign_flag_on_uncompressed);
  if (flags & flag_infinity) {
    if (!rest_is_zero(in)) return fail<F>(decode_error::infinity_not_zero);
    return {affine<F>::identity(), decode_error::none};
  }
  const auto x = read_first<F>(in.data());
  const auto y = field_io<F>::read(in.data() + n);
  if (!x || !y) return fail<F>(decode_error::non_canonical_coordinate);
  // Not affine::is_on_curve(): that treats (0, 0) as the point at infinity,
  // and an encoding without the infinity flag must not decode to it.
  if (y->sqr() != curve_rhs(*x)) return fail<F>(decode_error::point_not_on_curve);
  const affine<F> p{*x, *y};
  if (opt.check_subgroup && !is_in_subgroup(p)) return fail<F>(decode_error::not_in_subgroup);
  return {p, decode_error::none};
}

template <class F, class Decode>
batch_decode_result decode_many(std::span<const std::uint8_t> in, std::span<affine<F>> out, std::size_t stride,
                                batch_decode_options opt, Decode decode_one) {
  const std::size_t n = out.size();
  if (in.size() != n * stride) return {decode_error::wrong_length, batch_decode_result::no_index};
  const decode_options single{.check_subgroup = opt.check_subgroup};
  auto at = [&](std::size_t i) { return in.subspan(i * stride, stride); };

  if (!opt.parallel) {
    for (std::size_t i = 0; i < n; ++i) {
      const auto r = decode_one(at(i), single);
      if (!r) return {r.error, i};
      out[i] = r.point;
    }
    return {};
  }

  // Lowest failing index seen so far; chunks above it stop early. The error
  // code is recomputed for that index afterwards, so the report does not
  // depend on scheduling.
  std::atomic<std::size_t> first_bad{n};
  // Grain: an unchecked G1 decode is ~0.3 us, so 256 points keep the task
  // overhead (~1 us) small; checked decodes are 50x heavier and balance anyway.
  tbb::parallel_for(tbb::blocked_range<std::size_t>(0, n, 256), [&](const tbb::blocked_range<std::size_t>& range) {
    for (std::size_t i = range.begin(); i != range.end(); ++i) {
      if (i >= first_bad.load(std::memory_order_relaxed)) return;
      const auto r = decode_one(at(i), single);
      if (!r) {
        std::size_t cur = first_bad.load(std::memory_order_relaxed);
        while (i < cur && !first_bad.compare_exchange_weak(cur, i)) {
        }
        return;
      }
      out[i] = r.point;
    }
  });
  const std::size_t bad = first_bad.load();
  if (bad == n) return {};
  return {decode_one(at(bad), single).error, bad};
}

}  // namespace

std::string_view decode_error_message(decode_error e) noexcept {
  switch (e) {
    case decode_error::none: return "no error";
    case decode_error::wrong_length:
      return "wrong length: the input is not the size of the requested encoding "
             "(G1 48/96 bytes, G2 96/192 bytes compressed/uncompressed)";
    case decode_error::compression_flag_mismatch:
      return "compression flag (0x80) does not match the requested encoding: "
             "it must be set for compressed and clear for uncompressed";
    case decode_error::sign_flag_on_uncompressed: return "sign flag (0x20) set on an uncompressed encoding";
    case decode_error::infinity_with_sign: return "infinity flag (0x40) set together with the sign flag (0x20)";
    case decode_error::infinity_not_zero: return "infinity flag (0x40) set but the remaining bits are not all zero";
    case decode_error::non_canonical_coordinate:
      return "non-canonical coordinate: an Fp value (or Fp2 half) is not below p";
    case decode_error::x_not_on_curve: return "x is not the x-coordinate of a curve point: x^3 + b has no square root";
    case decode_error::point_not_on_curve: return "point not on the curve: y^2 != x^3 + b";
    case decode_error::not_in_subgroup: return "point on the curve but not in the prime-order subgroup";
  }
  return "unknown decode_error";
}

decode_failure::decode_failure(decode_error e) : std::runtime_error(std::string(decode_error_message(e))), _code(e) {}

std::array<std::uint8_t, g1_compressed_size> encode_g1_compressed(const g1_affine& p) {
  return encode<fp, g1_compressed_size>(p, true);
}
std::array<std::uint8_t, g1_uncompressed_size> encode_g1_uncompressed(const g1_affine& p) {
  return encode<fp, g1_uncompressed_size>(p, false);
}
std::array<std::uint8_t, g2_compressed_size> encode_g2_compressed(const g2_affine& p) {
  return encode<fp2, g2_compressed_size>(p, true);
}
std::array<std::uint8_t, g2_uncompressed_size> encode_g2_uncompressed(const g2_affine& p) {
  return encode<fp2, g2_uncompressed_size>(p, false);
}

decode_result<g1_affine> decode_g1_compressed(std::span<const std::uint8_t> in, decode_options opt) {
  return decode_compressed<fp>(in, opt);
}
decode_result<g1_affine> decode_g1_uncompressed(std::span<const std::uint8_t> in, decode_options opt) {
  return decode_uncompressed<fp>(in, opt);
}
decode_result<g2_affine> decode_g2_compressed(std::span<const std::uint8_t> in, decode_options opt) {
  return decode_compressed<fp2>(in, opt);
}
decode_result<g2_affine> decode_g2_uncompressed(std::span<const std::uint8_t> in, decode_options opt) {
  return decode_uncompressed<fp2>(in, opt);
}

batch_decode_result decode_g1s_uncompressed(std::span<const std::uint8_t> in, std::span<g1_affine> out,
                                            batch_decode_options opt) {
  return decode_many<fp>(in, out, g1_uncompressed_size, opt, decode_uncompressed<fp>);
}
batch_decode_result decode_g2s_uncompressed(std::span<const std::uint8_t> in, std::span<g2_affine> out,
                                            batch_decode_options opt) {
  return decode_many<fp2>(in, out, g2_uncompressed_size, opt, decode_uncompressed<fp2>);
}
batch_decode_result decode_g1s_compressed(std::span<const std::uint8_t> in, std::span<g1_affine> out,
                                          batch_decode_options opt) {
  return decode_many<fp>(in, out, g1_compressed_size, opt, decode_compressed<fp>);
}
batch_decode_result decode_g2s_compressed(std::span<const std::uint8_t> in, std::span<g2_affine> out,
                                          batch_decode_options opt) {
  return decode_many<fp2>(in, out, g2_compressed_size, opt, decode_compressed<fp2>);
}

}  // namespace cuzk::ec
