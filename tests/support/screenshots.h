// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers
#pragma once

// Pictures of widgets to look at, for the tests that take them.

#include <QDir>
#include <QString>
#include <QTest>
#include <QWidget>

namespace Screenshots
{

// Saves what widget shows as name (a PNG) in CACHESCOPE_SCREENSHOT_DIR,
// which the test's ctest entry sets (<build>/screenshots); without it, nothing.
inline void save(QWidget &widget, const char *name)
{
    const QString dir = qEnvironmentVariable("CACHESCOPE_SCREENSHOT_DIR");
    if (dir.isEmpty()) {
        return;
    }
    QDir().mkpath(dir);
    QVERIFY(widget.grab().save(dir + QLatin1Char('/') + QLatin1String(name)));
}

} // namespace Screenshots
