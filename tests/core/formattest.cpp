// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers

// The figures people read (src/core/format.h).

#include "format.h"

#include <QTest>

using namespace Cachescope;

class FormatTest : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void percentShown_data()
    {
        QTest::addColumn<quint64>("part");
        QTest::addColumn<quint64>("whole");
        QTest::addColumn<int>("decimals");
        QTest::addColumn<double>("shown");
        QTest::newRow("half") << quint64(128) << quint64(256) << 1 << 50.0;
        QTest::newRow("a third") << quint64(1) << quint64(3) << 2 << 33.33;
        QTest::newRow("two thirds, whole percent") << quint64(2) << quint64(3) << 0 << 67.0;
        QTest::newRow("all") << quint64(16384) << quint64(16384) << 1 << 100.0;
        QTest::newRow("none") << quint64(0) << quint64(16384) << 1 << 0.0;
        QTest::newRow("nothing of nothing") << quint64(0) << quint64(0) << 1 << 0.0;
        // The file: 16,374 of 16,384 pages is 99.94 %, never 100 %.
        QTest::newRow("ten pages missing") << quint64(16374) << quint64(16384) << 1 << 99.9;
        QTest::newRow("ten pages missing, whole percent") << quint64(16374) << quint64(16384) << 0 << 99.0;
        QTest::newRow("one page missing, two decimals") << quint64(268435455) << quint64(268435456) << 2 << 99.99;
        // One page of a terabyte is there: never 0.
        QTest::newRow("one page of 1 TiB") << quint64(1) << quint64(268435456) << 1 << 0.1;
        QTest::newRow("one page of 1 TiB, whole percent") << quint64(1) << quint64(268435456) << 0 << 1.0;
    }

    void percentShown()
    {
        QFETCH(quint64, part);
        QFETCH(quint64, whole);
        QFETCH(int, decimals);
        QFETCH(double, shown);
        QCOMPARE(Cachescope::percentShown(part, whole, decimals), shown);
    }
};

QTEST_GUILESS_MAIN(FormatTest)
#include "formattest.moc"
