// SPDX-License-Identifier: Apache-2.0
#pragma once
// The daemon's TOML configuration: the reference daemon's sections and keys
// ([daemon] [srs] [memory] [gpus] [scheduler] [synthesis] [pipeline]
// [logging]) plus a few of our own, every one documented in
// packaging/cuzk.example.toml. Unknown keys and deprecated keys produce
// warnings (returned, the caller logs them); a value of the wrong type or
// out of range throws config_error naming the key, so the daemon refuses to
// start. Sizes: "auto" (where allowed), "<n>GiB|MiB|KiB|GB|MB|KB|B" or an
// integer of bytes. Durations: "<n>ms|s|m|h" or an integer of seconds.
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include <cuzk/engine/engine.hpp>

namespace cuzk::service {

class config_error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct daemon_config {
  std::string listen = "127.0.0.1:9820";
  std::string status_listen;  ///< "" = no HTTP status listener
  std::uint64_t max_message_size = 128ull << 20;
  std::chrono::milliseconds shutdown_timeout{std::chrono::seconds(30)};
  unsigned unix_socket_mode = 0600;       ///< permissions of a unix:// listen socket
  bool allow_abstract_socket = false;     ///< daemon.allow_abstract_socket: "unix-abstract:" allowed
  std::size_t max_waiting_calls = 10000;  ///< daemon.max_waiting_calls (AwaitProof/Prove at once)
  std::size_t max_connections = 4096;     ///< daemon.max_connections (gRPC client connections at once)
  std::string tls_cert_file, tls_key_file, tls_client_ca_file;  ///< "" = no TLS / no client certs
  std::string auth_token_file;                                  ///< "" = no token check
  std::vector<int> gpu_devices;
  bool cpu_fallback = false;         ///< gpus.cpu_fallback
  std::uint64_t gpu_vram_limit = 0;  ///< gpus.vram_limit in bytes; 0 ("auto"): free memory minus a margin
  std::size_t gpu_threads = 0;
  std::size_t synthesis_threads = 0;
  std::string log_level = "info";
  std::string log_format = "text";
  engine::engine_config engine;
  std::vector<std::string> warnings;
};

/// Parses TOML text; |label| names the source in messages.
daemon_config parse_config(std::string_view toml_text, const std::string& label = "<config>");
/// Reads |path|; a missing file gives the defaults (with a warning).
daemon_config load_config(const std::filesystem::path& path);

/// Every "section.key" the parser knows (used, deprecated or accepted-unused).
std::vector<std::string> known_config_keys();

/// "64GiB" -> bytes; throws config_error (|key| names it).
std::uint64_t parse_size(std::string_view s, const std::string& key);
/// "5m" -> ms; throws config_error.
std::chrono::milliseconds parse_duration(std::string_view s, const std::string& key);

}  // namespace cuzk::service
