// SPDX-License-Identifier: Apache-2.0
// Side-by-side timing of cuzk and blst on the same machine, same process:
// field mul/sqr, Fp/Fr inverse (against both of blst's), G1 mixed add and
// double, G1 to affine (one and 64 points), G1/G2 scalar mul, one pairing.
// Built only when CMake is given -DCUZK_BLST_DIR=<blst checkout with
// libblst.a built> (blst is a peer to measure against, not a dependency).
// Reports median [min, max] ns per call over 9 rounds after a warm-up, and
// the cuzk/blst ratio of medians.
#include <blst.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <cstdio>
#include <functional>
#include <random>
#include <vector>

#include <cuzk/ec/batch_normalize.hpp>
#include <cuzk/ec/bls12_381.hpp>
#include <cuzk/ec/pairing.hpp>

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
    v.push_back(std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - t0)
                    .count() /
                calls);
  }
  std::sort(v.begin(), v.end());
  return {v[4], v.front(), v.back()};
}

void row(const char* name, timing ours, timing peer) {
  std::printf("| %-16s | %10.1f [%.1f, %.1f] | %10.1f [%.1f, %.1f] | %5.2f |\n", name, ours.median,
              ours.min, ours.max, peer.median, peer.min, peer.max, ours.median / peer.median);
}

}  // namespace

int main() {
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
  row("Fp mul", time_op([&] { a = a * b; }, 1 << 20),
      time_op([&] { blst_fp_mul(&ba, &ba, &bb); }, 1 << 20));
  row("Fp sqr", time_op([&] { a = a.sqr(); }, 1 << 20),
      time_op([&] { blst_fp_sqr(&ba, &ba); }, 1 << 20));
  ff::fr c = ff::fr::random(rng), d = ff::fr::random(rng);
  blst_fr bc, bd;
  std::memcpy(&bc, c.l, 32);
  std::memcpy(&bd, d.l, 32);
  row("Fr mul", time_op([&] { c = c * d; }, 1 << 20),
      time_op([&] { blst_fr_mul(&bc, &bc, &bd); }, 1 << 20));
  // Inversions: "+ b" keeps the chain off the fixed points 1 and -1 and
  // costs one addition on both sides. cuzk's inverse() is variable time,
  // inverse_fermat() its constant-time alternative (the inverse() before
  // 2026-12-02); blst_*_inverse is constant time, blst_*_eucl_inverse is
  // blst's Euclidean entry point.
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
  row("G1 double", time_op([&] { p = p.dbl(); }, 1 << 16),
      time_op([&] { blst_p1_double(&bp, &bp); }, 1 << 16));

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
  row("G1 to affine",
      time_op([&] { affs[next % 64] = pts[next % 64].to_affine(); ++next; }, 4000),
      time_op([&] { blst_p1_to_affine(&baffs[next % 64], &bpts[next % 64]); ++next; }, 4000));
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
  row("pairing", time_op([&] { e = ec::pairing(g1, g2); }, 50), time_op([&] {
        blst_miller_loop(&be, blst_p2_affine_generator(), blst_p1_affine_generator());
        blst_final_exp(&be, &be);
      }, 50));
  // keep results alive
  if (a.is_zero() && c.is_zero() && p.is_infinity() && p2.is_infinity() && e.is_one())
    std::printf("unreachable\n");
  return 0;
}
