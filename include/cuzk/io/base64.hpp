// SPDX-License-Identifier: Apache-2.0
#pragma once
// Base64 text of bytes (RFC 4648), the one codec of the project: the
// lotus-bench / Curio C1 wrapper's Phase1Out, the SnapDeals vanilla file and
// cuzk-bench's --vanilla files and Randomness fields.
//
// Two ways to read:
//  - strict: what Go's base64.StdEncoding writes and nothing else: the
//    standard alphabet (RFC 4648 §4), length a multiple of 4, '=' only as
//    the last one or two characters, zero unused bits in the last group.
//    Every other text is refused, so one payload has one spelling.
//  - lenient: for files a user may have produced with other tools: also the
//    URL-safe alphabet ('-' for '+', '_' for '/', §5, mixed freely), padding
//    optional (any number of trailing '='), line breaks ('\n', '\r')
//    anywhere, unused bits ignored. Still refused: any other character, data
//    after a '=', and a last group of one character (it cannot hold a byte:
//    the text was cut short).
//
// A problem is returned, not thrown, with the character position and the
// reason, so each reader frames it in its own error type. Cost: one pass,
// no allocation besides the output.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace cuzk::io {

enum class base64_mode { strict, lenient };

struct base64_error {
  /// Index in the text of the character at fault (the text's length when
  /// the length is wrong; the first character of the last group when its
  /// unused bits are not zero).
  std::size_t position;
  /// e.g. "misplaced '='", "character \"*\" is not in the alphabet".
  std::string reason;

  /// "invalid base64 at character <position>: <reason>".
  std::string message() const;
};

/// Decodes |text| into |out| (its old contents are replaced). On error |out|
/// holds nothing useful.
std::optional<base64_error> decode_base64(std::string_view text, base64_mode mode, std::vector<std::uint8_t>& out);
/// The same into a string of bytes (for a decoded text that is parsed next).
std::optional<base64_error> decode_base64(std::string_view text, base64_mode mode, std::string& out);

/// Standard alphabet with padding (what strict mode reads back).
std::string to_base64(std::span<const std::uint8_t> bytes);
inline std::string to_base64(std::string_view bytes) {
  return to_base64(std::span(reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size()));
}

}  // namespace cuzk::io
