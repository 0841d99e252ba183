// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers

#include "top.h"
#include "testutil.h"

#include <QTest>

#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <memory>
#include <mutex>
#include <vector>

using namespace Cachescope;

namespace
{
const uint64_t page = uint64_t(sysconf(_SC_PAGESIZE));

struct Planned {
    const char *name;
    uint64_t pages; // file size in pages
    uint64_t resident; // pages read before ranking
};

// Sizes and resident pages chosen so that no two files tie.
const Planned planned[] = {
    {"a", 64, 10},
    {"b", 64, 30},
    {"c", 40, 20},
    {"d", 8, 5},
    {"cold", 50, 0},
    {"sub/f", 100, 25},
    {"sub/deeper/g", 3, 3},
};
} // namespace

class TopTest : public QObject
{
    Q_OBJECT

private:
    std::string m_dir;
    // The read pages stay mapped until the test ends: the kernel here pages
    // out idle unmapped file pages at any moment (see HeldPages), and one page
    // gone makes a total one short.
    std::vector<std::unique_ptr<TestUtil::HeldPages>> m_held;

private Q_SLOTS:
    void init()
    {
        m_held.clear();
        m_dir = TestUtil::scratchDir("top");
        QCOMPARE(mkdir((m_dir + "/sub").c_str(), 0755), 0);
        QCOMPARE(mkdir((m_dir + "/sub/deeper").c_str(), 0755), 0);
        for (const Planned &file : planned) {
            const std::string path = m_dir + '/' + file.name;
            TestUtil::makeColdFile(path, file.pages * page);
            if (file.resident > 0) {
                m_held.push_back(std::make_unique<TestUtil::HeldPages>(path, 0, file.resident * page));
            }
        }
    }

    void cleanup()
    {
        m_held.clear();
    }

    void ranksMostCachedFirst_data()
    {
        QTest::addColumn<int>("n");
        QTest::addColumn<QStringList>("names");
        QTest::addColumn<QList<qulonglong>>("resident");
        QTest::newRow("top 3") << 3 << QStringList{QStringLiteral("b"), QStringLiteral("sub/f"), QStringLiteral("c")} << QList<qulonglong>{30, 25, 20};
        QTest::newRow("top 1") << 1 << QStringList{QStringLiteral("b")} << QList<qulonglong>{30};
        // More than there are: every cached file, the cold one never.
        QTest::newRow("n larger than the files") << 100
                                                 << QStringList{QStringLiteral("b"),
                                                                QStringLiteral("sub/f"),
                                                                QStringLiteral("c"),
                                                                QStringLiteral("a"),
                                                                QStringLiteral("d"),
                                                                QStringLiteral("sub/deeper/g")}
                                                 << QList<qulonglong>{30, 25, 20, 10, 5, 3};
        QTest::newRow("none asked") << 0 << QStringList{} << QList<qulonglong>{};
    }

    void ranksMostCachedFirst()
    {
        QFETCH(int, n);
        QFETCH(QStringList, names);
        QFETCH(QList<qulonglong>, resident);
        std::mutex mutex;
        QStringList problems;
        const TopResult result = topCached({m_dir}, size_t(n), {}, [&](const WalkProblem &problem) {
            std::lock_guard lock(mutex);
            problems << QString::fromStdString(problem.path + ": " + problem.reason);
        });
        QVERIFY2(problems.isEmpty(), qPrintable(problems.join(QLatin1Char('\n'))));
        QStringList gotNames;
        QList<qulonglong> gotResident;
        for (const TopEntry &entry : result.entries) {
            gotNames << QString::fromStdString(entry.path.substr(m_dir.size() + 1));
            gotResident << entry.resident;
        }
        QCOMPARE(gotNames, names);
        QCOMPARE(gotResident, resident);
        for (const TopEntry &entry : result.entries) {
            struct stat st;
            QCOMPARE(stat(entry.path.c_str(), &st), 0);
            QCOMPARE(entry.size, uint64_t(st.st_size));
            QCOMPARE(entry.pages, uint64_t(st.st_size) / page);
        }
        // The walk totals count every file, ranked or not.
        QCOMPARE(result.walk.total.files, uint64_t(std::size(planned)));
        QCOMPARE(result.walk.total.resident, uint64_t(10 + 30 + 20 + 5 + 25 + 3));
    }

    void emptyTree()
    {
        const std::string empty = TestUtil::scratchDir("top-empty");
        const TopResult result = topCached({empty}, 5);
        QVERIFY(result.entries.empty());
        QCOMPARE(result.walk.total.files, uint64_t(0));
        QCOMPARE(result.walk.total.errors, uint64_t(0));
    }

    void hiddenFilesAreNeverRanked()
    {
        const auto uid = TestUtil::testUserUid();
        if (!uid) {
            QSKIP("needs root and the test user of tools/dev");
        }
        // As the test user every file of this tree (root's, 0644) is hidden:
        // counted in the totals, never ranked.
        for (const Planned &file : planned) {
            QCOMPARE(chmod((m_dir + '/' + file.name).c_str(), 0644), 0);
        }
        struct Answer {
            uint64_t ranked, files, hiddenFiles;
        };
        QString failure;
        const std::optional<Answer> answer = TestUtil::valueFromChild<Answer>(
            [this] {
                const TopResult top = topCached({m_dir}, 10);
                return Answer{top.entries.size(), top.walk.total.files, top.walk.total.hiddenFiles};
            },
            *uid,
            &failure,
            30000);
        QVERIFY2(answer, qPrintable(failure));
        QCOMPARE(answer->ranked, uint64_t(0));
        QCOMPARE(answer->files, uint64_t(std::size(planned)));
        QCOMPARE(answer->hiddenFiles, uint64_t(std::size(planned)));
    }
};

QTEST_GUILESS_MAIN(TopTest)
#include "toptest.moc"
