// SPDX-License-Identifier: Apache-2.0
#pragma once
// Text that goes back to a client (gRPC status messages, job errors):
//  * quoted_id: an id as the client sent it can be any length and any bytes
//    (AwaitProof and CancelProof take it unchecked); echoing 100 KB of it
//    made the status trailer larger than the client's header limit and the
//    call hung. Ids are quoted, cut to |max_quoted_id_chars| and every
//    non-printable byte written as \xNN.
//  * without_host_paths: messages from the parameter readers name files by
//    their path; a client gets the published file name, never the daemon's
//    directory layout.
#include <cstddef>
#include <filesystem>
#include <string>
#include <string_view>

namespace cuzk::engine {

inline constexpr std::size_t max_quoted_id_chars = 64;

/// '<id>' with at most max_quoted_id_chars bytes of |id| (then "...(N bytes)")
/// and non-printable bytes, quotes and backslashes escaped.
std::string quoted_id(std::string_view id);

/// |msg| with every occurrence of |dir| + "/" removed, so a path inside it
/// reads as the file's name; |dir| empty: |msg| unchanged.
std::string without_host_paths(std::string msg, const std::filesystem::path& dir);

}  // namespace cuzk::engine
