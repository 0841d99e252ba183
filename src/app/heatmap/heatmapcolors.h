// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers
#pragma once

#include "heatmapmodel.h"

#include <QColor>

#include <array>

class QPalette;

namespace Cachescope::App
{

// The detail heatmap's colours: the settings' choices where the person made
// one, the palette and the colour scheme elsewhere, and the scale from "not
// cached" to "all cached" that a cell's colour is picked from.
class HeatmapColors
{
public:
    // An invalid colour means the default from the palette and colour scheme.
    void setCustom(const QColor &resident, const QColor &dirty, const QColor &empty);
    // Computes every colour again (after setCustom() and on palette changes).
    void update(const QPalette &palette);

    [[nodiscard]] const QColor &resident() const
    {
        return m_resident;
    }
    [[nodiscard]] const QColor &dirty() const
    {
        return m_dirty;
    }
    [[nodiscard]] const QColor &empty() const
    {
        return m_empty;
    }
    [[nodiscard]] const QColor &writeback() const
    {
        return m_writeback;
    }
    // Compared with a snapshot: pages cached now and not then, and the other way round.
    [[nodiscard]] const QColor &newlyCached() const
    {
        return m_newlyCached;
    }
    [[nodiscard]] const QColor &evictedSince() const
    {
        return m_evictedSince;
    }
    [[nodiscard]] const QColor &panelBackground() const
    {
        return m_panelBackground;
    }
    [[nodiscard]] const QColor &panelFrame() const
    {
        return m_panelFrame;
    }

    // The fill of a cell by its resident fraction.
    [[nodiscard]] const QColor &forCell(const Heatmap::Cell &cell) const;
    // The fill of a cell with no resident page, one with all of them resident,
    // and one half resident (the legend's swatches).
    [[nodiscard]] const QColor &scaleStart() const;
    [[nodiscard]] const QColor &scaleFirstResident() const;
    [[nodiscard]] const QColor &scaleMiddle() const;
    [[nodiscard]] const QColor &scaleEnd() const;

    // `from` moved towards `to` by amount (0 to 1), alpha included.
    [[nodiscard]] static QColor mixed(const QColor &from, const QColor &to, qreal amount);

private:
    QColor m_customResident;
    QColor m_customDirty;
    QColor m_customEmpty;
    QColor m_resident;
    QColor m_dirty;
    QColor m_empty;
    QColor m_writeback;
    QColor m_newlyCached;
    QColor m_evictedSince;
    QColor m_panelBackground;
    QColor m_panelFrame;
    std::array<QColor, 256> m_scale;
};

} // namespace Cachescope::App
