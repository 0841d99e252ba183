// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers

#include "memorypanel.h"

#include "ui_MemoryPanelBase.h"

#include <KFormat>
#include <KLocalizedString>
#include <KMessageWidget>

#include <QEvent>
#include <QHeaderView>
#include <QTableWidget>

#include <qcustomplot.h>

#include <algorithm>

namespace
{

constexpr double bytesPerGiB = 1024.0 * 1024.0 * 1024.0;
constexpr double bytesPerMiB = 1024.0 * 1024.0;

// Breeze colours: the cache is what Cachescope is about, so it gets the
// friendly green; free memory is a quiet grey because it is idle.
const QColor usedColor(0x3d, 0xae, 0xe9); // Plasma blue
const QColor buffersColor(0x9b, 0x59, 0xb6); // Purple
const QColor cacheColor(0x27, 0xae, 0x60); // Noble green
const QColor freeColor(0xbd, 0xc3, 0xc7); // Cloudy grey
const QColor dirtyColor(0xf6, 0x74, 0x00); // Beware orange
const QColor writebackColor(0xda, 0x44, 0x53); // Icon red

QCPGraph *addAreaGraph(QCustomPlot *plot, const QString &name, const QColor &color, QCPGraph *below)
{
    QCPGraph *graph = plot->addGraph(plot->xAxis, plot->yAxis);
    graph->setName(name);
    graph->setPen(QPen(color.darker(115), 1.5));
    QColor fill = color;
    fill.setAlpha(190);
    graph->setBrush(fill);
    // Without a channel graph QCustomPlot fills down to zero.
    graph->setChannelFillGraph(below);
    graph->setAntialiasedFill(true);
    return graph;
}

QCPGraph *addLineGraph(QCustomPlot *plot, const QString &name, const QColor &color)
{
    QCPGraph *graph = plot->addGraph(plot->xAxis, plot->yAxis2);
    graph->setName(name);
    graph->setPen(QPen(color, 2.0));
    graph->setAntialiased(true);
    return graph;
}

} // namespace

MemoryPanel::MemoryPanel(QWidget *parent)
    : QWidget(parent)
    , m_ui(std::make_unique<Ui::MemoryPanelBase>())
{
    m_ui->setupUi(this);
    setUpPlot();
    setUpTable();
    applyPalette();
}

MemoryPanel::~MemoryPanel() = default;

QCustomPlot *MemoryPanel::plot() const
{
    return m_ui->plot;
}

QTableWidget *MemoryPanel::figuresTable() const
{
    return m_ui->figuresTable;
}

KMessageWidget *MemoryPanel::messageWidget() const
{
    return m_ui->messageWidget;
}

std::size_t MemoryPanel::sampleCount() const
{
    return m_samples.size();
}

QString MemoryPanel::formatBytes(uint64_t bytes)
{
    return KFormat().formatByteSize(static_cast<double>(bytes));
}

void MemoryPanel::setUpPlot()
{
    QCustomPlot *plot = m_ui->plot;

    // Bottom to top, so that the stack reads like `free`: what is taken, then
    // what the kernel can give back, then what is idle.
    m_usedGraph = addAreaGraph(plot, i18nc("@label plot legend", "Used"), usedColor, nullptr);
    m_buffersGraph = addAreaGraph(plot, i18nc("@label plot legend", "Buffers"), buffersColor, m_usedGraph);
    m_cacheGraph = addAreaGraph(plot, i18nc("@label plot legend", "Cache"), cacheColor, m_buffersGraph);
    m_freeGraph = addAreaGraph(plot, i18nc("@label plot legend", "Free"), freeColor, m_cacheGraph);
    m_dirtyGraph = addLineGraph(plot, i18nc("@label plot legend", "Dirty (right scale)"), dirtyColor);
    m_writebackGraph = addLineGraph(plot, i18nc("@label plot legend, pages being written to disk", "Writeback (right scale)"), writebackColor);

    // Seconds relative to the newest sample, labelled the way people say it.
    auto timeTicker = QSharedPointer<QCPAxisTickerText>::create();
    for (int minutes = 5; minutes >= 1; --minutes) {
        timeTicker->addTick(-60.0 * minutes, i18ncp("@label:axis time", "%1 minute ago", "%1 minutes ago", minutes));
    }
    timeTicker->addTick(0, i18nc("@label:axis time", "now"));
    timeTicker->setSubTickCount(1);
    plot->xAxis->setTicker(timeTicker);
    plot->xAxis->setRange(-historySeconds, 0);

    plot->yAxis->setLabel(i18nc("@label:axis", "Memory (GiB)"));
    plot->yAxis->setRange(0, 1);

    plot->yAxis2->setVisible(true);
    plot->yAxis2->setTickLabels(true);
    plot->yAxis2->setLabel(i18nc("@label:axis", "Dirty and writeback (MiB)"));
    plot->yAxis2->setRange(0, 16);
    plot->yAxis2->grid()->setVisible(false);

    // The stacked areas fill the whole rectangle: draw the grid over them.
    plot->moveLayer(plot->layer(QStringLiteral("grid")), plot->layer(QStringLiteral("main")), QCustomPlot::limAbove);

    // The legend goes under the plot, in one row, so that it hides no data.
    plot->legend->setVisible(true);
    plot->axisRect()->insetLayout()->take(plot->legend);
    plot->plotLayout()->addElement(1, 0, plot->legend);
    plot->plotLayout()->setRowStretchFactor(1, 0.001);
    plot->legend->setFillOrder(QCPLayoutGrid::foColumnsFirst);
    plot->legend->setBorderPen(Qt::NoPen);
    // A little air between the time axis labels and the legend.
    plot->legend->setMargins(QMargins(0, 8, 0, 0));
    plot->legend->setRowSpacing(0);
    plot->legend->setColumnSpacing(16);

    plot->setToolTip(
        i18nc("@info:tooltip",
              "Memory over the last five minutes. Used is the total minus the available memory, as in the table below. Buffers and cache show what the "
              "kernel can give back when programs need it; cache it cannot drop, such as shared memory, counts as used. Dirty and writeback (right "
              "scale) are data waiting to be written to disk and being written."));
}

void MemoryPanel::applyPalette()
{
    QCustomPlot *plot = m_ui->plot;
    const QPalette pal = palette();
    const QColor text = pal.color(QPalette::WindowText);
    QColor gridColor = text;
    gridColor.setAlpha(50);

    plot->setBackground(pal.brush(QPalette::Window));
    plot->axisRect()->setBackground(pal.brush(QPalette::Base));
    for (QCPAxis *axis : {plot->xAxis, plot->yAxis, plot->yAxis2, plot->xAxis2}) {
        axis->setBasePen(QPen(text, 1));
        axis->setTickPen(QPen(text, 1));
        axis->setSubTickPen(QPen(text, 1));
        axis->setTickLabelColor(text);
        axis->setLabelColor(text);
        axis->setTickLabelFont(font());
        axis->setLabelFont(font());
        axis->grid()->setPen(QPen(gridColor, 1, Qt::DotLine));
        axis->grid()->setZeroLinePen(Qt::NoPen);
    }
    plot->legend->setBrush(pal.brush(QPalette::Window));
    plot->legend->setTextColor(text);
    plot->legend->setFont(font());
}

void MemoryPanel::setUpTable()
{
    QTableWidget *table = m_ui->figuresTable;
    table->horizontalHeader()->setSectionResizeMode(QHeaderView::Stretch);
    table->verticalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    for (int row = 0; row < RowCount; ++row) {
        for (int column = 0; column < ColumnCount; ++column) {
            auto *item = new QTableWidgetItem;
            item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
            item->setFlags(Qt::ItemIsEnabled);
            // The cell explains itself like its heading does; swap cells
            // explain swap, whose columns mean something else.
            const QTableWidgetItem *header = row == SwapRow ? table->verticalHeaderItem(row) : table->horizontalHeaderItem(column);
            if (header) {
                item->setToolTip(header->toolTip());
            }
            table->setItem(row, column, item);
        }
    }
    fitTableHeight();
}

void MemoryPanel::fitTableHeight()
{
    // Exactly the heading and the rows: the table never scrolls, and the
    // plot gets every other pixel.
    QTableWidget *table = m_ui->figuresTable;
    table->resizeRowsToContents();
    table->setFixedHeight(table->horizontalHeader()->sizeHint().height() + table->verticalHeader()->length() + 2 * table->frameWidth());
}

void MemoryPanel::addSample(const MemorySample &sample)
{
    m_samples.push_back(sample);
    // Keep one sample beyond the left edge so that the areas reach it.
    while (m_samples.size() > 2 && sample.time - m_samples[1].time > historySeconds) {
        m_samples.pop_front();
    }
    updateTable(sample);
    replot();
}

void MemoryPanel::replot()
{
    if (m_samples.empty()) {
        return;
    }
    const double now = m_samples.back().time;
    const auto count = static_cast<qsizetype>(m_samples.size());
    QList<double> keys, used, buffers, cache, free, dirty, writeback;
    for (QList<double> *list : {&keys, &used, &buffers, &cache, &free, &dirty, &writeback}) {
        list->reserve(count);
    }
    double highestLine = 0;
    for (const MemorySample &sample : m_samples) {
        const Cachescope::FreeFigures &figures = sample.figures;
        keys.append(sample.time - now);
        // Cumulative, because each area sits on the ones below it. `used` is
        // total minus available, as in the table, so it already holds the
        // part of the cache the kernel cannot drop (shared memory, say):
        // buffers and cache show only what lies between it and the free
        // memory, the part the kernel can give back. The stack then always
        // adds up to the total.
        const double total = figures.total / bytesPerGiB;
        const double usedTop = std::min(figures.used / bytesPerGiB, total);
        const double cacheTop = std::max(usedTop, total - figures.free / bytesPerGiB);
        const double buffersTop = std::min(usedTop + figures.buffers / bytesPerGiB, cacheTop);
        used.append(usedTop);
        buffers.append(buffersTop);
        cache.append(cacheTop);
        free.append(total);
        dirty.append(sample.dirty / bytesPerMiB);
        writeback.append(sample.writeback / bytesPerMiB);
        highestLine = std::max({highestLine, dirty.back(), writeback.back()});
    }
    m_usedGraph->setData(keys, used, true);
    m_buffersGraph->setData(keys, buffers, true);
    m_cacheGraph->setData(keys, cache, true);
    m_freeGraph->setData(keys, free, true);
    m_dirtyGraph->setData(keys, dirty, true);
    m_writebackGraph->setData(keys, writeback, true);

    const double totalGiB = m_samples.back().figures.total / bytesPerGiB;
    m_ui->plot->yAxis->setRange(0, totalGiB > 0 ? totalGiB : 1);
    // Headroom above the highest line, but never a scale so fine that a few
    // kilobytes of dirty data look like a storm.
    m_ui->plot->yAxis2->setRange(0, std::max(16.0, highestLine * 1.25));
    m_ui->plot->replot(QCustomPlot::rpQueuedReplot);
}

void MemoryPanel::updateTable(const MemorySample &sample)
{
    const Cachescope::FreeFigures &figures = sample.figures;
    QTableWidget *table = m_ui->figuresTable;
    const auto set = [table](int row, int column, const QString &text) {
        table->item(row, column)->setText(text);
    };
    set(MemoryRow, TotalColumn, formatBytes(figures.total));
    set(MemoryRow, UsedColumn, formatBytes(figures.used));
    set(MemoryRow, FreeColumn, formatBytes(figures.free));
    set(MemoryRow, SharedColumn, formatBytes(figures.shared));
    set(MemoryRow, BuffCacheColumn, formatBytes(figures.buffCache));
    set(MemoryRow, AvailableColumn, formatBytes(figures.available));
    set(SwapRow, TotalColumn, formatBytes(figures.swapTotal));
    set(SwapRow, UsedColumn, formatBytes(figures.swapUsed));
    set(SwapRow, FreeColumn, formatBytes(figures.swapFree));
}

void MemoryPanel::showError(const QString &message)
{
    m_ui->messageWidget->setMessageType(KMessageWidget::Error);
    m_ui->messageWidget->setText(message);
    m_ui->messageWidget->animatedShow();
}

void MemoryPanel::clearError()
{
    if (!m_ui->messageWidget->isHidden()) {
        m_ui->messageWidget->animatedHide();
    }
}

void MemoryPanel::changeEvent(QEvent *event)
{
    QWidget::changeEvent(event);
    if (!m_usedGraph) {
        return; // still in the constructor
    }
    switch (event->type()) {
    case QEvent::PaletteChange:
    case QEvent::FontChange:
    case QEvent::StyleChange:
        applyPalette();
        fitTableHeight();
        m_ui->plot->replot(QCustomPlot::rpQueuedReplot);
        break;
    default:
        break;
    }
}
