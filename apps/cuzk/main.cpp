// SPDX-License-Identifier: Apache-2.0
// cuzk: the proving daemon. Reads the TOML config (--config, default
// /data/zk/cuzk.toml; a missing file means the defaults), applies --listen
// and --log-level over it, starts the engine (the CUDA backend when built
// with it and a device is visible, else the CPU backend), the gRPC server
// and the optional HTTP status listener, and runs until SIGTERM or SIGINT
// (SIGHUP: logged, ignored; SIGUSR1: a status line; SIGPIPE ignored:
// process_signals.hpp). Shutdown: stop accepting, let calls and jobs in
// flight finish for up to daemon.shutdown_timeout, cancel the rest, exit 0.
// Every exit logs its cause: 0 after a stop signal, 1 for a start-up or
// runtime error, 2 for a bad config or command line. Logs (spdlog) and TIMELINE lines go to stderr (CUZK_TIMELINE=off:
// no TIMELINE lines; CUZK_TEST_DELAY_STAGE: a test-only slowdown, passed to
// engine_config::test_delay_stage); they carry job ids, kinds and sizes,
// never request payloads. State is in memory only: after a crash or
// SIGKILL, jobs in flight are gone and clients resubmit (docs/RELIABILITY.md).
#include <sys/resource.h>

#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <string>

#include <CLI/CLI.hpp>
#include <spdlog/pattern_formatter.h>
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>
#include <tbb/global_control.h>

#include <cuzk/engine/engine.hpp>
#if defined(CUZK_ENGINE_HAVE_GPU)
#include <cuzk/gpu/runtime.hpp>
#endif

#include "daemon_config.hpp"
#include "backend_select.hpp"
#include "grpc_service.hpp"
#include "http_status.hpp"
#include "json_log.hpp"
#include "listen_security.hpp"
#include "process_signals.hpp"

namespace {

// %* in the json pattern: the message escaped for a JSON string (json_log.hpp).
class json_message_flag final : public spdlog::custom_flag_formatter {
 public:
  void format(const spdlog::details::log_msg& m, const std::tm&, spdlog::memory_buf_t& dest) override {
    std::string esc;
    cuzk::service::append_json_escaped(std::string_view(m.payload.data(), m.payload.size()), esc);
    dest.append(esc.data(), esc.data() + esc.size());
  }
  std::unique_ptr<spdlog::custom_flag_formatter> clone() const override {
    return std::make_unique<json_message_flag>();
  }
};

spdlog::level::level_enum level_of(const std::string& s) {
  if (const char* env = std::getenv("CUZK_LOG"); env && *env) return spdlog::level::from_str(env);
  return spdlog::level::from_str(s);
}

void log_at(int level, const std::string& m) {
  spdlog::log(level >= 3 ? spdlog::level::err : level == 2 ? spdlog::level::warn : spdlog::level::info, "{}", m);
}

// The CUDA backend when this build has it and a device is visible (the
// [gpus] devices list, empty = all; a listed ordinal that does not exist is
// an error), else the CPU backend with one virtual device per listed GPU.
// GPU failure policy (gpus.cpu_fallback): service::choose_backend.
std::unique_ptr<cuzk::engine::prover_backend> make_backend(const cuzk::service::daemon_config& cfg) {
  cuzk::service::backend_factory gpu;
#if defined(CUZK_ENGINE_HAVE_GPU)
  if (cuzk::gpu::device_count() > 0) {
    gpu = [&cfg] {
      cuzk::engine::gpu_backend_options o;
      o.devices = cfg.gpu_devices;
      o.vram_limit_bytes = cfg.gpu_vram_limit;
      return cuzk::engine::make_gpu_backend(o);
    };
  } else {
    spdlog::info("prover backend: cpu (this build has the CUDA backend, but no CUDA device is visible)");
  }
#else
  spdlog::info("prover backend: cpu (built without CUDA)");
#endif
  auto b = cuzk::service::choose_backend(cfg, gpu, log_at);
  if (gpu)
    for (const auto& d : b->devices()) spdlog::info("prover backend: {}, device {}", b->name(), d.name);
  return b;
}

// Descriptors: the soft RLIMIT_NOFILE up to the hard one (the unit sets
// LimitNOFILE=1048576), so a burst of client connections does not exhaust
// them. When they run out anyway, the plaintext listener's accept loop backs
// off and resumes once some are free (connection_acceptor.hpp); a TLS
// listener is gRPC 1.51's own, which stops accepting for good after one
// EMFILE from accept4 (docs/RELIABILITY.md, "Process resilience"). Every
// poller in the daemon uses poll/epoll, so descriptors above 1024 are fine.
void raise_fd_limit() {
  rlimit l{};
  if (getrlimit(RLIMIT_NOFILE, &l) != 0) return;
  const rlim_t before = l.rlim_cur;
  if (l.rlim_cur < l.rlim_max) {
    l.rlim_cur = l.rlim_max;
    if (setrlimit(RLIMIT_NOFILE, &l) != 0) l.rlim_cur = before;
  }
  if (l.rlim_cur < 4096)
    spdlog::warn(
        "open file limit is {} (hard limit {}): a few thousand client connections exhaust it; raise "
        "LimitNOFILE / ulimit -n",
        (unsigned long long)l.rlim_cur, (unsigned long long)l.rlim_max);
  else if (l.rlim_cur != before)
    spdlog::info("open file limit raised from {} to {}", (unsigned long long)before, (unsigned long long)l.rlim_cur);
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"cuzk: Groth16 proving daemon for Filecoin (gRPC cuzk.v1.ProvingEngine)"};
  std::string config_path = "/data/zk/cuzk.toml", listen, log_level;
  app.add_option("-c,--config", config_path, "TOML config file (missing file = defaults)");
  app.add_option("-l,--listen", listen, "gRPC address, host:port or unix:///path (overrides daemon.listen)");
  app.add_option("--log-level", log_level, "trace|debug|info|warn|error (overrides logging.level)");
  CLI11_PARSE(app, argc, argv);

  // before any thread starts: SIGPIPE ignored, control signals blocked in
  // every thread and taken by wait_for_stop below (process_signals.hpp)
  cuzk::daemon::install_process_signals();

  auto log = spdlog::stderr_color_mt("cuzk");
  spdlog::set_default_logger(log);
  cuzk::service::daemon_config cfg;
  try {
    cfg = cuzk::service::load_config(config_path);
  } catch (const std::exception& e) {
    spdlog::critical("cuzk exits with status 2 (bad config): {}", e.what());
    return 2;
  }
  if (!listen.empty()) cfg.listen = listen;
  if (!log_level.empty()) cfg.log_level = log_level;
  spdlog::set_level(level_of(cfg.log_level));
  if (cfg.log_format == "json") {
    auto f = std::make_unique<spdlog::pattern_formatter>();
    f->add_flag<json_message_flag>('*').set_pattern(R"({"time":"%Y-%m-%dT%H:%M:%S.%e","level":"%l","msg":"%*"})");
    spdlog::set_formatter(std::move(f));
  }
  raise_fd_limit();
  for (const auto& w : cfg.warnings) spdlog::warn("{}", w);
  for (const auto& w : cuzk::service::security_warnings(cfg)) spdlog::warn("{}", w);
  cuzk::service::grpc_server_options server_opts;
  try {
    server_opts = cuzk::service::server_options(cfg);
    server_opts.log = log_at;  // the listener's lines: descriptors exhausted, connections refused
  } catch (const std::exception& e) {
    spdlog::critical("cuzk exits with status 2 (bad config): {}", e.what());
    return 2;
  }

  std::unique_ptr<tbb::global_control> threads;
  if (cfg.synthesis_threads > 0)
    threads =
        std::make_unique<tbb::global_control>(tbb::global_control::max_allowed_parallelism, cfg.synthesis_threads);
  if (cfg.gpu_threads > 0) setenv("CUZK_GPU_THREADS", std::to_string(cfg.gpu_threads).c_str(), 1);

  // TEST ONLY: regression and resilience tests slow one stage of the real
  // binary this way; the engine validates the value (a malformed one: exit 1).
  if (const char* delay = std::getenv("CUZK_TEST_DELAY_STAGE")) cfg.engine.test_delay_stage = delay;

  try {
    cuzk::engine::engine eng(cfg.engine, make_backend(cfg));
    eng.set_log([](int lvl, const std::string& m) {
      static const spdlog::level::level_enum map[] = {spdlog::level::debug, spdlog::level::info, spdlog::level::warn,
                                                      spdlog::level::err};
      spdlog::log(map[std::min(lvl, 3)], "{}", m);
    });
    // TIMELINE lines come from the engine's writer thread only; CUZK_TIMELINE=off
    // turns them off (to measure what they cost, bench/RESULTS.md).
    const char* tl_env = std::getenv("CUZK_TIMELINE");
    if (!tl_env || std::string(tl_env) != "off")
      eng.set_timeline([](const std::string& line) { std::fprintf(stderr, "%s\n", line.c_str()); });
    else spdlog::info("TIMELINE lines off (CUZK_TIMELINE=off)");
    eng.register_kind(cuzk::engine::make_winning_post_kind());
    eng.register_kind(cuzk::engine::make_window_post_kind());
    eng.register_kind(cuzk::engine::make_porep_kind());
    eng.register_kind(cuzk::engine::make_snap_kind());
    eng.start();

    cuzk::service::grpc_server server(eng, cfg.listen, server_opts);
    spdlog::info("gRPC cuzk.v1.ProvingEngine listening on {}{}{}{}", cfg.listen,
                 server.port() ? " (port " + std::to_string(server.port()) + ")" : "",
                 server_opts.tls_cert_pem.empty() ? "" : ", TLS",
                 server_opts.auth_token.empty() ? "" : ", token required");
    std::unique_ptr<cuzk::service::http_status_server> http;
    if (!cfg.status_listen.empty()) {
      cuzk::service::http_status_options hopt;
      hopt.auth_token = server_opts.auth_token;
      http = std::make_unique<cuzk::service::http_status_server>(eng, cfg.status_listen, hopt);
      spdlog::info("HTTP status on {} (port {}): GET /status, GET /metrics{}", cfg.status_listen, http->port(),
                   hopt.auth_token.empty() ? "" : ", token required");
    }

    const int sig = cuzk::daemon::wait_for_stop([&eng](int other) {
      if (other == SIGUSR1) {
        const auto st = eng.status();
        spdlog::info(
            "received SIGUSR1: status: {} job(s) in flight, {} completed, {} failed, {} cancelled; budget "
            "{} of {} bytes used",
            st.jobs.size(), st.completed, st.failed, st.cancelled, st.budget_used, st.budget_total);
      } else {
        spdlog::info("received {}: ignored (cuzk has no config reload; restart it to apply a changed config)",
                     cuzk::daemon::signal_name(other));
      }
    });
    spdlog::info("received {}, shutting down (drain up to {} ms)", cuzk::daemon::signal_name(sig),
                 cfg.shutdown_timeout.count());
    // stop new work first, then give jobs and calls the same bound
    std::thread drain([&] { eng.shutdown(cfg.shutdown_timeout); });
    server.shutdown(std::uint64_t(cfg.shutdown_timeout.count()) + 1000);
    drain.join();
    if (http) http->stop();
    spdlog::info("cuzk stopped ({}), exit 0", cuzk::daemon::signal_name(sig));
  } catch (const std::exception& e) {
    spdlog::critical("cuzk exits with status 1: {}", e.what());
    return 1;
  }
  return 0;
}
