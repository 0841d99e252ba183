// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers

#include "focusframe.h"

#include <KColorScheme>
#include <KColorUtils>

#include <QPainter>
#include <QPalette>
#include <QRectF>

#include <algorithm>
#include <cmath>

namespace Cachescope::App
{

void paintFocusFrame(QPainter &painter, const QRectF &rect, const QPalette &palette, const QColor &under)
{
    QColor focus = KColorScheme(QPalette::Active, KColorScheme::View).decoration(KColorScheme::FocusColor).color();
    if (under.isValid() && std::abs(KColorUtils::luma(focus) - KColorUtils::luma(under)) < 0.3) {
        focus = focus.darker(170);
    }
    // On whole pixels: the 2-pixel line covers two rows of pixels, not one and two halves.
    const QRectF snapped = QRectF(rect.toRect());
    const qreal radius = std::clamp(std::min(snapped.width(), snapped.height()) / 4, 1.0, 3.0);
    painter.save();
    painter.setRenderHint(QPainter::Antialiasing, true);
    painter.setBrush(Qt::NoBrush);
    painter.setPen(QPen(palette.color(QPalette::Base), 4));
    painter.drawRoundedRect(snapped, radius, radius);
    painter.setPen(QPen(focus, 2));
    painter.drawRoundedRect(snapped, radius, radius);
    painter.restore();
}

} // namespace Cachescope::App
