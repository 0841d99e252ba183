// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers
#include "agoticker.h"

#include <KLocalizedString>

#include <array>
#include <cmath>

namespace Cachescope::App
{

AgoTicker::AgoTicker(Style style)
    : m_style(style)
{
    setTickCount(style == Style::Long ? 5 : 3);
}

double AgoTicker::getTickStep(const QCPRange &range)
{
    // The first step that keeps the labels to about tickCount().
    static constexpr std::array<double, 17> steps{1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200, 10800, 21600, 43200};
    const double wanted = range.size() / std::max(1, tickCount());
    for (const double step : steps) {
        if (step >= wanted) {
            return step;
        }
    }
    return steps.back();
}

int AgoTicker::getSubTickCount(double tickStep)
{
    Q_UNUSED(tickStep)
    return 1;
}

QString AgoTicker::getTickLabel(double tick, const QLocale &locale, QChar formatChar, int precision)
{
    Q_UNUSED(locale)
    Q_UNUSED(formatChar)
    Q_UNUSED(precision)
    const auto ago = static_cast<int>(std::lround(-tick));
    if (ago <= 0) {
        return i18nc("@label:axis time", "now");
    }
    const bool longStyle = m_style == Style::Long;
    if (ago % 3600 == 0) {
        const int hours = ago / 3600;
        return longStyle ? i18ncp("@label:axis time", "%1 hour ago", "%1 hours ago", hours) : i18nc("@label:axis time, short", "−%1 h", hours);
    }
    if (ago % 60 == 0) {
        const int minutes = ago / 60;
        return longStyle ? i18ncp("@label:axis time", "%1 minute ago", "%1 minutes ago", minutes) : i18nc("@label:axis time, short", "−%1 min", minutes);
    }
    return longStyle ? i18ncp("@label:axis time", "%1 second ago", "%1 seconds ago", ago) : i18nc("@label:axis time, short", "−%1 s", ago);
}

} // namespace Cachescope::App
