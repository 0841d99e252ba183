// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers

#include "heatmapcolors.h"

#include <KColorScheme>

#include <QPalette>

#include <algorithm>

namespace Cachescope::App
{

QColor HeatmapColors::mixed(const QColor &from, const QColor &to, qreal amount)
{
    const auto channel = [amount](qreal a, qreal b) {
        return a + (b - a) * amount;
    };
    return QColor::fromRgbF(float(channel(from.redF(), to.redF())),
                            float(channel(from.greenF(), to.greenF())),
                            float(channel(from.blueF(), to.blueF())),
                            float(channel(from.alphaF(), to.alphaF())));
}

void HeatmapColors::setCustom(const QColor &resident, const QColor &dirty, const QColor &empty)
{
    m_customResident = resident;
    m_customDirty = dirty;
    m_customEmpty = empty;
}

void HeatmapColors::update(const QPalette &palette)
{
    const KColorScheme scheme(QPalette::Active, KColorScheme::View);
    m_panelBackground = palette.color(QPalette::Base);
    m_panelFrame = mixed(palette.color(QPalette::Window), palette.color(QPalette::WindowText), 0.2);
    m_resident = m_customResident.isValid() ? m_customResident : palette.color(QPalette::Highlight);
    m_dirty = m_customDirty.isValid() ? m_customDirty : scheme.foreground(KColorScheme::NeutralText).color();
    m_writeback = scheme.foreground(KColorScheme::NegativeText).color();
    m_newlyCached = scheme.foreground(KColorScheme::PositiveText).color();
    m_evictedSince = scheme.foreground(KColorScheme::NegativeText).color();
    m_empty = m_customEmpty.isValid() ? m_customEmpty : mixed(m_panelBackground, palette.color(QPalette::Text), 0.1);
    // Index 0 is "not cached" only; any resident page at all starts a
    // quarter of the way, so that one page in a bucket of thousands shows.
    m_scale[0] = m_empty;
    for (size_t i = 1; i < m_scale.size(); ++i) {
        const qreal fraction = qreal(i - 1) / qreal(m_scale.size() - 2);
        m_scale[i] = mixed(m_empty, m_resident, 0.25 + 0.75 * fraction);
    }
}

const QColor &HeatmapColors::forCell(const Heatmap::Cell &cell) const
{
    if (cell.resident == 0 || cell.pages == 0) {
        return m_scale[0];
    }
    const size_t index = 1 + size_t(double(std::min(cell.resident, cell.pages)) / double(cell.pages) * double(m_scale.size() - 2));
    return m_scale[std::min(index, m_scale.size() - 1)];
}

const QColor &HeatmapColors::scaleStart() const
{
    return m_scale[0];
}

const QColor &HeatmapColors::scaleFirstResident() const
{
    return m_scale[1];
}

const QColor &HeatmapColors::scaleMiddle() const
{
    return m_scale[m_scale.size() / 2];
}

const QColor &HeatmapColors::scaleEnd() const
{
    return m_scale[m_scale.size() - 1];
}

} // namespace Cachescope::App
