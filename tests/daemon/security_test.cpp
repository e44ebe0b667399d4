// SPDX-License-Identifier: Apache-2.0
// Security properties of the daemon (docs/RELIABILITY.md, "Security"):
//  * a unix socket is created with daemon.unix_socket_mode (0600 by
//    default, 0660 allowed, modes open to other users refused by the config);
//  * the default listen address is loopback, and exposed listeners without
//    TLS or a token are reported;
//  * an auth token: calls without it, or with a wrong one, get
//    UNAUTHENTICATED on every RPC; the right one passes;
//  * TLS (self-signed certificate made here with OpenSSL): a TLS client
//    proves through it, a plaintext client cannot talk to it, and with a
//    client CA a client without a certificate is refused;
//  * circuit ids can never name a file: PreloadSRS / EvictSRS with path
//    traversal get NOT_FOUND, and a kind whose file stem would leave
//    param_cache cannot be registered;
//  * request_id cannot inject log or TIMELINE lines (control characters,
//    commas, over 256 bytes: INVALID_ARGUMENT); Curio's ids pass;
//  * no request payload bytes reach the logs or TIMELINE lines, for
//    accepted, rejected and failed requests.
// The max message size check is tested in grpc_test.cpp (bad_requests...).
#include <gtest/gtest.h>

#include <sys/stat.h>

#include <fstream>
#include <mutex>

#include <grpcpp/grpcpp.h>

#include <cuzk/io/hex.hpp>

#include "common/test_seed.hpp"
#include "cuzk/v1/proving.grpc.pb.h"
#include "daemon_test_support.hpp"
#include "grpc_service.hpp"
#include "listen_security.hpp"
#include "tls_test_support.hpp"

namespace {

using namespace cuzk;
using namespace std::chrono_literals;
namespace eng = cuzk::engine;
namespace fs = std::filesystem;
namespace pb = cuzk::v1;

struct engine_only {
  fs::path dir = test::make_param_cache(true);
  std::unique_ptr<eng::engine> e;
  std::string log;  // every log and TIMELINE line
  std::mutex mu;
  explicit engine_only(bool chain = true) {
    e = std::make_unique<eng::engine>(test::small_config(dir), eng::make_cpu_backend(1));
    e->set_log([this](int, const std::string& m) {
      std::lock_guard lk(mu);
      log += m + "\n";
    });
    e->set_timeline([this](const std::string& m) {
      std::lock_guard lk(mu);
      log += m + "\n";
    });
    e->register_kind(eng::make_winning_post_kind());
    e->register_kind(eng::make_window_post_kind());
    if (chain) e->register_kind(std::make_shared<test::chain_kind>());
    else e->register_kind(eng::make_porep_kind());
    e->start();
  }
  ~engine_only() {
    e.reset();
    fs::remove_all(dir);
  }
};

pb::SubmitProofRequest chain_submit(const std::string& id) {
  pb::SubmitProofRequest q;
  q.set_request_id(id);
  q.set_proof_kind(pb::POREP_SEAL_COMMIT);
  q.set_vanilla_proof("chain:1:0");
  return q;
}

TEST(security_unix_socket, created_with_restrictive_permissions) {
  engine_only d;
  const fs::path dir = fs::temp_directory_path() / ("cuzk-sock-" + std::to_string(std::random_device{}()));
  for (const unsigned mode : {0600u, 0660u}) {
    const fs::path sock = dir / ("m" + std::to_string(mode)) / "cuzk.sock";
    service::grpc_server_options o;
    o.unix_socket_mode = mode;
    service::grpc_server s(*d.e, "unix://" + sock.string(), o);
    struct stat st {};
    ASSERT_EQ(::stat(sock.c_str(), &st), 0);
    EXPECT_TRUE(S_ISSOCK(st.st_mode));
    EXPECT_EQ(st.st_mode & 0777, mode);
    auto stub =
        pb::ProvingEngine::NewStub(grpc::CreateChannel("unix://" + sock.string(), grpc::InsecureChannelCredentials()));
    grpc::ClientContext ctx;
    pb::GetStatusResponse resp;
    EXPECT_TRUE(stub->GetStatus(&ctx, pb::GetStatusRequest(), &resp).ok());
  }
  fs::remove_all(dir);
  // the config refuses modes that open the socket to everyone
  EXPECT_EQ(service::parse_config("[daemon]\nunix_socket_mode = \"0660\"\n").unix_socket_mode, 0660u);
  EXPECT_EQ(service::daemon_config().unix_socket_mode, 0600u);
  for (const char* bad : {"0666", "0777", "0606", "rw", "0400", "1600"})
    EXPECT_THROW(service::parse_config(std::string("[daemon]\nunix_socket_mode = \"") + bad + "\"\n"),
                 service::config_error)
        << bad;
}

TEST(security_listen, default_is_loopback_and_exposed_listeners_are_reported) {
  const service::daemon_config def;
  EXPECT_TRUE(service::is_local_address(def.listen)) << def.listen;
  EXPECT_TRUE(service::security_warnings(def).empty());
  for (const char* a : {"127.0.0.1:9820", "localhost:1", "[::1]:9820", "unix:///run/cuzk.sock"})
    EXPECT_TRUE(service::is_local_address(a)) << a;
  for (const char* a : {"0.0.0.0:9820", "[::]:9820", "10.0.0.5:9820", "cuzk.example:9820"})
    EXPECT_FALSE(service::is_local_address(a)) << a;
  service::daemon_config c;
  c.listen = "0.0.0.0:9820";
  c.status_listen = "0.0.0.0:9821";
  const auto w = service::security_warnings(c);
  ASSERT_EQ(w.size(), 2u);
  EXPECT_NE(w[0].find("without TLS or an auth token"), std::string::npos) << w[0];
  c.status_listen.clear();
  c.auth_token_file = "/etc/cuzk/token";
  EXPECT_TRUE(service::security_warnings(c).empty());
  // TLS keys go together
  EXPECT_THROW(service::parse_config("[daemon]\ntls_cert_file = \"/c.pem\"\n"), service::config_error);
  EXPECT_THROW(service::parse_config("[daemon]\ntls_client_ca_file = \"/ca.pem\"\n"), service::config_error);
  // unreadable or empty secret files stop the start, naming the key, never the content
  c.auth_token_file = "/nonexistent/token";
  try {
    (void)service::server_options(c);
    ADD_FAILURE();
  } catch (const service::config_error& e) {
    EXPECT_NE(std::string(e.what()).find("daemon.auth_token_file"), std::string::npos) << e.what();
  }
}

TEST(security_token, every_rpc_needs_the_shared_token) {
  engine_only d;
  const fs::path tok = d.dir / "token";
  { std::ofstream(tok) << "  s3cr3t-t0ken-value\n"; }
  service::daemon_config cfg;
  cfg.auth_token_file = tok.string();
  const auto opt = service::server_options(cfg);
  EXPECT_EQ(opt.auth_token, "s3cr3t-t0ken-value");
  service::grpc_server s(*d.e, "127.0.0.1:0", opt);
  auto stub = pb::ProvingEngine::NewStub(
      grpc::CreateChannel("127.0.0.1:" + std::to_string(s.port()), grpc::InsecureChannelCredentials()));
  int round = 0;
  const auto all_rpcs = [&](const char* header) {
    std::vector<grpc::StatusCode> codes;
    const std::string tag = std::to_string(++round);
    const auto ctx = [&] {
      auto c = std::make_unique<grpc::ClientContext>();
      c->set_deadline(std::chrono::system_clock::now() + 30s);
      if (header) c->AddMetadata("authorization", header);
      return c;
    };
    pb::SubmitProofResponse r1;
    codes.push_back(stub->SubmitProof(ctx().get(), chain_submit("tok-" + tag), &r1).error_code());
    pb::AwaitProofRequest aq;
    aq.set_job_id("unknown-job");
    pb::AwaitProofResponse r2;
    codes.push_back(stub->AwaitProof(ctx().get(), aq, &r2).error_code());
    pb::ProveRequest pq;
    *pq.mutable_submit() = chain_submit("tok-prove-" + tag);
    pb::ProveResponse r3;
    codes.push_back(stub->Prove(ctx().get(), pq, &r3).error_code());
    pb::CancelProofRequest cq;
    cq.set_job_id("unknown-job");
    pb::CancelProofResponse r4;
    codes.push_back(stub->CancelProof(ctx().get(), cq, &r4).error_code());
    pb::GetStatusResponse r5;
    codes.push_back(stub->GetStatus(ctx().get(), pb::GetStatusRequest(), &r5).error_code());
    pb::GetMetricsResponse r6;
    codes.push_back(stub->GetMetrics(ctx().get(), pb::GetMetricsRequest(), &r6).error_code());
    pb::PreloadSrsRequest pr;
    pr.set_circuit_id("test-chain");
    pb::PreloadSrsResponse r7;
    codes.push_back(stub->PreloadSRS(ctx().get(), pr, &r7).error_code());
    pb::EvictSrsRequest er;
    er.set_circuit_id("nope");
    pb::EvictSrsResponse r8;
    codes.push_back(stub->EvictSRS(ctx().get(), er, &r8).error_code());
    return codes;
  };
  for (const char* bad : {static_cast<const char*>(nullptr), "Bearer wrong", "Bearer s3cr3t-t0ken-valu",
                          "Bearer s3cr3t-t0ken-value2", "s3cr3t-t0ken-value"})
    for (const auto c : all_rpcs(bad)) EXPECT_EQ(c, grpc::StatusCode::UNAUTHENTICATED) << (bad ? bad : "no header");
  EXPECT_EQ(d.e->status().completed, 0u);  // nothing ran
  const auto ok = all_rpcs("Bearer s3cr3t-t0ken-value");
  const std::vector<grpc::StatusCode> expect{
      grpc::StatusCode::OK, grpc::StatusCode::NOT_FOUND, grpc::StatusCode::OK, grpc::StatusCode::NOT_FOUND,
      grpc::StatusCode::OK, grpc::StatusCode::OK,        grpc::StatusCode::OK, grpc::StatusCode::NOT_FOUND};
  EXPECT_EQ(ok, expect);
  // the token value never appears in what the daemon logged
  std::lock_guard lk(d.mu);
  EXPECT_EQ(d.log.find("s3cr3t"), std::string::npos);
}

// ---- TLS ------------------------------------------------------------------------------------------

using test::pem_pair;
using test::self_signed;

std::unique_ptr<pb::ProvingEngine::Stub> tls_stub(int port, const pem_pair& server, const pem_pair* client) {
  grpc::SslCredentialsOptions o;
  o.pem_root_certs = server.cert;
  if (client) {
    o.pem_private_key = client->key;
    o.pem_cert_chain = client->cert;
  }
  return pb::ProvingEngine::NewStub(grpc::CreateChannel("localhost:" + std::to_string(port), grpc::SslCredentials(o)));
}

grpc::StatusCode status_call(pb::ProvingEngine::Stub& stub) {
  grpc::ClientContext ctx;
  ctx.set_deadline(std::chrono::system_clock::now() + 5s);
  pb::GetStatusResponse resp;
  return stub.GetStatus(&ctx, pb::GetStatusRequest(), &resp).error_code();
}

TEST(security_tls, tls_listener_serves_tls_clients_only_and_checks_client_certificates) {
  engine_only d;
  const pem_pair server = self_signed("localhost"), client = self_signed("curio");
  {
    service::grpc_server_options o;
    o.tls_cert_pem = server.cert;
    o.tls_key_pem = server.key;
    service::grpc_server s(*d.e, "127.0.0.1:0", o);
    auto stub = tls_stub(s.port(), server, nullptr);
    grpc::ClientContext ctx;
    ctx.set_deadline(std::chrono::system_clock::now() + 30s);
    pb::ProveRequest pq;
    *pq.mutable_submit() = chain_submit("over-tls");
    pb::ProveResponse resp;
    ASSERT_TRUE(stub->Prove(&ctx, pq, &resp).ok());
    EXPECT_EQ(resp.result().status(), pb::AwaitProofResponse::COMPLETED) << resp.result().error_message();
    auto plain = pb::ProvingEngine::NewStub(
        grpc::CreateChannel("127.0.0.1:" + std::to_string(s.port()), grpc::InsecureChannelCredentials()));
    EXPECT_EQ(status_call(*plain), grpc::StatusCode::UNAVAILABLE);
    const pem_pair stranger = self_signed("localhost");  // a server certificate the client does not trust
    EXPECT_EQ(status_call(*tls_stub(s.port(), stranger, nullptr)), grpc::StatusCode::UNAVAILABLE);
  }
  {
    service::grpc_server_options o;
    o.tls_cert_pem = server.cert;
    o.tls_key_pem = server.key;
    o.tls_client_ca_pem = client.cert;
    service::grpc_server s(*d.e, "127.0.0.1:0", o);
    EXPECT_EQ(status_call(*tls_stub(s.port(), server, &client)), grpc::StatusCode::OK);
    EXPECT_EQ(status_call(*tls_stub(s.port(), server, nullptr)), grpc::StatusCode::UNAVAILABLE);
    const pem_pair other = self_signed("intruder");
    EXPECT_EQ(status_call(*tls_stub(s.port(), server, &other)), grpc::StatusCode::UNAVAILABLE);
  }
}

// ---- path traversal ------------------------------------------------------------------------------

TEST(security_paths, circuit_ids_and_file_stems_cannot_escape_param_cache) {
  engine_only d;
  service::grpc_server s(*d.e, "127.0.0.1:0", 1ull << 20);
  auto stub = pb::ProvingEngine::NewStub(
      grpc::CreateChannel("127.0.0.1:" + std::to_string(s.port()), grpc::InsecureChannelCredentials()));
  // a file a traversal would reach, next to param_cache
  const fs::path outside = d.dir.parent_path() / "escape-target.params";
  fs::copy_file(d.dir / "test-chain-64.params", outside, fs::copy_options::overwrite_existing);
  for (const std::string& id : std::vector<std::string>{"../escape-target", "../../../../etc/passwd", "/etc/passwd",
                                                        "test-chain/../test-chain", "./test-chain", "test-chain-64",
                                                        std::string("test-chain\0x", 12), "%2e%2e%2fescape-target"}) {
    grpc::ClientContext c1;
    pb::PreloadSrsRequest pr;
    pr.set_circuit_id(id);
    pb::PreloadSrsResponse r1;
    EXPECT_EQ(stub->PreloadSRS(&c1, pr, &r1).error_code(), grpc::StatusCode::NOT_FOUND) << id;
    grpc::ClientContext c2;
    pb::EvictSrsRequest er;
    er.set_circuit_id(id);
    pb::EvictSrsResponse r2;
    EXPECT_EQ(stub->EvictSRS(&c2, er, &r2).error_code(), grpc::StatusCode::NOT_FOUND) << id;
  }
  EXPECT_EQ(d.e->budget().used(), 0u);  // nothing was loaded
  fs::remove(outside);
  // a kind whose table names a file outside param_cache cannot be registered
  eng::memory_budget b(1ull << 30, 0);
  eng::srs_options so;
  so.param_cache = d.dir;
  so.eviction_min_idle = 0ms;
  eng::srs_manager srs(so, b);
  for (const char* stem : {"../x", "a/b", "..", ".", "", "/etc/passwd", "x\\..\\y"})
    EXPECT_THROW(srs.register_circuit({"evil", stem, 0, [] { return r1cs::r1cs_shape{}; }}), std::invalid_argument)
        << stem;
  EXPECT_NO_THROW(
      srs.register_circuit({"fine", "v28-stacked-proof-of-replication-x", 0, [] { return r1cs::r1cs_shape{}; }}));
}

// ---- request ids and payloads in logs ------------------------------------------------------------------

TEST(security_logs, request_ids_cannot_forge_lines_and_payloads_never_reach_the_logs) {
  std::mt19937_64 rng(test::test_seed("security-logs"));
  engine_only d(false);  // the real PoRep kind: its C1 errors are the most verbose
  service::grpc_server s(*d.e, "127.0.0.1:0", 1ull << 20);
  auto stub = pb::ProvingEngine::NewStub(
      grpc::CreateChannel("127.0.0.1:" + std::to_string(s.port()), grpc::InsecureChannelCredentials()));
  const auto submit = [&](const pb::SubmitProofRequest& q, std::string* job = nullptr) {
    grpc::ClientContext ctx;
    pb::SubmitProofResponse resp;
    const auto st = stub->SubmitProof(&ctx, q, &resp);
    if (job) *job = resp.job_id();
    return st;
  };
  for (const std::string& id : {std::string("x\nTIMELINE,1,JOB_DONE,forged,status=COMPLETED"), std::string("a,b"),
                                std::string("tab\there"), std::string(257, 'a'), std::string("nul\0x", 5)}) {
    auto q = chain_submit(id);
    q.set_proof_kind(pb::WINNING_POST);
    const auto st = submit(q);
    EXPECT_EQ(st.error_code(), grpc::StatusCode::INVALID_ARGUMENT) << id;
    EXPECT_NE(st.error_message().find("request_id"), std::string::npos) << st.error_message();
  }
  const std::string marker = "PAYLOAD-MARKER-7f3a9c";
  // a PoRep C1 that is almost JSON, with the marker in a value, a key and garbage
  for (const std::string& c1 :
       {"{\"" + marker + "\": 1}", "{\"registered_proof\": \"" + marker + "\"}", marker + std::string(100, 'z'),
        "{\"Phase1Out\": \"" + marker + "\", \"SectorNum\": 1}"}) {
    pb::SubmitProofRequest q;
    q.set_request_id("porep-1000-1");
    q.set_proof_kind(pb::POREP_SEAL_COMMIT);
    q.set_vanilla_proof(c1);
    EXPECT_EQ(submit(q).error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  }
  // PoSt with the marker in the vanilla bytes and the randomness
  auto good = test::winning_case(rng, "winpost-1000-aa");
  {
    pb::SubmitProofRequest q;
    q.set_request_id("winpost-1000-bad");
    q.set_proof_kind(pb::WINNING_POST);
    q.add_vanilla_proofs(marker + marker);
    q.set_randomness(std::string(good.req.randomness.begin(), good.req.randomness.end()));
    EXPECT_EQ(submit(q).error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  }
  // an accepted WinningPoSt: its payload bytes must not show up either (Curio's id passes)
  pb::SubmitProofRequest q;
  q.set_request_id("winpost-1000-0a1b2c3d4e5f6071");
  q.set_proof_kind(pb::WINNING_POST);
  q.add_vanilla_proofs(std::string(good.req.vanilla_proofs[0].begin(), good.req.vanilla_proofs[0].end()));
  q.set_randomness(std::string(good.req.randomness.begin(), good.req.randomness.end()));
  std::string job;
  ASSERT_TRUE(submit(q, &job).ok());
  EXPECT_EQ(d.e->await(job, 120s).status, eng::await_status::completed);
  std::lock_guard lk(d.mu);
  EXPECT_NE(d.log.find("winpost-1000-0a1b2c3d4e5f6071"), std::string::npos) << d.log;  // ids are logged
  EXPECT_EQ(d.log.find("PAYLOAD-MARKER"), std::string::npos) << d.log;
  EXPECT_EQ(d.log.find("forged"), std::string::npos) << d.log;
  const auto& v = good.req.vanilla_proofs[0];
  const std::string hex_rand = io::to_hex(std::span<const std::uint8_t>(good.req.randomness));
  EXPECT_EQ(d.log.find(hex_rand), std::string::npos);
  for (std::size_t off = 0; off + 16 <= v.size(); off += 997) {  // no 16-byte window of the vanilla proof, in hex
    const std::string w = io::to_hex(std::span<const std::uint8_t>(v.data() + off, 16));
    EXPECT_EQ(d.log.find(w), std::string::npos) << off;
  }
}

}  // namespace
