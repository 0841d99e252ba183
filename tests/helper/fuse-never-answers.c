// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers

// A FUSE file system whose daemon never answers an open: the hostile mount
// of the helper's hang test (tests/helper-fixture.sh). It holds one regular
// file, "file"; lookups and stat() are answered, so that a reader gets as
// far as open(), which then waits for good, in uninterruptible sleep once
// the request was sent, until the daemon dies or the mount is aborted.
//
// Usage: fuse-never-answers MOUNTPOINT (runs in the foreground, allow_other)

#define FUSE_USE_VERSION 31

#include <fuse.h>

#include <errno.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int neverGetattr(const char *path, struct stat *st, struct fuse_file_info *info)
{
    (void)info;
    memset(st, 0, sizeof *st);
    if (strcmp(path, "/") == 0) {
        st->st_mode = S_IFDIR | 0755;
        st->st_nlink = 2;
        return 0;
    }
    if (strcmp(path, "/file") == 0) {
        st->st_mode = S_IFREG | 0644;
        st->st_nlink = 1;
        st->st_size = 1 << 20;
        return 0;
    }
    return -ENOENT;
}

static int neverOpen(const char *path, struct fuse_file_info *info)
{
    (void)path;
    (void)info;
    // Interrupts are ignored: only the daemon's death ends this request.
    for (;;) {
        pause();
    }
    return -EIO;
}

static const struct fuse_operations operations = {
    .getattr = neverGetattr,
    .open = neverOpen,
};

int main(int argc, char *argv[])
{
    if (argc != 2) {
        return 2;
    }
    char foreground[] = "-f";
    char option[] = "-o";
    char allowOther[] = "allow_other";
    char *fuseArgs[] = {argv[0], foreground, option, allowOther, argv[1], NULL};
    return fuse_main(5, fuseArgs, &operations, NULL);
}
