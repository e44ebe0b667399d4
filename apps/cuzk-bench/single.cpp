// SPDX-License-Identifier: Apache-2.0
// Daemon client subcommands of cuzk-bench (the reference's names and output):
//   single  -t TYPE [--c1 FILE | --vanilla FILE] [--addr ADDR] [--out proof.bin] ...
//           one Prove through the daemon, then the "=== Proof Result ===" block
//   status  GetStatus, pretty-printed
//   preload -c CIRCUIT_ID
//   metrics raw Prometheus text
// Exit code: 0 when the proof completed (or the call succeeded), 1 otherwise.
#include <chrono>
#include <cstdio>
#include <fstream>
#include <random>

#include <cuzk/io/hex.hpp>

#include "client_util.hpp"
#include "commands.hpp"

namespace cuzk::bench_app {
namespace {

namespace pb = cuzk::v1;

struct single_options {
  std::string addr = "http://127.0.0.1:9820";
  std::string type, c1, vanilla, randomness, out, request_id;
  std::string comm_r_old, comm_r_new, comm_d_new;
  std::uint64_t registered_proof = 0, sector_num = 1, miner_id = 1000, sector_size = 0;
  std::uint32_t partition = 0;
  int priority = 0;
};

std::string hex_of(const std::string& b, std::size_t max) {
  return io::to_hex({reinterpret_cast<const std::uint8_t*>(b.data()), std::min(b.size(), max)});
}

std::string random_request_id() {
  std::random_device rd;
  char buf[64];
  std::snprintf(buf, sizeof buf, "bench-%08x%08x", rd(), rd());
  return buf;
}

int run_single(const single_options& o) {
  const engine::proof_kind kind = parse_type(o.type);
  pb::ProveRequest req;
  pb::SubmitProofRequest& s = *req.mutable_submit();
  s.set_request_id(o.request_id.empty() ? random_request_id() : o.request_id);
  s.set_proof_kind(pb::ProofKind(int(kind)));
  s.set_sector_size(o.sector_size);
  s.set_registered_proof(o.registered_proof);
  s.set_priority(pb::Priority(o.priority));
  s.set_sector_number(o.sector_num);
  s.set_miner_id(o.miner_id);
  s.set_partition_index(o.partition);
  if (kind == engine::proof_kind::porep_seal_commit) {
    if (o.c1.empty()) throw std::runtime_error("porep needs --c1 FILE");
    const auto c1 = read_file_bytes(o.c1);
    s.set_vanilla_proof(std::string(c1.begin(), c1.end()));
  } else {
    if (o.vanilla.empty()) throw std::runtime_error(o.type + " needs --vanilla FILE");
    for (const auto& v : read_vanilla_file(o.vanilla)) s.add_vanilla_proofs(std::string(v.begin(), v.end()));
  }
  const auto rand = o.randomness.empty() ? std::vector<std::uint8_t>(32, 0) : from_hex(o.randomness, "--randomness");
  s.set_randomness(std::string(rand.begin(), rand.end()));
  const auto hex32 = [](const std::string& v, const char* flag) {
    const auto b = from_hex(v, flag);
    return std::string(b.begin(), b.end());
  };
  if (!o.comm_r_old.empty()) s.set_comm_r_old(hex32(o.comm_r_old, "--comm-r-old"));
  if (!o.comm_r_new.empty()) s.set_comm_r_new(hex32(o.comm_r_new, "--comm-r-new"));
  if (!o.comm_d_new.empty()) s.set_comm_d_new(hex32(o.comm_d_new, "--comm-d-new"));
  auto stub = make_stub(o.addr);
  grpc::ClientContext ctx;
  pb::ProveResponse resp;
  const auto t0 = std::chrono::steady_clock::now();
  const grpc::Status st = stub->Prove(&ctx, req, &resp);
  const auto wall =
      std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - t0).count();
  if (!st.ok()) {
    std::fprintf(stderr, "single: Prove failed: %s (gRPC code %d)\n", st.error_message().c_str(), int(st.error_code()));
    return 1;
  }
  const pb::AwaitProofResponse& r = resp.result();
  std::printf("\n=== Proof Result ===\n");
  std::printf("status:    %s\n", std::string(engine::status_label(engine::await_status(r.status()))).c_str());
  std::printf("job_id:    %s\n", r.job_id().c_str());
  if (r.status() != pb::AwaitProofResponse::COMPLETED) {
    std::printf("error:     %s\n", r.error_message().c_str());
    return 1;
  }
  std::printf("timings:   total=%llu ms (queue=%llu ms, srs=%llu ms, synth=%llu ms, gpu=%llu ms)\n",
              (unsigned long long)r.total_ms(), (unsigned long long)r.queue_wait_ms(),
              (unsigned long long)r.srs_load_ms(), (unsigned long long)r.synthesis_ms(),
              (unsigned long long)r.gpu_compute_ms());
  std::printf("wall time: %lld ms\n", (long long)wall);
  const std::string& p = r.proof();
  std::printf("proof:     %zu bytes (hex: %s%s)\n", p.size(), hex_of(p, p.size() <= 256 ? 256 : 128).c_str(),
              p.size() <= 256 ? "" : "...");
  if (!o.out.empty()) {
    std::ofstream f(o.out, std::ios::binary);
    f.write(p.data(), std::streamsize(p.size()));
    if (!f) throw std::runtime_error("cannot write " + o.out);
  }
  return 0;
}

int run_status(const std::string& addr) {
  auto stub = make_stub(addr);
  grpc::ClientContext ctx;
  ctx.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(5));
  pb::GetStatusResponse s;
  const auto st = stub->GetStatus(&ctx, pb::GetStatusRequest(), &s);
  if (!st.ok()) {
    std::fprintf(stderr, "status: %s\n", st.error_message().c_str());
    return 1;
  }
  std::printf("=== cuzk daemon status ===\n");
  std::printf("uptime:           %llus\n", (unsigned long long)s.uptime_seconds());
  std::printf("proofs completed: %llu\n", (unsigned long long)s.total_proofs_completed());
  std::printf("proofs failed:    %llu\n", (unsigned long long)s.total_proofs_failed());
  std::printf("pinned memory:    %llu / %llu bytes\n", (unsigned long long)s.pinned_memory_bytes(),
              (unsigned long long)s.pinned_memory_limit_bytes());
  std::printf("GPUs:\n");
  for (const auto& g : s.gpus())
    std::printf("  [%u] %s — %llu MiB / %llu MiB VRAM — %s\n", g.ordinal(), g.name().c_str(),
                (unsigned long long)(g.vram_free_bytes() >> 20), (unsigned long long)(g.vram_total_bytes() >> 20),
                g.current_job_id().empty()
                    ? "idle"
                    : ("proving " + g.current_proof_kind() + " (" + g.current_job_id().substr(0, 8) + ")").c_str());
  std::printf("Loaded SRS:\n");
  for (const auto& e : s.loaded_srs())
    std::printf("  %s (tier=%d, size=%llu bytes, refs=%u)\n", e.circuit_id().c_str(), int(e.tier()),
                (unsigned long long)e.size_bytes(), e.ref_count());
  std::printf("Queues:\n");
  for (const auto& q : s.queues())
    std::printf("  %s: pending=%u, in_progress=%u\n", q.proof_kind().c_str(), q.pending(), q.in_progress());
  return 0;
}

}  // namespace

void register_client(CLI::App& app) {
  static single_options o;
  auto* cmd = app.add_subcommand("single", "prove one request through the daemon and print its timings");
  cmd->add_option("-a,--addr", o.addr, "daemon address: host:port, http://host:port or unix:///path");
  cmd->add_option("-t,--type", o.type, "porep | snap | wpost | winning (and the reference's aliases)")->required();
  cmd->add_option("--c1", o.c1, "PoRep: the C1 output wrapper JSON");
  cmd->add_option("--vanilla", o.vanilla, "PoSt/Snap: JSON array of base64 vanilla proofs (or one raw proof)");
  cmd->add_option("--registered-proof", o.registered_proof,
                  "Go abi registered proof (Winning 2KiB=0, 32GiB=3; Window V1_1 2KiB=10, 32GiB=13)");
  cmd->add_option("--sector-size", o.sector_size, "bytes (0: from the registered proof)");
  cmd->add_option("--sector-num", o.sector_num, "sector number");
  cmd->add_option("--miner-id", o.miner_id, "miner id");
  cmd->add_option("--partition", o.partition, "WindowPoSt partition index");
  cmd->add_option("--randomness", o.randomness, "32 bytes hex (default zeros)");
  cmd->add_option("--comm-r-old", o.comm_r_old, "Snap: 32 bytes hex");
  cmd->add_option("--comm-r-new", o.comm_r_new, "Snap: 32 bytes hex");
  cmd->add_option("--comm-d-new", o.comm_d_new, "Snap: 32 bytes hex");
  cmd->add_option("--priority", o.priority, "0 (kind default), 1 low .. 4 critical");
  cmd->add_option("--request-id", o.request_id, "idempotency key (default: random)");
  cmd->add_option("-o,--out", o.out, "write the proof bytes here");
  cmd->callback([] { run_subcommand("single", [] { return run_single(o); }); });

  static std::string status_addr = "http://127.0.0.1:9820";
  auto* st = app.add_subcommand("status", "GetStatus of the daemon");
  st->add_option("-a,--addr", status_addr, "daemon address");
  st->callback([] { run_subcommand("status", [] { return run_status(status_addr); }); });

  static std::string pre_addr = "http://127.0.0.1:9820", circuit;
  auto* pre = app.add_subcommand("preload", "load a circuit's parameters into the hot tier");
  pre->add_option("-a,--addr", pre_addr, "daemon address");
  pre->add_option("-c,--circuit-id", circuit, "e.g. porep-32g, wpost-2k, winning-32g")->required();
  pre->callback([] {
    run_subcommand("preload", [] {
      grpc::ClientContext ctx;
      pb::PreloadSrsRequest r;
      r.set_circuit_id(circuit);
      pb::PreloadSrsResponse resp;
      const auto s = make_stub(pre_addr)->PreloadSRS(&ctx, r, &resp);
      if (!s.ok()) throw std::runtime_error(s.error_message());
      if (resp.already_loaded()) std::printf("%s already loaded\n", circuit.c_str());
      else std::printf("%s loaded in %llu ms\n", circuit.c_str(), (unsigned long long)resp.load_time_ms());
      return 0;
    });
  });

  static std::string met_addr = "http://127.0.0.1:9820";
  auto* met = app.add_subcommand("metrics", "Prometheus metrics of the daemon");
  met->add_option("-a,--addr", met_addr, "daemon address");
  met->callback([] {
    run_subcommand("metrics", [] {
      grpc::ClientContext ctx;
      pb::GetMetricsResponse resp;
      const auto s = make_stub(met_addr)->GetMetrics(&ctx, pb::GetMetricsRequest(), &resp);
      if (!s.ok()) throw std::runtime_error(s.error_message());
      std::fputs(resp.prometheus_text().c_str(), stdout);
      return 0;
    });
  });
}

}  // namespace cuzk::bench_app
