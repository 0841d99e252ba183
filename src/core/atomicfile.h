// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers
#pragma once

// Writing a file so that whoever reads it, at any moment, finds either the
// old file whole or the new one whole, never a part: the bytes go to a new
// file beside it, which is renamed over it once written and closed. A
// writer killed in the middle leaves the old file as it was (and its
// temporary file, PATH.tmp-PID, which the next write of PATH removes).

#include <string>
#include <string_view>
#include <sys/types.h>

namespace Cachescope
{

// False with *error ("cannot write: REASON") when any step failed; the
// temporary file is then removed and PATH left as it was.
[[nodiscard]] bool writeFileAtomically(const std::string &path, std::string_view contents, mode_t mode = 0644, std::string *error = nullptr);

} // namespace Cachescope
