// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers
#pragma once

#include <optional>
#include <string>
#include <string_view>

// Paths are bytes on Linux. The core keeps them as bytes (std::string), so a
// name that is not UTF-8 survives every round trip; these helpers show such a
// name to people and carry it through JSON without losing it.

namespace Cachescope
{

[[nodiscard]] bool isValidUtf8(std::string_view bytes);

// Valid UTF-8 for display: each byte that is not part of valid UTF-8 becomes U+FFFD.
[[nodiscard]] std::string toDisplayUtf8(std::string_view bytes);

[[nodiscard]] std::string base64Encode(std::string_view bytes);
[[nodiscard]] std::optional<std::string> base64Decode(std::string_view text);

// Appends "text" as a JSON string literal (quotes included). text must be valid UTF-8.
void appendJsonString(std::string &out, std::string_view text);

// Appends `"path":"<display>"` and, only when the bytes are not UTF-8,
// `,"path_base64":"<exact bytes>"`. Readers prefer path_base64 when present.
void appendJsonPath(std::string &out, std::string_view path, std::string_view key = "path");

} // namespace Cachescope
