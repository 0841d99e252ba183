// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers

// A FUSE file system whose daemon never answers an open: the hostile mount
// of the helper's hang test (tests/helper-fixture.sh). It holds one regular
// file, "file"; lookups and stat() are answered, so that a reader gets as
// far as open(), which then waits for good, in uninterruptible sleep once
// the request was sent, until the daemon dies or the mount is aborted.
//
// And "flush-trap": opened, read and closed by anyone, except that a close
// (FLUSH) by the helper, cachescope-helper, is never answered. A descriptor
// of it, handed to the helper and closed there, would hold the helper in
// close() for good: the attack of tests/helper/helperattacktest.cpp.
//
// Usage: fuse-never-answers MOUNTPOINT (runs in the foreground, allow_other)

#define FUSE_USE_VERSION 31

#include <fuse.h>

#include <errno.h>
#include <stdio.h>
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
    if (strcmp(path, "/file") == 0 || strcmp(path, "/flush-trap") == 0) {
        st->st_mode = S_IFREG | 0644;
        st->st_nlink = 1;
        st->st_size = 1 << 20;
        return 0;
    }
    return -ENOENT;
}

// Whether the process that sent the request is the helper.
static int fromHelper(void)
{
    char file[64];
    char name[32] = "";
    snprintf(file, sizeof file, "/proc/%d/comm", (int)fuse_get_context()->pid);
    FILE *comm = fopen(file, "r");
    if (comm) {
        if (!fgets(name, sizeof name, comm)) {
            name[0] = 0;
        }
        fclose(comm);
    }
    return strncmp(name, "cachescope-help", 15) == 0;
}

static void forever(void)
{
    // Interrupts are ignored: only the daemon's death ends this request.
    for (;;) {
        pause();
    }
}

static int neverOpen(const char *path, struct fuse_file_info *info)
{
    (void)info;
    if (strcmp(path, "/flush-trap") == 0) {
        return 0;
    }
    forever();
    return -EIO;
}

static int trapRead(const char *path, char *buffer, size_t size, off_t offset, struct fuse_file_info *info)
{
    (void)path;
    (void)info;
    const off_t length = 1 << 20;
    if (offset >= length) {
        return 0;
    }
    if ((off_t)size > length - offset) {
        size = (size_t)(length - offset);
    }
    memset(buffer, 'x', size);
    return (int)size;
}

static int trapFlush(const char *path, struct fuse_file_info *info)
{
    (void)path;
    (void)info;
    if (fromHelper()) {
        forever();
    }
    return 0;
}

static const struct fuse_operations operations = {
    .getattr = neverGetattr,
    .open = neverOpen,
    .read = trapRead,
    .flush = trapFlush,
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
