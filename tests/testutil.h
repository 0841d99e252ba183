// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers
#pragma once

// Shared by the tests. Setting up page-cache state here uses raw syscalls
// (pwrite, fdatasync, posix_fadvise, pread), not the code under test, so that
// a bug in the core cannot hide itself.

#include <QString>
#include <QStringList>

#include <cstdint>
#include <optional>
#include <string>

namespace TestUtil
{

// A fresh, empty, disk-backed folder for this test: <build>/test-scratch/<name>.
[[nodiscard]] std::string scratchDir(const char *name);

// Writes a file of `bytes` bytes (a repeating pattern), flushed to disk so that
// no page is dirty, then evicts it: on return no page of it is resident.
void makeColdFile(const std::string &path, uint64_t bytes);

// posix_fadvise(DONTNEED) on the whole file, and waits until cachestat/mincore agree.
void evictRaw(const std::string &path);

// Reads [offset, offset + length) with pread, readahead off, so that exactly
// the pages of that range become resident.
void readRange(const std::string &path, uint64_t offset, uint64_t length);

// Resident pages as the peers count them; nullopt when the peer is not installed.
[[nodiscard]] std::optional<uint64_t> fincoreResidentPages(const std::string &path);
[[nodiscard]] std::optional<uint64_t> vmtouchResidentPages(const std::string &path);

[[nodiscard]] bool isRoot();
[[nodiscard]] bool haveProgram(const char *name);

struct RunResult {
    int exitCode = -1;
    bool timedOut = false;
    QByteArray out;
    QByteArray err;
};

// Runs a program with a timeout (never hangs a test).
[[nodiscard]] RunResult run(const QString &program, const QStringList &arguments, int timeoutMs = 60000);

// The cachescope-cli built with the tests.
[[nodiscard]] QString cliPath();

// The unprivileged user the dev root has (tools/dev), if present and we are root.
[[nodiscard]] std::optional<uint32_t> testUserUid();
inline constexpr const char *testUserName = "cachescope-user";

} // namespace TestUtil
