// SPDX-License-Identifier: Apache-2.0
// The TOML config: the example file parses with no warning and gives the
// defaults, every key reaches its setting, unknown and deprecated keys warn,
// bad values are errors naming the key, sizes and durations parse.
#include <gtest/gtest.h>

#include <fstream>
#include <iterator>

#include "daemon_config.hpp"

namespace {

using namespace cuzk::service;
using namespace std::chrono_literals;

TEST(daemon_config, example_file_parses_cleanly_to_the_defaults) {
  const daemon_config c = load_config(CUZK_EXAMPLE_CONFIG);
  EXPECT_TRUE(c.warnings.empty()) << c.warnings.front();
  const daemon_config d;
  EXPECT_EQ(c.listen, d.listen);
  EXPECT_EQ(c.listen, "127.0.0.1:9820");
  EXPECT_EQ(c.max_message_size, d.max_message_size);
  EXPECT_EQ(c.engine.param_cache, "/data/zk/params");
  EXPECT_EQ(c.engine.total_budget, 0u);
  EXPECT_EQ(c.engine.safety_margin, 5ull << 30);
  EXPECT_EQ(c.engine.eviction_min_idle, 5min);
  EXPECT_FALSE(c.engine.priority_reserve.has_value());
  EXPECT_EQ(c.engine.gpu_workers_per_device, 2u);
  EXPECT_EQ(c.gpu_vram_limit, 0u);  // "auto"
  EXPECT_EQ(c.engine.verify, cuzk::engine::verify_mode::all);
  EXPECT_EQ(c.engine.result_ttl, 10min);
  EXPECT_EQ(c.engine.max_batch_size, 1u);  // no batching
  EXPECT_EQ(c.engine.max_batch_wait, d.engine.max_batch_wait);
  EXPECT_EQ(c.engine.max_batch_wait, 2000ms);
  EXPECT_EQ(c.log_level, "info");
}

TEST(daemon_config, example_file_documents_every_known_key) {
  std::ifstream in(CUZK_EXAMPLE_CONFIG);
  const std::string text{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  for (const std::string& sk : known_config_keys()) {
    const std::string sec = sk.substr(0, sk.find('.')), key = sk.substr(sk.find('.') + 1);
    const auto at = text.find("[" + sec + "]");
    ASSERT_NE(at, std::string::npos) << "section " << sec;
    const auto next = text.find("\n[", at + 1);
    EXPECT_NE(text.substr(at, next - at).find(key), std::string::npos) << sk << " is not documented";
  }
}

TEST(daemon_config, every_key_is_applied) {
  const daemon_config c = parse_config(R"(
[daemon]
listen = "unix:///run/cuzk/cuzk.sock"
status_listen = "0.0.0.0:9821"
max_message_size = "64MiB"
shutdown_timeout = "90s"
[srs]
param_cache = "/p"
check_points = true
shape_cache = false
parameters_json = "/etc/filecoin/parameters.json"
[memory]
total_budget = "100GiB"
safety_margin = "1GiB"
eviction_min_idle = "30s"
priority_reserve = "3GiB"
[gpus]
devices = [0, 2]
gpu_threads = 32
gpu_workers_per_device = 3
vram_limit = "22GiB"
[scheduler]
max_batch_size = 4
max_batch_wait_ms = 5000
[synthesis]
threads = 12
[pipeline]
enabled = true
max_parallel_synthesis = 7
max_gpu_queue_depth = 4
finalizer_threads = 3
verify_proofs = "porep"
check_vanilla_proofs = false
result_ttl = "2m"
[logging]
level = "DEBUG"
format = "json"
)");
  EXPECT_TRUE(c.warnings.empty()) << c.warnings.front();
  EXPECT_EQ(c.listen, "unix:///run/cuzk/cuzk.sock");
  EXPECT_EQ(c.status_listen, "0.0.0.0:9821");
  EXPECT_EQ(c.max_message_size, 64ull << 20);
  EXPECT_EQ(c.shutdown_timeout, 90s);
  EXPECT_EQ(c.engine.param_cache, "/p");
  EXPECT_TRUE(c.engine.check_points);
  EXPECT_FALSE(c.engine.shape_cache);
  EXPECT_EQ(c.engine.parameters_json, "/etc/filecoin/parameters.json");
  EXPECT_FALSE(c.engine.check_vanilla_proofs);
  EXPECT_EQ(c.engine.total_budget, 100ull << 30);
  EXPECT_EQ(c.engine.safety_margin, 1ull << 30);
  EXPECT_EQ(c.engine.eviction_min_idle, 30s);
  EXPECT_EQ(c.engine.priority_reserve, 3ull << 30);
  EXPECT_EQ(c.gpu_devices, (std::vector<int>{0, 2}));
  EXPECT_EQ(c.gpu_threads, 32u);
  EXPECT_EQ(c.gpu_vram_limit, 22ull << 30);
  EXPECT_EQ(c.engine.gpu_workers_per_device, 3u);
  EXPECT_EQ(c.synthesis_threads, 12u);
  EXPECT_EQ(c.engine.max_parallel_synthesis, 7u);
  EXPECT_EQ(c.engine.gpu_queue_capacity, 4u);
  EXPECT_EQ(c.engine.finalizer_threads, 3u);
  EXPECT_EQ(c.engine.verify, cuzk::engine::verify_mode::porep);
  EXPECT_EQ(c.engine.result_ttl, 2min);
  EXPECT_EQ(c.engine.max_batch_size, 4u);
  EXPECT_EQ(c.engine.max_batch_wait, 5000ms);
  EXPECT_EQ(c.log_level, "debug");
  EXPECT_EQ(c.log_format, "json");
}

TEST(daemon_config, unknown_and_deprecated_keys_warn) {
  const daemon_config c = parse_config(R"(
[daemon]
listne = "x"
[memory]
pinned_budget = "50GiB"
[synthesis]
partition_workers = 10
[pipeline]
synthesis_lookahead = 2
[extra]
a = 1
)");
  ASSERT_EQ(c.warnings.size(), 5u);
  std::string all;
  for (const auto& w : c.warnings) all += w + "\n";
  EXPECT_NE(all.find("unknown key daemon.listne"), std::string::npos) << all;
  EXPECT_NE(all.find("memory.pinned_budget is deprecated"), std::string::npos) << all;
  EXPECT_NE(all.find("synthesis.partition_workers is deprecated"), std::string::npos) << all;
  EXPECT_NE(all.find("pipeline.synthesis_lookahead is accepted"), std::string::npos) << all;
  EXPECT_NE(all.find("unknown section [extra]"), std::string::npos) << all;
}

TEST(daemon_config, invalid_values_are_errors_naming_the_key) {
  const auto err = [](const char* text) -> std::string {
    try {
      (void)parse_config(text, "t.toml");
    } catch (const config_error& e) {
      return e.what();
    }
    return "(no error)";
  };
  EXPECT_NE(err("[memory]\ntotal_budget = \"lots\"").find("memory.total_budget"), std::string::npos);
  EXPECT_NE(err("[memory]\ntotal_budget = \"5PB\"").find("unknown size unit"), std::string::npos);
  EXPECT_NE(err("[gpus]\ngpu_workers_per_device = 0").find("gpus.gpu_workers_per_device: value 0 out of range"),
            std::string::npos);
  EXPECT_NE(err("[gpus]\ndevices = \"all\"").find("gpus.devices"), std::string::npos);
  EXPECT_NE(err("[daemon]\nlisten = 9820").find("daemon.listen: expected a string"), std::string::npos);
  EXPECT_NE(err("[pipeline]\nverify_proofs = \"some\"").find("pipeline.verify_proofs"), std::string::npos);
  EXPECT_NE(err("[memory]\neviction_min_idle = \"5 weeks\"").find("memory.eviction_min_idle"), std::string::npos);
  EXPECT_NE(err("[logging]\nlevel = \"loud\"").find("logging.level"), std::string::npos);
  EXPECT_NE(err("[daemon\nlisten=1").find("TOML syntax error at line 1"), std::string::npos);
  EXPECT_NE(err("[daemon]\nmax_message_size = 10").find("between 4 KiB and 2 GiB"), std::string::npos);
  EXPECT_NE(err("[gpus]\nvram_limit = \"512MiB\"").find("gpus.vram_limit: must be \"auto\" or at least 1 GiB"),
            std::string::npos);
}

TEST(daemon_config, batching_keys_reach_the_engine_without_a_warning) {
  // 0 and 1 both mean no batching; the reference's range stays accepted
  for (const auto& [text, size] :
       {std::pair{"[scheduler]\nmax_batch_size = 0", 1u}, std::pair{"[scheduler]\nmax_batch_size = 1", 1u},
        std::pair{"[scheduler]\nmax_batch_size = 30", 30u}}) {
    const daemon_config c = parse_config(text);
    EXPECT_TRUE(c.warnings.empty()) << text << ": " << c.warnings.front();
    EXPECT_EQ(c.engine.max_batch_size, size) << text;
  }
  EXPECT_EQ(parse_config("[scheduler]\nmax_batch_wait_ms = 0").engine.max_batch_wait, 0ms);
  EXPECT_THROW((void)parse_config("[scheduler]\nmax_batch_size = 31"), config_error);
  EXPECT_THROW((void)parse_config("[scheduler]\nmax_batch_wait_ms = -1"), config_error);
}

TEST(daemon_config, sizes_and_durations) {
  EXPECT_EQ(parse_size("5GiB", "k"), 5ull << 30);
  EXPECT_EQ(parse_size("512MiB", "k"), 512ull << 20);
  EXPECT_EQ(parse_size("10GB", "k"), 10000000000ull);
  EXPECT_EQ(parse_size("4096", "k"), 4096u);
  EXPECT_THROW(parse_size("GiB", "k"), config_error);
  EXPECT_THROW(parse_size("99999999999999999999GiB", "k"), config_error);
  EXPECT_EQ(parse_duration("5m", "k"), 5min);
  EXPECT_EQ(parse_duration("250ms", "k"), 250ms);
  EXPECT_EQ(parse_duration("7", "k"), 7s);
  EXPECT_THROW(parse_duration("1d", "k"), config_error);
}

}  // namespace
