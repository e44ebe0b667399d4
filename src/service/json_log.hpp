// SPDX-License-Identifier: Apache-2.0
#pragma once
// logging.format = "json": one JSON object per line. The message goes into
// a JSON string, so it is escaped here (quotes, backslashes, control
// characters as \n, \t, \u00XX); before, a message holding a quote (every
// parse error quoting its input) broke the line for a log shipper.
// Bytes >= 0x80 pass through: messages are UTF-8 or come from ids already
// limited to printable ASCII.
#include <string>
#include <string_view>

namespace cuzk::service {

/// |s| escaped for the inside of a JSON string literal.
std::string json_escape(std::string_view s);

/// Appends json_escape(|s|) to |out| (the logger's hot path, no temporary).
void append_json_escaped(std::string_view s, std::string& out);

}  // namespace cuzk::service
