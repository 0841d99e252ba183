// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers

#include "folderthrashpage.h"

#include "figuretext.h"
#include "plotdescription.h"
#include "plotstyle.h"

#include "ui_ExperimentFolderThrashParametersBase.h"

#include <KLocalizedString>

#include <QHBoxLayout>
#include <QHeaderView>
#include <QRegularExpression>
#include <QTabWidget>
#include <QTableWidget>

#include <qcustomplot.h>

#include <algorithm>

namespace Cachescope::App
{

using namespace Experiments;

namespace
{

bool evictsFolderTwo(const VariantResult &variant)
{
    return variant.details.value(QStringLiteral("evict_folder_2")).toBool();
}

int fileCountOf(const VariantResult &variant)
{
    return variant.details.value(QStringLiteral("files")).toInt();
}

QString variantText(bool evict)
{
    return evict ? i18nc("@item folder-eviction variant", "Evict folder 2 first") : i18nc("@item folder-eviction variant", "Without eviction");
}

QColor variantColor(bool evict)
{
    return evict ? PlotColors::nobleGreen : PlotColors::iconRed;
}

// Each variant's line on the live plot: its kind's hue, lighter the fewer
// the files.
QHash<QString, QColor> variantColors(std::vector<int> fileCounts)
{
    std::sort(fileCounts.begin(), fileCounts.end());
    fileCounts.erase(std::unique(fileCounts.begin(), fileCounts.end()), fileCounts.end());
    QHash<QString, QColor> colors;
    for (size_t rank = 0; rank < fileCounts.size(); ++rank) {
        const double share = fileCounts.size() > 1 ? double(rank) / double(fileCounts.size() - 1) : 0.5;
        for (const bool evict : {false, true}) {
            const QColor base = variantColor(evict);
            const QString name =
                QString::fromStdString(folderThrashVariantName(fileCounts[rank], evict ? folderThrashWithEviction : folderThrashWithoutEviction));
            colors.insert(name, QColor::fromHslF(base.hslHueF(), base.hslSaturationF(), float(0.68 - 0.36 * share)));
        }
    }
    return colors;
}

// "12.3 ± 0.4" (the mean and the 95% confidence interval's half width).
QString meanText(const Measurement *measurement, double scale)
{
    if (!measurement) {
        return i18nc("@item:intable figure not known", "unknown");
    }
    const Statistics &s = measurement->statistics;
    if (s.count < 2) {
        return formatNumber(s.mean * scale);
    }
    return i18nc("@item:intable %1 mean, %2 half width of the 95% confidence interval",
                 "%1 ± %2",
                 formatNumber(s.mean * scale),
                 formatNumber(s.confidenceHalfWidth * scale));
}

QCustomPlot *makePlot(QWidget *parent, const QString &objectName, const QString &title, const QString &valueLabel, Qt::Alignment legendAlignment)
{
    auto *plot = new QCustomPlot(parent);
    plot->setObjectName(objectName);
    plot->setMinimumSize(280, 220);
    plot->plotLayout()->insertRow(0);
    plot->plotLayout()->addElement(0, 0, new QCPTextElement(plot, title));
    plot->setAccessibleName(title);
    plot->xAxis->setLabel(i18nc("@label:axis", "Files in each folder"));
    plot->yAxis->setLabel(valueLabel);
    plot->legend->setVisible(true);
    plot->axisRect()->insetLayout()->setInsetAlignment(0, legendAlignment);
    plot->setWhatsThis(i18nc("@info:whatsthis", "The mean over the runs for each file count; the whiskers show the 95% confidence interval of the mean."));
    PlotStyle::follow(plot);
    return plot;
}

// One line a variant of measurement's mean against the file count, with
// the 95% confidence interval as error bars (the seed's table as a plot).
void drawAgainstCount(QCustomPlot *plot, const std::optional<Result> &result, const char *measurement, double scale, double fixedTop)
{
    plot->clearPlottables();
    QSharedPointer<QCPAxisTickerText> ticker(new QCPAxisTickerText);
    double lowest = 0;
    double highest = 1;
    double top = 0;
    for (const bool evict : {false, true}) {
        QList<double> counts;
        QList<double> means;
        QList<double> intervals;
        for (const VariantResult &v : result ? result->variants : std::vector<VariantResult>()) {
            const Measurement *m = v.skipped || evictsFolderTwo(v) != evict ? nullptr : v.find(measurement);
            if (!m || m->statistics.count == 0) {
                continue;
            }
            counts << fileCountOf(v);
            means << m->statistics.mean * scale;
            intervals << m->statistics.confidenceHalfWidth * scale;
            ticker->addTick(fileCountOf(v), QString::number(fileCountOf(v)));
            top = std::max(top, (m->statistics.mean + m->statistics.confidenceHalfWidth) * scale);
        }
        if (counts.isEmpty()) {
            continue;
        }
        lowest = lowest == 0 ? counts.first() : std::min(lowest, counts.first());
        highest = std::max(highest, counts.last());
        QCPGraph *graph = plot->addGraph();
        graph->setName(variantText(evict));
        graph->setPen(QPen(variantColor(evict), 2));
        graph->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssCircle, variantColor(evict), variantColor(evict), 7));
        graph->setData(counts, means, true);
        auto *bars = new QCPErrorBars(plot->xAxis, plot->yAxis);
        bars->removeFromLegend();
        bars->setDataPlottable(graph);
        bars->setData(intervals);
        bars->setPen(QPen(variantColor(evict), 1.5));
        bars->setWhiskerWidth(8);
    }
    plot->xAxis->setTicker(ticker);
    const double margin = std::max(1.0, (highest - lowest) * 0.1);
    plot->xAxis->setRange(lowest - margin, highest + margin);
    plot->yAxis->setRange(0, fixedTop > 0 ? fixedTop : std::max(top * 1.15, 1e-9));
    plot->setAccessibleDescription(plotDescription(plot, PlotValues::Every));
    plot->replot();
}

} // namespace

FolderThrashPage::FolderThrashPage(QWidget *parent)
    : ExperimentPage({QStringLiteral("folder-thrash"),
                      i18nc("@title experiment", "Folder Eviction"),
                      i18nc("@title experiment", "Evicting a copy keeps the folder you will read cached"),
                      QStringLiteral("folder-sync")},
                     parent)
    , m_form(std::make_unique<Ui::ExperimentFolderThrashParametersBase>())
{
    setUpPage({
        makeParametersForm(*m_form),
        xi18nc("@info",
               "<para>Folders 1 and 3 hold the same number of files. In a memory cgroup whose cache holds about three folders, "
               "folder 1 is copied to 2, then 3 to 4, each followed by a sync, and then every file of folder 1 is read, as "
               "<command>grep</command> would.</para>"
               // Not strict LRU: pages used once sit on the inactive list (mm/vmscan.c, mm/workingset.c).
               "<para>Expect folder 1 to be pushed out by the second copy: read once and before anything else, it is the oldest "
               "thing on the kernel's list of pages used once, and its read goes "
               "to the disk again. Evicting folder 2, a copy nobody reads, before copying folder 3 leaves room: folder 1 stays "
               "cached and its read is quick. The more files, the larger the difference (a kernel patch of 2013 proposed "
               "this eviction for whole folders in one call).</para>"
               "<para>The copies and the read run in a process inside the cgroup, so nothing else on this computer is pressed. It "
               "needs the privileged helper to make the cgroup; Cancel removes the files and the cgroup.</para>"),
        // Folder 1 in the cache during a run, one line a variant: the mean
        // of its runs, over the band from their lowest to their highest.
        {fileInCacheSeries(i18nc("@label plot legend", "Folder 1 (%)"), false)},
        i18nc("@label:axis", "Folder 1 in the cache (%)"),
        QString(),
        {
            {measurementLabel("read_seconds"), {QStringLiteral("read_seconds")}},
            {measurementLabel("folder1_cached"), {QStringLiteral("folder1_cached")}},
        },
        LiveKey::RunTime,
        {},
        LiveRuns{[](const std::string &phase) {
                     return QString::fromStdString(folderThrashVariantOfPhase(phase));
                 },
                 [this](const QString &variant) {
                     return m_variantColors.value(variant, PlotColors::grey);
                 }},
    });

    m_lessonTable = new QTableWidget(this);
    m_lessonTable->setObjectName(QStringLiteral("folderThrashTable"));
    m_lessonTable->setColumnCount(LessonColumnCount);
    m_lessonTable->setHorizontalHeaderLabels({
        i18nc("@title:column", "Files"),
        i18nc("@title:column", "Variant"),
        i18nc("@title:column", "Read Folder 1 (ms)"),
        i18nc("@title:column", "Folder 1 Cached Before (%)"),
        i18nc("@title:column", "Folder 1 Reclaimed (pages)"),
        i18nc("@title:column", "Cgroup Refaults"),
    });
    m_lessonTable->horizontalHeaderItem(ReadColumn)->setToolTip(i18nc("@info:tooltip", "Mean ± the 95% confidence interval of the mean, over the runs"));
    m_lessonTable->horizontalHeaderItem(CachedColumn)->setToolTip(i18nc("@info:tooltip", "Folder 1's pages in the cache just before it was read"));
    m_lessonTable->horizontalHeaderItem(ReclaimedColumn)
        ->setToolTip(i18nc("@info:tooltip", "Folder 1's pages the cgroup's reclaim pushed out during the copies (cachestat)"));
    m_lessonTable->horizontalHeaderItem(RefaultsColumn)
        ->setToolTip(i18nc("@info:tooltip", "Pages the cgroup read again after it had reclaimed them, during the read (cgroup v2 only)"));
    m_lessonTable->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_lessonTable->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_lessonTable->setAlternatingRowColors(true);
    m_lessonTable->verticalHeader()->setVisible(false);
    m_lessonTable->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_lessonTable->horizontalHeader()->setStretchLastSection(true);
    addResultsTab(m_lessonTable, i18nc("@title:tab", "Lesson"));

    m_plots = new QWidget(this);
    m_plots->setObjectName(QStringLiteral("folderThrashPlots"));
    auto *plotsLayout = new QHBoxLayout(m_plots);
    plotsLayout->setContentsMargins(0, 0, 0, 0);
    m_timePlot = makePlot(m_plots,
                          QStringLiteral("folderThrashTimePlot"),
                          i18nc("@title plot", "Reading folder 1"),
                          i18nc("@label:axis", "Time (ms)"),
                          Qt::AlignTop | Qt::AlignLeft);
    m_cachedPlot = makePlot(m_plots,
                            QStringLiteral("folderThrashCachedPlot"),
                            i18nc("@title plot", "Folder 1 cached before the read"),
                            i18nc("@label:axis", "Cached (%)"),
                            Qt::AlignBottom | Qt::AlignLeft); // the lines run along the top
    plotsLayout->addWidget(m_timePlot);
    plotsLayout->addWidget(m_cachedPlot);
    addResultsTab(m_plots, i18nc("@title:tab", "Against the File Count"));
    connect(this, &ExperimentPage::resultsShown, this, &FolderThrashPage::showLesson);
}

FolderThrashPage::~FolderThrashPage() = default;

QTableWidget *FolderThrashPage::lessonTable() const
{
    return m_lessonTable;
}

QCustomPlot *FolderThrashPage::timePlot() const
{
    return m_timePlot;
}

QCustomPlot *FolderThrashPage::cachedPlot() const
{
    return m_cachedPlot;
}

void FolderThrashPage::showPlots()
{
    for (QWidget *up = m_plots->parentWidget(); up; up = up->parentWidget()) {
        if (auto *tabs = qobject_cast<QTabWidget *>(up)) {
            tabs->setCurrentWidget(m_plots);
            return;
        }
    }
}

void FolderThrashPage::showLesson()
{
    // This run's figures; the earlier result's when there is no run yet.
    const std::optional<Result> &shown = currentResult() ? currentResult() : comparedResult();
    m_lessonTable->setRowCount(0);
    drawAgainstCount(m_timePlot, shown, "read_seconds", 1000.0, 0);
    drawAgainstCount(m_cachedPlot, shown, "folder1_cached", 1.0, 105);
    if (!shown) {
        return;
    }
    for (const VariantResult &v : shown->variants) {
        if (v.skipped) {
            continue;
        }
        const int row = m_lessonTable->rowCount();
        m_lessonTable->insertRow(row);
        const auto put = [&](int column, const QString &text) {
            auto *item = new QTableWidgetItem(text);
            item->setTextAlignment(column == VariantColumn ? Qt::AlignLeft | Qt::AlignVCenter : Qt::AlignRight | Qt::AlignVCenter);
            m_lessonTable->setItem(row, column, item);
            return item;
        };
        put(FilesColumn, QLocale().toString(fileCountOf(v)));
        put(VariantColumn, variantText(evictsFolderTwo(v)))->setForeground(variantColor(evictsFolderTwo(v)));
        put(ReadColumn, meanText(v.find("read_seconds"), 1000.0));
        put(CachedColumn, meanText(v.find("folder1_cached"), 1.0));
        put(ReclaimedColumn, meanText(v.find("folder1_reclaimed"), 1.0));
        QTableWidgetItem *refaults = put(RefaultsColumn, meanText(v.find("cgroup_refaults"), 1.0));
        if (!v.find("cgroup_refaults")) {
            refaults->setToolTip(i18nc("@info:tooltip", "cgroup v1 does not count refaults."));
        }
    }
}

std::unique_ptr<Experiment> FolderThrashPage::makeExperiment(const PrivilegedSteps &privileged, QString *error)
{
    FolderThrashParameters parameters;
    parameters.fileCounts.clear();
    static const QRegularExpression separators(QStringLiteral("[,;\\s]+"));
    const QStringList counts = m_form->filesEdit->text().split(separators, Qt::SkipEmptyParts);
    for (const QString &text : counts) {
        bool ok = false;
        const int count = text.toInt(&ok);
        if (!ok || count < 1 || count > 100000) {
            *error = i18nc("@info %1 is what was typed", "“%1” is not a file count: write whole numbers from 1 to 100,000, separated by commas.", text);
            return nullptr;
        }
        parameters.fileCounts.push_back(count);
    }
    if (parameters.fileCounts.empty()) {
        *error = i18nc("@info", "Write at least one file count, for example: 24, 32");
        return nullptr;
    }
    parameters.folder = m_form->folderEdit->text().trimmed().toStdString();
    parameters.fileSize = uint64_t(m_form->fileSizeSpin->value()) << 10;
    parameters.limit = uint64_t(m_form->limitSpin->value()) << 20;
    parameters.runs = m_form->runsSpin->value();
    parameters.withoutEvictionVariant = m_form->withoutEvictionCheck->isChecked();
    parameters.evictionVariant = m_form->evictionCheck->isChecked();
    // A run can take a fifth of a second: the live plot draws each from
    // samples as close as the engine takes them.
    parameters.sampleIntervalMs = 20;
    if (!parameters.withoutEvictionVariant && !parameters.evictionVariant) {
        *error = i18nc("@info", "Choose at least one variant: without eviction or with folder 2 evicted first.");
        return nullptr;
    }
    if (!checkFolder(m_form->folderEdit->text().trimmed(), error)) {
        return nullptr;
    }
    m_variantColors = variantColors(parameters.fileCounts);
    return makeFolderThrashExperiment(parameters, privileged);
}

} // namespace Cachescope::App
