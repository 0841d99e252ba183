// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers

// The CLI's values as people type them: sizes, durations, counts, and the
// --include/--exclude globs against a name and a path.

#include "fuzzinput.h"

#include "options.h"
#include "pathfilter.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    Cachescope::Fuzz::Input input(data, size);
    const std::string value = input.shortString();
    (void)Cachescope::Cli::parseBytes(value);
    (void)Cachescope::Cli::parseSeconds(value);
    (void)Cachescope::Cli::parseCount(value);
    Cachescope::PathFilter filter;
    filter.include.push_back(value);
    filter.exclude.push_back(input.shortString());
    const std::string path(input.rest());
    const size_t slash = path.rfind('/');
    const std::string name = slash == std::string::npos ? path : path.substr(slash + 1);
    (void)filter.admitsFile(name.c_str(), filter.needsPath() ? path : std::string());
    (void)filter.admitsFolder(name.c_str(), filter.needsPath() ? path : std::string());
    (void)filter.admitsNamedFile(path, 4096);
    return 0;
}
