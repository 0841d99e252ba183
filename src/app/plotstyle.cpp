// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers

#include "plotstyle.h"

#include <QEvent>

#include <algorithm>

#include <qcustomplot.h>

namespace Cachescope::App::PlotStyle
{

namespace
{

void styleTitles(QCPLayoutGrid *grid, const QColor &text, const QFont &font, bool ownTitle)
{
    for (int i = 0; i < grid->elementCount(); ++i) {
        QCPLayoutElement *element = grid->elementAt(i);
        if (auto *title = qobject_cast<QCPTextElement *>(element)) {
            QFont titleFont = font;
            titleFont.setBold(ownTitle);
            title->setTextColor(text);
            title->setFont(titleFont);
        } else if (auto *nested = qobject_cast<QCPLayoutGrid *>(element); nested && !qobject_cast<QCPLegend *>(element)) {
            // A grid of panes, each with its title.
            styleTitles(nested, text, font, false);
        }
    }
}

// Restyles its plot when the palette, the font or the style changes: a
// colour-scheme change reaches every widget as a palette change.
class Follower : public QObject
{
public:
    Follower(QCustomPlot *plot, const std::function<void()> &restyled)
        : QObject(plot)
        , m_plot(plot)
        , m_restyled(restyled)
    {
        plot->installEventFilter(this);
    }

    bool eventFilter(QObject *watched, QEvent *event) override
    {
        if (watched == m_plot) {
            switch (event->type()) {
            case QEvent::PaletteChange:
            case QEvent::FontChange:
            case QEvent::StyleChange:
                apply(m_plot);
                if (m_restyled) {
                    m_restyled();
                }
                m_plot->replot(QCustomPlot::rpQueuedReplot);
                break;
            default:
                break;
            }
        }
        return QObject::eventFilter(watched, event);
    }

private:
    QCustomPlot *m_plot;
    std::function<void()> m_restyled;
};

} // namespace

void apply(QCustomPlot *plot)
{
    const QPalette palette = plot->palette();
    const QFont font = plot->font();
    const QColor text = palette.color(QPalette::WindowText);
    QColor gridColor = text;
    gridColor.setAlpha(50);

    plot->setBackground(palette.brush(QPalette::Window));
    const auto rects = plot->axisRects();
    for (QCPAxisRect *rect : rects) {
        rect->setBackground(palette.brush(QPalette::Base));
        const auto axes = rect->axes();
        for (QCPAxis *axis : axes) {
            axis->setBasePen(QPen(text, 1));
            axis->setTickPen(QPen(text, 1));
            axis->setSubTickPen(QPen(text, 1));
            axis->setTickLabelColor(text);
            axis->setLabelColor(text);
            axis->setTickLabelFont(font);
            axis->setLabelFont(font);
            axis->grid()->setPen(QPen(gridColor, 1, Qt::DotLine));
            axis->grid()->setZeroLinePen(Qt::NoPen);
        }
    }
    styleTitles(plot->plotLayout(), text, font, true);

    // A legend beside the data is part of the window; one drawn over the
    // data needs a ground and a frame of its own to be read.
    const bool overData = qobject_cast<QCPLayoutInset *>(plot->legend->layout()) != nullptr;
    if (overData) {
        QColor legendBackground = palette.color(QPalette::Base);
        legendBackground.setAlpha(220);
        plot->legend->setBrush(legendBackground);
        plot->legend->setBorderPen(QPen(gridColor, 1));
    } else {
        plot->legend->setBrush(palette.brush(QPalette::Window));
        plot->legend->setBorderPen(Qt::NoPen);
    }
    plot->legend->setTextColor(text);
    plot->legend->setFont(font);
}

namespace
{

// Wraps a legend placed below its plot into as many rows as its entries
// need at the plot's width, so that no entry is cut off in a narrow window.
class LegendWrapper : public QObject
{
public:
    explicit LegendWrapper(QCustomPlot *plot)
        : QObject(plot)
        , m_plot(plot)
    {
        setObjectName(QStringLiteral("legendWrapper"));
        plot->installEventFilter(this);
    }

    bool eventFilter(QObject *watched, QEvent *event) override
    {
        if (watched == m_plot && (event->type() == QEvent::Resize || event->type() == QEvent::FontChange || event->type() == QEvent::Show)) {
            rewrap();
        }
        return false;
    }

private:
    void rewrap()
    {
        QCPLegend *legend = m_plot->legend;
        // The grid's cells, empty ones of a wrapped last row among them.
        QList<int> widths;
        for (int i = 0; i < legend->elementCount(); ++i) {
            if (QCPLayoutElement *entry = legend->elementAt(i)) {
                widths.append(entry->minimumOuterSizeHint().width());
            }
        }
        const int count = int(widths.size());
        if (count == 0) {
            return;
        }
        const QMargins margins = legend->margins();
        const int available = m_plot->width() - margins.left() - margins.right();
        // Columns of a grid are as wide as their widest entry: try the most
        // columns first and take the first count whose columns fit.
        int columns = count;
        for (; columns > 1; --columns) {
            int width = legend->columnSpacing() * (columns - 1);
            for (int column = 0; column < columns; ++column) {
                int widest = 0;
                for (int i = column; i < count; i += columns) {
                    widest = std::max(widest, widths.at(i));
                }
                width += widest;
            }
            if (width <= available) {
                break;
            }
        }
        if (legend->wrap() == columns) {
            return;
        }
        legend->setWrap(columns);
        legend->setFillOrder(QCPLayoutGrid::foColumnsFirst, true);
        m_plot->replot(QCustomPlot::rpQueuedReplot);
    }

    QCustomPlot *m_plot;
};

} // namespace

void placeLegendBelow(QCustomPlot *plot, QCPAxisRect *rect, int row)
{
    if (!plot->findChild<QObject *>(QStringLiteral("legendWrapper"), Qt::FindDirectChildrenOnly)) {
        new LegendWrapper(plot);
    }
    plot->legend->setVisible(true);
    rect->insetLayout()->take(plot->legend);
    plot->plotLayout()->addElement(row, 0, plot->legend);
    plot->plotLayout()->setRowStretchFactor(row, 0.001);
    plot->legend->setFillOrder(QCPLayoutGrid::foColumnsFirst);
    plot->legend->setBorderPen(Qt::NoPen);
    plot->legend->setMargins(QMargins(0, 4, 0, 0));
    plot->legend->setRowSpacing(0);
}

void follow(QCustomPlot *plot, const std::function<void()> &restyled)
{
    apply(plot);
    new Follower(plot, restyled);
}

} // namespace Cachescope::App::PlotStyle
