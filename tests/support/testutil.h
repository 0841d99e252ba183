// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers
#pragma once

// Shared by the tests. Setting up page-cache state here uses raw syscalls
// (pwrite, fdatasync, posix_fadvise, pread), not the code under test, so that
// a bug in the core cannot hide itself.

#include <QJsonObject>
#include <QString>
#include <QStringList>

#include <sys/types.h>

#include <cstdint>
#include <cstring>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <type_traits>
#include <vector>

namespace TestUtil
{

// A fresh, empty, disk-backed folder for this test: <build>/test-scratch/<name>.
[[nodiscard]] std::string scratchDir(const char *name);

// Writes a file of `bytes` bytes (a repeating pattern), flushed to disk so that
// no page is dirty, then evicts it: on return no page of it is resident.
void makeColdFile(const std::string &path, uint64_t bytes);

// posix_fadvise(DONTNEED) on the whole file, and waits until cachestat/mincore agree.
void evictRaw(const std::string &path);

// One posix_fadvise(DONTNEED) on the whole file, no waiting: for checks that
// pages which must stay (locked, mapped) did stay.
void adviseDontNeed(const std::string &path);

// Reads [offset, offset + length) with pread, readahead off, so that exactly
// the pages of that range become resident.
void readRange(const std::string &path, uint64_t offset, uint64_t length);

// readRange, and the pages read stay mapped (each one touched) until release()
// or destruction. The kernel here pages out idle file pages at any moment,
// even a second after they were read (DAMON pageout), but only pages no
// process maps. So pages held this way are still resident when a check comes
// a while later: after a program started, a D-Bus round trip, a slow ASan
// set-up. Release them before asking code under test to evict them: a mapped
// page is not evicted.
class HeldPages
{
public:
    HeldPages(const std::string &path, uint64_t offset, uint64_t length);
    ~HeldPages();
    HeldPages(const HeldPages &) = delete;
    HeldPages &operator=(const HeldPages &) = delete;
    void release();

private:
    void *m_map = nullptr;
    size_t m_length = 0;
};

// A test's pages as the kernel holds them now. On these machines the kernel
// pages out idle file pages on its own at any moment (DAMON pageout), even
// pages read a second ago, so a check some time after a set-up sees fewer
// resident pages than the set-up made. Those it reclaimed still show: reclaim
// leaves a shadow entry, which cachestat(2) counts as evicted, and which
// fadvise(DONTNEED), drop_caches and truncation remove (makeColdFile starts
// from a truncated file and evicts with fadvise). So resident + reclaimed is
// what the set-up made resident, and what the code under test made resident
// or evicted since, however long the check took. Without cachestat (before
// Linux 6.5) reclaimed is 0.
struct PagesNow {
    uint64_t resident = 0;
    uint64_t reclaimed = 0;
    [[nodiscard]] uint64_t residentOrReclaimed() const
    {
        return resident + reclaimed;
    }
};
// Of the whole file, or of [offset, offset + length) when length > 0.
[[nodiscard]] PagesNow pagesNow(const std::string &path, uint64_t offset = 0, uint64_t length = 0);
[[nodiscard]] PagesNow pagesNow(const std::vector<std::string> &paths); // summed

// Whether `reported`, a count of resident pages that the code under test
// measured after the test made `expected` pages resident (and before `now` was
// read, with nothing reading the files in between), agrees with the kernel:
// no more than expected, no fewer than the pages still resident now, and
// short of expected by no more than the kernel reclaimed. Empty when it
// agrees, else why not.
[[nodiscard]] QString residencyFigureMismatch(const PagesNow &now, uint64_t reported, uint64_t expected);

// Resident pages as the peers count them; nullopt when the peer is not installed.
[[nodiscard]] std::optional<uint64_t> fincoreResidentPages(const std::string &path);
[[nodiscard]] std::optional<uint64_t> vmtouchResidentPages(const std::string &path);

[[nodiscard]] bool isRoot();

// Root, in a process of one thread (a child of runInChild): a mount namespace
// of its own with every mount private, so that nothing mounted from here on
// reaches another namespace and all of it ends with the process. Works in a
// chroot too (tools/dev's root), whose "/" is no mount point. Returns 0 or
// the errno of what failed.
[[nodiscard]] int ownPrivateMountNamespace();
// The folders of an overlay made in `folder`: lower, upper, work and the mount point.
struct OverlayFolders {
    std::string lower, upper, work, merged;
};
// Makes them (empty) below folder.
[[nodiscard]] OverlayFolders makeOverlayFolders(const std::string &folder);
// ownPrivateMountNamespace(), then the overlay of folders.lower mounted at
// target (folders.merged by default). Returns 0 or the errno of what failed.
[[nodiscard]] int mountOverlayInOwnNamespace(const OverlayFolders &folders, const std::string &target = {});
[[nodiscard]] bool haveProgram(const char *name);
// Whether /dev/pts is a devpts (a file system that keeps no page cache, below
// /dev, which keeps it) with its ptmx: the tests of folders not walked use it.
[[nodiscard]] bool devptsWithPtmx();

struct RunResult {
    int exitCode = -1;
    bool timedOut = false;
    QByteArray out;
    QByteArray err;
};

// Runs a program with a timeout (never hangs a test).
[[nodiscard]] RunResult run(const QString &program, const QStringList &arguments, int timeoutMs = 60000);

// The one JSON object a --json run printed; an empty object (and a warning
// with what it printed) when it is not one, so that the test's next check fails.
[[nodiscard]] QJsonObject jsonObjectOf(const RunResult &result);

// The cachescope-cli built with the tests.
[[nodiscard]] QString cliPath();

// The unprivileged user the dev root has (tools/dev), if present and we are root.
[[nodiscard]] std::optional<uint32_t> testUserUid();
inline constexpr const char *testUserName = "cachescope-user";

// Why another user cannot reach files in folder: a folder above it that
// others may not search. Empty when they can.
[[nodiscard]] std::string whyOthersCannotReach(const std::string &folder);

// Becomes uid for good: no supplementary groups, the uid as group, real,
// effective and saved ids alike. For a forked child; false with errno set.
[[nodiscard]] bool becomeUser(uid_t uid);

// What a forked child did (runInChild).
struct ChildResult {
    bool ok = false; // it became the user (if asked), ran to the end and exited 0
    QByteArray output; // what work() returned
    QString failure; // why not ok, for the test's message
};

// Runs work() in a forked child, as uid when given, and hands back what it
// returned. Whatever the child changes (user, limits) stays in the child. Never
// hangs the test: a child still running after timeoutMs is killed and the
// result says so.
[[nodiscard]] ChildResult runInChild(const std::function<QByteArray()> &work, std::optional<uid_t> asUser = std::nullopt, int timeoutMs = 60000);

// runInChild for a plain value (a struct of numbers): nullopt, with the
// reason in *failure, when the child failed.
template<typename T>
[[nodiscard]] std::optional<T> valueFromChild(const std::function<T()> &work, std::optional<uid_t> asUser, QString *failure = nullptr, int timeoutMs = 60000)
{
    static_assert(std::is_trivially_copyable_v<T>);
    ChildResult child = runInChild(
        [&work] {
            const T value = work();
            return QByteArray(reinterpret_cast<const char *>(&value), sizeof value);
        },
        asUser,
        timeoutMs);
    if (child.ok && child.output.size() != qsizetype(sizeof(T))) {
        child.ok = false;
        child.failure = QStringLiteral("the child wrote %1 bytes, not %2").arg(child.output.size()).arg(sizeof(T));
    }
    if (!child.ok) {
        if (failure) {
            *failure = child.failure;
        }
        return std::nullopt;
    }
    T value;
    std::memcpy(&value, child.output.constData(), sizeof value);
    return value;
}

// valueFromChild in a child whose own mount namespace has the overlay of
// folders mounted (mountOverlayInOwnNamespace): the mount ends with it. T
// has an int `error`, set to the errno when the mount failed (measure then
// does not run).
template<typename T>
[[nodiscard]] std::optional<T> valueThroughOverlay(const OverlayFolders &folders, const std::function<T()> &measure, QString *failure = nullptr)
{
    return valueFromChild<T>(
        [&]() -> T {
            T result{};
            result.error = mountOverlayInOwnNamespace(folders);
            return result.error != 0 ? result : measure();
        },
        std::nullopt,
        failure);
}

// A writer killed in the middle of writing, as the kernel does it: in a child
// made by fork(), runs write() under RLIMIT_FSIZE of `bytes` (the write past
// it raises SIGXFSZ, whose default action ends the process; no core dump),
// and waits for the child, handling events, at most 30 s (a child of a
// process with threads can hang on a lock taken at the fork). Returns an
// empty string when the child was killed by SIGXFSZ, else what happened.
[[nodiscard]] QString killWhileWriting(qulonglong bytes, const std::function<void()> &write);

// Watches for IN_OPEN on a few paths (inotify): proof of what was opened.
class OpenWatch
{
public:
    OpenWatch();
    ~OpenWatch();
    OpenWatch(const OpenWatch &) = delete;
    OpenWatch &operator=(const OpenWatch &) = delete;
    // A file, or a folder: then the files in it too (not its subfolders).
    [[nodiscard]] bool watch(const std::string &path);
    // The paths opened since the last call (a watched folder itself by its own path).
    [[nodiscard]] std::set<std::string> opened();
    // Events were lost (the queue overflowed): opened() may miss some.
    [[nodiscard]] bool overflowed() const;

private:
    int m_fd;
    bool m_overflowed = false;
    std::map<int, std::string> m_paths;
};

} // namespace TestUtil

// Fails the test unless `reported` agrees with the kernel (see residencyFigureMismatch).
#define CACHESCOPE_VERIFY_RESIDENCY_FIGURE(now, reported, expected)                                                                                            \
    do {                                                                                                                                                       \
        const QString cachescopeMismatch = TestUtil::residencyFigureMismatch((now), uint64_t(reported), uint64_t(expected));                                   \
        QVERIFY2(cachescopeMismatch.isEmpty(), qPrintable(cachescopeMismatch));                                                                                \
    } while (false)
