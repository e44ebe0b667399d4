// SPDX-License-Identifier: Apache-2.0
#pragma once
// Helpers shared by cuzk-bench's daemon client subcommands: address
// normalisation, hex decoding, the --vanilla file format (a JSON array of
// base64 strings, Go's json.Marshal([][]byte); anything else is one raw
// proof), proof-type names, and the gRPC channel.
#include <cstdint>
#include <fstream>
#include <iterator>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include <grpcpp/grpcpp.h>
#include <nlohmann/json.hpp>

#include <cuzk/engine/types.hpp>
#include <cuzk/io/base64.hpp>
#include <cuzk/io/hex.hpp>

#include "cuzk/v1/proving.grpc.pb.h"
#include "grpc_process.hpp"

namespace cuzk::bench_app {

inline std::vector<std::uint8_t> read_file_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read " + path);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

/// Hex bytes of a command-line value (an optional "0x" first).
inline std::vector<std::uint8_t> from_hex(const std::string& s, const char* what) {
  std::string_view h = s;
  if (h.starts_with("0x")) h.remove_prefix(2);
  std::vector<std::uint8_t> out;
  if (const auto e = io::decode_hex(h, out)) throw std::runtime_error(std::string(what) + ": " + e->reason);
  return out;
}

/// --vanilla: a JSON array of base64 strings, or one raw proof. Lenient
/// base64 (io/base64.hpp): files written by hand or by other tools may use
/// the URL-safe alphabet, drop the padding or wrap lines.
inline std::vector<std::vector<std::uint8_t>> read_vanilla_file(const std::string& path) {
  const auto raw = read_file_bytes(path);
  const auto j = nlohmann::json::parse(raw.begin(), raw.end(), nullptr, false);
  if (j.is_array()) {
    std::vector<std::vector<std::uint8_t>> out(j.size());
    for (std::size_t i = 0; i < j.size(); ++i) {
      if (!j[i].is_string()) throw std::runtime_error(path + ": JSON array elements must be base64 strings");
      if (const auto e = io::decode_base64(j[i].get_ref<const std::string&>(), io::base64_mode::lenient, out[i]))
        throw std::runtime_error(path + ": element " + std::to_string(i) + ": " + e->message());
    }
    return out;
  }
  return {raw};
}

/// The reference's type names.
inline engine::proof_kind parse_type(const std::string& t) {
  if (t == "porep" || t == "porep-c2" || t == "seal-commit") return engine::proof_kind::porep_seal_commit;
  if (t == "snap" || t == "snap-deals" || t == "update") return engine::proof_kind::snap_deals_update;
  if (t == "wpost" || t == "window-post" || t == "windowpost") return engine::proof_kind::window_post_partition;
  if (t == "winning" || t == "winning-post" || t == "winningpost") return engine::proof_kind::winning_post;
  throw std::runtime_error("unknown proof type '" + t + "' (porep, snap, wpost, winning)");
}

/// "http://host:port" -> "host:port"; "unix:///path" unchanged.
inline std::string grpc_target(std::string addr) {
  for (const char* p : {"http://", "https://", "tcp://"})
    if (addr.rfind(p, 0) == 0) addr = addr.substr(std::string(p).size());
  return addr;
}

inline std::unique_ptr<cuzk::v1::ProvingEngine::Stub> make_stub(const std::string& addr) {
  cuzk::service::prepare_grpc_process();  // gRPC 1.51's connect errno race (grpc_process.hpp)
  grpc::ChannelArguments args;
  args.SetMaxSendMessageSize(256 << 20);
  args.SetMaxReceiveMessageSize(256 << 20);
  return cuzk::v1::ProvingEngine::NewStub(
      grpc::CreateCustomChannel(grpc_target(addr), grpc::InsecureChannelCredentials(), args));
}

}  // namespace cuzk::bench_app
