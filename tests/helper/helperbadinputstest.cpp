// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers

// Bad inputs that need a prepared system, each refused with nothing changed:
// the state file, the fake /proc/swaps and the files around stay byte for
// byte as they were, and no call that changes the system is made (issue 9).
// swapoff: names that are not the kernel's (a symlink, a bind mount, a hard
// link, "(deleted)", an escaped name), an unreadable /proc/swaps, the
// kernel's ENOMEM. swapon: a state file that is not root's, writable by
// others, behind a symlink or too large; a record already active, gone or
// replaced. The experiment swap file: its folder and its name taken over.
// swapon of every recorded area goes area by area. Residency: paths that
// are no regular file in the page cache, one the caller cannot read, a huge
// sparse file without cachestat, and argument maps it refuses; trace's
// argument maps it refuses (no path, event, filter or instance from the
// caller). The caller's
// uid as the service learns it from the bus. In-process with a recording stand-in, as helperactionstest; runs
// as root in the dev root (tools/dev), and skips otherwise.

#include "actionsupport.h"
#include "helperactions.h"
#include "helperlogic.h"
#include "helperprotocol.h"
#include "helpertestsupport.h"
#include "testutil.h"

#include <QElapsedTimer>
#include <QScopeGuard>
#include <QTest>

#include <fcntl.h>
#include <signal.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/swap.h>
#include <sys/sysmacros.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <optional>
#include <random>

using namespace Cachescope;
using namespace Cachescope::Helper;
using namespace Cachescope::HelperProtocol;
using namespace Cachescope::HelperTest;

namespace
{

// The bytes of a regular file (through a symlink), or nullopt when there is none.
std::optional<std::string> contentOf(const std::string &path)
{
    struct stat st;
    if (stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) {
        return std::nullopt;
    }
    std::ifstream in(path, std::ios::binary);
    if (!in) {
        return std::nullopt;
    }
    // One read of the whole file: the swap files compared here are many
    // megabytes, too many to take a character at a time under ASan.
    std::string bytes(size_t(st.st_size), '\0');
    in.read(bytes.data(), std::streamsize(bytes.size()));
    bytes.resize(size_t(in.gcount()));
    return bytes;
}

// What "nothing changed" compares: the state file, /proc/swaps (fake) and
// the type, owner, mode, size and bytes of the files a test set up.
struct Unchanged {
    std::optional<std::string> state;
    std::optional<std::string> swaps;
    std::vector<std::string> files; // "<path> <mode> <uid> <size> <bytes>"
    friend bool operator==(const Unchanged &, const Unchanged &) = default;
};

const char *const swapsHeader = "Filename\t\t\t\tType\t\tSize\t\tUsed\t\tPriority\n";

} // namespace

class HelperBadInputsTest : public QObject
{
    Q_OBJECT

private:
    RecordingSystem m_system;
    HelperContext m_context;
    QStringList m_log;
    std::string m_dir;
    std::string m_rootSwap;
    std::string m_userSwap;
    std::vector<std::string> m_watched; // files whose type and bytes must not change

    Unchanged unchanged(const HelperContext &context) const
    {
        Unchanged now{contentOf(context.stateFile), contentOf(context.procRoot + "/swaps"), {}};
        for (const std::string &path : m_watched) {
            struct stat st{};
            const bool there = lstat(path.c_str(), &st) == 0;
            const std::optional<std::string> bytes = there && S_ISREG(st.st_mode) ? contentOf(path) : std::nullopt;
            now.files.push_back(path + ' ' + std::to_string(there ? st.st_mode : 0) + ' ' + std::to_string(st.st_uid) + ' ' + std::to_string(st.st_size) + ' '
                                + bytes.value_or(std::string()));
        }
        return now;
    }

    SwapRecord recordOf(const std::string &path, int priority) const
    {
        struct stat st{};
        if (lstat(path.c_str(), &st) != 0) {
            qFatal("cannot stat %s", path.c_str());
        }
        return SwapRecord{path, *areaIdentity(st), priority};
    }

    void writeState(const HelperContext &context, const std::vector<SwapRecord> &records) const
    {
        std::filesystem::create_directories(context.stateDir);
        chmod(context.stateDir.c_str(), 0755);
        writeFile(context.stateFile, formatSwapState(records));
        chmod(context.stateFile.c_str(), 0644);
    }

    // The fake /proc/swaps: these areas active, as the kernel writes them
    // (the name with space, tab, newline and backslash escaped as \ooo).
    void writeSwaps(const HelperContext &context, const std::vector<std::string> &escapedNames) const
    {
        std::string text = swapsHeader;
        for (const std::string &name : escapedNames) {
            text += name + "\tfile\t\t16380\t\t0\t\t7\n";
        }
        writeFile(context.procRoot + "/swaps", text);
    }

    void expectRefusedUnchanged(const ActionReply &reply, int code, const QString &message, const Unchanged &before, const HelperContext &context)
    {
        QVERIFY(reply.failed());
        QCOMPARE(reply.type(), ActionReply::HelperErrorType);
        QVERIFY2(reply.errorDescription().contains(message), qPrintable(reply.errorDescription()));
        QCOMPARE(reply.error(), code);
        QVERIFY2(before == unchanged(context), "something changed");
        QVERIFY(!m_log.isEmpty());
        for (const QString &line : std::as_const(m_log)) {
            QVERIFY2(auditFormat.match(line).hasMatch(), qPrintable(line));
        }
    }

    std::string fresh(const std::string &name)
    {
        const std::string path = m_dir + '/' + name;
        std::filesystem::remove_all(path);
        return path;
    }

private Q_SLOTS:
    void initTestCase()
    {
        if (!TestUtil::isRoot() || !TestUtil::haveProgram("mkswap")) {
            QSKIP("needs root (files owned by root and by others) and mkswap");
        }
        m_dir = TestUtil::scratchDir("helperbadinputs");
        std::filesystem::create_directories(m_dir + "/proc");
        std::filesystem::copy_file("/proc/meminfo", m_dir + "/proc/meminfo");
        writeFile(m_dir + "/proc/swaps", swapsHeader);
        useTestFolders(m_context, m_dir, m_dir + "/proc", m_system, m_log);
        m_rootSwap = m_dir + "/root.swap";
        makeSwapFile(m_rootSwap, 0);
        m_userSwap = m_dir + "/user.swap";
        makeSwapFile(m_userSwap, 4201);
        m_watched = {m_rootSwap, m_userSwap};
    }

    void init()
    {
        m_system.calls.clear();
        m_system.swapOffError = 0;
        m_log.clear();
        std::filesystem::remove_all(m_context.stateDir);
        writeFile(m_context.procRoot + "/swaps", swapsHeader);
        m_watched.resize(2);
    }

    // --- swapoff: only the kernel's own names ---------------------------------

    void swapOffRefused_data()
    {
        QTest::addColumn<QString>("kind");
        QTest::addColumn<int>("code");
        QTest::addColumn<QString>("message");
        const QString notActive = QStringLiteral("is not an active swap area the helper may turn off");
        QTest::newRow("through a symlink") << QStringLiteral("symlink") << int(NotPermitted) << notActive;
        QTest::newRow("through a bind mount") << QStringLiteral("bind") << int(NotPermitted) << notActive;
        QTest::newRow("through a hard link") << QStringLiteral("hardlink") << int(NotPermitted) << notActive;
        QTest::newRow("/proc/swaps name with (deleted), a file of that name") << QStringLiteral("deleted") << int(NotPermitted) << notActive;
        QTest::newRow("/proc/swaps name with (deleted), all") << QStringLiteral("deleted-all") << int(AlreadyDone) << QStringLiteral("No swap area is active");
        QTest::newRow("/proc/swaps \\040 name given escaped") << QStringLiteral("escaped") << int(NotPermitted) << notActive;
        QTest::newRow("/proc/swaps name with a trailing space") << QStringLiteral("trailing") << int(NotPermitted) << notActive;
        QTest::newRow("unreadable /proc/swaps") << QStringLiteral("unreadable") << int(SystemFailure) << QStringLiteral("Cannot read the active swap areas");
        QTest::newRow("/proc/swaps a directory") << QStringLiteral("swaps-dir") << int(SystemFailure) << QStringLiteral("Cannot read the active swap areas");
        QTest::newRow("the kernel's ENOMEM") << QStringLiteral("enomem") << int(NotEnoughMemory) << QStringLiteral("Linux ran out of memory");
        QTest::newRow("the kernel's ENOMEM, all") << QStringLiteral("enomem-all") << int(NotEnoughMemory) << QStringLiteral("Linux ran out of memory");
    }
    void swapOffRefused()
    {
        QFETCH(QString, kind);
        QFETCH(int, code);
        QFETCH(QString, message);
        HelperContext context = m_context;
        QVariantMap args{{QStringLiteral("area"), QString::fromStdString(m_rootSwap)}};
        std::string mounted;
        writeSwaps(context, {m_rootSwap});
        QStringList expectedCalls;
        if (kind == QLatin1String("symlink")) {
            const std::string link = fresh("link.swap");
            std::filesystem::create_symlink(m_rootSwap, link);
            args[QStringLiteral("area")] = QString::fromStdString(link);
        } else if (kind == QLatin1String("bind")) {
            mounted = fresh("bound.swap");
            writeFile(mounted, "");
            if (mount(m_rootSwap.c_str(), mounted.c_str(), nullptr, MS_BIND, nullptr) != 0) {
                QSKIP("cannot bind-mount here");
            }
            args[QStringLiteral("area")] = QString::fromStdString(mounted);
        } else if (kind == QLatin1String("hardlink")) {
            const std::string link = fresh("hard.swap");
            std::filesystem::create_hard_link(m_rootSwap, link);
            args[QStringLiteral("area")] = QString::fromStdString(link);
        } else if (kind.startsWith(QLatin1String("deleted"))) {
            // Someone made a file named as the kernel shows a deleted area.
            const std::string decoy = fresh("gone.swap (deleted)");
            makeSwapFile(decoy, 0);
            m_watched.push_back(decoy);
            writeSwaps(context, {m_dir + "/gone.swap\\040(deleted)"});
            args = kind == QLatin1String("deleted") ? QVariantMap{{QStringLiteral("area"), QString::fromStdString(decoy)}}
                                                    : QVariantMap{{QStringLiteral("all"), true}};
        } else if (kind == QLatin1String("escaped")) {
            const std::string spaced = fresh("with space.swap");
            makeSwapFile(spaced, 0);
            const std::string literal = fresh("with\\040space.swap");
            makeSwapFile(literal, 0);
            m_watched.insert(m_watched.end(), {spaced, literal});
            writeSwaps(context, {m_dir + "/with\\040space.swap"});
            args[QStringLiteral("area")] = QString::fromStdString(literal);
        } else if (kind == QLatin1String("trailing")) {
            args[QStringLiteral("area")] = QString::fromStdString(m_rootSwap + ' ');
        } else if (kind == QLatin1String("unreadable")) {
            context.procRoot = fresh("proc-without-swaps");
            std::filesystem::create_directories(context.procRoot);
            std::filesystem::copy_file("/proc/meminfo", context.procRoot + "/meminfo");
        } else if (kind == QLatin1String("swaps-dir")) {
            context.procRoot = fresh("proc-swaps-dir");
            std::filesystem::create_directories(context.procRoot + "/swaps");
            std::filesystem::copy_file("/proc/meminfo", context.procRoot + "/meminfo");
        } else {
            m_system.swapOffError = ENOMEM;
            expectedCalls << QStringLiteral("swapOff");
            if (kind == QLatin1String("enomem-all")) {
                args = {{QStringLiteral("all"), true}};
            }
        }
        const Unchanged before = unchanged(context);
        const ActionReply reply = swapOffAction(args, Caller{4201}, context);
        if (!mounted.empty()) {
            umount2(mounted.c_str(), MNT_DETACH);
        }
        expectRefusedUnchanged(reply, code, message, before, context);
        QCOMPARE(m_system.calls, expectedCalls);
    }

    // The kernel's own name, even with a space in it, is taken.
    void swapOffTakesTheKernelsName()
    {
        const std::string spaced = fresh("with space.swap");
        makeSwapFile(spaced, 0);
        writeSwaps(m_context, {m_dir + "/with\\040space.swap"});
        const ActionReply reply = swapOffAction({{QStringLiteral("area"), QString::fromStdString(spaced)}}, Caller{4201}, m_context);
        QVERIFY2(reply.succeeded(), qPrintable(reply.errorDescription()));
        QCOMPARE(m_system.calls, QStringList{QStringLiteral("swapOff")});
        QCOMPARE(reply.data().value(QStringLiteral("turnedOff")).toStringList(), QStringList{QString::fromStdString(spaced)});
    }

    // --- swapon: only what the helper recorded, from a state file it trusts ---

    // Killed at any moment while it writes the state file, the helper
    // leaves the old file or the new one, whole, never a half (issue 29):
    // a child writes two states in turn until it is killed, at a random
    // moment, forty times. The next save removes what a killed one left.
    void stateFileWholeAfterAKill()
    {
        const std::vector<SwapRecord> one{recordOf(m_rootSwap, 5)};
        std::vector<SwapRecord> many;
        for (int priority = 0; priority < 200; ++priority) {
            many.push_back(recordOf(m_rootSwap, priority));
        }
        const std::string oneText = formatSwapState(one);
        const std::string manyText = formatSwapState(many);
        QString error;
        QVERIFY2(saveSwapState(m_context, one, &error), qPrintable(error));
        const std::string temporary = m_context.stateFile + ".new";
        std::mt19937 random(29);
        int killedMidWrite = 0;
        for (int round = 0; round < 40; ++round) {
            const pid_t writer = ::fork();
            if (writer == 0) {
                ::prctl(PR_SET_PDEATHSIG, SIGKILL); // never outlives the test
                for (unsigned i = 0;; ++i) {
                    QString ignored;
                    (void)saveSwapState(m_context, i % 2 ? many : one, &ignored);
                }
            }
            QVERIFY(writer > 0);
            ::usleep(useconds_t(1000 + random() % 20000));
            ::kill(writer, SIGKILL);
            int status = 0;
            QCOMPARE(::waitpid(writer, &status, 0), writer);
            QVERIFY(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
            const std::optional<std::string> text = contentOf(m_context.stateFile);
            QVERIFY2(text, "no state file after the kill");
            QVERIFY2(*text == oneText || *text == manyText,
                     qPrintable(QStringLiteral("round %1: a state file of %2 bytes, neither whole state").arg(round).arg(text->size())));
            const std::optional<std::vector<SwapRecord>> loaded = loadSwapState(m_context, &error);
            QVERIFY2(loaded && (loaded->size() == 1 || loaded->size() == 200), qPrintable(error));
            killedMidWrite += std::filesystem::exists(temporary) ? 1 : 0;
        }
        // Some of the kills came while a new state was being written.
        QVERIFY2(killedMidWrite > 0, "no kill came in the middle of a write");
        QVERIFY2(saveSwapState(m_context, one, &error), qPrintable(error));
        QVERIFY(!std::filesystem::exists(temporary));
        QCOMPARE(contentOf(m_context.stateFile), std::optional<std::string>(oneText));
    }

    void swapOnRefused_data()
    {
        QTest::addColumn<QString>("kind");
        QTest::addColumn<bool>("all");
        QTest::addColumn<int>("code");
        QTest::addColumn<QString>("message");
        const QString untrusted = QStringLiteral("the helper does not trust it");
        const QString gone = QStringLiteral("is gone or was replaced");
        const QString notOurs = QStringLiteral("was not turned off by Cachescope");
        for (const bool all : {false, true}) {
            const char *suffix = all ? ", all" : ", one area";
            QTest::addRow("state file owned by a user%s", suffix) << QStringLiteral("owner") << all << int(SystemFailure) << untrusted;
            QTest::addRow("state file group-writable%s", suffix) << QStringLiteral("group-writable") << all << int(SystemFailure) << untrusted;
            QTest::addRow("state file world-writable%s", suffix) << QStringLiteral("world-writable") << all << int(SystemFailure) << untrusted;
            QTest::addRow("state folder a symlink%s", suffix)
                << QStringLiteral("dir-symlink") << all << int(SystemFailure) << QStringLiteral("not a folder the helper trusts");
            QTest::addRow("state folder owned by a user%s", suffix) << QStringLiteral("dir-owner") << all << int(SystemFailure) << untrusted;
            QTest::addRow("state file a symlink%s", suffix) << QStringLiteral("file-symlink") << all << int(SystemFailure) << QStringLiteral("Cannot read");
            QTest::addRow("state file a FIFO%s", suffix) << QStringLiteral("fifo") << all << int(SystemFailure) << untrusted;
            QTest::addRow("state file over 1 MiB%s", suffix) << QStringLiteral("huge") << all << int(SystemFailure) << QStringLiteral("at most 1 MiB");
            QTest::addRow("state file damaged%s", suffix) << QStringLiteral("damaged") << all << int(SystemFailure) << QStringLiteral("is damaged");
        }
        QTest::newRow("record already active") << QStringLiteral("active") << false << int(AlreadyDone) << QStringLiteral("is already on");
        QTest::newRow("record whose file is gone") << QStringLiteral("gone") << false << int(NotPermitted) << gone;
        QTest::newRow("record whose file was replaced") << QStringLiteral("replaced") << false << int(NotPermitted) << gone;
        QTest::newRow("record whose name is now a symlink") << QStringLiteral("relinked") << false << int(NotPermitted) << gone;
        QTest::newRow("recorded area asked for through a symlink") << QStringLiteral("other-name") << false << int(NotPermitted) << notOurs;
        QTest::newRow("recorded file now readable by others")
            << QStringLiteral("readable") << false << int(NotPermitted) << QStringLiteral("let others read memory");
        QTest::newRow("recorded file now a user's") << QStringLiteral("users") << false << int(NotPermitted) << QStringLiteral("belongs to uid 4201");
        QTest::newRow("all: the only record fails") << QStringLiteral("users") << true << int(NotPermitted) << QStringLiteral("belongs to uid 4201");
        QTest::newRow("recorded block device through a user's node")
            << QStringLiteral("user-node") << false << int(NotPermitted) << QStringLiteral("belongs to uid 4201, not root");
    }
    void swapOnRefused()
    {
        QFETCH(QString, kind);
        QFETCH(bool, all);
        QFETCH(int, code);
        QFETCH(QString, message);
        HelperContext context = m_context;
        std::string asked = m_rootSwap;
        SwapRecord record = recordOf(m_rootSwap, 5);
        const std::string elsewhere = fresh("elsewhere");
        std::filesystem::create_directories(elsewhere);
        chmod(elsewhere.c_str(), 0755);
        if (kind == QLatin1String("gone")) {
            asked = m_dir + "/vanished.swap";
            record.path = asked;
            record.identity.inode += 1000000;
        } else if (kind == QLatin1String("replaced")) {
            asked = fresh("replaced.swap");
            makeSwapFile(asked, 0);
            m_watched.push_back(asked);
            record.path = asked; // with root.swap's inode: another file now
        } else if (kind == QLatin1String("relinked")) {
            asked = fresh("relinked.swap");
            std::filesystem::create_symlink(m_rootSwap, asked);
            record.path = asked;
        } else if (kind == QLatin1String("other-name")) {
            asked = fresh("link.swap");
            std::filesystem::create_symlink(m_rootSwap, asked);
        } else if (kind == QLatin1String("readable")) {
            asked = fresh("readable.swap");
            makeSwapFile(asked, 0);
            chmod(asked.c_str(), 0644);
            m_watched.push_back(asked);
            record = recordOf(asked, 5);
        } else if (kind == QLatin1String("users")) {
            asked = m_userSwap;
            record = recordOf(m_userSwap, 5);
        } else if (kind == QLatin1String("active")) {
            writeSwaps(context, {m_rootSwap});
        } else if (kind == QLatin1String("user-node")) {
            // A block device's node a user made (where device nodes are
            // allowed): the device number matches, the owner is not root.
            asked = fresh("users-node");
            QCOMPARE(mknod(asked.c_str(), S_IFBLK | 0600, makedev(7, 200)), 0);
            QCOMPARE(chown(asked.c_str(), 4201, 4201), 0);
            m_watched.push_back(asked);
            struct stat node{};
            QCOMPARE(lstat(asked.c_str(), &node), 0);
            record.path = asked;
            record.identity = *areaIdentity(node);
        }
        writeState(context, {record});
        if (kind == QLatin1String("owner")) {
            QCOMPARE(chown(context.stateFile.c_str(), 4201, 4201), 0);
        } else if (kind == QLatin1String("group-writable")) {
            chmod(context.stateFile.c_str(), 0664);
        } else if (kind == QLatin1String("world-writable")) {
            chmod(context.stateFile.c_str(), 0646);
        } else if (kind == QLatin1String("dir-owner")) {
            QCOMPARE(chown(context.stateDir.c_str(), 4201, 4201), 0);
        } else if (kind == QLatin1String("dir-symlink")) {
            HelperContext elsewhereContext;
            elsewhereContext.stateDir = elsewhere;
            elsewhereContext.stateFile = elsewhere + "/swap-state";
            writeState(elsewhereContext, {record});
            std::filesystem::remove_all(context.stateDir);
            std::filesystem::create_symlink(elsewhere, context.stateDir);
        } else if (kind == QLatin1String("file-symlink")) {
            std::filesystem::rename(context.stateFile, elsewhere + "/swap-state");
            std::filesystem::create_symlink(elsewhere + "/swap-state", context.stateFile);
        } else if (kind == QLatin1String("fifo")) {
            std::filesystem::remove(context.stateFile);
            QCOMPARE(mkfifo(context.stateFile.c_str(), 0644), 0);
        } else if (kind == QLatin1String("huge")) {
            writeFile(context.stateFile, formatSwapState({record}) + std::string((1 << 20) + 1, '\n'));
        } else if (kind == QLatin1String("damaged")) {
            writeFile(context.stateFile, formatSwapState({record}) + "file 1 2 x /y\n");
        }
        m_watched.push_back(context.stateDir);
        const QVariantMap args = all ? QVariantMap{{QStringLiteral("all"), true}} : QVariantMap{{QStringLiteral("area"), QString::fromStdString(asked)}};
        const Unchanged before = unchanged(context);
        const ActionReply reply = swapOnAction(args, Caller{4201}, context);
        expectRefusedUnchanged(reply, code, message, before, context);
        QCOMPARE(m_system.calls, QStringList());
        std::filesystem::remove_all(context.stateDir);
    }

    // Medium 3 and Low 8 of issue 9: every record is tried; those already on
    // or gone are dropped, a failure keeps its record and does not stop the
    // rest, the state is saved, and each area is reported.
    void swapOnAllGoesAreaByArea()
    {
        const std::string active = fresh("active.swap");
        makeSwapFile(active, 0);
        const std::string replaced = fresh("replaced.swap");
        makeSwapFile(replaced, 0);
        SwapRecord replacedRecord = recordOf(replaced, 2);
        replacedRecord.identity.inode += 1000000;
        SwapRecord goneRecord = recordOf(m_rootSwap, 3);
        goneRecord.path = m_dir + "/vanished.swap";
        const std::vector<SwapRecord> records{recordOf(m_userSwap, 1), goneRecord, replacedRecord, recordOf(active, 4), recordOf(m_rootSwap, 5)};
        writeState(m_context, records);
        writeSwaps(m_context, {active});

        const ActionReply reply = swapOnAction({{QStringLiteral("all"), true}}, Caller{4201}, m_context);
        QVERIFY(reply.failed());
        QCOMPARE(reply.error(), int(NotPermitted));
        QVERIFY2(reply.errorDescription().contains(QLatin1String("Swap is on again on 1 of 5 recorded areas.")), qPrintable(reply.errorDescription()));
        QVERIFY2(reply.errorDescription().contains(QLatin1String("belongs to uid 4201")), qPrintable(reply.errorDescription()));
        QCOMPARE(m_system.calls, QStringList{QStringLiteral("swapOn %1").arg(SWAP_FLAG_PREFER | 5)});
        QCOMPARE(reply.data().value(QStringLiteral("turnedOn")).toStringList(), QStringList{QString::fromStdString(m_rootSwap)});
        QCOMPARE(reply.data().value(QStringLiteral("priorities")).toList(), QVariantList{5});
        const QVariantList areas = reply.data().value(QStringLiteral("areas")).toList();
        QCOMPARE(areas.size(), 5);
        const QStringList outcomes{QStringLiteral("failed"), QStringLiteral("gone"), QStringLiteral("gone"), QStringLiteral("alreadyOn"), QStringLiteral("on")};
        for (int i = 0; i < 5; ++i) {
            const QVariantMap area = areas[i].toMap();
            QCOMPARE(area.value(QStringLiteral("name")).toString(), QString::fromStdString(records[size_t(i)].path));
            QCOMPARE(area.value(QStringLiteral("outcome")).toString(), outcomes[i]);
            QCOMPARE(area.value(QStringLiteral("priority")).toInt(), records[size_t(i)].priority);
            QCOMPARE(area.value(QStringLiteral("message")).toString().isEmpty(), i == 4);
        }
        // Saved: only the failure is left for another try.
        QString error;
        const auto left = parseSwapState(contentOf(m_context.stateFile).value_or(std::string()), &error);
        QVERIFY2(left, qPrintable(error));
        QCOMPARE(*left, std::vector<SwapRecord>{records[0]});
        // One audit line per area, then the action's own.
        QCOMPARE(m_log.size(), 6);
        QVERIFY(m_log.last().contains(QLatin1String("action=swapon uid=4201 target=all result=refused")));

        // Once the user's file is root's and private again, all of it comes back.
        QCOMPARE(chown(m_userSwap.c_str(), 0, 0), 0);
        m_system.calls.clear();
        const ActionReply again = swapOnAction({{QStringLiteral("all"), true}}, Caller{4201}, m_context);
        QCOMPARE(chown(m_userSwap.c_str(), 4201, 4201), 0);
        QVERIFY2(again.succeeded(), qPrintable(again.errorDescription()));
        QCOMPARE(m_system.calls, QStringList{QStringLiteral("swapOn %1").arg(SWAP_FLAG_PREFER | 1)});
        QVERIFY(!std::filesystem::exists(m_context.stateFile));
    }

    // Every record already on or gone: nothing to turn on, the records go, and that is success.
    void swapOnAllDropsStaleRecords()
    {
        SwapRecord goneRecord = recordOf(m_rootSwap, 3);
        goneRecord.path = m_dir + "/vanished.swap";
        writeState(m_context, {goneRecord, recordOf(m_rootSwap, 5)});
        writeSwaps(m_context, {m_rootSwap});
        const ActionReply reply = swapOnAction({{QStringLiteral("all"), true}}, Caller{4201}, m_context);
        QVERIFY2(reply.succeeded(), qPrintable(reply.errorDescription()));
        QCOMPARE(m_system.calls, QStringList());
        QCOMPARE(reply.data().value(QStringLiteral("turnedOn")).toStringList(), QStringList());
        QCOMPARE(reply.data().value(QStringLiteral("areas")).toList().size(), 2);
        QVERIFY(!std::filesystem::exists(m_context.stateFile));
    }

    // --- The experiment swap file: its folder and its name ---------------------

    void experimentFileRefused_data()
    {
        QTest::addColumn<QString>("kind");
        QTest::addColumn<QString>("action");
        QTest::addColumn<int>("code");
        QTest::addColumn<QString>("message");
        const QString create = QStringLiteral("swapfilecreate");
        const QString remove = QStringLiteral("swapfileremove");
        const QString badFolder = QStringLiteral("is not owned by root or is writable by others");
        for (const QString &action : {create, remove}) {
            QTest::addRow("%s: folder a symlink", qPrintable(action))
                << QStringLiteral("dir-symlink") << action << int(SystemFailure) << QStringLiteral("Cannot open");
            QTest::addRow("%s: folder a user's", qPrintable(action)) << QStringLiteral("dir-owner") << action << int(SystemFailure) << badFolder;
            QTest::addRow("%s: folder group-writable", qPrintable(action)) << QStringLiteral("dir-group") << action << int(SystemFailure) << badFolder;
            QTest::addRow("%s: folder world-writable", qPrintable(action)) << QStringLiteral("dir-world") << action << int(SystemFailure) << badFolder;
        }
        const QString exists = QStringLiteral("already exists");
        const QString notOurs = QStringLiteral("is not a root-owned regular file; the helper leaves it alone");
        QTest::newRow("create: experiment.swap a symlink") << QStringLiteral("symlink") << create << int(AlreadyDone) << exists;
        QTest::newRow("create: experiment.swap a FIFO") << QStringLiteral("fifo") << create << int(AlreadyDone) << exists;
        QTest::newRow("create: experiment.swap a user's file") << QStringLiteral("users") << create << int(AlreadyDone) << exists;
        QTest::newRow("create: experiment.swap a directory") << QStringLiteral("directory") << create << int(AlreadyDone) << exists;
        QTest::newRow("remove: experiment.swap a symlink") << QStringLiteral("symlink") << remove << int(NotPermitted) << notOurs;
        QTest::newRow("remove: experiment.swap a FIFO") << QStringLiteral("fifo") << remove << int(NotPermitted) << notOurs;
        QTest::newRow("remove: experiment.swap a user's file") << QStringLiteral("users") << remove << int(NotPermitted) << notOurs;
        QTest::newRow("remove: experiment.swap a directory") << QStringLiteral("directory") << remove << int(NotPermitted) << notOurs;
    }
    void experimentFileRefused()
    {
        QFETCH(QString, kind);
        QFETCH(QString, action);
        QFETCH(int, code);
        QFETCH(QString, message);
        HelperContext context = m_context;
        const std::string real = fresh("experiment-real");
        std::filesystem::create_directories(real);
        chmod(real.c_str(), 0700);
        context.experimentDir = real;
        const std::string file = real + "/experiment.swap";
        if (kind == QLatin1String("dir-symlink")) {
            context.experimentDir = fresh("experiment-link");
            std::filesystem::create_symlink(real, context.experimentDir);
        } else if (kind == QLatin1String("dir-owner")) {
            QCOMPARE(chown(real.c_str(), 4201, 4201), 0);
        } else if (kind == QLatin1String("dir-group")) {
            chmod(real.c_str(), 0770);
        } else if (kind == QLatin1String("dir-world")) {
            chmod(real.c_str(), 0703);
        } else if (kind == QLatin1String("symlink")) {
            std::filesystem::create_symlink(m_rootSwap, file);
        } else if (kind == QLatin1String("fifo")) {
            QCOMPARE(mkfifo(file.c_str(), 0600), 0);
        } else if (kind == QLatin1String("users")) {
            writeFile(file, "the user's own bytes");
            QCOMPARE(chown(file.c_str(), 4201, 4201), 0);
        } else if (kind == QLatin1String("directory")) {
            std::filesystem::create_directories(file);
        }
        m_watched.insert(m_watched.end(), {real, file, context.experimentDir});
        const Unchanged before = unchanged(context);
        const QVariantMap args = action == QLatin1String("swapfilecreate") ? QVariantMap{{QStringLiteral("sizeBytes"), qlonglong(16 << 20)}} : QVariantMap{};
        const ActionReply reply =
            action == QLatin1String("swapfilecreate") ? swapFileCreateAction(args, Caller{4201}, context) : swapFileRemoveAction(args, Caller{4201}, context);
        expectRefusedUnchanged(reply, code, message, before, context);
        QCOMPARE(m_system.calls, QStringList());
    }

    // --- residency: paths the helper must not read, arguments it must refuse -----

    // Each a path the helper answers with an error of its own, never reading
    // it: the call succeeds, the file's answer carries the refusal.
    void residencyPathRefused_data()
    {
        QTest::addColumn<QString>("kind");
        QTest::addColumn<QString>("message");
        QTest::newRow("a socket") << QStringLiteral("socket") << QStringLiteral("is a socket, not a regular file: never opened");
        QTest::newRow("a FIFO (must not block)") << QStringLiteral("fifo") << QStringLiteral("is a FIFO, not a regular file: never opened");
        QTest::newRow("a block device") << QStringLiteral("block") << QStringLiteral("is a block device, not a regular file: never opened");
        QTest::newRow("a character device") << QStringLiteral("char") << QStringLiteral("is a character device");
        QTest::newRow("a directory") << QStringLiteral("dir") << QStringLiteral("is a directory");
        QTest::newRow("a procfs file") << QStringLiteral("proc") << QStringLiteral("is on procfs");
        QTest::newRow("a procfs file through a symlink") << QStringLiteral("proc-link") << QStringLiteral("is on procfs");
        QTest::newRow("a sysfs file") << QStringLiteral("sys") << QStringLiteral("is on sysfs");
        QTest::newRow("an 8 EiB sparse file on the mincore path")
            << QStringLiteral("sparse") << QStringLiteral("pages; without cachestat(2) the helper reads at most");
        QTest::newRow("a file the caller cannot read (root could)") << QStringLiteral("private") << QStringLiteral("Permission denied");
        QTest::newRow("a name that is not there") << QStringLiteral("missing") << QStringLiteral("No such file");
    }
    void residencyPathRefused()
    {
        QFETCH(QString, kind);
        QFETCH(QString, message);
        std::string path = fresh("residency-bad");
        std::string mounted;
        int socketFd = -1;
        const auto cleanup = qScopeGuard([&] {
            if (socketFd >= 0) {
                close(socketFd);
            }
            if (!mounted.empty()) {
                umount2(mounted.c_str(), MNT_DETACH);
            }
            m_context.forceMincore = false;
        });
        if (kind == QLatin1String("socket")) {
            socketFd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
            sockaddr_un address{};
            address.sun_family = AF_UNIX;
            std::strncpy(address.sun_path, path.c_str(), sizeof address.sun_path - 1);
            QVERIFY(path.size() < sizeof address.sun_path);
            QCOMPARE(bind(socketFd, reinterpret_cast<sockaddr *>(&address), sizeof address), 0);
        } else if (kind == QLatin1String("fifo")) {
            QCOMPARE(mkfifo(path.c_str(), 0666), 0);
        } else if (kind == QLatin1String("block")) {
            QCOMPARE(mknod(path.c_str(), S_IFBLK | 0666, makedev(7, 0)), 0);
        } else if (kind == QLatin1String("char")) {
            path = "/dev/null";
        } else if (kind == QLatin1String("dir")) {
            std::filesystem::create_directory(path);
        } else if (kind == QLatin1String("proc")) {
            path = "/proc/self/status";
        } else if (kind == QLatin1String("proc-link")) {
            std::filesystem::create_symlink("/proc/self/status", path);
        } else if (kind == QLatin1String("sys")) {
            path = "/sys/kernel/mm/transparent_hugepage/enabled";
        } else if (kind == QLatin1String("sparse")) {
            // tmpfs takes a file of 2^63 - 1 bytes with nothing in it.
            std::filesystem::create_directory(path);
            QCOMPARE(mount("tmpfs", path.c_str(), "tmpfs", 0, "size=1m,mode=0755"), 0);
            mounted = path;
            path += "/sparse";
            const int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
            QVERIFY(fd >= 0);
            QCOMPARE(ftruncate(fd, std::numeric_limits<off_t>::max()), 0);
            close(fd);
            m_context.forceMincore = true;
        } else if (kind == QLatin1String("private")) {
            std::filesystem::create_directory(path);
            chmod(path.c_str(), 0700);
            path += "/secret";
            writeFile(path, "root only\n");
            chmod(path.c_str(), 0600);
        } else {
            path += "/not-there";
        }
        // Files of ours are watched byte for byte; not the kernel's (they
        // change by themselves) nor the 8 EiB file (it would be read).
        const bool watched = path.starts_with(m_dir) && kind != QLatin1String("sparse");
        if (watched) {
            m_watched.push_back(path);
        }
        struct stat statBefore{};
        const int statResult = lstat(path.c_str(), &statBefore);
        const Unchanged before = unchanged(m_context);
        QElapsedTimer timer;
        timer.start();
        const ActionReply reply =
            residencyAction({{QStringLiteral("count"), 1}, {QStringLiteral("buckets"), 8}, {QStringLiteral("path0"), QByteArray::fromStdString(path)}},
                            Caller{4201},
                            m_context);
        QVERIFY2(timer.elapsed() < 5000, qPrintable(QString::number(timer.elapsed()))); // nothing blocks, nothing runs long
        QVERIFY2(reply.succeeded(), qPrintable(reply.errorDescription()));
        const QList<FileResidencyAnswer> files = HelperTest::residencyAnswers(reply);
        QCOMPARE(files.size(), 1);
        QVERIFY2(files[0].error.contains(message), qPrintable(files[0].error));
        QCOMPARE(files[0].sizeBytes, quint64(0));
        QVERIFY(files[0].histogram.isEmpty());
        QVERIFY2(before == unchanged(m_context), "something changed");
        struct stat statAfter{};
        QCOMPARE(lstat(path.c_str(), &statAfter), statResult);
        QCOMPARE(statAfter.st_mode, statBefore.st_mode);
        QCOMPARE(statAfter.st_size, statBefore.st_size);
        QCOMPARE(statAfter.st_blocks, statBefore.st_blocks);
        QCOMPARE(m_system.calls, QStringList());
        QCOMPARE(m_log, QStringList{QStringLiteral("cachescope-helper: action=residency uid=4201 target=paths=1 result=ok code=0")});
    }

    // Each an argument map the helper refuses before it reads anything.
    void residencyArgumentsRefused_data()
    {
        QTest::addColumn<QVariantMap>("args");
        QTest::addColumn<QString>("message");
        const QByteArray file = QByteArray::fromStdString(m_rootSwap);
        const QVariantMap one{{QStringLiteral("count"), 1}, {QStringLiteral("path0"), file}};
        QVariantMap seventeen{{QStringLiteral("count"), 17}};
        for (int i = 0; i < 17; ++i) {
            seventeen.insert(pathKey(i), QByteArray(file + "-" + QByteArray::number(i)));
        }
        QTest::newRow("17 paths in one call") << seventeen << QStringLiteral("out of range (1 to 16)");
        QVariantMap twice = one;
        twice.insert(QStringLiteral("count"), 2);
        twice.insert(QStringLiteral("path1"), file);
        QTest::newRow("the same path twice") << twice << QStringLiteral("names a path given before");
        QVariantMap bucketString = one;
        bucketString.insert(QStringLiteral("buckets"), QStringLiteral("8"));
        QTest::newRow("buckets as a string") << bucketString << QStringLiteral("must be an integer, not QString");
        QVariantMap bucketDouble = one;
        bucketDouble.insert(QStringLiteral("buckets"), 8.0);
        QTest::newRow("buckets as a double") << bucketDouble << QStringLiteral("must be an integer, not double");
        QVariantMap bucketNegative = one;
        bucketNegative.insert(QStringLiteral("buckets"), -8);
        QTest::newRow("buckets negative") << bucketNegative << QStringLiteral("out of range");
        QVariantMap oldKey = one;
        oldKey.insert(QStringLiteral("key"), QByteArray(32, 'k'));
        QTest::newRow("the old helper's seal key") << oldKey << QStringLiteral("Unknown argument 'key'");
        QVariantMap relative = one;
        relative.insert(QStringLiteral("path0"), QByteArray("root.swap"));
        QTest::newRow("a relative path") << relative << QStringLiteral("must be an absolute path");
        QVariantMap text = one;
        text.insert(QStringLiteral("path0"), QString::fromUtf8(file));
        QTest::newRow("a path as a QString") << text << QStringLiteral("must be the bytes of a path (QByteArray), not QString");
        QVariantMap descriptor = one;
        descriptor.insert(QStringLiteral("fd0"), 3);
        QTest::newRow("a descriptor argument") << descriptor << QStringLiteral("Unknown argument 'fd0'");
    }
    void residencyArgumentsRefused()
    {
        QFETCH(QVariantMap, args);
        QFETCH(QString, message);
        const Unchanged before = unchanged(m_context);
        const ActionReply reply = residencyAction(args, Caller{4201}, m_context);
        expectRefusedUnchanged(reply, int(InvalidArgument), message, before, m_context);
        QVERIFY(m_log.first().contains(QLatin1String("action=residency uid=4201")));
        QCOMPARE(m_system.calls, QStringList());
    }

    // --- trace: argument maps it refuses before it holds a process or
    // touches tracefs (docs/helper-security.md rule 16) ----------------------
    void traceArgumentsRefused_data()
    {
        QTest::addColumn<QVariantMap>("args");
        QTest::addColumn<QString>("message");
        const QVariantMap good{{QStringLiteral("pid"), int(getpid())}, {QStringLiteral("seconds"), 1}};
        const auto with = [&good](const QString &name, const QVariant &value) {
            QVariantMap args = good;
            args.insert(name, value);
            return args;
        };
        QVariantMap noSeconds = good;
        noSeconds.remove(QStringLiteral("seconds"));
        QTest::newRow("no seconds") << noSeconds << QStringLiteral("seconds");
        QTest::newRow("pid as a string") << with(QStringLiteral("pid"), QString::number(getpid())) << QStringLiteral("must be an integer, not QString");
        QTest::newRow("pid as a double") << with(QStringLiteral("pid"), double(getpid())) << QStringLiteral("must be an integer, not double");
        QTest::newRow("pid 0") << with(QStringLiteral("pid"), 0) << QStringLiteral("out of range");
        QTest::newRow("pid negative") << with(QStringLiteral("pid"), -1) << QStringLiteral("out of range");
        QTest::newRow("pid beyond the kernel's") << with(QStringLiteral("pid"), 4194305) << QStringLiteral("out of range");
        QTest::newRow("seconds 0") << with(QStringLiteral("seconds"), 0) << QStringLiteral("out of range");
        QTest::newRow("seconds past the limit") << with(QStringLiteral("seconds"), maxTraceSeconds + 1) << QStringLiteral("out of range");
        QTest::newRow("seconds as a string") << with(QStringLiteral("seconds"), QStringLiteral("5")) << QStringLiteral("must be an integer, not QString");
        QTest::newRow("the old helper's seal key") << with(QStringLiteral("key"), QByteArray(32, 'k')) << QStringLiteral("Unknown argument 'key'");
        QTest::newRow("a tracefs path") << with(QStringLiteral("tracefs"), QByteArray("/tmp")) << QStringLiteral("Unknown argument 'tracefs'");
        QTest::newRow("an event") << with(QStringLiteral("event"), QStringLiteral("sched/sched_switch")) << QStringLiteral("Unknown argument 'event'");
        QTest::newRow("a filter") << with(QStringLiteral("filter"), QStringLiteral("ino == 12")) << QStringLiteral("Unknown argument 'filter'");
        QTest::newRow("an instance name") << with(QStringLiteral("instance"), QStringLiteral("../../")) << QStringLiteral("Unknown argument 'instance'");
    }
    void traceArgumentsRefused()
    {
        QFETCH(QVariantMap, args);
        QFETCH(QString, message);
        const Unchanged before = unchanged(m_context);
        bool progressed = false;
        m_context.progress = [&progressed](const QVariantMap &) {
            progressed = true;
        };
        const ActionReply reply = traceAction(args, Caller{4201}, m_context);
        m_context.progress = {};
        expectRefusedUnchanged(reply, int(InvalidArgument), message, before, m_context);
        QVERIFY(m_log.first().contains(QLatin1String("action=trace uid=4201")));
        QVERIFY(!progressed);
        QCOMPARE(m_system.calls, QStringList());
    }

    // --- contain and reclaim: argument maps they refuse before they hold a
    // process or touch a cgroup (docs/helper-security.md rule 17) ------------
    void containArgumentsRefused_data()
    {
        QTest::addColumn<QVariantMap>("args");
        QTest::addColumn<QString>("message");
        const QVariantMap good{{QStringLiteral("pid"), int(getpid())}, {QStringLiteral("limitBytes"), qint64(64) << 20}};
        const auto with = [&good](const QString &name, const QVariant &value) {
            QVariantMap args = good;
            args.insert(name, value);
            return args;
        };
        QVariantMap noLimit = good;
        noLimit.remove(QStringLiteral("limitBytes"));
        QTest::newRow("no limit") << noLimit << QStringLiteral("limitBytes");
        QTest::newRow("limit 0") << with(QStringLiteral("limitBytes"), 0) << QStringLiteral("out of range");
        QTest::newRow("limit negative") << with(QStringLiteral("limitBytes"), qint64(-1)) << QStringLiteral("out of range");
        QTest::newRow("limit below 16 MiB") << with(QStringLiteral("limitBytes"), qint64(16 << 20) - 1) << QStringLiteral("at least 16.0 MiB");
        QTest::newRow("limit past the machine's memory") << with(QStringLiteral("limitBytes"), qint64(1) << 60) << QStringLiteral("more than this machine has");
        QTest::newRow("limit past 2^63") << with(QStringLiteral("limitBytes"), qulonglong(1) << 63) << QStringLiteral("out of range");
        QTest::newRow("limit as text") << with(QStringLiteral("limitBytes"), QStringLiteral("64M")) << QStringLiteral("must be an integer, not QString");
        QTest::newRow("limit as a double") << with(QStringLiteral("limitBytes"), 64.0 * (1 << 20)) << QStringLiteral("must be an integer, not double");
        QTest::newRow("pid 0") << with(QStringLiteral("pid"), 0) << QStringLiteral("out of range");
        QTest::newRow("pid beyond the kernel's") << with(QStringLiteral("pid"), 4194305) << QStringLiteral("out of range");
        QTest::newRow("a cgroup name") << with(QStringLiteral("name"), QStringLiteral("../../system.slice")) << QStringLiteral("Unknown argument 'name'");
        QTest::newRow("a cgroup path") << with(QStringLiteral("cgroup"), QStringLiteral("/")) << QStringLiteral("Unknown argument 'cgroup'");
    }
    void containArgumentsRefused()
    {
        QFETCH(QVariantMap, args);
        QFETCH(QString, message);
        const Unchanged before = unchanged(m_context);
        const ActionReply reply = containAction(args, Caller{4201}, m_context);
        expectRefusedUnchanged(reply, int(InvalidArgument), message, before, m_context);
        QVERIFY(m_log.first().contains(QLatin1String("action=contain uid=4201")));
        QCOMPARE(m_system.calls, QStringList());
    }

    void reclaimArgumentsRefused_data()
    {
        QTest::addColumn<QVariantMap>("args");
        QTest::addColumn<QString>("message");
        const auto cgroup = [](const QVariant &value) {
            return QVariantMap{{QStringLiteral("cgroup"), value}};
        };
        QTest::newRow("no cgroup") << QVariantMap() << QStringLiteral("cgroup");
        QTest::newRow("the root") << cgroup(QStringLiteral("/")) << QStringLiteral("not a cgroup below the root");
        QTest::newRow("relative") << cgroup(QStringLiteral("user.slice")) << QStringLiteral("not a cgroup below the root");
        QTest::newRow("dot dot") << cgroup(QStringLiteral("/user.slice/../system.slice")) << QStringLiteral("\"..\" part");
        QTest::newRow("empty part") << cgroup(QStringLiteral("/user.slice//x")) << QStringLiteral("\"..\" part");
        QTest::newRow("a newline") << cgroup(QStringLiteral("/user.slice\nx")) << QStringLiteral("not printable ASCII");
        QTest::newRow("too long") << cgroup(QString(QLatin1Char('/') + QString(maxCgroupPathBytes, QLatin1Char('a')))) << QStringLiteral("longer than");
        QTest::newRow("as bytes") << cgroup(QByteArray("/user.slice")) << QStringLiteral("must be text");
        QTest::newRow("as a number") << cgroup(7) << QStringLiteral("must be text");
        QTest::newRow("an amount") << QVariantMap{{QStringLiteral("cgroup"), QStringLiteral("/user.slice")}, {QStringLiteral("bytes"), 4096}}
                                   << QStringLiteral("Unknown argument 'bytes'");
    }
    void reclaimArgumentsRefused()
    {
        QFETCH(QVariantMap, args);
        QFETCH(QString, message);
        const Unchanged before = unchanged(m_context);
        const ActionReply reply = reclaimAction(args, Caller{4201}, m_context);
        expectRefusedUnchanged(reply, int(InvalidArgument), message, before, m_context);
        QVERIFY(m_log.first().contains(QLatin1String("action=reclaim uid=4201 target=-")));
        QCOMPARE(m_system.calls, QStringList());
    }

    // A caller above INT_MAX is logged as itself: not as root, not negative, not unknown.
    void callerAboveIntMaxLoggedAsItself()
    {
        const Caller caller{3000000000U};
        ActionReply reply = dropCachesAction({{QStringLiteral("level"), 4}}, caller, m_context);
        QCOMPARE(reply.error(), int(InvalidArgument));
        QCOMPARE(m_log, QStringList{QStringLiteral("cachescope-helper: action=dropcaches uid=3000000000 target=- result=refused code=101")});
        m_log.clear();
        reply = dropCachesAction({{QStringLiteral("level"), 1}}, caller, m_context);
        QVERIFY2(reply.succeeded(), qPrintable(reply.errorDescription()));
        QCOMPARE(m_log, QStringList{QStringLiteral("cachescope-helper: action=dropcaches uid=3000000000 target=level=1 result=ok code=0")});
    }

    // An unknown caller is logged as unknown, never as root (uid=0).
    void unknownCallerNeverLoggedAsRoot()
    {
        const ActionReply reply = dropCachesAction({{QStringLiteral("level"), 1}}, Caller{}, m_context);
        QCOMPARE(reply.error(), int(CallerUnknown));
        QCOMPARE(m_log, QStringList{QStringLiteral("cachescope-helper: action=dropcaches uid=unknown target=- result=refused code=107")});
        QCOMPARE(m_system.calls, QStringList());
    }
};

QTEST_GUILESS_MAIN(HelperBadInputsTest)
#include "helperbadinputstest.moc"
