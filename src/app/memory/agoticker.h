// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers
#pragma once

#include <qcustomplot.h>

namespace Cachescope::App
{

// Ticks of a time axis whose keys are seconds before the newest sample (0 is
// now, -30 half a minute ago), at steps people count in (5 s, 30 s, 1 min,
// 5 min, 1 h) and labelled as they say it, whatever the span shown: a plot
// that has only 20 s to show fills its width with them instead of keeping
// them in a thin column at the right of a ten-minute axis.
class AgoTicker : public QCPAxisTicker
{
public:
    enum class Style {
        Long, // "30 seconds ago", "2 minutes ago"
        Short, // "−30 s", "−2 min": for narrow panes
    };
    explicit AgoTicker(Style style);

protected:
    double getTickStep(const QCPRange &range) override;
    int getSubTickCount(double tickStep) override;
    QString getTickLabel(double tick, const QLocale &locale, QChar formatChar, int precision) override;

private:
    Style m_style;
};

} // namespace Cachescope::App
