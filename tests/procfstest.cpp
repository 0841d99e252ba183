// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers

#include "testutil.h"

#include <QTest>

class ProcfsTest : public QObject
{
    Q_OBJECT
};

QTEST_GUILESS_MAIN(ProcfsTest)
#include "procfstest.moc"
