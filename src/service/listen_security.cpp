// SPDX-License-Identifier: Apache-2.0
// [daemon] security keys -> grpc_server_options and start-up warnings
// (see listen_security.hpp).
#include "listen_security.hpp"

#include <fstream>
#include <iterator>

namespace cuzk::service {
namespace {

std::string read_secret_file(const std::string& path, const char* key, bool trim) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw config_error(std::string("daemon.") + key + ": cannot read '" + path + "'");
  std::string s{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  if (trim) {
    const auto b = s.find_first_not_of(" \t\r\n");
    s = b == std::string::npos ? std::string() : s.substr(b, s.find_last_not_of(" \t\r\n") - b + 1);
  }
  if (s.empty()) throw config_error(std::string("daemon.") + key + ": '" + path + "' is empty");
  return s;
}

std::string host_of(const std::string& address) {
  if (!address.empty() && address.front() == '[') return address.substr(0, address.find(']') + 1);
  const auto colon = address.rfind(':');
  return colon == std::string::npos ? address : address.substr(0, colon);
}

}  // namespace

grpc_server_options server_options(const daemon_config& cfg) {
  grpc_server_options o;
  o.max_message_size = cfg.max_message_size;
  o.unix_socket_mode = cfg.unix_socket_mode;
  o.allow_abstract_socket = cfg.allow_abstract_socket;
  o.max_waiting_calls = cfg.max_waiting_calls;
  o.listener.max_connections = cfg.max_connections;
  if (!cfg.tls_cert_file.empty()) {
    o.tls_cert_pem = read_secret_file(cfg.tls_cert_file, "tls_cert_file", false);
    o.tls_key_pem = read_secret_file(cfg.tls_key_file, "tls_key_file", false);
  }
  if (!cfg.tls_client_ca_file.empty())
    o.tls_client_ca_pem = read_secret_file(cfg.tls_client_ca_file, "tls_client_ca_file", false);
  if (!cfg.auth_token_file.empty()) o.auth_token = read_secret_file(cfg.auth_token_file, "auth_token_file", true);
  return o;
}

bool is_local_address(const std::string& address) {
  if (address.rfind("unix:", 0) == 0 || address.rfind("unix-abstract:", 0) == 0) return true;
  const std::string h = host_of(address);
  return h == "localhost" || h == "[::1]" || h.rfind("127.", 0) == 0;
}

std::vector<std::string> security_warnings(const daemon_config& cfg) {
  std::vector<std::string> w;
  if (cfg.listen.rfind("unix-abstract:", 0) == 0 && cfg.auth_token_file.empty())
    w.push_back("daemon.listen = " + cfg.listen +
                " is an abstract unix socket: daemon.unix_socket_mode does not apply (it has no file), so every "
                "process on this machine in this network namespace can submit proofs and read results (set "
                "daemon.auth_token_file, or listen on unix:///path)");
  if (!is_local_address(cfg.listen) && cfg.tls_cert_file.empty() && cfg.auth_token_file.empty())
    w.push_back("daemon.listen = " + cfg.listen +
                " is reachable from other machines without TLS or an auth token: anyone who can reach it can "
                "submit proofs and read results (set daemon.tls_cert_file/tls_key_file and daemon.auth_token_file)");
  if (!cfg.status_listen.empty() && !is_local_address(cfg.status_listen))
    w.push_back("daemon.status_listen = " + cfg.status_listen +
                " exposes job ids and queue state to other machines (it has no TLS" +
                std::string(cfg.auth_token_file.empty() ? "; set daemon.auth_token_file to require a token there too)"
                                                        : "; the auth token is required)"));
  return w;
}

}  // namespace cuzk::service
