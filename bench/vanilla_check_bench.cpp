// SPDX-License-Identifier: Apache-2.0
// The cost of the vanilla-proof check at submit (issue 24), through the
// engine's own kind handlers: parse (what submit always did) and
// check_vanilla (what pipeline.check_vanilla_proofs adds), separately.
//
//   vanilla-check-bench [--repeats 3] [--fixtures DIR]
//
// Inputs:
//  * PoRep C1 from the synthetic generator (porep_generator.hpp: real graph,
//    replica_id, challenges, labels and paths) at 2 KiB, 512 MiB, 32 GiB:
//    the checker does the same work per challenge as on a real C1 (no real
//    C1 is among the fixtures);
//  * SnapDeals from the synthetic generator at 2 KiB, 512 MiB, 32 GiB;
//  * WindowPoSt 32 GiB from the REAL curio post.vproof (sector 1, zero
//    randomness, registered proof 13): one sector, and a full partition of
//    2349 sectors made of copies of it (V1_2 challenges do not depend on
//    the sector's slot, so every copy is valid).
// Prints median / min / max milliseconds over the repeats.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <string>
#include <vector>

#include <cuzk/circuits/empty_sector_update_generator.hpp>
#include <cuzk/circuits/fallback_post.hpp>
#include <cuzk/circuits/porep_generator.hpp>
#include <cuzk/engine/proof_kind.hpp>
#include <cuzk/io/porep_c1.hpp>
#include <cuzk/io/snap_vanilla.hpp>

namespace {

using clock_type = std::chrono::steady_clock;
namespace eng = cuzk::engine;

struct stats {
  double med = 0, min = 0, max = 0;
};

stats time_it(int repeats, const std::function<void()>& f) {
  std::vector<double> ms;
  for (int i = 0; i < repeats; ++i) {
    const auto t0 = clock_type::now();
    f();
    ms.push_back(std::chrono::duration<double, std::milli>(clock_type::now() - t0).count());
  }
  std::sort(ms.begin(), ms.end());
  return {ms[ms.size() / 2], ms.front(), ms.back()};
}

void report(const char* what, const char* size, const stats& parse, const stats& check) {
  std::printf(
      "%-10s %-7s parse %9.2f ms (min %9.2f, max %9.2f)   check_vanilla %9.2f ms (min %9.2f, max "
      "%9.2f)\n",
      what, size, parse.med, parse.min, parse.max, check.med, check.min, check.max);
}

void bench_kind(const char* what, const char* size, const eng::proof_kind_handler& h, const eng::proof_request& req,
                int repeats) {
  std::unique_ptr<eng::circuit_job> job;
  const stats parse = time_it(repeats, [&] { job = h.parse(req); });
  const stats check = time_it(repeats, [&] { job->check_vanilla(); });
  report(what, size, parse, check);
}

}  // namespace

int main(int argc, char** argv) {
  int repeats = 3;
  std::string fixtures = CUZK_FIXTURES_DIR;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string a = argv[i];
    if (a == "--repeats") repeats = std::max(1, std::atoi(argv[i + 1]));
    else if (a == "--fixtures") fixtures = argv[i + 1];
  }
  const std::pair<const char*, std::uint64_t> sizes[] = {
      {"2KiB", 2ull << 10}, {"512MiB", 512ull << 20}, {"32GiB", 32ull << 30}};

  const auto porep = eng::make_porep_kind();
  for (const auto& [label, size] : sizes) {
    const cuzk::io::seal_proof_info* info = nullptr;
    for (const auto& p : cuzk::io::seal_proofs())
      if (p.sector_size == size && std::string(p.name).ends_with("V1_1")) info = &p;
    const cuzk::circuits::synthetic_porep g = cuzk::circuits::generate_synthetic_porep(*info, 1);
    eng::proof_request req;
    req.kind = eng::proof_kind::porep_seal_commit;
    const std::string json = cuzk::io::write_c1_json(g.c1);
    req.vanilla_proof.assign(json.begin(), json.end());
    bench_kind("porep", label, *porep, req, repeats);
  }

  const auto snap = eng::make_snap_kind();
  for (std::size_t s = 0; s < 3; ++s) {
    const auto params = cuzk::circuits::snap_params_for(sizes[s].second);
    const cuzk::circuits::synthetic_snap g = cuzk::circuits::generate_synthetic_snap(params, 1);
    eng::proof_request req;
    req.kind = eng::proof_kind::snap_deals_update;
    req.registered_proof = s == 0 ? 0 : s == 1 ? 2 : 3;
    const auto raw = [](const cuzk::ff::fr& x) {
      std::vector<std::uint8_t> b(32);
      x.to_bytes_le(b.data());
      return b;
    };
    req.comm_r_old = raw(g.pub.comm_r_old);
    req.comm_r_new = raw(g.pub.comm_r_new);
    req.comm_d_new = raw(g.pub.comm_d_new);
    for (const auto& p : g.partitions) req.vanilla_proofs.push_back(cuzk::io::write_snap_partition_proof(p));
    bench_kind("snap", sizes[s].first, *snap, req, repeats);
  }

  std::ifstream in(fixtures + "/curio/post.vproof", std::ios::binary);
  const std::vector<std::uint8_t> vproof((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (vproof.empty()) {
    std::printf("wpost      32GiB   no %s/curio/post.vproof: skipped\n", fixtures.c_str());
    return 0;
  }
  const auto window = eng::make_window_post_kind();
  for (const std::size_t n : {std::size_t(1), cuzk::circuits::window_post_params(32ull << 30).sector_count}) {
    eng::proof_request req;
    req.kind = eng::proof_kind::window_post_partition;
    req.registered_proof = 13;  // StackedDrgWindow32GiBV1_1
    req.randomness.assign(32, 0);
    req.vanilla_proofs.assign(n, vproof);
    bench_kind("wpost", n == 1 ? "32GiB/1" : "32GiB/2349", *window, req, repeats);
  }
  return 0;
}
