// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers

#include "testutil.h"

#include <QTest>

class SnapshotTest : public QObject
{
    Q_OBJECT
};

QTEST_GUILESS_MAIN(SnapshotTest)
#include "snapshottest.moc"
