// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers
#pragma once

namespace Cachescope
{

// Raises this process's soft limit of open files to its hard limit, once, at
// the start of a program's main(). The walker keeps a descriptor open for
// every folder it is inside, in each of its threads, and a deep tree walked
// by several threads passes the usual soft limit of 1,024. Library code never
// calls this: process-wide limits are the program's to decide.
void raiseOpenFileLimit();

} // namespace Cachescope
