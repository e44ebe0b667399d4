// SPDX-License-Identifier: Apache-2.0
// Fuzz target: the ZCash point encodings of G1 and G2 (ec/serialization).
// The first byte picks the decoder (G1/G2 x compressed/uncompressed x
// single/batch) and whether the subgroup check runs; the rest is the
// encoding. Property: decoders never throw; a decoded point is on the curve
// (and in the subgroup when checked) and re-encodes to exactly its input; a
// batch decode agrees with decoding each point alone (first failing index
// and its reason).
#include <vector>

#include <cuzk/ec/serialization.hpp>
#include <cuzk/ec/subgroup.hpp>

#include "fuzz_common.hpp"

namespace {

using namespace cuzk::ec;
using cuzk::fuzz::fuzz_check;

template <class Point, class Decode, class Encode, class Batch>
void one_kind(std::span<const std::uint8_t> in, std::size_t width, bool check, bool batch, Decode decode, Encode encode,
              Batch decode_batch) {
  if (!batch) {
    const auto r = decode(in, decode_options{check});
    if (r.ok()) {
      fuzz_check(r.point.is_on_curve(), "decoded point is not on the curve");
      if (check) fuzz_check(is_in_subgroup(r.point), "subgroup-checked point is not in the subgroup");
      const auto out = encode(r.point);
      fuzz_check(out.size() == in.size() && std::equal(out.begin(), out.end(), in.begin()),
                 "point does not re-encode to its input");
    } else {
      fuzz_check(r.error != decode_error::none, "failed decode without a reason");
    }
    return;
  }
  if (in.size() > 8 * width) return;
  std::vector<Point> out(in.size() / width);
  const auto r = decode_batch(in, std::span<Point>(out), batch_decode_options{check, false});
  if (in.size() % width != 0) {
    fuzz_check(r.error == decode_error::wrong_length, "batch of a non-multiple length not refused as wrong_length");
    return;
  }
  std::size_t first_bad = batch_decode_result::no_index;
  decode_error why = decode_error::none;
  for (std::size_t i = 0; i < out.size(); ++i) {
    const auto one = decode(in.subspan(i * width, width), decode_options{check});
    if (!one.ok()) {
      first_bad = i;
      why = one.error;
      break;
    }
    if (r.ok()) fuzz_check(one.point == out[i], "batch decode differs from the single decode");
  }
  fuzz_check(r.index == first_bad && r.error == why, "batch decode reports another failure than single decodes");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 1) return 0;
  const std::uint8_t sel = data[0];
  const auto in = cuzk::fuzz::bytes(data + 1, size - 1);
  const bool check = (sel & 4) != 0, batch = (sel & 8) != 0;
  switch (sel & 3) {
    case 0:
      one_kind<g1_affine>(in, g1_compressed_size, check, batch, decode_g1_compressed, encode_g1_compressed,
                          decode_g1s_compressed);
      break;
    case 1:
      one_kind<g1_affine>(in, g1_uncompressed_size, check, batch, decode_g1_uncompressed, encode_g1_uncompressed,
                          decode_g1s_uncompressed);
      break;
    case 2:
      one_kind<g2_affine>(in, g2_compressed_size, check, batch, decode_g2_compressed, encode_g2_compressed,
                          decode_g2s_compressed);
      break;
    default:
      one_kind<g2_affine>(in, g2_uncompressed_size, check, batch, decode_g2_uncompressed, encode_g2_uncompressed,
                          decode_g2s_uncompressed);
      break;
  }
  return 0;
}
