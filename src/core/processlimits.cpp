// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers

#include "processlimits.h"

#include "cachescope_core_debug.h"
#include "format.h"

#include <sys/resource.h>

#include <cerrno>

namespace Cachescope
{

void raiseOpenFileLimit()
{
    struct rlimit limit;
    if (getrlimit(RLIMIT_NOFILE, &limit) != 0 || limit.rlim_cur >= limit.rlim_max) {
        return;
    }
    const rlim_t soft = limit.rlim_cur;
    limit.rlim_cur = limit.rlim_max;
    if (setrlimit(RLIMIT_NOFILE, &limit) == 0) {
        qCDebug(CACHESCOPE_CORE) << "open files: soft limit raised from" << soft << "to" << limit.rlim_max;
    } else {
        qCWarning(CACHESCOPE_CORE) << "cannot raise the limit of open files:" << errnoQText(errno);
    }
}

} // namespace Cachescope
