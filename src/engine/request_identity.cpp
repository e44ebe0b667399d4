// SPDX-License-Identifier: Apache-2.0
// request_identity: kind + SHA-256 of the payload fields (see the header).
#include "request_identity.hpp"

#include <openssl/evp.h>

#include <memory>
#include <stdexcept>
#include <string>

namespace cuzk::engine {
namespace {

class sha256 {
 public:
  sha256() : _ctx(EVP_MD_CTX_new(), &EVP_MD_CTX_free) {
    if (!_ctx || EVP_DigestInit_ex(_ctx.get(), EVP_sha256(), nullptr) != 1)
      throw std::runtime_error("request digest: SHA-256 unavailable");
  }
  void u64(std::uint64_t v) {
    std::uint8_t b[8];
    for (int i = 0; i < 8; ++i) b[i] = std::uint8_t(v >> (8 * i));
    raw(b, 8);
  }
  // length first: fields cannot run into each other
  void field(const std::vector<std::uint8_t>& v) {
    u64(v.size());
    raw(v.data(), v.size());
  }
  std::array<std::uint8_t, 32> done() {
    std::array<std::uint8_t, 32> d{};
    unsigned int n = 0;
    if (EVP_DigestFinal_ex(_ctx.get(), d.data(), &n) != 1 || n != 32)
      throw std::runtime_error("request digest: SHA-256 failed");
    return d;
  }

 private:
  void raw(const void* p, std::size_t n) {
    if (n && EVP_DigestUpdate(_ctx.get(), p, n) != 1) throw std::runtime_error("request digest: SHA-256 failed");
  }
  std::unique_ptr<EVP_MD_CTX, decltype(&EVP_MD_CTX_free)> _ctx;
};

}  // namespace

request_identity identity_of(const proof_request& r) {
  sha256 h;
  h.u64(std::uint64_t(r.kind));
  h.u64(r.sector_size);
  h.u64(r.registered_proof);
  h.field(r.vanilla_proof);
  h.u64(r.vanilla_proofs.size());
  for (const auto& v : r.vanilla_proofs) h.field(v);
  h.u64(r.sector_number);
  h.u64(r.miner_id);
  h.field(r.randomness);
  h.u64(r.partition_index);
  h.field(r.comm_r_old);
  h.field(r.comm_r_new);
  h.field(r.comm_d_new);
  return {r.kind, h.done()};
}

std::string identity_difference(const request_identity& have, const request_identity& want) {
  if (have.kind != want.kind)
    return "a " + std::string(kind_label(have.kind)) + " job, this request is " + std::string(kind_label(want.kind));
  return "a job with another payload (vanilla proofs, randomness, commitments or partition differ)";
}

}  // namespace cuzk::engine
