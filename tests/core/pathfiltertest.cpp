// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers

// PathFilter's rules, one row each: a glob without '/' against the name, one
// with '/' against the whole path, includes only for files, excludes for
// files and folders, the size limit, and paths as the user names them.

#include "pathfilter.h"

#include <QTest>

using Cachescope::PathFilter;

class PathFilterTest : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void admits_data()
    {
        QTest::addColumn<QStringList>("include");
        QTest::addColumn<QStringList>("exclude");
        QTest::addColumn<qulonglong>("maxSize");
        QTest::addColumn<QString>("path"); // as the user named it
        QTest::addColumn<qulonglong>("size");
        QTest::addColumn<bool>("file"); // admitted as a named file
        QTest::addColumn<bool>("folder"); // admitted as a folder of that name and path

        const QStringList none;
        QTest::newRow("no filter") << none << none << 0ULL << QStringLiteral("/a/b.so") << 1ULL << true << true;
        QTest::newRow("include matches the name") << QStringList{QStringLiteral("*.so")} << none << 0ULL << QStringLiteral("/lib/x.so") << 1ULL << true << true;
        QTest::newRow("include misses") << QStringList{QStringLiteral("*.so")} << none << 0ULL << QStringLiteral("/lib/x.txt") << 1ULL << false << true;
        QTest::newRow("any include") << QStringList{QStringLiteral("*.so"), QStringLiteral("*.txt")} << none << 0ULL << QStringLiteral("/lib/x.txt") << 1ULL
                                     << true << true;
        QTest::newRow("a name glob does not see the folder")
            << QStringList{QStringLiteral("lib*")} << none << 0ULL << QStringLiteral("/lib/x.so") << 1ULL << false << true;
        QTest::newRow("exclude a name") << none << QStringList{QStringLiteral(".git")} << 0ULL << QStringLiteral("/src/.git") << 1ULL << false << false;
        QTest::newRow("exclude wins over include") << QStringList{QStringLiteral("*.so")} << QStringList{QStringLiteral("big*")} << 0ULL
                                                   << QStringLiteral("/lib/big.so") << 1ULL << false << false;
        QTest::newRow("a path glob, * across /") << none << QStringList{QStringLiteral("*/cache/*")} << 0ULL << QStringLiteral("/home/u/.cache/cache/x/y")
                                                 << 1ULL << false << false;
        QTest::newRow("a path glob misses") << none << QStringList{QStringLiteral("*/cache/*")} << 0ULL << QStringLiteral("/home/u/cache") << 1ULL << true
                                            << true;
        QTest::newRow("a relative path") << none << QStringList{QStringLiteral("sub/*")} << 0ULL << QStringLiteral("sub/x") << 1ULL << false << false;
        QTest::newRow("brackets and ?") << QStringList{QStringLiteral("d[0-9]?.log")} << none << 0ULL << QStringLiteral("d1a.log") << 1ULL << true << true;
        QTest::newRow("trailing slash") << QStringList{QStringLiteral("x.so")} << none << 0ULL << QStringLiteral("/lib/x.so/") << 1ULL << true << true;
        QTest::newRow("at the size") << none << none << 4096ULL << QStringLiteral("/a") << 4096ULL << true << true;
        QTest::newRow("over the size") << none << none << 4096ULL << QStringLiteral("/a") << 4097ULL << false << true;
        QTest::newRow("a name that is not UTF-8") << QStringList{QStringLiteral("*.so")} << none << 0ULL << QStringLiteral("/lib/\u00e9.so") << 1ULL << true
                                                  << true;
    }

    void admits()
    {
        QFETCH(QStringList, include);
        QFETCH(QStringList, exclude);
        QFETCH(qulonglong, maxSize);
        QFETCH(QString, path);
        QFETCH(qulonglong, size);
        QFETCH(bool, file);
        QFETCH(bool, folder);
        PathFilter filter;
        for (const QString &glob : include) {
            filter.include.push_back(glob.toStdString());
        }
        for (const QString &glob : exclude) {
            filter.exclude.push_back(glob.toStdString());
        }
        filter.maxSize = maxSize;
        std::string bytes = path.toStdString();
        if (QTest::currentDataTag() == QByteArrayLiteral("a name that is not UTF-8")) {
            bytes = "/lib/\xe9.so"; // Latin-1: not UTF-8
        }
        QCOMPARE(filter.active(), !include.isEmpty() || !exclude.isEmpty() || maxSize > 0);
        QCOMPARE(filter.admitsNamedFile(bytes, size), file);
        std::string trimmed = bytes;
        while (trimmed.size() > 1 && trimmed.back() == '/') {
            trimmed.pop_back();
        }
        const std::string name = trimmed.substr(trimmed.rfind('/') == std::string::npos ? 0 : trimmed.rfind('/') + 1);
        QCOMPARE(filter.admitsFolder(name.c_str(), trimmed), folder);
    }
};

QTEST_GUILESS_MAIN(PathFilterTest)
#include "pathfiltertest.moc"
