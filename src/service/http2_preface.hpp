// SPDX-License-Identifier: Apache-2.0
#pragma once
// The HTTP/2 client connection preface (RFC 9113 section 3.4): the 24 octets
// "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n", then a SETTINGS frame (9-octet header:
// 24-bit length, type 0x4, flags without ACK, stream 0; the payload a
// multiple of 6 octets, at most the initial SETTINGS_MAX_FRAME_SIZE 16384).
// A gRPC client sends it at once after connecting, without waiting for the
// server. connection_acceptor waits for the whole of it, peeked (left in the
// socket for gRPC to read), before handing a connection to gRPC: that is the
// handshake the handshake timeout bounds, the same point at which gRPC's own
// listener stops its handshake timer (it waits for the client's SETTINGS).
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

namespace cuzk::service {

inline constexpr std::string_view http2_client_magic = "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n";
inline constexpr std::size_t http2_frame_header = 9;
inline constexpr std::size_t http2_max_settings_payload = 16384;
/// The most bytes a complete client preface can take.
inline constexpr std::size_t http2_max_client_preface =
    http2_client_magic.size() + http2_frame_header + http2_max_settings_payload;

enum class preface_state {
  complete,  ///< magic and the whole first SETTINGS frame are there
  partial,   ///< a correct beginning; more bytes needed
  invalid,   ///< not an HTTP/2 client (wrong magic, first frame not SETTINGS)
};

/// Classifies the first bytes |b| a client sent.
inline preface_state classify_client_preface(std::span<const std::uint8_t> b) {
  const std::size_t magic = http2_client_magic.size();
  const std::size_t n = std::min(b.size(), magic);
  if (!std::equal(b.begin(), b.begin() + std::ptrdiff_t(n), http2_client_magic.begin())) return preface_state::invalid;
  if (b.size() < magic + http2_frame_header) return preface_state::partial;
  const std::uint8_t* h = b.data() + magic;
  const std::size_t len = (std::size_t(h[0]) << 16) | (std::size_t(h[1]) << 8) | h[2];
  const bool settings = h[3] == 0x4 && (h[4] & 0x1) == 0;
  const bool stream0 = (h[5] & 0x7f) == 0 && h[6] == 0 && h[7] == 0 && h[8] == 0;
  if (!settings || !stream0 || len % 6 != 0 || len > http2_max_settings_payload) return preface_state::invalid;
  return b.size() >= magic + http2_frame_header + len ? preface_state::complete : preface_state::partial;
}

}  // namespace cuzk::service
