// SPDX-License-Identifier: Apache-2.0
// A whole circuit synthesized straight into the coded form
// (groth16/coded_block_cs.hpp make_coded_witness) and the SnapDeals
// partition through it (empty_sector_update_compound.hpp
// snap_coded_witness): for partition 0 of generated 2 KiB and 8 MiB
// SnapDeals requests (seeded) it equals encode_witness of the plain witness
// (snap_witness) in every field and decodes back to it; the others bound is
// exact (at the plain count a value, one less nullopt); a shape whose counts
// the circuit does not have is refused.
#include <gtest/gtest.h>

#include <cstdio>
#include <optional>
#include <stdexcept>

#include <cuzk/circuits/empty_sector_update_compound.hpp>
#include <cuzk/circuits/empty_sector_update_generator.hpp>
#include <cuzk/groth16/coded_block_cs.hpp>
#include <cuzk/groth16/coded_witness.hpp>

#include "common/test_seed.hpp"

namespace {

using namespace cuzk;

TEST(snap_coded_witness, EqualsTheEncodedWitnessAndKeepsItsBound) {
  const std::uint64_t seed = test::test_seed("snap_coded_witness.EqualsTheEncodedWitnessAndKeepsItsBound");
  for (const std::uint64_t size : {2ull << 10, 8ull << 20}) {
    SCOPED_TRACE(size);
    const circuits::snap_params params = circuits::snap_params_for(size);
    const circuits::synthetic_snap g = circuits::generate_synthetic_snap(params, seed);
    const circuits::snap_circuit c = circuits::snap_circuit_from_partition(params, g.pub, 0, g.partitions[0]);
    const groth16::witness w = circuits::snap_witness(c);
    const groth16::coded_witness want = groth16::encode_witness(w.inputs, w.aux);
    std::printf("snap %llu bytes: %zu values, %zu other (%.2f%%)\n", static_cast<unsigned long long>(size), want.size,
                want.others.size(), 100.0 * double(want.others.size()) / double(want.size));
    const std::optional<groth16::coded_witness> got =
        circuits::snap_coded_witness(c, w.inputs.size(), w.aux.size(), want.others.size());
    ASSERT_TRUE(got.has_value());
    EXPECT_EQ(got->size, want.size);
    EXPECT_EQ(got->codes, want.codes);
    EXPECT_EQ(got->group_others, want.group_others);
    EXPECT_EQ(got->others, want.others);
    std::vector<ff::fr> all = w.inputs;
    all.insert(all.end(), w.aux.begin(), w.aux.end());
    EXPECT_EQ(groth16::decode_witness(*got), all);
    ASSERT_GT(want.others.size(), 0u);
    EXPECT_FALSE(circuits::snap_coded_witness(c, w.inputs.size(), w.aux.size(), want.others.size() - 1).has_value());
    // counts the circuit does not have
    EXPECT_THROW((void)circuits::snap_coded_witness(c, w.inputs.size(), w.aux.size() - 1, want.size), std::logic_error);
    EXPECT_THROW((void)circuits::snap_coded_witness(c, w.inputs.size(), w.aux.size() + 1, want.size), std::logic_error);
    EXPECT_THROW((void)circuits::snap_coded_witness(c, w.inputs.size() + 1, w.aux.size(), want.size), std::logic_error);
  }
}

}  // namespace
