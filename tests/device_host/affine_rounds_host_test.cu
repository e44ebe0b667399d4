// SPDX-License-Identifier: Apache-2.0
// The batch-affine level 0's per-thread rule (cuzk/msm/detail/
// affine_rounds.cuh: start_segment, run_affine_rounds), the device kernel's
// code, run on the CPU over the emulated device field (gpu::fp_d) with a
// memory policy that plays the device's: each segment's sum must equal the
// host's sum of the same points (ec::xyzz over ff::fp). Random seeded
// segments of random lengths in K slots, empty slots, and the additions a
// batch cannot take: the same point twice (a doubling), a point and its
// negation (infinity, then a fresh start), the point at infinity as a base.
// The policy also checks the staging discipline the device's asynchronous
// copies rely on: every stage() is taken once, and nothing it fetched
// changes between the stage() and the take.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include <cuzk/ec/affine.hpp>
#include <cuzk/ec/bls12_381.hpp>
#include <cuzk/ec/jacobian.hpp>
#include <cuzk/ec/xyzz.hpp>
#include <cuzk/ff/bls12_381.hpp>
#include <cuzk/ff/detail/cuda_arith.cuh>
#include <cuzk/msm/detail/affine_rounds.cuh>

#include "common/random_points.hpp"
#include "common/test_seed.hpp"

namespace {

namespace gpu = cuzk::gpu;
namespace ec = cuzk::ec;
namespace ff = cuzk::ff;
namespace md = cuzk::msm::detail;

using dev_affine = ec::affine<gpu::fp_d>;
constexpr std::uint32_t sign_bit = 0x80000000u;

template <class To, class From>
To same_bytes(const From& x) {
  static_assert(sizeof(To) == sizeof(From));
  To r;
  std::memcpy(static_cast<void*>(&r), &x, sizeof r);
  return r;
}

gpu::fp_d host_inverse(const gpu::fp_d& a) { return same_bytes<gpu::fp_d>(same_bytes<ff::fp>(a).inverse()); }

bool same_step(const md::affine_step<gpu::fp_d>& a, const md::affine_step<gpu::fp_d>& b, bool has_next) {
  return a.acc == b.acc && a.q == b.q && a.prefix == b.prefix && (!has_next || a.qn_x == b.qn_x);
}

/// One thread's memory, as the device policy lays it out, with the
/// staging discipline checked.
struct host_memory {
  const std::vector<dev_affine>& bases;
  const std::vector<std::uint32_t>& entries;
  std::vector<dev_affine> accs;
  std::vector<gpu::fp_d> prefixes;
  std::vector<std::uint32_t> cur_, end_;
  // the outstanding stage(): its arguments and what it fetched
  bool pending = false, pending_entries = false;
  unsigned staged_k = 0, staged_k2 = 0;
  md::step_entries staged_e{}, staged_e2{};
  md::affine_step<gpu::fp_d> staged{};
  std::size_t stages = 0, outside_adds = 0;
  std::string error;

  host_memory(const std::vector<dev_affine>& b, const std::vector<std::uint32_t>& e, unsigned k)
      : bases(b), entries(e), accs(k), prefixes(k), cur_(k, 0), end_(k, 0) {}

  void fail(const char* what) {
    if (error.empty()) error = what;
  }
  std::uint32_t entry(std::uint32_t i) const { return entries.at(i); }
  dev_affine point(std::uint32_t v) const {
    const dev_affine p = bases.at(v & ~sign_bit);
    return (v & sign_bit) ? -p : p;
  }
  gpu::fp_d point_x(std::uint32_t v) const { return bases.at(v & ~sign_bit).x; }
  void store_acc(unsigned k, const dev_affine& a) { accs.at(k) = a; }
  void store_prefix(unsigned k, const gpu::fp_d& p) { prefixes.at(k) = p; }
  std::uint32_t cur(unsigned k) const { return cur_.at(k); }
  void set_cur(unsigned k, std::uint32_t c) { cur_.at(k) = c; }
  std::uint32_t end(unsigned k) const { return end_.at(k); }
  gpu::fp_d invert(const gpu::fp_d& a) const { return host_inverse(a); }
  dev_affine outside(const dev_affine& acc, const dev_affine& q) {
    ++outside_adds;
    return md::add_complete_affine(acc, q, host_inverse);
  }
  md::step_entries load_entries(unsigned k) const {
    md::step_entries e;
    const std::uint32_t c = cur_.at(k);
    e.has_next = c + 1 < end_.at(k);
    e.v1 = entries.at(c);
    e.v2 = e.has_next ? entries.at(c + 1) : 0u;
    return e;
  }
  md::affine_step<gpu::fp_d> load_step(unsigned k, const md::step_entries& e) const {
    md::affine_step<gpu::fp_d> st;
    st.acc = accs.at(k);
    st.q = point(e.v1);
    st.qn_x = e.has_next ? point_x(e.v2) : gpu::fp_d::zero();
    st.prefix = prefixes.at(k);
    return st;
  }
  static bool same_entries(const md::step_entries& a, const md::step_entries& b) {
    return a.v1 == b.v1 && a.has_next == b.has_next && (!a.has_next || a.v2 == b.v2);
  }
  void stage(unsigned k, const md::step_entries& e, bool then, unsigned k2) {
    if (pending) fail("stage() while another is outstanding");
    if (!same_entries(e, load_entries(k))) fail("stage(): the entries are not the slot's next ones");
    pending = true, staged_k = k, staged_e = e, ++stages;
    staged = load_step(k, e);
    pending_entries = then, staged_k2 = k2;
    if (then) staged_e2 = load_entries(k2);
  }
  // the device's copies land any time before the take: what they read
  // must not have changed since the stage()
  md::affine_step<gpu::fp_d> take_staged() {
    if (!pending) fail("take_staged() with nothing staged");
    pending = false;
    if (!same_step(staged, load_step(staged_k, staged_e), staged_e.has_next))
      fail("staged data changed before it was taken");
    return staged;
  }
  md::step_entries take_entries() {
    if (!pending_entries) fail("take_entries() with no entries staged");
    pending_entries = false;
    if (!same_entries(staged_e2, load_entries(staged_k2))) fail("staged entries changed before they were taken");
    return staged_e2;
  }
};

/// The host's sum of entries [b, e), by complete XYZZ additions over ff::fp.
ec::affine<ff::fp> host_sum(const std::vector<ec::affine<ff::fp>>& bases, const std::vector<std::uint32_t>& entries,
                            std::uint32_t b, std::uint32_t e) {
  ec::xyzz<ff::fp> s = ec::xyzz<ff::fp>::from_affine(ec::affine<ff::fp>::identity());
  for (std::uint32_t i = b; i < e; ++i) {
    const std::uint32_t v = entries[i];
    const ec::affine<ff::fp> p = bases[v & ~sign_bit];
    s = s.add_affine((v & sign_bit) ? -p : p);
  }
  return s.to_affine();
}

struct segment_case {
  const char* name;
  unsigned k;             // slots
  unsigned max_len;       // segment lengths 1 .. max_len
  unsigned empty_pct;     // slots left empty
  unsigned repeat_pct;    // entries that repeat the previous one (a doubling)
  unsigned negate_pct;    // entries that cancel the previous one (P + (-P))
  unsigned infinity_pct;  // entries naming the base at infinity
};

void run_case(const segment_case& sc, std::uint64_t seed) {
  SCOPED_TRACE(std::string(sc.name) + " seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  std::vector<ec::affine<ff::fp>> hbases = cuzk::test::random_points<ec::g1_jacobian>(rng, 200);
  hbases.push_back(ec::affine<ff::fp>::identity());  // index 200
  const std::uint32_t infinity_index = 200;
  std::vector<dev_affine> dbases;
  for (const auto& p : hbases) dbases.push_back(same_bytes<dev_affine>(p));

  std::vector<std::uint32_t> entries, begins(sc.k, 0), ends(sc.k, 0);
  for (unsigned k = 0; k < sc.k; ++k) {
    if (unsigned(rng() % 100) < sc.empty_pct) continue;
    const unsigned len = 1 + unsigned(rng() % sc.max_len);
    begins[k] = std::uint32_t(entries.size());
    for (unsigned i = 0; i < len; ++i) {
      const unsigned u = unsigned(rng() % 100);
      std::uint32_t v = std::uint32_t(rng() % 200) | (rng() % 2 ? sign_bit : 0u);
      if (i > 0 && u < sc.repeat_pct) v = entries.back();
      else if (i > 0 && u < sc.repeat_pct + sc.negate_pct) v = entries.back() ^ sign_bit;
      else if (u < sc.repeat_pct + sc.negate_pct + sc.infinity_pct) v = infinity_index;
      entries.push_back(v);
    }
    ends[k] = std::uint32_t(entries.size());
  }
  host_memory m(dbases, entries, sc.k);
  gpu::fp_d prod = gpu::fp_d::one();
  unsigned mask = 0;
  for (unsigned k = 0; k < sc.k; ++k) {
    if (begins[k] == ends[k]) continue;
    m.end_[k] = ends[k];
    md::start_segment<gpu::fp_d>(m, k, begins[k], prod, mask);
  }
  md::run_affine_rounds<gpu::fp_d>(m, prod, mask);
  EXPECT_EQ(m.error, "");
  EXPECT_FALSE(m.pending || m.pending_entries) << "a stage() never taken";
  for (unsigned k = 0; k < sc.k; ++k) {
    if (begins[k] == ends[k]) continue;
    EXPECT_EQ(m.cur_[k], ends[k]) << "slot " << k << " did not reach its end";
    const ec::affine<ff::fp> want = host_sum(hbases, entries, begins[k], ends[k]);
    EXPECT_TRUE(same_bytes<ec::affine<ff::fp>>(m.accs[k]) == want)
        << "slot " << k << ", entries [" << begins[k] << ", " << ends[k] << ")";
  }
  std::printf("[ affine_rounds ] %s: %zu entries, %zu staged steps, %zu outside additions\n", sc.name, entries.size(),
              m.stages, m.outside_adds);
}

TEST(affine_rounds, RandomSegmentsSumLikeTheHost) {
  const std::uint64_t seed = cuzk::test::test_seed("affine_rounds.RandomSegmentsSumLikeTheHost");
  run_case({"K=16 equal-ish lengths", 16, 40, 0, 0, 0, 0}, seed);
  run_case({"K=32 ragged, empty slots", 32, 20, 25, 0, 0, 0}, seed + 1);
  run_case({"K=1", 1, 9, 0, 0, 0, 0}, seed + 2);
}

TEST(affine_rounds, AdditionsOutsideTheBatch) {
  const std::uint64_t seed = cuzk::test::test_seed("affine_rounds.AdditionsOutsideTheBatch");
  run_case({"doublings", 16, 10, 10, 30, 0, 0}, seed);
  run_case({"P + (-P)", 16, 10, 10, 0, 30, 0}, seed + 1);
  run_case({"infinity bases", 16, 10, 10, 0, 0, 20}, seed + 2);
  run_case({"all three", 32, 16, 20, 15, 15, 10}, seed + 3);
}

}  // namespace
