// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers

// cachescope-lesson-reader FILE [OFFSET LENGTH]...
//
// The trace's built-in lesson, the seed's own program: it reads FILE with
// read() at the given offsets (by default 64 KiB at offset 0 and 64 KiB at
// 512 KiB) and nothing else, so that a trace shows what the kernel read
// around those two reads. In C with no library but libc: every page of a
// library it loaded would be in the trace too.

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int fail(const char *path, const char *what, int error)
{
    fprintf(stderr, "cachescope-lesson-reader: %s: %s: %s\n", path, what, strerror(error));
    return 1;
}

static int parseNumber(const char *text, unsigned long long *value)
{
    char *end = NULL;
    errno = 0;
    *value = strtoull(text, &end, 10);
    return errno == 0 && end != text && *end == '\0' && text[0] != '-';
}

int main(int argc, char **argv)
{
    if (argc < 2 || argc % 2 != 0) {
        fprintf(stderr, "usage: cachescope-lesson-reader FILE [OFFSET LENGTH]...\n");
        return 2;
    }
    const char *path = argv[1];
    const int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        return fail(path, "cannot open it", errno);
    }
    static const char *const seedReads[] = {"0", "65536", "524288", "65536"};
    const char *const *reads = argc > 2 ? (const char *const *)argv + 2 : seedReads;
    const int readCount = argc > 2 ? (argc - 2) / 2 : 2;
    static char buffer[1 << 16];
    for (int i = 0; i < readCount; ++i) {
        unsigned long long offset = 0;
        unsigned long long length = 0;
        const char *offsetText = reads[2 * (size_t)i];
        const char *lengthText = reads[2 * (size_t)i + 1];
        if (!parseNumber(offsetText, &offset) || !parseNumber(lengthText, &length)) {
            fprintf(stderr, "cachescope-lesson-reader: '%s %s' is not an offset and a length in bytes\n", offsetText, lengthText);
            return 2;
        }
        // One read() where the length allows, as the seed's program did.
        while (length > 0) {
            const size_t piece = length < sizeof buffer ? (size_t)length : sizeof buffer;
            const ssize_t got = pread(fd, buffer, piece, (off_t)offset);
            if (got < 0 && errno == EINTR) {
                continue;
            }
            if (got < 0) {
                return fail(path, "cannot read it", errno);
            }
            if (got == 0) {
                break; // past the end
            }
            offset += (unsigned long long)got;
            length -= (unsigned long long)got;
        }
    }
    close(fd);
    return 0;
}
