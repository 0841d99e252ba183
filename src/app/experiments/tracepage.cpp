// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers

#include "tracepage.h"

#include "barchart.h"
#include "experimentrunner.h"
#include "experiments/engines.h"
#include "figuretext.h"
#include "format.h"
#include "heatmap/heatmapwidget.h"
#include "plotstyle.h"
#include "residency.h"
#include "traceextentsmodel.h"
#include "tracetimeline.h"

#include "ui_ExperimentTraceParametersBase.h"

#include <KLocalizedString>

#include <QComboBox>
#include <QFileInfo>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QPainter>
#include <QPushButton>
#include <QSortFilterProxyModel>
#include <QSpinBox>
#include <QTabWidget>
#include <QTableView>
#include <QVBoxLayout>

#include <qcustomplot.h>

#include <algorithm>
#include <cmath>

namespace Cachescope::App
{

using namespace Experiments;
using namespace Trace;

namespace
{
// The size the timeline is exported at when it has not been laid out on screen.
constexpr QSize fallbackTimelineSize{900, 500};
// Cells of the heatmap of a traced file: one a page up to this many pages.
constexpr int heatmapCells = 1024;

// The two places the page meets the engines.
// command empty for the lesson; tracefs: through privileged.trace, else the residency difference.
std::unique_ptr<Experiment> makeTraceEngine(const std::vector<std::string> &command,
                                            int timeLimitSeconds,
                                            bool tracefs,
                                            const QString &folder,
                                            const PrivilegedSteps &privileged,
                                            QString *error)
{
    TraceParameters parameters;
    parameters.command = command;
    parameters.timeoutSeconds = timeLimitSeconds;
    parameters.forceFallback = !tracefs;
    parameters.traceFolder = folder.toStdString();
    if (command.empty()) {
        std::string lookedFor;
        parameters.lessonReader = findTraceLessonReader(&lookedFor);
        if (parameters.lessonReader.empty()) {
            *error = i18nc("@info %1 where it was looked for", "The lesson's program is not installed (%1).", QString::fromStdString(lookedFor));
            return nullptr;
        }
    }
    return makeTraceExperiment(parameters, privileged);
}

std::unique_ptr<Experiment> makeReplayEngine(const Report &report, int runs, int timeLimitSeconds, const PrivilegedSteps &privileged)
{
    ReplayParameters parameters;
    parameters.report = report;
    parameters.runs = runs;
    parameters.checkColdStart = !report.command.empty();
    parameters.timeoutSeconds = timeLimitSeconds;
    return makeReplayExperiment(parameters, privileged);
}

// The seed's check of the replay: replayed cold I/O plus a warm start
// against a measured cold start; and what sorting by the disk gained.
QString replayCheckText(const Result &result)
{
    QStringList paragraphs;
    const QJsonObject check = result.details.value(QStringLiteral("check")).toObject();
    if (!check.isEmpty()) {
        const auto seconds = [&check](const char *key) {
            return formatNumber(check.value(QLatin1String(key)).toDouble());
        };
        const double percent = check.value(QStringLiteral("difference_percent")).toDouble();
        const QString amount = QLocale().toString(std::abs(percent), 'f', 1);
        // difference = measured - (replayed + warm): positive when the sum falls short.
        const QString comparison = percent >= 0 ? i18nc("@info %1 percent", "%1% less than the measured cold start", amount)
                                                : i18nc("@info %1 percent", "%1% more than the measured cold start", amount);
        paragraphs << xi18nc("@info %1 cold start, %2 replayed, %3 warm start, %4 their sum, all seconds; %5 how far off",
                             "<para><emphasis strong='true'>The check:</emphasis> the measured cold start took %1 s. The replayed cold "
                             "I/O (recorded order, %2 s) plus a warm start (%3 s) make %4 s: %5.</para>",
                             seconds("cold_seconds"),
                             seconds("replayed_seconds"),
                             seconds("warm_seconds"),
                             seconds("replayed_plus_warm_seconds"),
                             comparison);
    }
    const QJsonValue speedup = result.details.value(QStringLiteral("disk_order_speedup"));
    if (speedup.isDouble()) {
        paragraphs << xi18nc("@info %1 a ratio",
                             "<para>Sorted by their place on the disk, the same reads were %1× as fast as in the order they came "
                             "(1× is no gain; on an SSD or a virtual disk expect little or none).</para>",
                             formatNumber(speedup.toDouble()));
    }
    return paragraphs.join(QString());
}

QString percentText(double part, double whole)
{
    return whole > 0 ? i18nc("@item percentage", "%1%", QLocale().toString(100.0 * part / whole, 'f', 1)) : QStringLiteral("–");
}

// Pages a trace saw read of one file, in buckets over the file; the asked-for
// ones in the place of dirty pages (HeatmapMeaning::TracedReads). An extent
// says how many of its pages were asked for, not which: they are shared out
// over its buckets in proportion, the first buckets taking the remainder.
Histogram tracedHistogram(const Report &report, int file, uint64_t *sizeBytes)
{
    const uint64_t page = pageSize();
    uint64_t endPage = 0;
    for (const Extent &extent : report.extents) {
        if (extent.file == file) {
            endPage = std::max(endPage, extent.firstPage + extent.pageCount);
        }
    }
    *sizeBytes = std::max(report.files[size_t(file)].sizeBytes, endPage * page);
    Histogram histogram;
    histogram.method = ResidencyMethod::None;
    histogram.pages = pagesFor(*sizeBytes);
    histogram.detail = report.usageKnown;
    const int buckets = int(std::clamp<uint64_t>(histogram.pages, 1, heatmapCells));
    histogram.resident.assign(size_t(buckets), 0);
    histogram.dirty.assign(size_t(buckets), 0);
    histogram.writeback.assign(size_t(buckets), 0);
    if (histogram.pages == 0) {
        return histogram;
    }
    for (const Extent &extent : report.extents) {
        if (extent.file != file || extent.pageCount == 0) {
            continue;
        }
        const uint64_t last = std::min(extent.firstPage + extent.pageCount, histogram.pages);
        uint64_t askedLeft = extent.askedPages;
        int bucket = int(extent.firstPage * uint64_t(buckets) / histogram.pages);
        for (uint64_t first = extent.firstPage; first < last && bucket < buckets; ++bucket) {
            const uint64_t end = std::min(last, histogram.firstPage(bucket + 1));
            if (end <= first) {
                continue;
            }
            const uint64_t overlap = end - first;
            histogram.resident[size_t(bucket)] += overlap;
            // Rounded up, so that the first buckets take the remainder.
            const uint64_t asked = std::min({askedLeft, overlap, (extent.askedPages * overlap + extent.pageCount - 1) / extent.pageCount});
            histogram.dirty[size_t(bucket)] += asked;
            askedLeft -= asked;
            first = end;
        }
    }
    return histogram;
}
} // namespace

TracePage::TracePage(QWidget *parent)
    : ExperimentPage({QStringLiteral("trace"),
                      i18nc("@title experiment", "Where a Start's Pages Come From"),
                      i18nc("@title experiment", "Every page a program's start reads from the disk: when, where, and why"),
                      QStringLiteral("view-calendar-timeline")},
                     parent)
    , m_form(std::make_unique<Ui::ExperimentTraceParametersBase>())
    , m_replayRunner(new ExperimentRunner(this))
{
    setUpPage({
        makeParametersForm(*m_form),
        xi18nc("@info",
               "<para>The program starts with its own files evicted, and every page the kernel then reads for it is recorded: "
               "which file, where, and when. Pages side by side that came in one after another make an "
               "<emphasis>extent</emphasis>.</para>"
               "<para>The kernel reads more than a program asks for: that is <emphasis>readahead</emphasis>. Blue marks hold "
               "pages the program asked for, green ones only readahead brought in. Without administrator rights the page "
               "compares residency instead: which pages, but not when.</para>"
               "<para><interface>Replay</interface> reads the extents of a program's trace again: as they came, by file, and by "
               "place on the disk. The built-in lesson removes its file after its trace, so it leaves nothing to replay: trace a "
               "program of your own for that.</para>"),
        {},
        QString(),
        QString(),
        {},
    });
    addPrivilegedOption(m_form->tracefsCheck,
                        i18nc("@info:tooltip",
                              "Records the kernel's page-cache events for the program and its children through the privileged "
                              "helper: every page, when it came, and whether the program asked for it. You may be asked for "
                              "your password. Without it the page compares residency: which pages, but no order and no time."));
    const auto lessonChosen = [this] {
        const bool lesson = m_form->programCombo->currentIndex() == 0;
        m_form->commandEdit->setEnabled(!lesson);
        m_form->commandEditLabel->setEnabled(!lesson);
    };
    connect(m_form->programCombo, &QComboBox::currentIndexChanged, this, lessonChosen);
    lessonChosen();
    // The lesson's figures (256 KiB for its first 64 KiB) depend on it.
    auto *readAheadLabel = new QLabel(readAheadText(defaultFolder()), m_form->programCombo->parentWidget());
    readAheadLabel->setObjectName(QStringLiteral("readAheadLabel"));
    readAheadLabel->setWordWrap(true);
    m_form->formLayout->addWidget(readAheadLabel, m_form->formLayout->rowCount(), 0, 1, 2);

    // The timeline where the other pages have their live plot and bars.
    m_timelinePlot = new QCustomPlot(this);
    m_timelinePlot->setObjectName(QStringLiteral("timelinePlot"));
    m_timelinePlot->setMinimumSize(420, 280);
    m_timeline = new TraceTimeline(m_timelinePlot);
    replacePlots(m_timelinePlot);

    // Totals under Start and Cancel.
    m_totalsBox = new QGroupBox(i18nc("@title:group", "Totals"), this);
    m_totalsBox->setObjectName(QStringLiteral("totalsBox"));
    m_totalsLayout = new QFormLayout(m_totalsBox);
    m_totalsLayout->setRowWrapPolicy(QFormLayout::WrapLongRows);
    m_totalsBox->setVisible(false);
    addExtraWidget(m_totalsBox);

    // The extents, first of the tabs beside the results.
    m_extentsModel = new TraceExtentsModel(this);
    auto *sorted = new QSortFilterProxyModel(this);
    sorted->setSourceModel(m_extentsModel);
    sorted->setSortRole(TraceExtentsModel::SortRole);
    m_extentsTable = new QTableView(this);
    m_extentsTable->setObjectName(QStringLiteral("extentsTable"));
    m_extentsTable->setAccessibleName(i18nc("@info:whatsthis", "Extents read"));
    m_extentsTable->setModel(sorted);
    // An extent chosen in the table or on the timeline: its file in the heatmap.
    connect(m_extentsTable->selectionModel(), &QItemSelectionModel::currentRowChanged, this, [this, sorted](const QModelIndex &current) {
        const int extent = sorted->mapToSource(current).row();
        if (m_report && extent >= 0 && size_t(extent) < m_report->extents.size()) {
            const int index = m_heatmapFileCombo->findData(m_report->extents[size_t(extent)].file);
            if (index >= 0) {
                m_heatmapFileCombo->setCurrentIndex(index);
            }
        }
    });
    connect(m_timeline, &TraceTimeline::extentClicked, this, [this, sorted](int extent) {
        const QModelIndex index = sorted->mapFromSource(m_extentsModel->index(extent, 0));
        m_extentsTable->setCurrentIndex(index);
        m_extentsTable->scrollTo(index);
    });
    m_extentsTable->setSortingEnabled(true);
    m_extentsTable->sortByColumn(-1, Qt::AscendingOrder); // as they happened
    m_extentsTable->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_extentsTable->setAlternatingRowColors(true);
    m_extentsTable->setWordWrap(false);
    m_extentsTable->setTextElideMode(Qt::ElideLeft); // the file's name is at the end of its path
    m_extentsTable->verticalHeader()->setVisible(false);
    m_extentsTable->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_extentsTable->horizontalHeader()->setSectionResizeMode(TraceExtentsModel::FileColumn, QHeaderView::Stretch);
    m_extentsTable->setWhatsThis(i18nc("@info:whatsthis",
                                       "Every extent the trace saw, in the order they came: the file, where the extent starts and how long it is, when it came "
                                       "in, and how many of its pages the program asked for."));
    addResultsTab(m_extentsTable, i18nc("@title:tab", "Extents"));

    // The heatmap of one traced file.
    auto *heatmapPane = new QWidget(this);
    auto *heatmapLayout = new QVBoxLayout(heatmapPane);
    auto *fileRow = new QHBoxLayout;
    auto *fileLabel = new QLabel(i18nc("@label:listbox", "File:"), heatmapPane);
    m_heatmapFileCombo = new QComboBox(heatmapPane);
    m_heatmapFileCombo->setObjectName(QStringLiteral("heatmapFileCombo"));
    m_heatmapFileCombo->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    m_heatmapFileCombo->setMinimumContentsLength(30);
    fileLabel->setBuddy(m_heatmapFileCombo);
    fileRow->addWidget(fileLabel);
    fileRow->addWidget(m_heatmapFileCombo, 1);
    heatmapLayout->addLayout(fileRow);
    m_heatmap = new HeatmapWidget(heatmapPane);
    m_heatmap->setObjectName(QStringLiteral("traceHeatmap"));
    m_heatmap->setMeaning(HeatmapMeaning::TracedReads);
    m_heatmap->setColors(PlotColors::cache, PlotColors::plasmaBlue, QColor());
    m_heatmap->setMinimumHeight(150);
    m_heatmap->setWhatsThis(i18nc("@info:whatsthis",
                                  "The pages of the file the trace saw come in from the disk, each cell a page or a group of pages. A blue "
                                  "stripe marks pages the program asked for; the trace counts them per extent, so within an extent they "
                                  "are drawn from its start. The rest only readahead brought in."));
    heatmapLayout->addWidget(m_heatmap, 1);
    addResultsTab(heatmapPane, i18nc("@title:tab", "Pages of a File"));
    connect(m_heatmapFileCombo, &QComboBox::currentIndexChanged, this, &TracePage::showHeatmapFile);

    // The replay, with its bars.
    auto *replayPane = new QWidget(this);
    auto *replayLayout = new QVBoxLayout(replayPane);
    auto *replayRow = new QHBoxLayout;
    m_replayButton = new QPushButton(QIcon::fromTheme(QStringLiteral("media-playlist-repeat")), i18nc("@action:button", "Replay"), replayPane);
    m_replayButton->setObjectName(QStringLiteral("replayButton"));
    m_cancelReplayButton = new QPushButton(QIcon::fromTheme(QStringLiteral("process-stop")), i18nc("@action:button", "Cancel Replay"), replayPane);
    m_cancelReplayButton->setObjectName(QStringLiteral("cancelReplayButton"));
    auto *runsLabel = new QLabel(i18nc("@label:spinbox", "Runs:"), replayPane);
    m_replayRunsSpin = new QSpinBox(replayPane);
    m_replayRunsSpin->setObjectName(QStringLiteral("replayRunsSpin"));
    m_replayRunsSpin->setRange(1, 50);
    m_replayRunsSpin->setValue(3);
    m_replayRunsSpin->setToolTip(i18nc("@info:tooltip", "Each order is replayed this many times, for a mean and a 95% confidence interval"));
    runsLabel->setBuddy(m_replayRunsSpin);
    auto *barsLabel = new QLabel(i18nc("@label:listbox", "Bars show:"), replayPane);
    m_replayMeasurementCombo = new QComboBox(replayPane);
    m_replayMeasurementCombo->setObjectName(QStringLiteral("replayMeasurementCombo"));
    m_replayMeasurementCombo->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    barsLabel->setBuddy(m_replayMeasurementCombo);
    replayRow->addWidget(m_replayButton);
    replayRow->addWidget(m_cancelReplayButton);
    replayRow->addWidget(runsLabel);
    replayRow->addWidget(m_replayRunsSpin);
    replayRow->addStretch(1);
    replayRow->addWidget(barsLabel);
    replayRow->addWidget(m_replayMeasurementCombo);
    replayLayout->addLayout(replayRow);
    m_replayStatus = new QLabel(replayPane);
    m_replayStatus->setObjectName(QStringLiteral("replayStatus"));
    m_replayStatus->setWordWrap(true);
    m_replayStatus->setTextInteractionFlags(Qt::TextSelectableByMouse);
    replayLayout->addWidget(m_replayStatus);
    auto *replayResults = new QHBoxLayout;
    m_replayPlot = new QCustomPlot(replayPane);
    m_replayPlot->setObjectName(QStringLiteral("replayPlot"));
    m_replayPlot->setMinimumSize(320, 200);
    m_replayChart = std::make_unique<BarChart>(m_replayPlot,
                                               m_replayMeasurementCombo,
                                               QList<BarPreset>{
                                                   {i18nc("@item:inlistbox", "Throughput"), {QStringLiteral("throughput")}},
                                                   {i18nc("@item:inlistbox", "Replay and cold start times"),
                                                    {QStringLiteral("seconds"), QStringLiteral("cold_seconds"), QStringLiteral("warm_seconds")}},
                                               });
    replayResults->addWidget(m_replayPlot, 2);
    m_replayCheckLabel = new QLabel(replayPane);
    m_replayCheckLabel->setObjectName(QStringLiteral("replayCheckLabel"));
    m_replayCheckLabel->setWordWrap(true);
    m_replayCheckLabel->setAlignment(Qt::AlignTop | Qt::AlignLeft);
    m_replayCheckLabel->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_replayCheckLabel->setMinimumWidth(200);
    replayResults->addWidget(m_replayCheckLabel, 1);
    replayLayout->addLayout(replayResults, 1);
    addResultsTab(replayPane, i18nc("@title:tab", "Replay"));
    connect(m_replayButton, &QPushButton::clicked, this, &TracePage::replay);
    connect(m_cancelReplayButton, &QPushButton::clicked, this, &TracePage::cancelReplay);
    connect(m_replayMeasurementCombo, &QComboBox::currentIndexChanged, this, [this] {
        m_replayChart->draw();
    });
    connect(m_replayRunner, &ExperimentRunner::eventArrived, this, [this](const Event &event) {
        if (!m_replayRunner->isCancelling()) {
            m_replayStatus->setText(engineText(event.text));
        }
    });
    connect(m_replayRunner, &ExperimentRunner::finished, this, &TracePage::replayDone);

    // The exports: the trace file besides the extents and the timeline.
    auto *exportJsonButton = new QPushButton(QIcon::fromTheme(QStringLiteral("document-export")), i18nc("@action:button", "Export Trace…"), this);
    exportJsonButton->setObjectName(QStringLiteral("exportJsonButton"));
    exportJsonButton->setToolTip(i18nc("@info:tooltip", "Save the trace as a JSON file, for cachescope-cli experiment replay --trace"));
    exportJsonButton->setEnabled(false);
    addExportButton(exportJsonButton);
    connect(exportJsonButton, &QPushButton::clicked, this, &TracePage::askExportJson);
    exportCsvButton()->setText(i18nc("@action:button", "Export Extents…"));
    exportCsvButton()->setToolTip(i18nc("@info:tooltip", "Save the extents table as CSV, for a spreadsheet"));
    exportPngButton()->setText(i18nc("@action:button", "Export Timeline…"));
    exportPngButton()->setToolTip(i18nc("@info:tooltip", "Save the timeline as a PNG image"));

    connect(this, &ExperimentPage::resultsShown, this, &TracePage::showShownResult);
    connect(this, &ExperimentPage::runningChanged, this, &TracePage::updateButtons);
    connect(this, &ExperimentPage::runStarting, this, [this] {
        m_replayResult.reset();
        m_replayChart->showResults(std::nullopt, std::nullopt, QString());
        m_replayStatus->clear();
        m_replayCheckLabel->clear();
    });
    // The extents are what a run gives: show them first.
    if (auto *tabs = findChild<QTabWidget *>(QStringLiteral("resultsTabs"))) {
        tabs->setCurrentWidget(m_extentsTable);
    }
    showReport(std::nullopt);
}

TracePage::~TracePage() = default;

const std::optional<Report> &TracePage::shownReport() const
{
    return m_report;
}

QCustomPlot *TracePage::timelinePlot() const
{
    return m_timelinePlot;
}

TraceTimeline *TracePage::timeline() const
{
    return m_timeline;
}

QTableView *TracePage::extentsTable() const
{
    return m_extentsTable;
}

HeatmapWidget *TracePage::fileHeatmap() const
{
    return m_heatmap;
}

QComboBox *TracePage::heatmapFileCombo() const
{
    return m_heatmapFileCombo;
}

QStringList TracePage::totals() const
{
    return m_totals;
}

QPushButton *TracePage::replayButton() const
{
    return m_replayButton;
}

QPushButton *TracePage::cancelReplayButton() const
{
    return m_cancelReplayButton;
}

QCustomPlot *TracePage::replayPlot() const
{
    return m_replayPlot;
}

QLabel *TracePage::replayCheckLabel() const
{
    return m_replayCheckLabel;
}

bool TracePage::isReplaying() const
{
    return m_replayRunner->isRunning();
}

const std::optional<Result> &TracePage::replayResult() const
{
    return m_replayResult;
}

std::unique_ptr<Experiment> TracePage::makeExperiment(const PrivilegedSteps &privileged, QString *error)
{
    const bool lesson = m_form->programCombo->currentIndex() == 0;
    std::vector<std::string> command;
    if (!lesson) {
        command = splitCommand(m_form->commandEdit->text(), error);
        if (command.empty()) {
            return nullptr;
        }
    }
    // Without the check (or the helper) the engine falls back to the residency difference.
    const bool tracefs = m_form->tracefsCheck->isChecked() && m_form->tracefsCheck->isEnabled();
    return makeTraceEngine(command, m_form->timeoutSpin->value(), tracefs, defaultFolder(), privileged, error);
}

void TracePage::showShownResult()
{
    const std::optional<Result> &current = currentResult();
    const std::optional<Result> &compared = comparedResult();
    if (current && current->trace) {
        showReport(current->trace);
    } else if (compared && compared->trace) {
        showReport(compared->trace);
    } else {
        showReport(std::nullopt);
    }
}

void TracePage::showReport(const std::optional<Report> &report)
{
    m_report = report;
    // A replay needs the traced files where they were: the lesson removes its
    // file after the trace, and files go away.
    m_replayable = false;
    QString replayToolTip = i18nc("@info:tooltip", "Evict the traced files and read exactly their extents again: as recorded, in file order and in disk order");
    if (!report || report->extents.empty()) {
        replayToolTip = i18nc("@info:tooltip", "Trace a program first: the replay reads the pages its trace saw.");
    } else {
        bool anyNamed = false;
        for (const Trace::File &file : report->files) {
            anyNamed = anyNamed || (!file.metadata && !file.path.empty());
            m_replayable = m_replayable || (!file.metadata && !file.path.empty() && QFileInfo::exists(QFile::decodeName(file.path.c_str())));
        }
        if (!m_replayable && !anyNamed) {
            replayToolTip = i18nc("@info:tooltip", "None of the traced files could be named (they show as device:inode): there is nothing to replay.");
        } else if (!m_replayable && m_form->programCombo->currentIndex() == 0) {
            replayToolTip = i18nc("@info:tooltip", "The lesson removes its file after the trace: there is nothing to replay. Trace a program to replay it.");
        } else if (!m_replayable) {
            replayToolTip = i18nc("@info:tooltip", "None of the traced files is there any more: there is nothing to replay.");
        }
    }
    m_replayButton->setToolTip(replayToolTip);
    m_timeline->showReport(report);
    m_extentsModel->setReport(report);
    fillHeatmapFiles();
    showTotals();
    updateButtons();
}

void TracePage::showTotals()
{
    while (m_totalsLayout->rowCount() > 0) {
        m_totalsLayout->removeRow(0);
    }
    m_totals.clear();
    m_totalsBox->setVisible(m_report.has_value());
    if (!m_report) {
        return;
    }
    const Report &report = *m_report;
    const uint64_t page = pageSize();
    const bool traced = report.method == Method::Tracefs;
    // The files with pages read, and the metadata's pages apart: the program
    // neither asked for them nor did readahead bring them.
    QList<int> files;
    uint64_t metadataPages = 0;
    for (const Extent &extent : report.extents) {
        if (extentKind(report, extent) == ExtentKind::Metadata) {
            metadataPages += extent.pageCount;
        } else if (!files.contains(extent.file)) {
            files << extent.file;
        }
    }
    const uint64_t pages = report.pagesRead();
    const uint64_t filePages = pages - std::min(metadataPages, pages);
    QList<std::pair<QString, QString>> rows;
    rows.append(
        {i18nc("@label totals", "Method:"),
         traced ? i18nc("@item method", "The kernel's page-cache events (tracefs)") : i18nc("@item method", "Residency before and after (no order, no time)")});
    rows.append({i18nc("@label totals", "Files:"), QLocale().toString(files.size())});
    rows.append({i18nc("@label totals", "Pages read:"), QLocale().toString(qulonglong(pages))});
    rows.append({i18nc("@label totals", "Bytes read:"), formatBytes(pages * page, ByteStyle::OneDecimal, QLocale())});
    if (report.usageKnown) {
        const uint64_t readahead = report.pagesReadaheadOnly();
        rows.append({i18nc("@label totals", "Only readahead:"),
                     i18nc("@item %1 percent of the files' pages, %2 size",
                           "%1 (%2)",
                           percentText(double(readahead), double(filePages)),
                           formatBytes(readahead * page, ByteStyle::OneDecimal, QLocale()))});
    } else {
        rows.append({i18nc("@label totals", "Only readahead:"),
                     traced ? i18nc("@item", "unknown: this kernel does not tell which pages a program used") : i18nc("@item", "unknown without tracing")});
    }
    if (metadataPages > 0) {
        rows.append({i18nc("@label totals", "File system metadata:"), formatBytes(metadataPages * page, ByteStyle::OneDecimal, QLocale())});
    }
    if (!report.requests.empty()) {
        rows.append({i18nc("@label totals", "Disk requests:"), QLocale().toString(qulonglong(report.requests.size()))});
    }
    rows.append({i18nc("@label totals", "Lost events:"),
                 traced
                     ? (report.lostEvents == 0 ? i18nc("@item lost events", "none")
                                               : i18nc("@item %1 a count", "%1: some pages may be missing", QLocale().toString(qulonglong(report.lostEvents))))
                     : i18nc("@item lost events", "none (no events without tracing)")});
    if (report.durationSeconds > 0) {
        rows.append({i18nc("@label totals", "Ran for:"), formatDuration(report.durationSeconds)});
    }
    for (const std::string &note : report.notes) {
        rows.append({i18nc("@label totals", "Note:"), engineText(note)});
    }
    for (const auto &[label, value] : std::as_const(rows)) {
        auto *valueLabel = new QLabel(value, m_totalsBox);
        valueLabel->setWordWrap(true);
        valueLabel->setTextInteractionFlags(Qt::TextSelectableByMouse);
        m_totalsLayout->addRow(label, valueLabel);
        m_totals << label + QLatin1Char(' ') + value;
    }
}

void TracePage::fillHeatmapFiles()
{
    const QSignalBlocker blocker(m_heatmapFileCombo);
    m_heatmapFileCombo->clear();
    if (m_report) {
        // The files with pages read, the most first.
        QList<int> files;
        for (size_t file = 0; file < m_report->files.size(); ++file) {
            if (!m_report->files[file].metadata && m_report->files[file].pagesAdded > 0) {
                files << int(file);
            }
        }
        std::stable_sort(files.begin(), files.end(), [this](int a, int b) {
            return m_report->files[size_t(a)].pagesAdded > m_report->files[size_t(b)].pagesAdded;
        });
        for (const int file : std::as_const(files)) {
            const Trace::File &f = m_report->files[size_t(file)];
            m_heatmapFileCombo->addItem(i18nc("@item:inlistbox %1 file, %2 size read",
                                              "%1 (%2 read)",
                                              traceFileName(*m_report, file),
                                              formatBytes(f.pagesAdded * pageSize(), ByteStyle::OneDecimal, QLocale())),
                                        file);
        }
    }
    m_heatmapFileCombo->setEnabled(m_heatmapFileCombo->count() > 0);
    showHeatmapFile(m_heatmapFileCombo->count() > 0 ? 0 : -1);
}

void TracePage::showHeatmapFile(int index)
{
    if (!m_report || index < 0) {
        m_heatmap->clear();
        return;
    }
    const int file = m_heatmapFileCombo->itemData(index).toInt();
    uint64_t sizeBytes = 0;
    const Histogram histogram = tracedHistogram(*m_report, file, &sizeBytes);
    m_heatmap->showRecorded(traceFileName(*m_report, file), histogram, sizeBytes);
}

void TracePage::updateButtons()
{
    const bool replaying = isReplaying();
    const bool running = isRunning();
    m_replayButton->setEnabled(m_replayable && !running && !replaying);
    m_cancelReplayButton->setEnabled(replaying);
    m_replayRunsSpin->setEnabled(!replaying);
    // Tracing and replaying both evict and read the same files: one at a time.
    startButton()->setEnabled(!running && !replaying);
    if (auto *exportJsonButton = findChild<QPushButton *>(QStringLiteral("exportJsonButton"))) {
        exportJsonButton->setEnabled(m_report.has_value());
    }
}

void TracePage::replay()
{
    if (!m_report || isReplaying() || isRunning()) {
        return;
    }
    std::unique_ptr<Experiment> engine = makeReplayEngine(*m_report, m_replayRunsSpin->value(), m_form->timeoutSpin->value(), privilegedSteps());
    m_replayResult.reset();
    m_replayChart->showResults(std::nullopt, std::nullopt, QString());
    m_replayCheckLabel->clear();
    m_replayStatus->setText(i18nc("@info:status", "Replaying…"));
    m_replayRunner->start(std::move(engine));
    updateButtons();
}

void TracePage::cancelReplay()
{
    if (!isReplaying()) {
        return;
    }
    m_replayRunner->cancel();
    m_cancelReplayButton->setEnabled(false);
    m_replayStatus->setText(i18nc("@info:status", "Cancelling…"));
}

void TracePage::replayDone(const Result &result)
{
    if (!result.error.empty()) {
        m_replayStatus->clear();
        showMessage(i18nc("@info %1 is the reason", "The replay could not run: %1", engineText(result.error)), true);
    } else if (result.cancelled) {
        m_replayStatus->setText(i18nc("@info:status %1 a duration (1.25 s)", "Replay cancelled after %1.", formatDuration(result.seconds)));
    } else {
        QStringList lines;
        lines << i18nc("@info:status %1 a duration (1.25 s)", "Replayed in %1.", formatDuration(result.seconds));
        lines << noteLines(result);
        m_replayStatus->setText(lines.join(QLatin1Char('\n')));
        m_replayResult = result;
        m_replayChart->showResults(m_replayResult, std::nullopt, QString());
        m_replayCheckLabel->setText(replayCheckText(result));
    }
    updateButtons();
    Q_EMIT replayFinished();
}

bool TracePage::exportJson(const QString &path, QString *error) const
{
    if (!m_report) {
        if (error) {
            *error = i18nc("@info", "There is no trace to save yet.");
        }
        return false;
    }
    return writeFile(path, QJsonDocument(reportToJson(*m_report)).toJson(QJsonDocument::Indented), {}, error);
}

bool TracePage::exportCsv(const QString &path, QString *error) const
{
    if (!m_report) {
        if (error) {
            *error = i18nc("@info", "There is no trace to save yet.");
        }
        return false;
    }
    return writeFile(path, m_extentsModel->toCsv().toUtf8(), QIODevice::Text, error);
}

bool TracePage::exportPng(const QString &path, QString *error) const
{
    const QSize size = m_timelinePlot->isVisible() && m_timelinePlot->width() > 100 ? m_timelinePlot->size() : fallbackTimelineSize;
    const QImage image = m_timelinePlot->toPixmap(size.width(), size.height()).toImage();
    return writeImage(path, image, error);
}

void TracePage::askExportJson()
{
    askExport(
        i18nc("@title:window", "Export Trace"),
        QStandardPaths::DocumentsLocation,
        QStringLiteral("json"),
        i18nc("@item:inlistbox file type", "Trace file (*.json)"),
        [this](const QString &path, QString *error) {
            return exportJson(path, error);
        },
        ki18nc("@info %1 is a file path", "Saved the trace to %1."));
}

} // namespace Cachescope::App
