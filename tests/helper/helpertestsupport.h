// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers
#pragma once

// What the in-process helper tests share (helperactionstest,
// helperbadinputstest): a recording stand-in for the calls that change the
// system, files to work on, and the audit line's fixed format.

#include "helperactions.h"
#include "residencyanswer.h"
#include "testutil.h"

#include <QRegularExpression>
#include <QStringList>
#include <QTest>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fstream>
#include <string>
#include <string_view>

namespace Cachescope::HelperTest
{

using Helper::SystemCalls;

// Records the calls instead of making them. Swapping off and on rewrites the
// fake /proc/swaps, so that the helper sees the effect as it would.
class RecordingSystem : public SystemCalls
{
public:
    bool syncAll(Helper::HelperContext &) override
    {
        calls << QStringLiteral("sync");
        return true;
    }
    int dropCaches(int level) override
    {
        calls << QStringLiteral("dropCaches %1").arg(level);
        return 0;
    }
    int swapOff(const std::string &path) override
    {
        calls << QStringLiteral("swapOff");
        if (swapOffError != 0) {
            return swapOffError; // as the kernel fails: the area stays on
        }
        struct stat st;
        if (stat(path.c_str(), &st) == 0 && !swapsFile.empty()) {
            writeSwaps(false);
        }
        return 0;
    }
    int swapOn(const std::string &path, int flags) override
    {
        calls << QStringLiteral("swapOn %1").arg(flags);
        lastSwapOnFlags = flags;
        struct stat st;
        if (stat(path.c_str(), &st) == 0 && !swapsFile.empty() && st.st_ino == activeInode) {
            writeSwaps(true);
        }
        return 0;
    }
    void writeSwaps(bool active)
    {
        std::ofstream out(swapsFile, std::ios::trunc);
        out << "Filename\t\t\t\tType\t\tSize\t\tUsed\t\tPriority\n";
        if (active) {
            out << activeLine << '\n';
        }
    }
    QStringList calls;
    int lastSwapOnFlags = -1;
    std::string swapsFile;
    std::string activeLine;
    ino_t activeInode = 0;
    int swapOffError = 0;
};

inline void writeFile(const std::string &path, std::string_view text)
{
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(text.data(), std::streamsize(text.size()));
}

// A file with a valid swap signature (made with mkswap) of the given owner.
inline void makeSwapFile(const std::string &path, uid_t owner)
{
    const int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    QVERIFY(fd >= 0);
    QVERIFY(ftruncate(fd, 16 << 20) == 0);
    close(fd);
    const TestUtil::RunResult made = TestUtil::run(QStringLiteral("mkswap"), {QStringLiteral("-q"), QString::fromStdString(path)});
    QVERIFY2(made.exitCode == 0, made.err.constData());
    QVERIFY(chown(path.c_str(), owner, owner) == 0);
}

inline const QRegularExpression auditFormat(
    QStringLiteral("^cachescope-helper: action=(dropcaches|swapoff|swapon|swapfilecreate|swapfileremove|residency|trace|contain|reclaim) uid=(\\d+|unknown) "
                   "target=[A-Za-z0-9=:,.-]+ result=(ok|refused|failed) code=\\d+$"));

// Points an in-process helper context at a test's own folder: /proc files
// under procRoot, the state and the experiment swap file under dir, the
// recording system calls, and the audit lines into log.
inline void useTestFolders(Helper::HelperContext &context, const std::string &dir, const std::string &procRoot, RecordingSystem &system, QStringList &log)
{
    context.system = &system;
    context.procRoot = procRoot;
    context.stateDir = dir + "/run";
    context.stateFile = dir + "/run/swap-state";
    context.experimentDir = dir + "/experiment";
    context.maxExperimentBytes = 32 << 20;
    context.log = [&log](const QString &line) {
        log << line;
    };
}

// A residency reply's files (empty when the reply holds none that parse).
[[nodiscard]] inline QList<HelperProtocol::FileResidencyAnswer> residencyAnswers(const Helper::ActionReply &reply)
{
    return HelperProtocol::parseFileResults(reply.data().value(QString(HelperProtocol::replyFiles)).toByteArray(),
                                            HelperProtocol::maxPathsPerCall,
                                            HelperProtocol::maxBuckets)
        .value_or(QList<HelperProtocol::FileResidencyAnswer>{});
}

} // namespace Cachescope::HelperTest
