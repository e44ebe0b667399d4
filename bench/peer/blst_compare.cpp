// SPDX-License-Identifier: Apache-2.0
// Side-by-side timing of cuzk and blst on the same machine, same process:
// field mul/sqr, Fp/Fr inverse (against both of blst's), G1 mixed add and
// double, G1 to affine (one and 64 points), G1/G2 scalar mul, one pairing.
// `blst-compare msm`: G1 and G2 MSM at 2^16 / 2^18 / 2^20
// against blst_p1s_mult_pippenger / blst_p2s_mult_pippenger on the same
// points and scalars, both on one thread (blst's Pippenger is
// single-threaded; cuzk's TBB pool is capped at 1 for the comparison), each
// result checked against the other; median [min, max] of 5 after a warm-up.
// Built only when CMake is given -DCUZK_BLST_DIR=<blst checkout with
// libblst.a built> (blst is a peer to measure against, not a dependency).
// Reports median [min, max] ns per call over 9 rounds after a warm-up, and
// the cuzk/blst ratio of medians.
#include <blst.h>
#include <tbb/global_control.h>

#include <algorithm>
#include <bit>
#include <chrono>
#include <cstring>
#include <cstdio>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include <cuzk/ec/batch_normalize.hpp>
#include <cuzk/ec/bls12_381.hpp>
#include <cuzk/ec/pairing.hpp>
#include <cuzk/msm/msm.hpp>

namespace {

struct timing {
  double median, min, max;
};

timing time_op(const std::function<void()>& op, int calls) {
  for (int i = 0; i < calls; ++i) op();
  std::vector<double> v;
  for (int r = 0; r < 9; ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < calls; ++i) op();
    v.push_back(std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - t0).count() / calls);
  }
  std::sort(v.begin(), v.end());
  return {v[4], v.front(), v.back()};
}

void row(const char* name, timing ours, timing peer) {
  std::printf("| %-16s | %10.1f [%.1f, %.1f] | %10.1f [%.1f, %.1f] | %5.2f |\n", name, ours.median, ours.min, ours.max,
              peer.median, peer.min, peer.max, ours.median / peer.median);
}

timing time_runs(const std::function<void()>& op, int runs) {
  op();  // warm-up
  std::vector<double> v;
  for (int r = 0; r < runs; ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    op();
    v.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
  }
  std::sort(v.begin(), v.end());
  return {v[v.size() / 2], v.front(), v.back()};
}

/// n points: consecutive multiples of a random point, one batch normalisation.
template <class F>
std::vector<cuzk::ec::affine<F>> chain_points(std::size_t n, std::mt19937_64& rng) {
  using J = cuzk::ec::jacobian<F>;
  std::vector<J> proj(n);
  J p = cuzk::ec::mul(J::generator(), cuzk::ff::fr::random(rng));
  const J step = cuzk::ec::mul(J::generator(), cuzk::ff::fr::random(rng));
  for (auto& x : proj) {
    x = p;
    p += step;
  }
  std::vector<cuzk::ec::affine<F>> out(n);
  cuzk::ec::batch_to_affine<F>(proj, out);
  return out;
}

/// One MSM row: cuzk::msm::msm against blst's Pippenger (Blst: blst_p1 or
/// blst_p2 types), milliseconds; the results compared as affine bytes.
template <class F, class BAff, class BProj, class Scratch, class Mult, class ToAff>
void msm_row(const char* name, std::size_t n, std::mt19937_64& rng, Scratch scratch_sizeof, Mult mult,
             ToAff to_affine) {
  using namespace cuzk;
  const auto pts = chain_points<F>(n, rng);
  std::vector<ff::fr> k(n);
  std::vector<std::uint8_t> kb(32 * n);
  for (std::size_t i = 0; i < n; ++i) {
    k[i] = ff::fr::random(rng);
    k[i].to_bytes_le(&kb[32 * i]);
  }
  static_assert(sizeof(BAff) == sizeof(ec::affine<F>));  // same Montgomery bytes, infinity (0, 0)
  std::vector<const BAff*> pp(n);
  std::vector<const std::uint8_t*> kp(n);
  for (std::size_t i = 0; i < n; ++i) {
    pp[i] = reinterpret_cast<const BAff*>(&pts[i]);
    kp[i] = &kb[32 * i];
  }
  std::vector<std::uint64_t> scratch(scratch_sizeof(n) / 8 + 1);
  ec::jacobian<F> ours;
  BProj theirs;
  const timing t_ours = time_runs([&] { ours = msm::msm<F>(pts, k); }, 5);
  const timing t_theirs =
      time_runs([&] { mult(&theirs, pp.data(), n, kp.data(), 255, reinterpret_cast<limb_t*>(scratch.data())); }, 5);
  BAff ta;
  to_affine(&ta, &theirs);
  const ec::affine<F> oa = ours.to_affine();
  const bool same = std::memcmp(&ta, &oa, sizeof(ta)) == 0;
  std::printf("| %-6s 2^%-2u | %9.1f [%.1f, %.1f] | %9.1f [%.1f, %.1f] | %5.2f |%s\n", name,
              unsigned(std::bit_width(n) - 1), t_ours.median, t_ours.min, t_ours.max, t_theirs.median, t_theirs.min,
              t_theirs.max, t_ours.median / t_theirs.median, same ? "" : " RESULTS DIFFER");
}

int msm_main() {
  using namespace cuzk;
  std::mt19937_64 rng(8);
  const tbb::global_control one_thread(tbb::global_control::max_allowed_parallelism, 1);
  std::printf("MSM, one thread, random scalars\n\n");
  std::printf("| MSM        | cuzk ms median [min, max] | blst ms median [min, max] | ratio |\n");
  std::printf("|---|---|---|---|\n");
  for (const unsigned lg : {16u, 18u, 20u})
    msm_row<ff::fp, blst_p1_affine, blst_p1>("G1", std::size_t(1) << lg, rng, blst_p1s_mult_pippenger_scratch_sizeof,
                                             blst_p1s_mult_pippenger, blst_p1_to_affine);
  for (const unsigned lg : {16u, 18u, 20u})
    msm_row<ff::fp2, blst_p2_affine, blst_p2>("G2", std::size_t(1) << lg, rng, blst_p2s_mult_pippenger_scratch_sizeof,
                                              blst_p2s_mult_pippenger, blst_p2_to_affine);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc > 1 && std::string(argv[1]) == "msm") return msm_main();
  using namespace cuzk;
  std::mt19937_64 rng(7);
  std::printf("cuzk ADX path: %s\n\n", ff::detail::use_adx ? "on" : "off");
  std::printf("| operation        | cuzk ns median [min, max]    | blst ns median [min, max]    | ratio |\n");
  std::printf("|---|---|---|---|\n");

  // field
  ff::fp a = ff::fp::random(rng), b = ff::fp::random(rng);
  blst_fp ba, bb;
  std::memcpy(&ba, a.l, 48);  // both are Montgomery form with R = 2^384
  std::memcpy(&bb, b.l, 48);
  row("Fp mul", time_op([&] { a = a * b; }, 1 << 20), time_op([&] { blst_fp_mul(&ba, &ba, &bb); }, 1 << 20));
  row("Fp sqr", time_op([&] { a = a.sqr(); }, 1 << 20), time_op([&] { blst_fp_sqr(&ba, &ba); }, 1 << 20));
  ff::fr c = ff::fr::random(rng), d = ff::fr::random(rng);
  blst_fr bc, bd;
  std::memcpy(&bc, c.l, 32);
  std::memcpy(&bd, d.l, 32);
  row("Fr mul", time_op([&] { c = c * d; }, 1 << 20), time_op([&] { blst_fr_mul(&bc, &bc, &bd); }, 1 << 20));
  // Inversions: "+ b" keeps the chain off the fixed points 1 and -1 and
  // costs one addition on both sides. cuzk's inverse() is variable time,
  // inverse_fermat() its constant-time alternative (the inverse() before
  // 2026-12-02); blst_*_inverse is constant time, blst_*_eucl_inverse is
  // blst's Euclidean entry point.
  // clang-format off
  const timing blst_fp_inv =
      time_op([&] { blst_fp_inverse(&ba, &ba); blst_fp_add(&ba, &ba, &bb); }, 4000);
  row("Fp inverse", time_op([&] { a = a.inverse() + b; }, 4000), blst_fp_inv);
  row("Fp inv vs eucl", time_op([&] { a = a.inverse() + b; }, 4000),
      time_op([&] { blst_fp_eucl_inverse(&ba, &ba); blst_fp_add(&ba, &ba, &bb); }, 4000));
  row("Fp inv Fermat", time_op([&] { a = a.inverse_fermat() + b; }, 1000), blst_fp_inv);
  row("Fr inverse", time_op([&] { c = c.inverse() + d; }, 4000),
      time_op([&] { blst_fr_inverse(&bc, &bc); blst_fr_add(&bc, &bc, &bd); }, 4000));
  row("Fr inv vs eucl", time_op([&] { c = c.inverse() + d; }, 4000),
      time_op([&] { blst_fr_eucl_inverse(&bc, &bc); blst_fr_add(&bc, &bc, &bd); }, 4000));
  // clang-format on

  // G1 add/double
  auto p = ec::mul(ec::g1_jacobian::generator(), ff::fr::random(rng));
  const auto q = ec::mul(ec::g1_jacobian::generator(), ff::fr::random(rng)).to_affine();
  blst_p1 bp = *blst_p1_generator();
  blst_p1 bq_proj;
  const std::uint8_t seven[1] = {7};
  blst_p1_mult(&bq_proj, blst_p1_generator(), seven, 8);
  blst_p1_affine bq;
  blst_p1_to_affine(&bq, &bq_proj);
  row("G1 mixed add", time_op([&] { p += q; }, 1 << 16),
      time_op([&] { blst_p1_add_or_double_affine(&bp, &bp, &bq); }, 1 << 16));
  row("G1 double", time_op([&] { p = p.dbl(); }, 1 << 16), time_op([&] { blst_p1_double(&bp, &bp); }, 1 << 16));

  // Point normalisation, the main user of inversion: one point (one
  // inversion), and 64 points at once (one inversion + 6 M per point). The
  // same 64 Jacobian points on both sides (same Montgomery form).
  std::vector<ec::g1_jacobian> pts;
  for (auto s = p; pts.size() < 64; s = s.dbl()) pts.push_back(s);
  std::vector<blst_p1> bpts(pts.size());
  std::vector<const blst_p1*> bptrs;
  for (std::size_t i = 0; i < pts.size(); ++i) {
    std::memcpy(&bpts[i].x, pts[i].x.l, 48);
    std::memcpy(&bpts[i].y, pts[i].y.l, 48);
    std::memcpy(&bpts[i].z, pts[i].z.l, 48);
    bptrs.push_back(&bpts[i]);
  }
  std::vector<ec::g1_affine> affs(pts.size());
  std::vector<blst_p1_affine> baffs(pts.size());
  std::size_t next = 0;
  // clang-format off
  row("G1 to affine",
      time_op([&] { affs[next % 64] = pts[next % 64].to_affine(); ++next; }, 4000),
      time_op([&] { blst_p1_to_affine(&baffs[next % 64], &bpts[next % 64]); ++next; }, 4000));
  // clang-format on
  row("G1 64 to affine", time_op([&] { ec::batch_to_affine<ff::fp>(pts, affs); }, 500),
      time_op([&] { blst_p1s_to_affine(baffs.data(), bptrs.data(), bptrs.size()); }, 500));
  if (std::memcmp(affs[5].x.l, &baffs[5].x, 48) != 0) std::printf("to affine: cuzk != blst\n");

  // scalar mul with a random 255-bit scalar
  const ff::fr k = ff::fr::random(rng);
  std::uint8_t kb[32];
  k.to_bytes_le(kb);
  row("G1 scalar mul", time_op([&] { p = ec::mul(p, k); }, 200),
      time_op([&] { blst_p1_mult(&bp, &bp, kb, 255); }, 200));
  auto p2 = ec::mul(ec::g2_jacobian::generator(), ff::fr::random(rng));
  blst_p2 bp2 = *blst_p2_generator();
  row("G2 scalar mul", time_op([&] { p2 = ec::mul(p2, k); }, 50),
      time_op([&] { blst_p2_mult(&bp2, &bp2, kb, 255); }, 50));

  // pairing
  const auto g1 = ec::g1_generator();
  const auto g2 = ec::g2_generator();
  ec::gt e;
  blst_fp12 be;
  row("pairing", time_op([&] { e = ec::pairing(g1, g2); }, 50),
      time_op(
          [&] {
            blst_miller_loop(&be, blst_p2_affine_generator(), blst_p1_affine_generator());
            blst_final_exp(&be, &be);
          },
          50));
  // keep results alive
  if (a.is_zero() && c.is_zero() && p.is_infinity() && p2.is_infinity() && e.is_one()) std::printf("unreachable\n");
  return 0;
}
