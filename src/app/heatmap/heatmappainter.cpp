// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers

#include "heatmappainter.h"

#include "heatmapcolors.h"
#include "heatmapgrid.h"
#include "heatmaptexts.h"

#include <QPainter>
#include <QWidget>

#include <algorithm>
#include <array>
#include <cmath>

namespace Cachescope::App
{

HeatmapPainter::HeatmapPainter(QPainter &painter, const QWidget &widget, const HeatmapColors &colors, const HeatmapGrid &grid)
    : m_painter(painter)
    , m_widget(widget)
    , m_colors(colors)
    , m_grid(grid)
{
}

void HeatmapPainter::paintHeader(const HeatmapTexts &texts, int lineGap)
{
    const QPalette palette = m_widget.palette();
    const QFont font = m_widget.font();
    const QFontMetrics metrics(font);
    const int width = m_widget.width();
    int x = 0;
    if (!texts.name.isEmpty()) {
        QFont bold = font;
        bold.setBold(true);
        m_painter.setFont(bold);
        m_painter.setPen(palette.color(QPalette::WindowText));
        const QFontMetrics boldMetrics(bold);
        const QString name = boldMetrics.elidedText(texts.name, Qt::ElideMiddle, width / 2);
        m_painter.drawText(QRect(0, 0, width, metrics.height()), Qt::AlignLeft | Qt::AlignVCenter, name);
        x = boldMetrics.horizontalAdvance(name) + metrics.horizontalAdvance(QStringLiteral("  "));
        m_painter.setFont(font);
    }
    if (!texts.details.isEmpty()) {
        m_painter.drawText(QRect(x, 0, width - x, metrics.height()),
                           Qt::AlignLeft | Qt::AlignVCenter,
                           metrics.elidedText(texts.details, Qt::ElideRight, width - x));
    }
    if (!texts.window.isEmpty()) {
        m_painter.setPen(palette.color(QPalette::Disabled, QPalette::WindowText));
        m_painter.drawText(QRect(0, metrics.height() + lineGap, width, metrics.height()),
                           Qt::AlignLeft | Qt::AlignVCenter,
                           metrics.elidedText(texts.window, Qt::ElideRight, width));
    }
}

void HeatmapPainter::paintPanel()
{
    m_painter.setPen(m_colors.panelFrame());
    m_painter.setBrush(m_colors.panelBackground());
    m_painter.drawRect(m_grid.panel.adjusted(0, 0, -1, -1));
}

void HeatmapPainter::paintMessage(const QString &text)
{
    m_painter.setPen(m_widget.palette().color(QPalette::Disabled, QPalette::Text));
    m_painter.drawText(m_grid.panel.adjusted(12, 12, -12, -12), Qt::AlignCenter | Qt::TextWordWrap, text);
}

void HeatmapPainter::paintComparedCell(const QRect &rect, const Heatmap::Cell &cell, int marker)
{
    m_painter.fillRect(rect, m_colors.scaleStart());
    if (cell.pages == 0) {
        return;
    }
    int bottom = rect.bottom() + 1;
    // Changes first, each at least a visible stripe: one page in a bucket of thousands shows.
    const auto stack = [&](uint64_t pages, const QColor &color, int least) {
        const int room = bottom - rect.top();
        if (pages == 0 || room <= 0) {
            return;
        }
        const int height = std::min(room, std::max(least, int(std::ceil(double(pages) / double(cell.pages) * rect.height()))));
        m_painter.fillRect(QRect(rect.left(), bottom - height, rect.width(), height), color);
        bottom -= height;
    };
    stack(cell.evictedSince(), m_colors.evictedSince(), marker);
    stack(cell.newlyCached(), m_colors.newlyCached(), marker);
    stack(std::min(cell.beforeStill, cell.resident), m_colors.scaleEnd(), 1);
}

void HeatmapPainter::paintCells(const std::vector<Heatmap::Cell> &cells, int hovered, bool compared)
{
    const HeatmapGrid &l = m_grid;
    m_painter.save();
    // Device pixels from here: cell edges on whole pixels at any scale.
    m_painter.scale(1.0 / l.dpr, 1.0 / l.dpr);
    m_painter.setRenderHint(QPainter::Antialiasing, false);
    const int marker = std::max(1, l.cellSize / 5);
    const int outline = std::max(1, l.cellSize / 6);
    const QColor &dirty = m_colors.dirty();
    const QColor &writeback = m_colors.writeback();
    for (int i = 0; i < l.cells; ++i) {
        const Heatmap::Cell &c = cells[size_t(i)];
        const QRect r = l.deviceRect(i);
        if (compared) {
            paintComparedCell(r, c, marker);
            continue;
        }
        m_painter.fillRect(r, m_colors.forCell(c));
        if (c.dirty > 0 && c.pages > 0) {
            // From the bottom, as much of the cell as is dirty, at least a visible stripe.
            const int height = std::clamp(int(std::ceil(double(c.dirty) / double(c.pages) * l.cellSize)), marker, l.cellSize);
            m_painter.fillRect(QRect(r.left(), r.bottom() + 1 - height, r.width(), height), dirty);
        }
        if (c.writeback > 0) {
            m_painter.fillRect(QRect(r.left(), r.top(), r.width(), outline), writeback);
            m_painter.fillRect(QRect(r.left(), r.bottom() + 1 - outline, r.width(), outline), writeback);
            m_painter.fillRect(QRect(r.left(), r.top(), outline, r.height()), writeback);
            m_painter.fillRect(QRect(r.right() + 1 - outline, r.top(), outline, r.height()), writeback);
        }
    }
    if (hovered >= 0 && hovered < l.cells) {
        const QRect r = l.deviceRect(hovered).adjusted(-1, -1, 1, 1);
        m_painter.setPen(QPen(m_widget.palette().color(QPalette::Text), std::max(1.0, std::floor(l.dpr))));
        m_painter.setBrush(Qt::NoBrush);
        m_painter.drawRect(r);
    }
    m_painter.restore();
}

void HeatmapPainter::paintHidden(const HeatmapTexts &texts, const QRect &textRect)
{
    const QPalette palette = m_widget.palette();
    const QFont font = m_widget.font();
    const QRect area = m_grid.panel.adjusted(1, 1, -1, -1);
    m_painter.fillRect(area, QBrush(HeatmapColors::mixed(palette.color(QPalette::Base), palette.color(QPalette::Text), 0.3), Qt::BDiagPattern));
    QFont titleFont = font;
    titleFont.setBold(true);
    titleFont.setPointSizeF(titleFont.pointSizeF() * 1.3);
    m_painter.setFont(titleFont);
    const QFontMetrics titleMetrics(titleFont);
    const QRect titleRect(textRect.left(), textRect.top(), textRect.width(), titleMetrics.height());
    // The words sit on a plain patch: hatching behind letters is hard to read.
    const int titleWidth = titleMetrics.horizontalAdvance(texts.overlayTitle) + 16;
    m_painter.setFont(font);
    const QRect reasonRect(textRect.left(), titleRect.bottom() + 4, textRect.width(), textRect.height() - titleRect.height() - 4);
    const QRect reasonUsed = m_painter.fontMetrics().boundingRect(reasonRect, Qt::AlignHCenter | Qt::AlignTop | Qt::TextWordWrap, texts.overlayText);
    QRect patch = reasonUsed.united(QRect(titleRect.center().x() - titleWidth / 2, titleRect.top(), titleWidth, titleRect.height()));
    patch = patch.adjusted(-8, -4, 8, 4);
    m_painter.setPen(Qt::NoPen);
    m_painter.setBrush(palette.color(QPalette::Base));
    m_painter.setRenderHint(QPainter::Antialiasing, true);
    m_painter.drawRoundedRect(patch, 4, 4);
    m_painter.setPen(palette.color(QPalette::Text));
    m_painter.setFont(titleFont);
    m_painter.drawText(titleRect, Qt::AlignHCenter | Qt::AlignVCenter, texts.overlayTitle);
    m_painter.setFont(font);
    m_painter.drawText(reasonRect, Qt::AlignHCenter | Qt::AlignTop | Qt::TextWordWrap, texts.overlayText);
}

int HeatmapPainter::legendWidth(const QFontMetrics &metrics, HeatmapMeaning meaning)
{
    const QStringList labels = HeatmapTexts::legendLabels(meaning);
    const int swatch = std::max(8, metrics.height() * 2 / 3);
    const int gap = metrics.horizontalAdvance(QLatin1Char(' '));
    int width = 0;
    for (const QString &label : labels) {
        width += swatch + gap + metrics.horizontalAdvance(label) + gap * 4;
    }
    // The gradient between "Not cached" and "Cached" is six swatches wide.
    return width + (meaning == HeatmapMeaning::SnapshotComparison ? 0 : swatch * 5);
}

void HeatmapPainter::paintLegend(const QString &zoomHint, HeatmapMeaning meaning)
{
    const QRect &legend = m_grid.legend;
    const QPalette palette = m_widget.palette();
    const QStringList labels = HeatmapTexts::legendLabels(meaning);
    const QFontMetrics metrics(m_widget.font());
    const int swatch = std::max(8, metrics.height() * 2 / 3);
    const int lineHeight = metrics.height();
    int top = legend.top();
    int y = top + (lineHeight - swatch) / 2;
    int x = legend.left();
    const int gap = metrics.horizontalAdvance(QLatin1Char(' '));
    // An entry that does not fit on the line goes to the next (the widget
    // gives the legend two lines when it is too narrow for one).
    const auto entry = [&](int width) {
        if (x > legend.left() && x + width > legend.right() && top + 2 * lineHeight <= legend.bottom() + 1) {
            x = legend.left();
            top += lineHeight;
            y = top + (lineHeight - swatch) / 2;
        }
    };
    const auto label = [&](const QString &text) {
        m_painter.setPen(palette.color(QPalette::WindowText));
        m_painter.drawText(QRect(x, top, metrics.horizontalAdvance(text) + 1, lineHeight), Qt::AlignVCenter | Qt::AlignLeft, text);
        x += metrics.horizontalAdvance(text);
    };
    const auto frame = [&](const QRect &r) {
        m_painter.setPen(m_colors.panelFrame());
        m_painter.setBrush(Qt::NoBrush);
        m_painter.drawRect(r.adjusted(0, 0, -1, -1));
    };
    const auto swatchEntry = [&](qsizetype index) {
        entry(swatch + gap + metrics.horizontalAdvance(labels[index]));
    };

    if (meaning == HeatmapMeaning::SnapshotComparison) {
        // [ ] Not cached  [■] Cached then and now  [■] Newly cached  [■] Evicted since
        const std::array<QColor, 4> colors{m_colors.scaleStart(), m_colors.scaleEnd(), m_colors.newlyCached(), m_colors.evictedSince()};
        for (size_t i = 0; i < colors.size(); ++i) {
            swatchEntry(qsizetype(i));
            const QRect swatchRect(x, y, swatch, swatch);
            m_painter.fillRect(swatchRect, colors[i]);
            frame(swatchRect);
            x += swatch + gap;
            label(labels[qsizetype(i)]);
            x += gap * 4;
        }
    } else {
        // Not cached [gradient] Cached: one entry, never split.
        const int scaleWidth = swatch * 6;
        entry(metrics.horizontalAdvance(labels[0]) + gap + scaleWidth + gap + metrics.horizontalAdvance(labels[1]));
        label(labels[0]);
        x += gap;
        QLinearGradient gradient(x, 0, x + scaleWidth, 0);
        gradient.setColorAt(0, m_colors.scaleStart());
        gradient.setColorAt(0.12, m_colors.scaleStart());
        gradient.setColorAt(0.14, m_colors.scaleFirstResident());
        gradient.setColorAt(1, m_colors.scaleEnd());
        const QRect scaleRect(x, y, scaleWidth, swatch);
        m_painter.fillRect(scaleRect, gradient);
        frame(scaleRect);
        x += scaleWidth + gap;
        label(labels[1]);
        x += gap * 4;

        swatchEntry(2);
        const QRect dirtyRect(x, y, swatch, swatch);
        m_painter.fillRect(dirtyRect, m_colors.dirty());
        x += swatch + gap;
        label(labels[2]);
        x += gap * 4;

        // Writeback and hidden pages exist only for residency.
        if (meaning == HeatmapMeaning::Residency) {
            swatchEntry(3);
            const QRect writebackRect(x, y, swatch, swatch);
            m_painter.fillRect(writebackRect, m_colors.scaleMiddle());
            const int outline = std::max(2, swatch / 5);
            m_painter.setPen(QPen(m_colors.writeback(), outline, Qt::SolidLine, Qt::SquareCap, Qt::MiterJoin));
            m_painter.setBrush(Qt::NoBrush);
            m_painter.drawRect(writebackRect.adjusted(outline / 2, outline / 2, -(outline + 1) / 2, -(outline + 1) / 2));
            x += swatch + gap;
            label(labels[3]);
            x += gap * 4;

            swatchEntry(4);
            const QRect hiddenRect(x, y, swatch, swatch);
            m_painter.fillRect(hiddenRect, palette.color(QPalette::Base));
            m_painter.fillRect(hiddenRect, QBrush(HeatmapColors::mixed(palette.color(QPalette::Base), palette.color(QPalette::Text), 0.5), Qt::BDiagPattern));
            frame(hiddenRect);
            x += swatch + gap;
            label(labels[4]);
        }
    }

    // How to zoom, where there is room: nothing else tells it.
    if (!zoomHint.isEmpty()) {
        const int hintWidth = metrics.horizontalAdvance(zoomHint);
        if (x + gap * 6 + hintWidth <= legend.right()) {
            m_painter.setPen(palette.color(QPalette::Disabled, QPalette::WindowText));
            m_painter.drawText(QRect(legend.right() - hintWidth, top, hintWidth + 1, lineHeight), Qt::AlignVCenter | Qt::AlignRight, zoomHint);
        }
    }
}

} // namespace Cachescope::App
