// SPDX-License-Identifier: Apache-2.0
// Waiting calls hold no thread (issue 25; docs/RELIABILITY.md, "Process
// resilience"): N AwaitProof calls (async client, one completion queue)
// wait for one long job; the process's thread count stays within a small
// bound of what it was (before: one server thread per waiting call), GetStatus
// answers in under 100 ms while they wait, and every waiter is answered within
// a second or two of the job's end (woken by the completion, no polling).
// A server with max_waiting_calls = 10 answers the 11th RESOURCE_EXHAUSTED.
// CUZK_WAITERS=<n> sets N (default 1000; the 5000-waiter run is recorded in
// RELIABILITY.md).
#include <gtest/gtest.h>

#include <dirent.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <thread>

#include <grpcpp/grpcpp.h>

#include "cuzk/v1/proving.grpc.pb.h"
#include "daemon_test_support.hpp"
#include "grpc_service.hpp"

namespace {

using namespace cuzk;
using namespace std::chrono_literals;
namespace eng = cuzk::engine;
namespace fs = std::filesystem;
namespace pb = cuzk::v1;
using steady = std::chrono::steady_clock;

std::size_t thread_count() {
  std::size_t n = 0;
  if (DIR* d = ::opendir("/proc/self/task")) {
    while (const dirent* e = ::readdir(d))
      if (e->d_name[0] != '.') ++n;
    ::closedir(d);
  }
  return n;
}

std::uint64_t rss_bytes() {
  std::ifstream in("/proc/self/statm");
  std::uint64_t size = 0, resident = 0;
  in >> size >> resident;
  return resident * std::uint64_t(::sysconf(_SC_PAGESIZE));
}

struct async_await {
  grpc::ClientContext ctx;
  pb::AwaitProofResponse resp;
  grpc::Status st;
  std::unique_ptr<grpc::ClientAsyncResponseReader<pb::AwaitProofResponse>> rpc;
};

struct fixture {
  fs::path dir = test::make_param_cache(false);
  std::unique_ptr<eng::engine> e;
  fixture() {
    e = std::make_unique<eng::engine>(test::small_config(dir), eng::make_cpu_backend(1));
    e->register_kind(std::make_shared<test::chain_kind>());
    e->start();
  }
  ~fixture() {
    e.reset();
    fs::remove_all(dir);
  }
};

bool wait_until(const std::function<bool()>& f, std::chrono::milliseconds limit) {
  const auto end = steady::now() + limit;
  while (steady::now() < end) {
    if (f()) return true;
    std::this_thread::sleep_for(10ms);
  }
  return f();
}

TEST(daemon_waiters, many_waiting_calls_hold_no_thread_and_getstatus_stays_fast) {
  const char* env = std::getenv("CUZK_WAITERS");
  const std::size_t n = env ? std::size_t(std::stoul(env)) : 1000;
  fixture f;
  service::grpc_server_options o;
  o.max_waiting_calls = n + 10;
  service::grpc_server server(*f.e, "127.0.0.1:0", o);
  const std::string addr = "127.0.0.1:" + std::to_string(server.port());
  auto stub = pb::ProvingEngine::NewStub(grpc::CreateChannel(addr, grpc::InsecureChannelCredentials()));
  (void)f.e->submit(test::chain_request("long", 1, 600000));  // runs until cancelled
  const auto status_ms = [&] {
    const auto t0 = steady::now();
    grpc::ClientContext ctx;
    pb::GetStatusResponse r;
    EXPECT_TRUE(stub->GetStatus(&ctx, pb::GetStatusRequest(), &r).ok());
    return std::chrono::duration<double, std::milli>(steady::now() - t0).count();
  };
  (void)status_ms();  // the connection is up
  const std::size_t threads0 = thread_count();
  const std::uint64_t rss0 = rss_bytes();

  grpc::CompletionQueue cq;
  std::vector<std::unique_ptr<async_await>> calls(n);
  pb::AwaitProofRequest req;
  req.set_job_id("long");
  const auto t_start = steady::now();
  for (std::size_t i = 0; i < n; ++i) {
    calls[i] = std::make_unique<async_await>();
    calls[i]->rpc = stub->PrepareAsyncAwaitProof(&calls[i]->ctx, req, &cq);
    calls[i]->rpc->StartCall();
    calls[i]->rpc->Finish(&calls[i]->resp, &calls[i]->st, reinterpret_cast<void*>(i));
  }
  ASSERT_TRUE(wait_until([&] { return server.waiting_calls() == n; }, 60s)) << server.waiting_calls() << " of " << n;
  const double setup_s = std::chrono::duration<double>(steady::now() - t_start).count();
  std::this_thread::sleep_for(300ms);
  const std::size_t threads1 = thread_count();
  const std::uint64_t rss1 = rss_bytes();
  double worst = 0;
  for (int i = 0; i < 10; ++i) worst = std::max(worst, status_ms());
  std::printf(
      "waiters: %zu waiting (set up in %.2f s); threads %zu -> %zu; RSS %.1f -> %.1f MiB (+%.1f KiB per "
      "waiter); GetStatus worst of 10: %.1f ms\n",
      n, setup_s, threads0, threads1, double(rss0) / 1048576, double(rss1) / 1048576,
      (double(rss1) - double(rss0)) / 1024 / double(n), worst);
  EXPECT_LT(threads1, threads0 + 32) << "a thread per waiting call?";
  EXPECT_LT(worst, 100.0);
  EXPECT_LT(rss1, rss0 + n * 64 * 1024) << "more than 64 KiB per waiting call";

  // the job ends: every waiter is answered, by the completion, promptly
  const auto t_end = steady::now();
  ASSERT_TRUE(f.e->cancel("long"));
  std::size_t answered = 0;
  void* tag = nullptr;
  bool ok = false;
  while (answered < n &&
         cq.AsyncNext(&tag, &ok, std::chrono::system_clock::now() + 30s) == grpc::CompletionQueue::GOT_EVENT) {
    const auto& c = *calls[reinterpret_cast<std::size_t>(tag)];
    EXPECT_TRUE(c.st.ok()) << c.st.error_message();
    EXPECT_EQ(c.resp.status(), pb::AwaitProofResponse::CANCELLED);
    ++answered;
  }
  const double answer_s = std::chrono::duration<double>(steady::now() - t_end).count();
  std::printf("waiters: all %zu answered %.2f s after the job ended\n", answered, answer_s);
  EXPECT_EQ(answered, n);
  EXPECT_LT(answer_s, 10.0);
  EXPECT_EQ(server.waiting_calls(), 0u);
  cq.Shutdown();
  while (cq.Next(&tag, &ok)) {
  }
}

TEST(daemon_waiters, beyond_max_waiting_calls_a_call_gets_resource_exhausted_and_timeouts_still_fire) {
  fixture f;
  service::grpc_server_options o;
  o.max_waiting_calls = 10;
  service::grpc_server server(*f.e, "127.0.0.1:0", o);
  auto stub = pb::ProvingEngine::NewStub(
      grpc::CreateChannel("127.0.0.1:" + std::to_string(server.port()), grpc::InsecureChannelCredentials()));
  (void)f.e->submit(test::chain_request("long", 1, 600000));
  grpc::CompletionQueue cq;
  std::vector<std::unique_ptr<async_await>> calls(10);
  pb::AwaitProofRequest req;
  req.set_job_id("long");
  for (std::size_t i = 0; i < calls.size(); ++i) {
    calls[i] = std::make_unique<async_await>();
    calls[i]->rpc = stub->PrepareAsyncAwaitProof(&calls[i]->ctx, req, &cq);
    calls[i]->rpc->StartCall();
    calls[i]->rpc->Finish(&calls[i]->resp, &calls[i]->st, reinterpret_cast<void*>(i));
  }
  ASSERT_TRUE(wait_until([&] { return server.waiting_calls() == 10; }, 20s));
  {
    grpc::ClientContext ctx;
    pb::AwaitProofResponse r;
    const grpc::Status st = stub->AwaitProof(&ctx, req, &r);
    EXPECT_EQ(st.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED) << st.error_message();
    EXPECT_NE(st.error_message().find("daemon.max_waiting_calls = 10"), std::string::npos) << st.error_message();
  }
  {
    grpc::ClientContext ctx;  // control calls are not waiting calls
    pb::GetStatusResponse r;
    EXPECT_TRUE(stub->GetStatus(&ctx, pb::GetStatusRequest(), &r).ok());
  }
  ASSERT_TRUE(f.e->cancel("long"));
  void* tag = nullptr;
  bool ok = false;
  for (std::size_t i = 0; i < calls.size(); ++i) {
    ASSERT_EQ(cq.AsyncNext(&tag, &ok, std::chrono::system_clock::now() + 20s), grpc::CompletionQueue::GOT_EVENT);
    EXPECT_EQ(calls[reinterpret_cast<std::size_t>(tag)]->resp.status(), pb::AwaitProofResponse::CANCELLED);
  }
  // a slot is free again; a timeout is answered at its deadline, not later
  (void)f.e->submit(test::chain_request("long2", 1, 600000));
  {
    grpc::ClientContext ctx;
    pb::AwaitProofRequest r2;
    r2.set_job_id("long2");
    r2.set_timeout_ms(300);
    pb::AwaitProofResponse r;
    const auto t0 = steady::now();
    ASSERT_TRUE(stub->AwaitProof(&ctx, r2, &r).ok());
    const auto took = steady::now() - t0;
    EXPECT_EQ(r.status(), pb::AwaitProofResponse::TIMEOUT);
    EXPECT_NE(r.error_message().find("timeout_ms = 300"), std::string::npos) << r.error_message();
    EXPECT_GE(took, 290ms);
    EXPECT_LT(took, 3s);
  }
  {
    grpc::ClientContext ctx;  // unknown job: NOT_FOUND at once
    pb::AwaitProofRequest r3;
    r3.set_job_id("never-submitted");
    pb::AwaitProofResponse r;
    EXPECT_EQ(stub->AwaitProof(&ctx, r3, &r).error_code(), grpc::StatusCode::NOT_FOUND);
  }
  ASSERT_TRUE(f.e->cancel("long2"));
  cq.Shutdown();
  while (cq.Next(&tag, &ok)) {
  }
}

}  // namespace
