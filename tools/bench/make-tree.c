// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers
//
// Makes the benchmark's generated tree: FILES small files of varied sizes
// (0-64 KiB, most of them small, as in real trees: size = 64 KiB * u^3, so
// about 16 KiB on average) spread over a few thousand folders two levels
// deep. The same arguments always give the same tree (fixed seed), so runs on
// different days measure the same thing. Written in C because a shell loop
// would take minutes for 100,000 files.
//
//   make-tree DIR FILES   DIR must not exist yet

#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

enum {
    TopFolders = 50,
    SubFolders = 60,
    MaxSize = 64 * 1024
};

static uint64_t rngState = 0x9E3779B97F4A7C15ull;

static uint64_t nextRandom(void)
{
    // xorshift64*: fast and plenty for picking file sizes.
    rngState ^= rngState >> 12;
    rngState ^= rngState << 25;
    rngState ^= rngState >> 27;
    return rngState * 0x2545F4914F6CDD1Dull;
}

static int fail(const char *path, const char *what)
{
    fprintf(stderr, "make-tree: %s: %s: %s\n", path, what, strerror(errno));
    return 1;
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: %s DIR FILES\n", argv[0]);
        return 2;
    }
    const char *root = argv[1];
    long fileCount = strtol(argv[2], NULL, 10);
    if (fileCount <= 0) {
        fprintf(stderr, "make-tree: FILES must be a positive number, not '%s'\n", argv[2]);
        return 2;
    }
    if (mkdir(root, 0755) != 0) {
        return fail(root, "cannot create the folder");
    }
    // Files start at different offsets of one buffer, so they differ a little.
    static char content[MaxSize + 4096];
    for (size_t i = 0; i < sizeof content; ++i) {
        content[i] = (char)('a' + (nextRandom() % 26));
    }
    char path[4096];
    for (int top = 0; top < TopFolders; ++top) {
        snprintf(path, sizeof path, "%s/d%02d", root, top);
        if (mkdir(path, 0755) != 0) {
            return fail(path, "cannot create the folder");
        }
        for (int sub = 0; sub < SubFolders; ++sub) {
            snprintf(path, sizeof path, "%s/d%02d/s%02d", root, top, sub);
            if (mkdir(path, 0755) != 0) {
                return fail(path, "cannot create the folder");
            }
        }
    }
    const long leafCount = (long)TopFolders * SubFolders;
    for (long i = 0; i < fileCount; ++i) {
        const long leaf = i % leafCount;
        snprintf(path, sizeof path, "%s/d%02ld/s%02ld/f%07ld", root, leaf / SubFolders, leaf % SubFolders, i);
        const double u = (double)(nextRandom() >> 11) / (double)(1ull << 53);
        const size_t size = (size_t)(MaxSize * u * u * u);
        int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
        if (fd < 0) {
            return fail(path, "cannot create the file");
        }
        if (size > 0 && write(fd, content + (i % 4096), size) != (ssize_t)size) {
            close(fd);
            return fail(path, "cannot write the file");
        }
        close(fd);
    }
    return 0;
}
