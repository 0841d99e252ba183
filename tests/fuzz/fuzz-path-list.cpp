// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers

// --from lists, one path a line or NUL-separated (-0), read as the
// commands read them: the input through a pipe-like file (a memfd).

#include "fuzzinput.h"

#include "commandoptions.h"

#include <sys/mman.h>
#include <unistd.h>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    Cachescope::Fuzz::Input input(data, size);
    const bool nulSeparated = (input.byte() & 1) != 0;
    const std::string_view list = input.rest();
    const int fd = ::memfd_create("fuzz-path-list", MFD_CLOEXEC);
    if (fd < 0) {
        return 0;
    }
    if (::write(fd, list.data(), list.size()) == ssize_t(list.size())) {
        std::vector<std::string> paths;
        std::string error;
        (void)Cachescope::Cli::readPathList("/proc/self/fd/" + std::to_string(fd), nulSeparated, paths, error);
    }
    ::close(fd);
    return 0;
}
