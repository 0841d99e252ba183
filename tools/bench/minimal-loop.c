// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers
//
// The floor that `cachescope-cli status -r` is measured against: the least
// work that can give page-cache totals for a tree on one thread. It walks each
// folder with getdents64, opens each regular file, asks cachestat(2) for the
// whole file, and closes it. No stat, no sorting, no output per file.
//
//   minimal-loop DIR...   prints "files F folders D cached_pages P errors E"
//
// Symbolic links are not followed (like vmtouch, find -type f and the CLI).

#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifndef __NR_cachestat
#define __NR_cachestat 451
#endif

struct cachestat_range {
    uint64_t off;
    uint64_t len; // 0: to the end of the file
};

struct cachestat {
    uint64_t nr_cache;
    uint64_t nr_dirty;
    uint64_t nr_writeback;
    uint64_t nr_evicted;
    uint64_t nr_recently_evicted;
};

struct linux_dirent64 {
    uint64_t d_ino;
    int64_t d_off;
    unsigned short d_reclen;
    unsigned char d_type;
    char d_name[];
};

enum {
    BufferSize = 32 * 1024
};

static uint64_t files, folders, cachedPages, errors;

static void countFile(int dirFd, const char *name)
{
    int fd = openat(dirFd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
    if (fd < 0) {
        ++errors;
        return;
    }
    struct cachestat_range range = {0, 0};
    struct cachestat cs;
    if (syscall(__NR_cachestat, fd, &range, &cs, 0) == 0) {
        cachedPages += cs.nr_cache;
    } else {
        ++errors;
    }
    close(fd);
    ++files;
}

// Takes ownership of dirFd. One buffer per level, so that the walk can go down
// in the middle of a folder's entries.
static void walkFolder(int dirFd)
{
    ++folders;
    char *buffer = malloc(BufferSize);
    if (!buffer) {
        ++errors;
        close(dirFd);
        return;
    }
    for (;;) {
        long n = syscall(SYS_getdents64, dirFd, buffer, BufferSize);
        if (n <= 0) {
            if (n < 0) {
                ++errors;
            }
            break;
        }
        for (long pos = 0; pos < n;) {
            struct linux_dirent64 *entry = (struct linux_dirent64 *)(buffer + pos);
            pos += entry->d_reclen;
            const char *name = entry->d_name;
            if (name[0] == '.' && (name[1] == 0 || (name[1] == '.' && name[2] == 0))) {
                continue;
            }
            unsigned char type = entry->d_type;
            if (type == DT_UNKNOWN) {
                // Some filesystems do not fill d_type: ask, without following links.
                struct stat st;
                if (fstatat(dirFd, name, &st, AT_SYMLINK_NOFOLLOW) != 0) {
                    ++errors;
                    continue;
                }
                type = S_ISREG(st.st_mode) ? DT_REG : S_ISDIR(st.st_mode) ? DT_DIR : DT_UNKNOWN;
            }
            if (type == DT_REG) {
                countFile(dirFd, name);
            } else if (type == DT_DIR) {
                int child = openat(dirFd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
                if (child < 0) {
                    ++errors;
                } else {
                    walkFolder(child);
                }
            }
        }
    }
    free(buffer);
    close(dirFd);
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: %s DIR...\n", argv[0]);
        return 2;
    }
    for (int i = 1; i < argc; ++i) {
        int fd = open(argv[i], O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (fd < 0) {
            fprintf(stderr, "%s: cannot open folder: %s\n", argv[i], strerror(errno));
            return 1;
        }
        walkFolder(fd);
    }
    printf("files %llu folders %llu cached_pages %llu errors %llu\n",
           (unsigned long long)files,
           (unsigned long long)folders,
           (unsigned long long)cachedPages,
           (unsigned long long)errors);
    return errors ? 1 : 0;
}
