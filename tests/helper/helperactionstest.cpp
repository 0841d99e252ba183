// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers

// The helper's actions called in-process, as the service calls them, with
// a recording stand-in for the calls that change the system: a table of bad
// inputs, refused descriptors, residency against root's own view, the swap
// state round trip on a fake /proc, and 10,000 random argument maps.
// Runs as root in the dev root (tools/dev); parts that need root skip otherwise.

#include "helperactions.h"
#include "actionsupport.h"
#include "helperlogic.h"
#include "helperprotocol.h"
#include "helpertestsupport.h"
#include "procfs.h"
#include "residency.h"
#include "testutil.h"
#include "uniquefd.h"

#include <QElapsedTimer>
#include <QRandomGenerator>
#include <QRegularExpression>
#include <QScopeGuard>
#include <QTest>

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/swap.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>

using namespace Cachescope;
using namespace Cachescope::Helper;
using namespace Cachescope::HelperProtocol;
using namespace Cachescope::HelperTest;

namespace
{

ino_t inodeOf(int fd)
{
    struct stat st{};
    return fstat(fd, &st) == 0 ? st.st_ino : 0;
}

// A process's descriptors, sorted, as "N:null", "N:target" (the pipe whose
// inode is targetPipe), "N:pipe" (another pipe) or "N:<where it leads>".
QStringList descriptorsOf(pid_t pid, ino_t targetPipe)
{
    const std::string folderPath = "/proc/" + std::to_string(pid) + "/fd";
    QStringList out;
    DIR *folder = opendir(folderPath.c_str());
    if (folder == nullptr) {
        return out;
    }
    while (const dirent *entry = readdir(folder)) {
        const std::string name = entry->d_name;
        if (name == "." || name == "..") {
            continue;
        }
        struct stat st{};
        std::error_code error;
        const std::string target = std::filesystem::read_symlink(folderPath + "/" + name, error).string();
        QString what = QString::fromStdString(target);
        if (target == "/dev/null") {
            what = QStringLiteral("null");
        } else if (stat((folderPath + "/" + name).c_str(), &st) == 0 && S_ISFIFO(st.st_mode)) {
            what = st.st_ino == targetPipe ? QStringLiteral("target") : QStringLiteral("pipe");
        }
        out << QString::fromStdString(name) + QLatin1Char(':') + what;
    }
    closedir(folder);
    std::sort(out.begin(), out.end());
    return out;
}

} // namespace

class HelperActionsTest : public QObject
{
    Q_OBJECT

private:
    RecordingSystem m_system;
    HelperContext m_context;
    QStringList m_log;
    std::string m_dir;
    std::string m_fakeProc;
    std::string m_userSwap;
    std::string m_rootSwap;
    std::string m_blockLink;
    std::string m_blockDevice;
    std::string m_regular;
    std::vector<int> m_openFds;

    int keep(int fd)
    {
        m_openFds.push_back(fd);
        return fd;
    }

    // uid -1: the service could not learn who is calling.
    ActionReply call(const QString &action, const QVariantMap &args, int callerUid = 4201)
    {
        const Caller uid = callerUid < 0 ? Caller{} : Caller{uint32_t(callerUid)};
        if (action == QLatin1String("dropcaches")) {
            return dropCachesAction(args, uid, m_context);
        }
        if (action == QLatin1String("swapoff")) {
            return swapOffAction(args, uid, m_context);
        }
        if (action == QLatin1String("swapon")) {
            return swapOnAction(args, uid, m_context);
        }
        if (action == QLatin1String("swapfilecreate")) {
            return swapFileCreateAction(args, uid, m_context);
        }
        if (action == QLatin1String("swapfileremove")) {
            return swapFileRemoveAction(args, uid, m_context);
        }
        return residencyAction(args, uid, m_context);
    }

private Q_SLOTS:
    void initTestCase()
    {
        m_dir = TestUtil::scratchDir("helperactions");
        m_fakeProc = m_dir + "/proc";
        std::filesystem::create_directories(m_fakeProc);
        // The real meminfo, an empty swaps: the fake /proc of most tests.
        std::filesystem::copy_file("/proc/meminfo", m_fakeProc + "/meminfo");
        writeFile(m_fakeProc + "/swaps", "Filename\t\t\t\tType\t\tSize\t\tUsed\t\tPriority\n");
        useTestFolders(m_context, m_dir, m_fakeProc, m_system, m_log);

        m_regular = m_dir + "/regular";
        TestUtil::makeColdFile(m_regular, 1 << 20);
        if (TestUtil::isRoot() && TestUtil::haveProgram("mkswap")) {
            m_userSwap = m_dir + "/user.swap";
            makeSwapFile(m_userSwap, 4201);
            m_rootSwap = m_dir + "/root.swap";
            makeSwapFile(m_rootSwap, 0);
        }
        // A symlink to a block device, if the machine has one.
        for (const auto &entry : std::filesystem::directory_iterator("/dev")) {
            struct stat st;
            if (lstat(entry.path().c_str(), &st) == 0 && S_ISBLK(st.st_mode)) {
                m_blockLink = m_dir + "/block-link";
                m_blockDevice = entry.path().string();
                std::filesystem::create_symlink(entry.path(), m_blockLink);
                break;
            }
        }
    }

    void cleanupTestCase()
    {
        for (int fd : m_openFds) {
            close(fd);
        }
    }

    void init()
    {
        m_system.calls.clear();
        m_log.clear();
    }

    // At least 40 bad inputs, each refused with a clear error, nothing called,
    // one audit line in the fixed format saying "refused".
    void badInputs_data()
    {
        QTest::addColumn<QString>("action");
        QTest::addColumn<QVariantMap>("args");
        QTest::addColumn<int>("uid");
        QTest::addColumn<int>("code");
        QTest::addColumn<QString>("message");

        const QString level = QStringLiteral("level");
        const QString area = QStringLiteral("area");
        const QString all = QStringLiteral("all");
        const QString size = QStringLiteral("sizeBytes");
        const QString count = QStringLiteral("count");
        const QString path0 = QStringLiteral("path0");
        const QString oldSealKey = QStringLiteral("key"); // the old helper's sealing key, no argument now
        const QString dc = QStringLiteral("dropcaches");
        const QString off = QStringLiteral("swapoff");
        const QString on = QStringLiteral("swapon");
        const QString create = QStringLiteral("swapfilecreate");
        const QString remove = QStringLiteral("swapfileremove");
        const QString res = QStringLiteral("residency");
        const int bad = InvalidArgument;
        const int no = NotPermitted;

        QVariantMap tooMany;
        for (int i = 0; i < 75; ++i) {
            tooMany.insert(QStringLiteral("k%1").arg(i), i);
        }
        const QVariant goodPath = QByteArray::fromStdString(m_regular);

        // drop_caches
        QTest::newRow("dc: no level") << dc << QVariantMap{} << 4201 << bad << QStringLiteral("Missing argument 'level'");
        QTest::newRow("dc: level 0") << dc << QVariantMap{{level, 0}} << 4201 << bad << QStringLiteral("out of range (1 to 3)");
        QTest::newRow("dc: level 4") << dc << QVariantMap{{level, 4}} << 4201 << bad << QStringLiteral("out of range (1 to 3)");
        QTest::newRow("dc: level -1") << dc << QVariantMap{{level, -1}} << 4201 << bad << QStringLiteral("out of range");
        QTest::newRow("dc: level '3'") << dc << QVariantMap{{level, QStringLiteral("3")}} << 4201 << bad << QStringLiteral("must be an integer, not QString");
        QTest::newRow("dc: level '3; reboot'") << dc << QVariantMap{{level, QStringLiteral("3; reboot")}} << 4201 << bad
                                               << QStringLiteral("must be an integer");
        QTest::newRow("dc: level 3.0") << dc << QVariantMap{{level, 3.0}} << 4201 << bad << QStringLiteral("must be an integer, not double");
        QTest::newRow("dc: level true") << dc << QVariantMap{{level, true}} << 4201 << bad << QStringLiteral("must be an integer, not bool");
        QTest::newRow("dc: level list") << dc << QVariantMap{{level, QVariantList{3}}} << 4201 << bad << QStringLiteral("must be an integer");
        QTest::newRow("dc: level bytes") << dc << QVariantMap{{level, QByteArray("3")}} << 4201 << bad << QStringLiteral("must be an integer, not QByteArray");
        QTest::newRow("dc: level invalid variant") << dc << QVariantMap{{level, QVariant()}} << 4201 << bad << QStringLiteral("not nothing");
        QTest::newRow("dc: level 2^63-1") << dc << QVariantMap{{level, std::numeric_limits<qlonglong>::max()}} << 4201 << bad << QStringLiteral("out of range");
        QTest::newRow("dc: level 2^64-1") << dc << QVariantMap{{level, std::numeric_limits<qulonglong>::max()}} << 4201 << bad
                                          << QStringLiteral("out of range");
        QTest::newRow("dc: extra key path") << dc << QVariantMap{{level, 3}, {QStringLiteral("path"), QStringLiteral("/etc/passwd")}} << 4201 << bad
                                            << QStringLiteral("Unknown argument 'path'");
        QTest::newRow("dc: huge key") << dc << QVariantMap{{level, 1}, {QString(100000, QLatin1Char('x')), 1}} << 4201 << bad
                                      << QStringLiteral("Unknown argument 'xxxx");
        QTest::newRow("dc: 75 keys") << dc << tooMany << 4201 << bad << QStringLiteral("Too many arguments (75)");
        QTest::newRow("dc: unknown caller") << dc << QVariantMap{{level, 1}} << -1 << int(CallerUnknown) << QStringLiteral("could not learn who is calling");

        // docs/helper-security.md rule 6: a caller whose uid could not be
        // learnt is refused by every action.
        // Every action refuses both, before it looks at its arguments.
        const QVariantMap validArgs[] = {{{level, 1}}, {{all, true}}, {{all, true}}, {{size, 16 << 20}}, {}, {{count, 1}, {path0, goodPath}}};
        const QString actionNames[] = {dc, off, on, create, remove, res};
        for (int i = 0; i < 6; ++i) {
            for (const int unknownUid : {-1}) {
                QTest::addRow("caller unknown: %s", qPrintable(actionNames[i]))
                    << actionNames[i] << validArgs[i] << unknownUid << int(CallerUnknown) << QStringLiteral("could not learn who is calling");
            }
        }

        // swapoff
        QTest::newRow("off: nothing") << off << QVariantMap{} << 4201 << bad << QStringLiteral("Give either 'area'");
        QTest::newRow("off: area and all") << off << QVariantMap{{area, QStringLiteral("/x")}, {all, true}} << 4201 << bad << QStringLiteral("not both");
        QTest::newRow("off: area int") << off << QVariantMap{{area, 42}} << 4201 << bad << QStringLiteral("must be a path (a string), not int");
        QTest::newRow("off: area empty") << off << QVariantMap{{area, QString()}} << 4201 << bad << QStringLiteral("absolute path");
        QTest::newRow("off: area relative") << off << QVariantMap{{area, QStringLiteral("swapfile")}} << 4201 << bad << QStringLiteral("absolute path");
        QTest::newRow("off: area ..") << off << QVariantMap{{area, QStringLiteral("/dev/../etc/shadow")}} << 4201 << bad << QStringLiteral("'..' component");
        QTest::newRow("off: area /./") << off << QVariantMap{{area, QStringLiteral("/tmp/./x")}} << 4201 << bad << QStringLiteral("not a plain path");
        QTest::newRow("off: area huge") << off << QVariantMap{{area, QString(QLatin1Char('/') + QString(100000, QLatin1Char('a')))}} << 4201 << bad
                                        << QStringLiteral("too long");
        QTest::newRow("off: area NUL") << off << QVariantMap{{area, QString(QStringLiteral("/dev/sda") + QChar(0) + QStringLiteral("x"))}} << 4201 << bad
                                       << QStringLiteral("NUL");
        // docs/helper-security.md rule 4: one sentence, whether the path exists or not.
        const QString notActive = QStringLiteral("is not an active swap area the helper may turn off: it takes only a name exactly as /proc/swaps lists it.");
        const QString notOurs = QStringLiteral("was not turned off by Cachescope: the helper turns on only the areas it turned off itself");
        QTest::newRow("off: area missing") << off << QVariantMap{{area, QStringLiteral("/nonexistent/swap")}} << 4201 << no << notActive;
        QTest::newRow("off: not active") << off << QVariantMap{{area, QStringLiteral("/etc/passwd")}} << 4201 << no << notActive;
        QTest::newRow("off: char device") << off << QVariantMap{{area, QStringLiteral("/dev/null")}} << 4201 << no << notActive;
        QTest::newRow("off: inside a private folder") << off << QVariantMap{{area, QStringLiteral("/root/.ssh/id_ed25519")}} << 4201 << no << notActive;
        QTest::newRow("off: all 'true'") << off << QVariantMap{{all, QStringLiteral("true")}} << 4201 << bad << QStringLiteral("must be the boolean true");
        QTest::newRow("off: all false") << off << QVariantMap{{all, false}} << 4201 << bad << QStringLiteral("must be true");
        QTest::newRow("off: all 1") << off << QVariantMap{{all, 1}} << 4201 << bad << QStringLiteral("boolean");
        QTest::newRow("off: priority key") << off << QVariantMap{{area, QStringLiteral("/x")}, {QStringLiteral("priority"), 5}} << 4201 << bad
                                           << QStringLiteral("Unknown argument 'priority'");
        if (!m_blockLink.empty()) {
            QTest::newRow("off: symlink to block device") << off << QVariantMap{{area, QString::fromStdString(m_blockLink)}} << 4201 << no << notActive;
            QTest::newRow("on: symlink to block device") << on << QVariantMap{{area, QString::fromStdString(m_blockLink)}} << 4201 << no << notOurs;
            QTest::newRow("off: inactive block device") << off << QVariantMap{{area, QString::fromStdString(m_blockDevice)}} << 4201 << no << notActive;
            QTest::newRow("on: block device never turned off") << on << QVariantMap{{area, QString::fromStdString(m_blockDevice)}} << 4201 << no << notOurs;
        }

        // swapon
        QTest::newRow("on: nothing") << on << QVariantMap{} << 4201 << bad << QStringLiteral("Give either");
        QTest::newRow("on: all, nothing recorded") << on << QVariantMap{{all, true}} << 4201 << int(AlreadyDone) << QStringLiteral("has not turned off any");
        QTest::newRow("on: ..") << on << QVariantMap{{area, QStringLiteral("/var/../swap")}} << 4201 << bad << QStringLiteral("'..'");
        QTest::newRow("on: /proc/self/fd/0") << on << QVariantMap{{area, QStringLiteral("/proc/self/fd/0")}} << 4201 << no << notOurs;
        QTest::newRow("on: missing path") << on << QVariantMap{{area, QStringLiteral("/nonexistent/swap")}} << 4201 << no << notOurs;
        QTest::newRow("on: inside a private folder") << on << QVariantMap{{area, QStringLiteral("/root/.ssh/id_ed25519")}} << 4201 << no << notOurs;
        QTest::newRow("on: all 'true'") << on << QVariantMap{{all, QStringLiteral("true")}} << 4201 << bad << QStringLiteral("must be the boolean true");
        QTest::newRow("on: caller priority") << on << QVariantMap{{area, QStringLiteral("/x")}, {QStringLiteral("flags"), 0x8000}} << 4201 << bad
                                             << QStringLiteral("Unknown argument 'flags'");
        QTest::newRow("on: regular file") << on << QVariantMap{{area, QString::fromStdString(m_regular)}} << 4201 << no << notOurs;
        if (!m_userSwap.empty()) {
            QTest::newRow("on: user-owned file with swap signature") << on << QVariantMap{{area, QString::fromStdString(m_userSwap)}} << 4201 << no << notOurs;
            QTest::newRow("on: root swap file never turned off") << on << QVariantMap{{area, QString::fromStdString(m_rootSwap)}} << 4201 << no << notOurs;
        }

        // experiment swap file
        QTest::newRow("create: no size") << create << QVariantMap{} << 4201 << bad << QStringLiteral("Missing argument 'sizeBytes'");
        QTest::newRow("create: size 0") << create << QVariantMap{{size, 0}} << 4201 << bad << QStringLiteral("out of range");
        QTest::newRow("create: size -1") << create << QVariantMap{{size, -1}} << 4201 << bad << QStringLiteral("out of range");
        QTest::newRow("create: size '64M'") << create << QVariantMap{{size, QStringLiteral("64M")}} << 4201 << bad << QStringLiteral("must be an integer");
        QTest::newRow("create: size 1 TiB") << create << QVariantMap{{size, qlonglong(1) << 40}} << 4201 << bad << QStringLiteral("out of range");
        QTest::newRow("create: size 2^63") << create << QVariantMap{{size, qulonglong(1) << 63}} << 4201 << bad << QStringLiteral("out of range");
        QTest::newRow("create: size 2^64-1") << create << QVariantMap{{size, std::numeric_limits<qulonglong>::max()}} << 4201 << bad
                                             << QStringLiteral("out of range");
        QTest::newRow("create: size 16 MiB as double")
            << create << QVariantMap{{size, double(16 << 20)}} << 4201 << bad << QStringLiteral("must be an integer, not double");
        QTest::newRow("create: size not page-aligned")
            << create << QVariantMap{{size, qlonglong(16 << 20) + 1}} << 4201 << bad << QStringLiteral("must be a multiple of the page size");
        QTest::newRow("create: size half a page short")
            << create << QVariantMap{{size, qlonglong(20 << 20) - 512}} << 4201 << bad << QStringLiteral("must be a multiple of the page size");
        QTest::newRow("create: caller path") << create << QVariantMap{{size, 16 << 20}, {QStringLiteral("path"), QStringLiteral("/etc/shadow")}} << 4201 << bad
                                             << QStringLiteral("Unknown argument 'path'");
        QTest::newRow("remove: caller path") << remove << QVariantMap{{QStringLiteral("path"), QStringLiteral("/etc/passwd")}} << 4201 << bad
                                             << QStringLiteral("Unknown argument 'path'");
        QTest::newRow("remove: nothing there") << remove << QVariantMap{} << 4201 << int(AlreadyDone) << QStringLiteral("no experiment swap file");

        // residency
        QTest::newRow("res: nothing") << res << QVariantMap{} << 4201 << bad << QStringLiteral("Missing argument 'count'");
        QTest::newRow("res: count 0") << res << QVariantMap{{count, 0}} << 4201 << bad << QStringLiteral("out of range");
        QTest::newRow("res: count 17") << res << QVariantMap{{count, 17}} << 4201 << bad << QStringLiteral("out of range (1 to 16)");
        QTest::newRow("res: count '1'") << res << QVariantMap{{count, QStringLiteral("1")}} << 4201 << bad << QStringLiteral("must be an integer");
        QTest::newRow("res: path0 missing") << res << QVariantMap{{count, 1}} << 4201 << bad << QStringLiteral("Missing argument 'path0'");
        QTest::newRow("res: the old seal key") << res << QVariantMap{{count, 1}, {path0, goodPath}, {oldSealKey, QByteArray(32, 'k')}} << 4201 << bad
                                               << QStringLiteral("Unknown argument 'key'");
        QTest::newRow("res: count as bool") << res << QVariantMap{{count, true}, {path0, goodPath}} << 4201 << bad
                                            << QStringLiteral("must be an integer, not bool");
        QTest::newRow("res: path0 as a list") << res << QVariantMap{{count, 1}, {path0, QVariantList{goodPath}}} << 4201 << bad
                                              << QStringLiteral("must be the bytes of a path (QByteArray)");
        QTest::newRow("res: path0 int") << res << QVariantMap{{count, 1}, {path0, 0}} << 4201 << bad
                                        << QStringLiteral("must be the bytes of a path (QByteArray), not int");
        QTest::newRow("res: path0 QString") << res << QVariantMap{{count, 1}, {path0, QStringLiteral("/etc/shadow")}} << 4201 << bad
                                            << QStringLiteral("not QString");
        QTest::newRow("res: path0 relative") << res << QVariantMap{{count, 1}, {path0, QByteArray("etc/shadow")}} << 4201 << bad
                                             << QStringLiteral("must be an absolute path");
        QTest::newRow("res: path0 NUL") << res << QVariantMap{{count, 1}, {path0, QByteArray("/etc\0/shadow", 12)}} << 4201 << bad
                                        << QStringLiteral("without NUL");
        QTest::newRow("res: path0 empty") << res << QVariantMap{{count, 1}, {path0, QByteArray()}} << 4201 << bad << QStringLiteral("must be an absolute path");
        QTest::newRow("res: extra path1") << res << QVariantMap{{count, 1}, {path0, goodPath}, {QStringLiteral("path1"), goodPath}} << 4201 << bad
                                          << QStringLiteral("Unknown argument 'path1'");
        QTest::newRow("res: same path twice") << res << QVariantMap{{count, 2}, {path0, goodPath}, {QStringLiteral("path1"), goodPath}} << 4201 << bad
                                              << QStringLiteral("names a path given before");
        QTest::newRow("res: fd0 key") << res << QVariantMap{{count, 1}, {path0, goodPath}, {QStringLiteral("fd0"), 3}} << 4201 << bad
                                      << QStringLiteral("Unknown argument 'fd0'");
        QTest::newRow("res: buckets 0") << res << QVariantMap{{count, 1}, {path0, goodPath}, {QStringLiteral("buckets"), 0}} << 4201 << bad
                                        << QStringLiteral("out of range");
        QTest::newRow("res: buckets 5000") << res << QVariantMap{{count, 1}, {path0, goodPath}, {QStringLiteral("buckets"), 5000}} << 4201 << bad
                                           << QStringLiteral("out of range (1 to 4096)");
        QTest::newRow("res: count 2.0") << res << QVariantMap{{count, 2.0}} << 4201 << bad << QStringLiteral("must be an integer, not double");
        QTest::newRow("res: buckets '8'") << res << QVariantMap{{count, 1}, {path0, goodPath}, {QStringLiteral("buckets"), QStringLiteral("8")}} << 4201 << bad
                                          << QStringLiteral("must be an integer, not QString");
        QTest::newRow("res: buckets 8.0") << res << QVariantMap{{count, 1}, {path0, goodPath}, {QStringLiteral("buckets"), 8.0}} << 4201 << bad
                                          << QStringLiteral("must be an integer, not double");
        QTest::newRow("res: buckets -8") << res << QVariantMap{{count, 1}, {path0, goodPath}, {QStringLiteral("buckets"), -8}} << 4201 << bad
                                         << QStringLiteral("out of range");
        QTest::newRow("res: path key") << res << QVariantMap{{count, 1}, {path0, goodPath}, {QStringLiteral("path"), QStringLiteral("/etc/shadow")}} << 4201
                                       << bad << QStringLiteral("Unknown argument 'path'");
    }
    void badInputs()
    {
        QFETCH(QString, action);
        QFETCH(QVariantMap, args);
        QFETCH(int, uid);
        QFETCH(int, code);
        QFETCH(QString, message);
        const ActionReply reply = call(action, args, uid);
        QVERIFY(reply.failed());
        QCOMPARE(reply.type(), ActionReply::HelperErrorType);
        QVERIFY2(reply.errorDescription().contains(message), qPrintable(reply.errorDescription()));
        QCOMPARE(reply.error(), code);
        // Nothing changed: no sync, no drop, no swap call, no record, no file.
        QCOMPARE(m_system.calls, QStringList());
        QVERIFY(!std::filesystem::exists(m_context.stateFile));
        QVERIFY(!std::filesystem::exists(m_context.experimentDir + "/experiment.swap"));
        QCOMPARE(m_log.size(), 1);
        QVERIFY2(auditFormat.match(m_log.first()).hasMatch(), qPrintable(m_log.first()));
        QVERIFY(m_log.first().contains(QLatin1String("result=refused")));
        // docs/helper-security.md rule 11: no raw caller string in the audit line.
        QVERIFY(!m_log.first().contains(QLatin1String("etc")));
        QVERIFY(!m_log.first().contains(QLatin1String("reboot")));
    }

    void dropCachesCallsSyncFirst()
    {
        const ActionReply reply = call(QStringLiteral("dropcaches"), {{QStringLiteral("level"), 2}});
        QVERIFY2(reply.succeeded(), qPrintable(reply.errorDescription()));
        QCOMPARE(m_system.calls, (QStringList{QStringLiteral("sync"), QStringLiteral("dropCaches 2")}));
        QVERIFY(reply.data().value(QStringLiteral("before")).toMap().value(QStringLiteral("MemTotal")).toULongLong() > 0);
        QVERIFY(reply.data().value(QStringLiteral("after")).toMap().contains(QStringLiteral("Cached")));
        QCOMPARE(m_log, QStringList{QStringLiteral("cachescope-helper: action=dropcaches uid=4201 target=level=2 result=ok code=0")});
    }

    // docs/helper-security.md rule 14: the cap on abandoned children holds
    // for operations side by side. Each copy of the context (the service
    // gives every operation one) shares the children and the places held:
    // with 60 children abandoned and one operation holding 4 places for
    // its readers, another can start none, and its residency read is
    // refused with nothing started. Each operation used to count only its
    // own copy of the list, so together they could pass the cap.
    void abandonedChildrenCapHoldsSideBySide()
    {
        HelperContext first = m_context;
        HelperContext second = m_context;
        std::vector<pid_t> sleepers;
        const auto cleanup = qScopeGuard([&sleepers, this] {
            for (const pid_t pid : sleepers) {
                kill(pid, SIGKILL);
            }
            // Reaped by the registry itself (it forgets the ended ones).
            QTRY_VERIFY(m_context.abandonedChildren->pids().empty());
        });
        {
            HeldPlaces places(m_context.abandonedChildren, 60);
            QVERIFY(places.held());
            for (int i = 0; i < 60; ++i) {
                const pid_t pid = fork();
                if (pid == 0) {
                    pause();
                    _exit(0);
                }
                QVERIFY(pid > 0);
                sleepers.push_back(pid);
                places.abandon(pid);
            }
        }
        QCOMPARE(m_context.abandonedChildren->pids().size(), size_t(60));
        std::optional<HeldPlaces> readers;
        readers.emplace(first.abandonedChildren, 4);
        QVERIFY(readers->held());
        QVERIFY(!HeldPlaces(second.abandonedChildren, 1).held());
        m_log.clear();
        const ActionReply refused =
            residencyAction({{QStringLiteral("count"), 1}, {QStringLiteral("buckets"), 8}, {pathKey(0), QByteArray::fromStdString(m_regular)}},
                            Caller{4201},
                            second);
        QVERIFY(refused.failed());
        QVERIFY2(refused.errorDescription().contains(QLatin1String("Too many earlier requests")), qPrintable(refused.errorDescription()));
        QCOMPARE(m_context.abandonedChildren->pids().size(), size_t(60));
        // Given back, the places are there again for the other.
        readers.reset();
        QVERIFY(HeldPlaces(second.abandonedChildren, 4).held());
        QVERIFY(!HeldPlaces(second.abandonedChildren, 5).held());
    }

    // docs/helper-security.md rule 14: sync() runs in a child with a
    // deadline. Past it (here at once) the child is killed or abandoned and
    // the caches are dropped anyway; nothing waits for the writeback.
    void syncEndsAtItsDeadline()
    {
        // The real sync, a recorded drop.
        class RealSyncOnly : public SystemCalls
        {
        public:
            int dropCaches(int level) override
            {
                dropped = level;
                return 0;
            }
            int dropped = 0;
        } system;
        HelperContext context = m_context;
        context.system = &system;
        context.syncDeadlineMs = 0;
        // Dirty pages for sync() to write.
        const std::string dirty = m_dir + "/sync-dirty";
        {
            std::ofstream out(dirty);
            out << std::string(8 << 20, 'd');
        }
        QElapsedTimer timer;
        timer.start();
        const ActionReply reply = dropCachesAction({{QStringLiteral("level"), 1}}, Caller{4201}, context);
        QVERIFY2(reply.succeeded(), qPrintable(reply.errorDescription()));
        QCOMPARE(system.dropped, 1);
        QVERIFY2(timer.elapsed() < 1000, qPrintable(QString::number(timer.elapsed())));
        // The child either ended at its kill or is kept to be reaped later:
        // never a zombie nobody knows of.
        for (const int pid : context.abandonedChildren->pids()) {
            QVERIFY(pid > 0);
        }
        context.syncDeadlineMs = 60 * 1000;
        QVERIFY(system.syncAll(context)); // without the deadline it ends
        unlink(dirty.c_str());
    }

    ActionReply residencyOf(const QList<QByteArray> &paths, int buckets = 8)
    {
        QVariantMap args{{QStringLiteral("count"), int(paths.size())}, {QStringLiteral("buckets"), buckets}};
        for (int i = 0; i < paths.size(); ++i) {
            args.insert(pathKey(i), paths[i]);
        }
        return call(QStringLiteral("residency"), args);
    }

    // Each path that is no regular file in the page cache gets its own error
    // inside the reply; the good path next to it is answered.
    void refusedPaths_data()
    {
        QTest::addColumn<QByteArray>("path");
        QTest::addColumn<QString>("message");
        const std::string fifo = m_dir + "/fifo";
        QVERIFY(mkfifo(fifo.c_str(), 0600) == 0);
        QTest::newRow("FIFO") << QByteArray::fromStdString(fifo) << QStringLiteral("is a FIFO, not a regular file");
        QTest::newRow("directory") << QByteArray::fromStdString(m_dir) << QStringLiteral("is a directory, not a regular file");
        QTest::newRow("character device") << QByteArray("/dev/null") << QStringLiteral("is a character device");
        QTest::newRow("procfs") << QByteArray("/proc/self/status") << QStringLiteral("is on procfs");
        QTest::newRow("sysfs") << QByteArray("/sys/kernel/mm/transparent_hugepage/enabled") << QStringLiteral("is on sysfs");
        QTest::newRow("missing") << QByteArray::fromStdString(m_dir + "/no-such-file") << QStringLiteral("No such file");
    }
    void refusedPaths()
    {
        QFETCH(QByteArray, path);
        QFETCH(QString, message);
        // The bad one second: every path is read, not only the first.
        const ActionReply reply = residencyOf({QByteArray::fromStdString(m_regular), path});
        QVERIFY2(reply.succeeded(), qPrintable(reply.errorDescription()));
        const QList<FileResidencyAnswer> files = HelperTest::residencyAnswers(reply);
        QCOMPARE(files.size(), 2);
        QVERIFY2(files[0].error.isEmpty(), qPrintable(files[0].error));
        QCOMPARE(files[0].sizeBytes, quint64(1 << 20));
        QVERIFY2(files[1].error.contains(message), qPrintable(files[1].error));
        // The answers alone; the path itself is not echoed back.
        QCOMPARE(reply.data().keys(), (QStringList{QString(replyFiles)}));
        QVERIFY(!reply.data().value(QString(replyFiles)).toByteArray().contains(path));
    }

    // docs/helper-security.md rule 14: without cachestat (forced here), a
    // huge sparse file gets an error at once instead of hours of mincore.
    void mincorePathIsBounded()
    {
        const std::string sparse = m_dir + "/sparse";
        {
            const UniqueFd fd(open(sparse.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644));
            QVERIFY(fd.isValid());
            QCOMPARE(ftruncate(fd.get(), off_t(1) << 40), 0); // 1 TiB + nothing on disk
        }
        m_context.forceMincore = true;
        m_context.mincorePageBudget = 1 << 20;
        const auto restore = qScopeGuard([this] {
            m_context.forceMincore = false;
            m_context.mincorePageBudget = maxMincorePages;
        });
        QElapsedTimer timer;
        timer.start();
        const ActionReply reply = residencyOf({QByteArray::fromStdString(sparse), QByteArray::fromStdString(m_regular)});
        QVERIFY2(reply.succeeded(), qPrintable(reply.errorDescription()));
        QVERIFY(timer.elapsed() < 5000);
        const QList<FileResidencyAnswer> files = HelperTest::residencyAnswers(reply);
        QCOMPARE(files.size(), 2);
        QVERIFY2(files[0].error.contains(QLatin1String("without cachestat(2) the helper reads at most 1048576 pages")), qPrintable(files[0].error));
        QVERIFY2(files[1].error.isEmpty(), qPrintable(files[1].error));
        QCOMPARE(files[1].method, QStringLiteral("mincore"));
        std::filesystem::remove(sparse);
    }

    // A reader that does not answer is abandoned at the deadline; the action
    // ends in time and says so for that path only.
    void silentReaderAbandoned()
    {
        // A path whose lookup blocks needs a FUSE mount (helper-bus). Here
        // the deadline itself: 0 ms leaves every reader unanswered.
        m_context.residencyDeadlineMs = 0;
        const auto restore = qScopeGuard([this] {
            m_context.residencyDeadlineMs = residencyDeadlineSeconds * 1000;
        });
        const ActionReply reply = residencyOf({QByteArray::fromStdString(m_regular)});
        QVERIFY2(reply.succeeded(), qPrintable(reply.errorDescription()));
        const QList<FileResidencyAnswer> files = HelperTest::residencyAnswers(reply);
        QCOMPARE(files.size(), 1);
        QVERIFY2(files[0].error.contains(QLatin1String("did not answer within 0 s")), qPrintable(files[0].error));
    }

    // docs/helper-security.md rule 14: reclaim's write to the kernel runs in a
    // child the helper stops at its deadline or at the client's cancel. Here
    // a write the kernel holds for as long as nobody reads: into a full pipe.
    void boundedWriteEndsAtTheDeadlineOrCancel()
    {
        int fds[2];
        QVERIFY(pipe2(fds, O_CLOEXEC | O_NONBLOCK) == 0);
        const UniqueFd readEnd(fds[0]);
        const UniqueFd writeEnd(fds[1]);
        const std::string block(65536, 'x');
        while (write(writeEnd.get(), block.data(), block.size()) > 0) { }
        QCOMPARE(errno, EAGAIN);
        // Blocking again (the flag belongs to the open pipe, which the child shares).
        QVERIFY(fcntl(writeEnd.get(), F_SETFL, 0) == 0);
        const size_t abandonedBefore = m_context.abandonedChildren->pids().size();

        const auto started = std::chrono::steady_clock::now();
        const BoundedWrite stalled = writeInChild(m_context, writeEnd.get(), "more", 300);
        const auto waited = std::chrono::steady_clock::now() - started;
        QCOMPARE(int(stalled.outcome), int(BoundedWrite::Outcome::DeadlinePassed));
        QVERIFY(waited >= std::chrono::milliseconds(300));
        // Not a timing of speed: that it ends, the deadline and the half
        // second it waits for the killed child, with room for a busy machine.
        QVERIFY2(waited < std::chrono::seconds(10), qPrintable(QString::number(std::chrono::duration<double>(waited).count())));
        // Killed in the pipe's wait, it ends: reaped, not abandoned, and
        // nothing of it reached the pipe.
        QVERIFY(m_context.abandonedChildren->pids().size() <= abandonedBefore); // none added (earlier ones may have ended)

        // The client's cancel, looked at while the write waits; meanwhile
        // the child holds only /dev/null, the report pipe and the pipe it
        // writes to, nothing else of the helper's (the D-Bus connection).
        QStringList childFds;
        m_context.stopped = [&childFds, pipeIno = inodeOf(writeEnd.get())] {
            std::istringstream children(readProcFile("/proc/self/task/" + std::to_string(gettid()) + "/children").value_or(""));
            for (pid_t child = 0; children >> child;) {
                const QStringList fds = descriptorsOf(child, pipeIno);
                // Once it has set itself up: five, the first three /dev/null
                // (earlier children here are zombies, with none).
                if (fds.size() == 5 && fds.mid(0, 3) == QStringList({QStringLiteral("0:null"), QStringLiteral("1:null"), QStringLiteral("2:null")})) {
                    childFds = fds;
                    return true;
                }
            }
            return false;
        };
        const auto restore = qScopeGuard([this] {
            m_context.stopped = {};
        });
        const BoundedWrite cancelled = writeInChild(m_context, writeEnd.get(), "more", 60'000);
        QCOMPARE(int(cancelled.outcome), int(BoundedWrite::Outcome::Cancelled));
        QCOMPARE(childFds.join(QLatin1Char(' ')), QStringLiteral("0:null 1:null 2:null 3:pipe 4:target"));
        QVERIFY(m_context.abandonedChildren->pids().size() <= abandonedBefore); // none added (earlier ones may have ended)
        m_context.stopped = {};

        // Room in the pipe: written, every byte, once.
        QVERIFY(fcntl(readEnd.get(), F_SETFL, O_NONBLOCK) == 0);
        std::string drained(1 << 20, '\0');
        size_t total = 0;
        for (ssize_t n; (n = read(readEnd.get(), drained.data(), drained.size())) > 0;) {
            total += size_t(n);
        }
        QVERIFY(total >= block.size());
        const BoundedWrite written = writeInChild(m_context, writeEnd.get(), "abc", 60'000);
        QCOMPARE(int(written.outcome), int(BoundedWrite::Outcome::Written));
        char back[8] = {};
        QCOMPARE(read(readEnd.get(), back, sizeof back), ssize_t(3));
        QCOMPARE(std::string(back, 3), std::string("abc"));
        // The kernel's refusal comes back as its errno: the read end cannot be written.
        const BoundedWrite refused = writeInChild(m_context, readEnd.get(), "abc", 60'000);
        QCOMPARE(int(refused.outcome), int(BoundedWrite::Outcome::Failed));
        QCOMPARE(refused.error, EBADF);
    }

    // Residency by path, computed by the helper code, equals root's own view
    // through the core library and fincore.
    void residencyMatchesRootView()
    {
        if (!TestUtil::isRoot()) {
            QSKIP("needs root: root's view of residency");
        }
        const std::string path = m_dir + "/partly-cached";
        TestUtil::makeColdFile(path, 8 << 20);
        // Held mapped through the call and fincore: the kernel here reclaims
        // unmapped idle pages at any moment (see HeldPages).
        const TestUtil::HeldPages firstMiB(path, 0, 1 << 20);
        const TestUtil::HeldPages halfMiBAtFive(path, 5 << 20, 512 << 10);
        const ActionReply reply = residencyOf({QByteArray::fromStdString(path)});
        QVERIFY2(reply.succeeded(), qPrintable(reply.errorDescription()));
        const Histogram rootView = histogramOfPath(path, 8);
        QVERIFY(rootView.known());
        const QList<FileResidencyAnswer> files = HelperTest::residencyAnswers(reply);
        QCOMPARE(files.size(), 1);
        QVERIFY2(files[0].error.isEmpty(), qPrintable(files[0].error));
        const QList<quint64> histogram = files[0].histogram;
        QCOMPARE(histogram.size(), 8);
        uint64_t total = 0;
        for (int b = 0; b < 8; ++b) {
            QCOMPARE(histogram[b], rootView.resident[size_t(b)]);
            total += rootView.resident[size_t(b)];
        }
        const uint64_t pagesPerMiB = (1 << 20) / pageSize();
        QCOMPARE(files[0].resident, total);
        QCOMPARE(total, pagesPerMiB + pagesPerMiB / 2);
        QCOMPARE(histogram[0], pagesPerMiB);
        QCOMPARE(histogram[5], pagesPerMiB / 2);
        if (const std::optional<uint64_t> fincore = TestUtil::fincoreResidentPages(path)) {
            QCOMPARE(*fincore, total);
        }
        QCOMPARE(files[0].sizeBytes, quint64(8 << 20));
        QCOMPARE(m_log.size(), 1);
        QVERIFY(m_log.first().endsWith(QLatin1String("action=residency uid=4201 target=paths=1 result=ok code=0")));
    }

    // Swapoff records the area with its priority; swapon gives that priority
    // back and clears the record. On a fake /proc, with recorded syscalls.
    void swapStateRoundTrip()
    {
        if (m_rootSwap.empty()) {
            QSKIP("needs root and mkswap");
        }
        struct stat st;
        QVERIFY(stat(m_rootSwap.c_str(), &st) == 0);
        m_system.swapsFile = m_fakeProc + "/swaps";
        m_system.activeLine = m_rootSwap + " file 16380 1024 7";
        m_system.activeInode = st.st_ino;
        m_system.writeSwaps(true);

        ActionReply reply = call(QStringLiteral("swapoff"), {{QStringLiteral("area"), QString::fromStdString(m_rootSwap)}});
        QVERIFY2(reply.succeeded(), qPrintable(reply.errorDescription()));
        QCOMPARE(m_system.calls, QStringList{QStringLiteral("swapOff")});
        QCOMPARE(reply.data().value(QStringLiteral("turnedOff")).toStringList(), QStringList{QString::fromStdString(m_rootSwap)});
        QCOMPARE(reply.data().value(QStringLiteral("priorities")).toList(), QVariantList{7});

        // The state file: root-owned, readable, one record with priority 7.
        struct stat stateSt;
        QVERIFY(stat(m_context.stateFile.c_str(), &stateSt) == 0);
        QCOMPARE(stateSt.st_uid, 0u);
        QCOMPARE(stateSt.st_mode & 0777, 0644u);
        std::ifstream in(m_context.stateFile);
        const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
        QString error;
        const auto records = Helper::parseSwapState(text, &error);
        QVERIFY2(records, qPrintable(error));
        QCOMPARE(records->size(), size_t(1));
        QCOMPARE(records->front().priority, 7);
        QCOMPARE(records->front().identity.inode, uint64_t(st.st_ino));
        QCOMPARE(QString::fromStdString(records->front().path), QString::fromStdString(m_rootSwap));

        // Turning off again: it is no longer active.
        m_system.calls.clear();
        reply = call(QStringLiteral("swapoff"), {{QStringLiteral("area"), QString::fromStdString(m_rootSwap)}});
        QCOMPARE(reply.error(), int(NotPermitted));
        QVERIFY(m_system.calls.isEmpty());

        // On again with all: priority 7 with SWAP_FLAG_PREFER, record gone.
        reply = call(QStringLiteral("swapon"), {{QStringLiteral("all"), true}});
        QVERIFY2(reply.succeeded(), qPrintable(reply.errorDescription()));
        QCOMPARE(m_system.lastSwapOnFlags, SWAP_FLAG_PREFER | 7);
        QCOMPARE(reply.data().value(QStringLiteral("priorities")).toList(), QVariantList{7});
        QVERIFY(!std::filesystem::exists(m_context.stateFile));
        // And a second time there is nothing left to turn on.
        reply = call(QStringLiteral("swapon"), {{QStringLiteral("area"), QString::fromStdString(m_rootSwap)}});
        QCOMPARE(reply.error(), int(NotPermitted));
        m_system.writeSwaps(false);
        m_system.swapsFile.clear();
    }

    // Refused up front when the swapped-out pages would not fit: nothing called.
    void swapOffRefusedWhenItWouldNotFit()
    {
        if (m_rootSwap.empty()) {
            QSKIP("needs root and mkswap");
        }
        const std::string proc = m_dir + "/tight-proc";
        std::filesystem::create_directories(proc);
        writeFile(proc + "/meminfo", "MemTotal:  4194304 kB\nMemFree:  100000 kB\nMemAvailable:  1048576 kB\nSwapTotal:  16380 kB\nSwapFree:  0 kB\n");
        writeFile(proc + "/swaps", "Filename\tType\tSize\tUsed\tPriority\n" + m_rootSwap + " file 4194304 3145728 -2\n");
        HelperContext tight = m_context;
        tight.procRoot = proc;
        const ActionReply reply = swapOffAction({{QStringLiteral("all"), true}}, Caller{4201}, tight);
        QCOMPARE(reply.error(), int(NotEnoughMemory));
        // 3 GiB used + 204.8 MiB margin - 1 GiB available = 2.2 GiB missing.
        QVERIFY2(reply.errorDescription().contains(QLatin1String("2.2 GiB is missing")), qPrintable(reply.errorDescription()));
        QVERIFY(m_system.calls.isEmpty());
    }

    // The experiment file: fixed place, root, 0600, a swap signature, then removed.
    void experimentSwapFile()
    {
        if (!TestUtil::isRoot()) {
            QSKIP("needs root: the file is created owned by root");
        }
        ActionReply reply = call(QStringLiteral("swapfilecreate"), {{QStringLiteral("sizeBytes"), qlonglong(16 << 20)}});
        QVERIFY2(reply.succeeded(), qPrintable(reply.errorDescription()));
        const std::string path = m_context.experimentDir + "/experiment.swap";
        QCOMPARE(reply.data().value(QStringLiteral("path")).toString(), QString::fromStdString(path));
        struct stat st;
        QVERIFY(lstat(path.c_str(), &st) == 0);
        QVERIFY(S_ISREG(st.st_mode));
        QCOMPARE(st.st_mode & 07777, 0600u);
        QCOMPARE(st.st_uid, 0u);
        QCOMPARE(st.st_size, off_t(16 << 20));
        std::ifstream in(path, std::ios::binary);
        std::vector<char> page(pageSize());
        in.read(page.data(), std::streamsize(page.size()));
        QCOMPARE(QByteArray(page.data() + page.size() - 10, 10), QByteArray("SWAPSPACE2"));
        QCOMPARE(m_system.calls, QStringList{QStringLiteral("swapOn 0")});

        reply = call(QStringLiteral("swapfilecreate"), {{QStringLiteral("sizeBytes"), qlonglong(16 << 20)}});
        QCOMPARE(reply.error(), int(AlreadyDone));
        QVERIFY(reply.errorDescription().contains(QLatin1String("already exists")));

        reply = call(QStringLiteral("swapfileremove"), {});
        QVERIFY2(reply.succeeded(), qPrintable(reply.errorDescription()));
        QVERIFY(!std::filesystem::exists(path));
    }

    void experimentRefusesTmpfs()
    {
        if (!TestUtil::isRoot()) {
            QSKIP("needs root");
        }
        // /dev/shm (or /run) is tmpfs in the dev root.
        HelperContext onTmpfs = m_context;
        onTmpfs.experimentDir = "/run/cachescope-helperactionstest";
        const ActionReply reply = swapFileCreateAction({{QStringLiteral("sizeBytes"), qlonglong(16 << 20)}}, Caller{4201}, onTmpfs);
        rmdir(onTmpfs.experimentDir.c_str());
        QCOMPARE(reply.error(), int(Unsupported));
        QVERIFY2(reply.errorDescription().contains(QLatin1String("tmpfs")), qPrintable(reply.errorDescription()));
        QVERIFY(m_system.calls.isEmpty());
    }

    // 10,000 random argument maps against every action: no crash, every
    // answer is a success or a refusal with a sentence, every audit line is
    // in the fixed format.
    void randomArguments()
    {
        QRandomGenerator random(20260404);
        const QStringList keys{QStringLiteral("level"),
                               QStringLiteral("area"),
                               QStringLiteral("all"),
                               QStringLiteral("sizeBytes"),
                               QStringLiteral("count"),
                               QStringLiteral("buckets"),
                               QStringLiteral("key"),
                               QStringLiteral("path0"),
                               QStringLiteral("path1"),
                               QStringLiteral("fd0"),
                               QStringLiteral("path"),
                               QString(),
                               QStringLiteral("level\n"),
                               QString(5000, QLatin1Char('k'))};
        const QStringList strings{QStringLiteral("3"),
                                  QStringLiteral("3; reboot"),
                                  QStringLiteral("/dev/sda"),
                                  QStringLiteral("/etc/../etc/shadow"),
                                  QString::fromStdString(m_regular),
                                  QString::fromStdString(m_rootSwap.empty() ? m_regular : m_rootSwap),
                                  QString::fromStdString(m_userSwap.empty() ? m_regular : m_userSwap),
                                  QString::fromStdString(m_blockLink.empty() ? m_regular : m_blockLink),
                                  QStringLiteral("/dev/null"),
                                  QStringLiteral("/proc/self/fd/0"),
                                  QString(),
                                  QLatin1Char('/') + QString(5000, QLatin1Char('z'))};
        const QStringList actions{QStringLiteral("dropcaches"),
                                  QStringLiteral("swapoff"),
                                  QStringLiteral("swapon"),
                                  QStringLiteral("swapfilecreate"),
                                  QStringLiteral("swapfileremove"),
                                  QStringLiteral("residency")};

        auto randomValue = [&]() -> QVariant {
            switch (random.bounded(13)) {
            case 0:
                return int(random.bounded(-3, 6));
            case 1:
                return qlonglong(random.generate64());
            case 2:
                return qulonglong(random.generate64());
            case 3:
                return random.bounded(2) == 1;
            case 4:
                return random.generateDouble() * 10;
            case 5:
            case 6:
                return strings[random.bounded(strings.size())];
            case 7:
                return QByteArray(int(random.bounded(64)), char(random.bounded(256)));
            case 8:
                return QVariantList{random.bounded(4), QStringLiteral("x")};
            case 9:
                return QVariantMap{{QStringLiteral("level"), 3}};
            case 10:
                return QVariant();
            case 11:
                return random.bounded(2) == 0 ? QVariant(QByteArray(32, 'k')) : QVariant(QByteArray::fromStdString(m_regular));
            default:
                return qlonglong(16 << 20) + random.bounded(4);
            }
        };

        int succeeded = 0;
        for (int i = 0; i < 10000; ++i) {
            const int actionIndex = random.bounded(actions.size());
            const QString action = actions[actionIndex];
            QVariantMap args;
            if (random.bounded(2) == 0) {
                // Half the maps start valid and get one mutation, so that the
                // deeper paths run too, not only the first key check.
                const QVariantMap templates[] = {
                    {{QStringLiteral("level"), int(random.bounded(1, 4))}},
                    {{QStringLiteral("area"), strings[random.bounded(strings.size())]}},
                    {{QStringLiteral("all"), true}},
                    {{QStringLiteral("sizeBytes"), qlonglong(16 << 20)}},
                    {},
                    {{QStringLiteral("count"), 1},
                     {QStringLiteral("buckets"), int(random.bounded(1, 100))},
                     {QStringLiteral("path0"), QByteArray::fromStdString(m_regular)}},
                };
                args = templates[actionIndex];
                switch (random.bounded(4)) {
                case 0:
                    break; // unchanged
                case 1:
                    if (!args.isEmpty()) {
                        args[args.firstKey()] = randomValue();
                    }
                    break;
                case 2:
                    args.insert(keys[random.bounded(keys.size())], randomValue());
                    break;
                default:
                    if (!args.isEmpty()) {
                        args.remove(args.lastKey());
                    }
                    break;
                }
            } else {
                const int keyCount = random.bounded(5);
                for (int k = 0; k < keyCount; ++k) {
                    args.insert(keys[random.bounded(keys.size())], randomValue());
                }
            }
            // One in ten from a caller the service could not learn.
            const int roll = int(random.bounded(10));
            const int uid = roll == 0 ? -1 : 4201;
            m_log.clear();
            const ActionReply reply = call(action, args, uid);
            if (reply.succeeded()) {
                ++succeeded;
            } else {
                QCOMPARE(reply.type(), ActionReply::HelperErrorType);
                QVERIFY2(reply.error() >= InvalidArgument && reply.error() <= CallerUnknown, qPrintable(QString::number(reply.error())));
                QVERIFY2(reply.errorDescription().size() > 10, qPrintable(action));
            }
            QVERIFY(!m_log.isEmpty());
            for (const QString &line : std::as_const(m_log)) {
                QVERIFY2(auditFormat.match(line).hasMatch(), qPrintable(line));
            }
        }
        qInfo("10000 random calls: %d succeeded (with recorded syscalls), the rest refused", succeeded);
        QVERIFY(succeeded > 100); // the valid templates did get through
        // Leave no experiment file behind.
        std::filesystem::remove(m_context.experimentDir + "/experiment.swap");
    }
};

QTEST_GUILESS_MAIN(HelperActionsTest)
#include "helperactionstest.moc"
