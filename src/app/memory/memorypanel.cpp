// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers

#include "memorypanel.h"

#include "accessibleitems.h"
#include "agoticker.h"

#include "format.h"
#include "freefigurestable.h"
#include "memoryexport.h"
#include "memorymarkers.h"
#include "plotstyle.h"

#include "ui_MemoryPanelBase.h"

#include <KActionCollection>
#include <KFormat>
#include <KLocalizedString>
#include <KMessageWidget>

#include <QAction>
#include <QEvent>
#include <QIcon>
#include <QMouseEvent>
#include <QSplitter>
#include <QTabWidget>
#include <QTableWidget>
#include <QToolTip>

#include <qcustomplot.h>

#include <algorithm>
#include <cmath>
#include <limits>

namespace Cachescope::App
{

namespace
{

constexpr double bytesPerGiB = 1024.0 * 1024.0 * 1024.0;
constexpr double bytesPerMiB = 1024.0 * 1024.0;

// Breeze colours: the cache is what Cachescope is about, so it gets the
// friendly green; free memory is a quiet grey because it is idle.
const QColor &usedColor = Cachescope::App::PlotColors::plasmaBlue;
const QColor &buffersColor = Cachescope::App::PlotColors::purple;
const QColor &cacheColor = Cachescope::App::PlotColors::cache;
const QColor &freeColor = Cachescope::App::PlotColors::cloudyGrey;
const QColor &dirtyColor = Cachescope::App::PlotColors::dirty;
const QColor &writebackColor = Cachescope::App::PlotColors::writeback;
// Activity: reads in blue and writes in orange, as disk monitors draw them.
const QColor &readColor = Cachescope::App::PlotColors::abyssBlue;
const QColor &writtenColor = Cachescope::App::PlotColors::bewareOrange;
const QColor &minorFaultsColor = Cachescope::App::PlotColors::teal;
const QColor &majorFaultsColor = Cachescope::App::PlotColors::iconRed;
const QColor &refaultsColor = Cachescope::App::PlotColors::deepPurple;

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

QCPGraph *addLineGraph(QCustomPlot *plot, QCPAxis *keyAxis, QCPAxis *valueAxis, const QString &name, const QColor &color)
{
    QCPGraph *graph = plot->addGraph(keyAxis, valueAxis);
    graph->setName(name);
    graph->setPen(QPen(color, 2.0));
    graph->setAntialiased(true);
    return graph;
}

// A plot is worth drawing only when someone can see it.
bool canBeSeen(const QWidget *widget)
{
    return widget->isVisible() && !widget->window()->isMinimized();
}

QString swatch(const QColor &color)
{
    return QStringLiteral("<span style=\"color:%1\">&#9632;</span>").arg(color.name());
}

QString hoverRow(const QColor &color, const QString &name, const QString &value)
{
    return QStringLiteral("<tr><td>%1&nbsp;%2</td><td align=\"right\">&nbsp;&nbsp;%3</td></tr>")
        .arg(swatch(color), name.toHtmlEscaped(), value.toHtmlEscaped());
}

QString formatRate(double perSecond)
{
    return i18nc("@item events per second", "%1/s", QLocale().toString(perSecond, 'f', perSecond < 10 ? 1 : 0));
}

QString formatByteRate(double kibPerSecond)
{
    return i18nc("@item bytes per second", "%1/s", formatBytes(uint64_t(std::llround(std::max(0.0, kibPerSecond) * 1024.0)), ByteStyle::OneDecimal, QLocale()));
}

QCPAxis *bottomAxis(QCPAxisRect *rect)
{
    return rect->axis(QCPAxis::atBottom);
}

QCPAxis *leftAxis(QCPAxisRect *rect)
{
    return rect->axis(QCPAxis::atLeft);
}

} // namespace

MemoryPanel::MemoryPanel(QWidget *parent)
    : QWidget(parent)
    , m_ui(std::make_unique<Ui::MemoryPanelBase>())
{
    m_ui->setupUi(this);
    m_markers = std::make_unique<MemoryMarkers>(m_ui->plot);
    setUpPlot();
    setUpRatesPlot();
    setUpTimeAxis();
    m_ui->figuresTable->setUpCells();
    applyPalette();

    connect(m_ui->plotTabs, &QTabWidget::currentChanged, this, &MemoryPanel::updateVisibility);
}

MemoryPanel::~MemoryPanel() = default;

void MemoryPanel::setUpActions(KActionCollection *collection)
{
    QAction *exportPlot = collection->addAction(QStringLiteral("memory_export_plot"));
    exportPlot->setText(i18nc("@action", "Export Plot…"));
    exportPlot->setIcon(QIcon::fromTheme(QStringLiteral("document-export")));
    exportPlot->setToolTip(i18nc("@info:tooltip", "Save the plot on screen as a PNG image or a PDF document"));
    // Ctrl+Shift+E is Flush and Evict, beside Evict (Ctrl+E).
    collection->setDefaultShortcut(exportPlot, QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_P));
    connect(exportPlot, &QAction::triggered, this, &MemoryPanel::askExportPlot);

    QAction *exportSamples = collection->addAction(QStringLiteral("memory_export_samples"));
    exportSamples->setText(i18nc("@action", "Export Samples…"));
    exportSamples->setIcon(QIcon::fromTheme(QStringLiteral("text-csv"), QIcon::fromTheme(QStringLiteral("document-save-as"))));
    exportSamples->setToolTip(i18nc("@info:tooltip", "Save every sample the plots show as a CSV table, for a spreadsheet"));
    connect(exportSamples, &QAction::triggered, this, &MemoryPanel::askExportSamples);
}

QCustomPlot *MemoryPanel::plot() const
{
    return m_ui->plot;
}

QCustomPlot *MemoryPanel::ratesPlot() const
{
    return m_ui->ratesPlot;
}

QTabWidget *MemoryPanel::tabs() const
{
    return m_ui->plotTabs;
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

const std::deque<MemorySample> &MemoryPanel::samples() const
{
    return m_samples;
}

double MemoryPanel::historySeconds() const
{
    return m_historySeconds;
}

QString MemoryPanel::bytesText(uint64_t bytes)
{
    return formatBytes(bytes, ByteStyle::OneDecimal, QLocale());
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
    m_dirtyGraph = addLineGraph(plot, plot->xAxis, plot->yAxis2, i18nc("@label plot legend", "Dirty (right scale)"), dirtyColor);
    m_writebackGraph =
        addLineGraph(plot, plot->xAxis, plot->yAxis2, i18nc("@label plot legend, pages being written to disk", "Writeback (right scale)"), writebackColor);

    plot->yAxis->setLabel(i18nc("@label:axis", "Memory (GiB)"));
    plot->yAxis->setRange(0, 1);

    plot->yAxis2->setVisible(true);
    plot->yAxis2->setTickLabels(true);
    plot->yAxis2->setLabel(i18nc("@label:axis", "Dirty, writeback (MiB)"));
    plot->yAxis2->setRange(0, 16);
    plot->yAxis2->grid()->setVisible(false);

    // The stacked areas fill the whole rectangle: draw the grid over them.
    plot->moveLayer(plot->layer(QStringLiteral("grid")), plot->layer(QStringLiteral("main")), QCustomPlot::limAbove);

    // The legend goes under the plot, in one row, so that it hides no data.
    PlotStyle::placeLegendBelow(plot, plot->axisRect(), 1);
    plot->legend->setColumnSpacing(16);

    // Hovering shows the values at that moment; the explanation of the
    // areas is a What's This away, so that it never hides them.
    plot->setWhatsThis(
        i18nc("@info:whatsthis",
              "Memory over the last minutes. Used is the total minus the available memory, as in the table below. Buffers and cache show what the "
              "kernel can give back when programs need it; cache it cannot drop, such as shared memory, counts as used. Cache here is free's "
              "figure, Cached plus SReclaimable from /proc/meminfo; the experiments' page cache is Cached alone. Dirty and writeback (right "
              "scale) are data waiting to be written to disk and being written. Hover over the plot for the values at a moment."));
    trackHover(plot);
}

void MemoryPanel::trackHover(QCustomPlot *plot)
{
    plot->setMouseTracking(true);
    plot->installEventFilter(this);
    connect(plot, &QCustomPlot::mouseMove, this, [this, plot](QMouseEvent *event) {
        showHover(plot, event->position().toPoint());
    });
}

void MemoryPanel::setUpRatesPlot()
{
    QCustomPlot *plot = m_ui->ratesPlot;

    // Three panes side by side, because their numbers differ by orders of
    // magnitude: bytes moved, minor faults (thousands), and the faults that
    // waited for the disk (a handful).
    QCPAxisRect *diskRect = plot->axisRect();
    plot->plotLayout()->take(diskRect);
    plot->plotLayout()->simplify();
    auto *minorRect = new QCPAxisRect(plot);
    auto *majorRect = new QCPAxisRect(plot);
    auto *panes = new QCPLayoutGrid;
    plot->plotLayout()->addElement(0, 0, panes);

    const QList<std::pair<QCPAxisRect *, QString>> paneTitles = {
        {diskRect, i18nc("@title plot pane", "Disk reads and writes")},
        {minorRect, i18nc("@title plot pane", "Minor page faults")},
        {majorRect, i18nc("@title plot pane", "Major faults and refaults")},
    };
    auto *margins = new QCPMarginGroup(plot);
    for (int column = 0; column < paneTitles.size(); ++column) {
        QCPAxisRect *rect = paneTitles[column].first;
        auto *title = new QCPTextElement(plot, paneTitles[column].second);
        panes->addElement(0, column, title);
        panes->addElement(1, column, rect);
        rect->setMarginGroup(QCP::msTop | QCP::msBottom, margins);
        rect->setRangeDrag(Qt::Orientations());
        rect->setRangeZoom(Qt::Orientations());
        // Grids under the lines.
        const auto axes = rect->axes();
        for (QCPAxis *axis : axes) {
            axis->grid()->setLayer(QStringLiteral("grid"));
        }
    }
    panes->setRowStretchFactor(0, 0.001);
    panes->setColumnSpacing(8);

    m_readGraph = addLineGraph(plot, bottomAxis(diskRect), leftAxis(diskRect), i18nc("@label plot legend", "Read from disk"), readColor);
    m_writtenGraph = addLineGraph(plot, bottomAxis(diskRect), leftAxis(diskRect), i18nc("@label plot legend", "Written to disk"), writtenColor);
    m_minorFaultsGraph = addLineGraph(plot, bottomAxis(minorRect), leftAxis(minorRect), i18nc("@label plot legend", "Minor faults"), minorFaultsColor);
    m_majorFaultsGraph = addLineGraph(plot, bottomAxis(majorRect), leftAxis(majorRect), i18nc("@label plot legend", "Major faults"), majorFaultsColor);
    m_refaultsGraph = addLineGraph(plot, bottomAxis(majorRect), leftAxis(majorRect), i18nc("@label plot legend", "Refaults"), refaultsColor);

    leftAxis(diskRect)->setLabel(i18nc("@label:axis", "MiB/s"));
    leftAxis(minorRect)->setLabel(i18nc("@label:axis", "thousands per second"));
    leftAxis(majorRect)->setLabel(i18nc("@label:axis", "per second"));
    leftAxis(diskRect)->setRange(0, 1);
    leftAxis(minorRect)->setRange(0, 1);
    leftAxis(majorRect)->setRange(0, 10);

    PlotStyle::placeLegendBelow(plot, diskRect, 1);
    plot->legend->setColumnSpacing(16);

    plot->setWhatsThis(
        i18nc("@info:whatsthis",
              "How busy the page cache is, from /proc/vmstat. Disk reads and writes: data moved between the cache and the disks. Minor faults: a "
              "program touched a page that was already in memory. Major faults: a touched page of mapped memory had to come from the disk "
              "(a read() that waits for the disk is no fault). Refaults: file pages read again after "
              "the kernel evicted them (told by how many pages were evicted in between, not by time); many are a sign that the "
              "cache is too small for what runs."));
    trackHover(plot);
}

void MemoryPanel::setUpTimeAxis()
{
    // Seconds relative to the newest sample, labelled the way people say it;
    // the activity panes are a third as wide and take short labels.
    m_ui->plot->xAxis->setTicker(QSharedPointer<AgoTicker>::create(AgoTicker::Style::Long));
    auto shortTicker = QSharedPointer<AgoTicker>::create(AgoTicker::Style::Short);
    const auto rects = m_ui->ratesPlot->axisRects();
    for (QCPAxisRect *rect : rects) {
        bottomAxis(rect)->setTicker(shortTicker);
    }
    applyTimeSpan();
}

double MemoryPanel::shownSeconds() const
{
    // What there is, up to the history: the plots fill their width from the
    // first sample on instead of drawing a thin column at the right of an
    // empty history. Two seconds at least: one sample alone has no span.
    constexpr double shortest = 2.0;
    if (m_samples.empty()) {
        return m_historySeconds;
    }
    return std::clamp(m_samples.back().time - m_samples.front().time, std::min(shortest, m_historySeconds), m_historySeconds);
}

void MemoryPanel::applyTimeSpan()
{
    const double span = shownSeconds();
    m_ui->plot->xAxis->setRange(-span, 0);
    const auto rects = m_ui->ratesPlot->axisRects();
    for (QCPAxisRect *rect : rects) {
        bottomAxis(rect)->setRange(-span, 0);
    }
}

void MemoryPanel::setHistoryMinutes(int minutes)
{
    const double seconds = std::clamp(minutes, 1, 24 * 60) * 60.0;
    if (seconds == m_historySeconds) {
        return;
    }
    m_historySeconds = seconds;
    setUpTimeAxis();
    if (!m_samples.empty()) {
        while (m_samples.size() > 2 && m_samples.back().time - m_samples[1].time > m_historySeconds) {
            m_samples.pop_front();
        }
        replot();
        replotRates();
    }
}

void MemoryPanel::applyPalette()
{
    for (QCustomPlot *plot : {m_ui->plot, m_ui->ratesPlot}) {
        Cachescope::App::PlotStyle::apply(plot);
    }
    for (QCPItemStraightLine *line : std::as_const(m_hoverLines)) {
        line->setPen(QPen(palette().color(QPalette::WindowText), 1));
    }
}

void MemoryPanel::addSample(const MemorySample &sample)
{
    m_samples.push_back(sample);
    // Keep one sample beyond the left edge so that the areas reach it.
    while (m_samples.size() > 2 && sample.time - m_samples[1].time > m_historySeconds) {
        m_samples.pop_front();
    }
    m_ui->figuresTable->showFigures(sample.figures);
    describeLatest();
    replot();
    if (sample.rates || m_ratesShown) {
        replotRates();
    } else {
        m_ratesPlotStale = true;
    }
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
        const double total = double(figures.total) / bytesPerGiB;
        const double usedTop = std::min(double(figures.used) / bytesPerGiB, total);
        const double cacheTop = std::max(usedTop, total - double(figures.free) / bytesPerGiB);
        const double buffersTop = std::min(usedTop + double(figures.buffers) / bytesPerGiB, cacheTop);
        used.append(usedTop);
        buffers.append(buffersTop);
        cache.append(cacheTop);
        free.append(total);
        dirty.append(double(sample.dirty) / bytesPerMiB);
        writeback.append(double(sample.writeback) / bytesPerMiB);
        highestLine = std::max({highestLine, dirty.back(), writeback.back()});
    }
    m_usedGraph->setData(keys, used, true);
    m_buffersGraph->setData(keys, buffers, true);
    m_cacheGraph->setData(keys, cache, true);
    m_freeGraph->setData(keys, free, true);
    m_dirtyGraph->setData(keys, dirty, true);
    m_writebackGraph->setData(keys, writeback, true);

    m_markers->place(now, m_historySeconds);
    applyTimeSpan();

    const double totalGiB = double(m_samples.back().figures.total) / bytesPerGiB;
    m_ui->plot->yAxis->setRange(0, totalGiB > 0 ? totalGiB : 1);
    // Headroom above the highest line, but never a scale so fine that a few
    // kilobytes of dirty data look like a storm.
    m_ui->plot->yAxis2->setRange(0, std::max(16.0, highestLine * 1.25));

    // Filling the data costs microseconds; drawing it costs milliseconds,
    // and is done only when someone can see it (and when they come back).
    if (canBeSeen(m_ui->plot)) {
        m_ui->plot->replot(QCustomPlot::rpQueuedReplot);
    } else {
        m_plotStale = true;
    }
}

void MemoryPanel::replotRates()
{
    if (m_samples.empty()) {
        return;
    }
    const double now = m_samples.back().time;
    const auto count = static_cast<qsizetype>(m_samples.size());
    QList<double> keys, read, written, minor, major, refaults;
    for (QList<double> *list : {&keys, &read, &written, &minor, &major, &refaults}) {
        list->reserve(count);
    }
    double highestDisk = 0, highestMinor = 0, highestMajor = 0;
    // A sample without rates (vmstat was not read then) becomes a gap.
    const double gap = std::numeric_limits<double>::quiet_NaN();
    for (const MemorySample &sample : m_samples) {
        keys.append(sample.time - now);
        if (!sample.rates) {
            for (QList<double> *list : {&read, &written, &minor, &major, &refaults}) {
                list->append(gap);
            }
            continue;
        }
        const VmStatRates &rates = *sample.rates;
        read.append(rates.readKiBPerSecond / 1024.0);
        written.append(rates.writtenKiBPerSecond / 1024.0);
        // Thousands: a busy desktop has tens of thousands a second, and
        // six-digit tick labels would crowd the narrow pane.
        minor.append(rates.minorFaultsPerSecond / 1000.0);
        major.append(rates.majorFaultsPerSecond);
        refaults.append(rates.refaultsPerSecond.value_or(gap));
        highestDisk = std::max({highestDisk, read.back(), written.back()});
        highestMinor = std::max(highestMinor, minor.back());
        highestMajor = std::max({highestMajor, major.back(), rates.refaultsPerSecond.value_or(0)});
    }
    m_readGraph->setData(keys, read, true);
    m_writtenGraph->setData(keys, written, true);
    m_minorFaultsGraph->setData(keys, minor, true);
    m_majorFaultsGraph->setData(keys, major, true);
    m_refaultsGraph->setData(keys, refaults, true);
    m_readGraph->valueAxis()->setRange(0, std::max(1.0, highestDisk * 1.2));
    m_minorFaultsGraph->valueAxis()->setRange(0, std::max(1.0, highestMinor * 1.2));
    m_majorFaultsGraph->valueAxis()->setRange(0, std::max(10.0, highestMajor * 1.2));

    if (m_ratesShown) {
        m_ui->ratesPlot->replot(QCustomPlot::rpQueuedReplot);
    } else {
        m_ratesPlotStale = true;
    }
}

bool MemoryPanel::ratesShown() const
{
    return m_ratesShown;
}

void MemoryPanel::addActivityPart(QWidget *part)
{
    if (!m_activitySplitter) {
        m_activitySplitter = new QSplitter(Qt::Vertical, m_ui->activityTab);
        m_activitySplitter->setObjectName(QStringLiteral("activitySplitter"));
        m_activitySplitter->setChildrenCollapsible(false);
        m_ui->activityTabLayout->removeWidget(m_ui->ratesPlot);
        m_activitySplitter->addWidget(m_ui->ratesPlot);
        m_ui->activityTabLayout->addWidget(m_activitySplitter);
    }
    // The part asks for no height of its own: the panel's smallest size
    // stays the plots', and a small window shows the plot whole.
    QSizePolicy policy = part->sizePolicy();
    policy.setVerticalPolicy(QSizePolicy::Ignored);
    part->setSizePolicy(policy);
    m_activitySplitter->addWidget(part);
    // Both grow with the tab, the part a little more: its lists need rows.
    m_activitySplitter->setStretchFactor(0, 2);
    m_activitySplitter->setStretchFactor(m_activitySplitter->indexOf(part), 3);
}

QWidget *MemoryPanel::activityTab() const
{
    return m_ui->activityTab;
}

void MemoryPanel::updateVisibility()
{
    const bool ratesShown = canBeSeen(this) && m_ui->plotTabs->currentWidget() == m_ui->activityTab;
    if (canBeSeen(m_ui->plot) && m_plotStale) {
        m_plotStale = false;
        m_ui->plot->replot(QCustomPlot::rpQueuedReplot);
    }
    if (ratesShown != m_ratesShown) {
        m_ratesShown = ratesShown;
        if (ratesShown && m_ratesPlotStale) {
            // Its data may be behind too: the samples since then have none.
            m_ratesPlotStale = false;
            replotRates();
        }
        Q_EMIT ratesShownChanged(ratesShown);
    }
}

void MemoryPanel::showEvent(QShowEvent *event)
{
    QWidget::showEvent(event);
    updateVisibility();
}

void MemoryPanel::hideEvent(QHideEvent *event)
{
    QWidget::hideEvent(event);
    updateVisibility();
}

const MemorySample *MemoryPanel::sampleNear(double key) const
{
    if (m_samples.empty()) {
        return nullptr;
    }
    const double time = m_samples.back().time + key;
    auto after = std::lower_bound(m_samples.begin(), m_samples.end(), time, [](const MemorySample &sample, double t) {
        return sample.time < t;
    });
    if (after == m_samples.end()) {
        return &m_samples.back();
    }
    if (after != m_samples.begin()) {
        const auto before = std::prev(after);
        if (time - before->time < after->time - time) {
            return &*before;
        }
    }
    return &*after;
}

QString MemoryPanel::timeText(double key) const
{
    const auto milliseconds = static_cast<quint64>(std::llround(std::abs(key) * 1000.0));
    if (milliseconds < 500) {
        return i18nc("@label time of a sample", "Now");
    }
    return i18nc("@label time of a sample, %1 is a duration", "%1 ago", KFormat().formatSpelloutDuration(milliseconds));
}

QList<MemoryPanel::Figure> MemoryPanel::memoryFigures(const MemorySample &sample) const
{
    const Cachescope::FreeFigures &figures = sample.figures;
    return {
        {usedColor, m_usedGraph->name(), bytesText(figures.used)},
        {buffersColor, m_buffersGraph->name(), bytesText(figures.buffers)},
        {cacheColor, m_cacheGraph->name(), bytesText(figures.cache)},
        {freeColor, m_freeGraph->name(), bytesText(figures.free)},
        {dirtyColor, i18nc("@label memory figure", "Dirty"), bytesText(sample.dirty)},
        {writebackColor, i18nc("@label memory figure", "Writeback"), bytesText(sample.writeback)},
        {Qt::transparent, i18nc("@label memory figure", "Available"), bytesText(figures.available)},
    };
}

QList<MemoryPanel::Figure> MemoryPanel::rateFigures(const VmStatRates &rates) const
{
    return {
        {readColor, m_readGraph->name(), formatByteRate(rates.readKiBPerSecond)},
        {writtenColor, m_writtenGraph->name(), formatByteRate(rates.writtenKiBPerSecond)},
        {minorFaultsColor, m_minorFaultsGraph->name(), formatRate(rates.minorFaultsPerSecond)},
        {majorFaultsColor, m_majorFaultsGraph->name(), formatRate(rates.majorFaultsPerSecond)},
        {refaultsColor,
         m_refaultsGraph->name(),
         rates.refaultsPerSecond ? formatRate(*rates.refaultsPerSecond) : i18nc("@item not known on this kernel", "unknown")},
    };
}

QString MemoryPanel::memoryHoverText(double key) const
{
    const MemorySample *sample = sampleNear(key);
    if (!sample) {
        return {};
    }
    QString rows;
    const auto figures = memoryFigures(*sample);
    for (const Figure &figure : figures) {
        rows += hoverRow(figure.color, figure.name, figure.value);
    }
    // Markers within a hundredth of the visible time of the pointer.
    const double now = m_samples.back().time;
    const QString markers = m_markers->detailsNear(now + key, m_historySeconds / 100);
    return QStringLiteral("<b>%1</b><table>%2</table>%3").arg(timeText(sample->time - now).toHtmlEscaped(), rows, markers);
}

void MemoryPanel::describeLatest()
{
    // Read by a screen reader as the plots' description; written only while one listens.
    if (m_samples.empty() || !accessibilityActive()) {
        return;
    }
    const auto sentence = [](const QList<Figure> &figures) {
        QStringList parts;
        for (const Figure &figure : figures) {
            parts << i18nc("@info accessible description of a plot: a figure's name and its latest value", "%1 %2", figure.name, figure.value);
        }
        return i18nc("@info accessible description of a plot, %1 its latest figures", "Now: %1", parts.join(i18nc("@info list separator", ", ")));
    };
    const MemorySample &latest = m_samples.back();
    m_ui->plot->setAccessibleDescription(sentence(memoryFigures(latest)));
    if (latest.rates) {
        m_ui->ratesPlot->setAccessibleDescription(sentence(rateFigures(*latest.rates)));
    }
}

int MemoryPanel::markerCount() const
{
    return m_markers->count();
}

void MemoryPanel::addMarker(const QString &label, const QString &details)
{
    const double time = monotonicSeconds();
    m_markers->add(time, label, details, palette());
    m_markers->place(m_samples.empty() ? time : m_samples.back().time, m_historySeconds);
    if (canBeSeen(m_ui->plot)) {
        m_ui->plot->replot(QCustomPlot::rpQueuedReplot);
    }
}

QString MemoryPanel::ratesHoverText(double key) const
{
    const MemorySample *sample = sampleNear(key);
    if (!sample) {
        return {};
    }
    const QString heading = QStringLiteral("<b>%1</b>").arg(timeText(sample->time - m_samples.back().time).toHtmlEscaped());
    if (!sample->rates) {
        return heading + QStringLiteral("<br>") + i18nc("@info:tooltip", "Not measured: activity is read only while this tab is on screen.").toHtmlEscaped();
    }
    QString rows;
    const auto figures = rateFigures(*sample->rates);
    for (const Figure &figure : figures) {
        rows += hoverRow(figure.color, figure.name, figure.value);
    }
    return QStringLiteral("%1<table>%2</table>").arg(heading, rows);
}

void MemoryPanel::showHover(QCustomPlot *plot, const QPoint &position)
{
    QCPAxisRect *rect = plot->axisRectAt(position);
    if (!rect || m_samples.empty() || !rect->rect().contains(position)) {
        for (QCPItemStraightLine *line : std::as_const(m_hoverLines)) {
            line->setVisible(false);
        }
        QToolTip::hideText();
        plot->replot(QCustomPlot::rpQueuedReplot);
        return;
    }
    const double key = std::clamp(bottomAxis(rect)->pixelToCoord(position.x()), -m_historySeconds, 0.0);
    const MemorySample *sample = sampleNear(key);
    const double sampleKey = sample->time - m_samples.back().time;

    // One line per pane, made the first time it is needed.
    const auto paneRects = plot->axisRects();
    for (QCPAxisRect *paneRect : paneRects) {
        auto found = std::find_if(m_hoverLines.begin(), m_hoverLines.end(), [paneRect](QCPItemStraightLine *line) {
            return line->clipAxisRect() == paneRect;
        });
        QCPItemStraightLine *line = found != m_hoverLines.end() ? *found : nullptr;
        if (!line) {
            line = new QCPItemStraightLine(plot);
            line->setClipAxisRect(paneRect);
            line->point1->setAxes(bottomAxis(paneRect), leftAxis(paneRect));
            line->point2->setAxes(bottomAxis(paneRect), leftAxis(paneRect));
            line->setPen(QPen(palette().color(QPalette::WindowText), 1));
            line->setSelectable(false);
            m_hoverLines.append(line);
        }
        line->point1->setCoords(sampleKey, 0);
        line->point2->setCoords(sampleKey, 1);
        line->setVisible(true);
    }
    plot->replot(QCustomPlot::rpQueuedReplot);
    const QString text = plot == m_ui->plot ? memoryHoverText(key) : ratesHoverText(key);
    QToolTip::showText(plot->mapToGlobal(position), text, plot);
}

bool MemoryPanel::eventFilter(QObject *watched, QEvent *event)
{
    if (event->type() == QEvent::Leave && (watched == m_ui->plot || watched == m_ui->ratesPlot)) {
        auto *plot = static_cast<QCustomPlot *>(watched);
        for (QCPItemStraightLine *line : std::as_const(m_hoverLines)) {
            if (line->parentPlot() == plot) {
                line->setVisible(false);
            }
        }
        plot->replot(QCustomPlot::rpQueuedReplot);
    }
    return QWidget::eventFilter(watched, event);
}

bool MemoryPanel::exportPlot(const QString &path, QString *error)
{
    QCustomPlot *plot = m_ui->plotTabs->currentWidget() == m_ui->activityTab ? m_ui->ratesPlot : m_ui->plot;
    const QString title = m_ui->plotTabs->tabText(m_ui->plotTabs->currentIndex()).remove(QLatin1Char('&'));
    return MemoryExport::writePlot(plot, title, path, error);
}

bool MemoryPanel::exportSamples(const QString &path, QString *error)
{
    return MemoryExport::writeSamples(m_samples, path, error);
}

void MemoryPanel::askExportPlot()
{
    const QString path = MemoryExport::askPlotPath(this);
    if (path.isEmpty()) {
        return;
    }
    QString error;
    if (exportPlot(path, &error)) {
        Q_EMIT message(i18nc("@info %1 is a file path", "Saved the plot to %1.", path), false);
    } else {
        Q_EMIT message(error, true);
    }
}

void MemoryPanel::askExportSamples()
{
    const QString path = MemoryExport::askSamplesPath(this);
    if (path.isEmpty()) {
        return;
    }
    QString error;
    if (exportSamples(path, &error)) {
        Q_EMIT message(i18ncp("@info %2 is a file path", "Saved %1 sample to %2.", "Saved %1 samples to %2.", int(m_samples.size()), path), false);
    } else {
        Q_EMIT message(error, true);
    }
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
        m_ui->figuresTable->fitHeight();
        m_ui->plot->replot(QCustomPlot::rpQueuedReplot);
        m_ui->ratesPlot->replot(QCustomPlot::rpQueuedReplot);
        break;
    default:
        break;
    }
}

} // namespace Cachescope::App
