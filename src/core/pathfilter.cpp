// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers

#include "pathfilter.h"

#include <fnmatch.h>

#include <algorithm>

namespace Cachescope
{

namespace
{
bool wantsPath(const std::string &glob)
{
    return glob.find('/') != std::string::npos;
}

bool matchesAny(const std::vector<std::string> &globs, const char *name, const std::string &path)
{
    return std::any_of(globs.begin(), globs.end(), [&](const std::string &glob) {
        return fnmatch(glob.c_str(), wantsPath(glob) ? path.c_str() : name, 0) == 0;
    });
}
} // namespace

bool PathFilter::active() const
{
    return !include.empty() || !exclude.empty() || maxSize > 0;
}

bool PathFilter::needsPath() const
{
    return std::any_of(include.begin(), include.end(), wantsPath) || std::any_of(exclude.begin(), exclude.end(), wantsPath);
}

bool PathFilter::admitsFolder(const char *name, const std::string &path) const
{
    return !matchesAny(exclude, name, path);
}

bool PathFilter::admitsFile(const char *name, const std::string &path) const
{
    if (matchesAny(exclude, name, path)) {
        return false;
    }
    return include.empty() || matchesAny(include, name, path);
}

bool PathFilter::admitsSize(uint64_t size) const
{
    return maxSize == 0 || size <= maxSize;
}

bool PathFilter::admitsNamedFile(const std::string &path, uint64_t size) const
{
    if (!active()) {
        return true;
    }
    // "dir/" names nothing inside it; trailing slashes are not part of a file's name.
    std::string trimmed = path;
    while (trimmed.size() > 1 && trimmed.back() == '/') {
        trimmed.pop_back();
    }
    const size_t slash = trimmed.rfind('/');
    const std::string name = slash == std::string::npos ? trimmed : trimmed.substr(slash + 1);
    return admitsFile(name.c_str(), path) && admitsSize(size);
}

} // namespace Cachescope
