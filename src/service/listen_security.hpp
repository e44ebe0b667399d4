// SPDX-License-Identifier: Apache-2.0
#pragma once
// From the [daemon] security keys to what the gRPC server needs: reads the
// TLS PEM files and the shared token file (config_error naming the key when
// one cannot be read or is empty), and lists the warnings an operator should
// see at start: a TCP listener on a non-loopback address with neither TLS
// nor a token (anyone who can reach the port can submit work and read
// proofs), an abstract unix socket without a token (no file permissions
// guard it), and a status listener on a non-loopback address. The token's
// value never appears in a message. Cost: reads a few small files once.
#include <string>
#include <vector>

#include "daemon_config.hpp"
#include "grpc_service.hpp"

namespace cuzk::service {

/// The server options of |cfg| (files read now).
grpc_server_options server_options(const daemon_config& cfg);

/// True for "127.0.0.1:p", "localhost:p", "[::1]:p", "unix:..." and
/// "unix-abstract:..." (addresses
/// only this machine can reach).
bool is_local_address(const std::string& address);

/// Warnings about the listeners of |cfg| (empty when nothing is exposed).
std::vector<std::string> security_warnings(const daemon_config& cfg);

}  // namespace cuzk::service
