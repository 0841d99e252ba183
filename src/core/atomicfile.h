// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers
#pragma once

// Writing a file so that whoever reads it finds either the old file whole
// or the new one whole, never a part, even when the writer is killed in the
// middle: the bytes go to a new file beside it (PATH.tmp-PID-XXXXXX, locked
// while it is written), which is flushed and renamed over it. A killed
// writer leaves the old file as it was and its temporary file, which the
// next write of PATH removes once nobody holds it.
//
// A regular file keeps its mode (and, written by root, its owner); a
// symbolic link is followed, and the file it names replaced. What is not a
// regular file (a FIFO, /dev/stdout, a terminal) is written as it is: it
// has no old contents to keep.

#include <string>
#include <string_view>
#include <sys/types.h>

namespace Cachescope
{

// False with *error ("cannot make its temporary file: REASON", "cannot
// write: REASON", "cannot replace it: REASON") when a step failed; the
// temporary file is then removed and PATH left as it was. mode: for a new
// file (less the umask).
[[nodiscard]] bool writeFileAtomically(const std::string &path, std::string_view contents, mode_t mode = 0644, std::string *error = nullptr);

} // namespace Cachescope
