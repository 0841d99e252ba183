// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers

#include "testutil.h"

#include <QTest>

class PathcodecTest : public QObject
{
    Q_OBJECT
};

QTEST_GUILESS_MAIN(PathcodecTest)
#include "pathcodectest.moc"
