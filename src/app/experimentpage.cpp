// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers

#include "experimentpage.h"

#include "heatmapwidget.h"
#include "procfs.h"
#include "residency.h"

#include "ui_ExperimentColdReadParametersBase.h"
#include "ui_ExperimentColdStartParametersBase.h"
#include "ui_ExperimentFaultsParametersBase.h"
#include "ui_ExperimentPageBase.h"
#include "ui_ExperimentPressureParametersBase.h"
#include "ui_ExperimentWritebackParametersBase.h"

#include "privileged.h"

#include <KFormat>
#include <KLocalizedString>
#include <KMessageWidget>
#include <KShell>

#include <QApplication>
#include <QDateTime>
#include <QDir>
#include <QEventLoop>
#include <QFileDialog>
#include <QFileInfo>
#include <QGridLayout>
#include <QGroupBox>
#include <QHeaderView>
#include <QJsonArray>
#include <QJsonDocument>
#include <QLabel>
#include <QPainter>
#include <QPushButton>
#include <QSaveFile>
#include <QStandardPaths>
#include <QTableWidget>
#include <QThread>
#include <QTimeZone>
#include <QTimer>

#include <qcustomplot.h>

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <limits>

using namespace Cachescope::Experiments;

namespace
{

constexpr double bytesPerMiB = 1024.0 * 1024.0;
// The size a plot is exported at when it has not been laid out on screen.
constexpr QSize fallbackPlotSize{600, 400};

// Breeze colours, as the memory panel uses them for the same figures.
const QColor cacheColor(0x27, 0xae, 0x60); // Noble green
const QColor freeColor(0x7f, 0x8c, 0x8d); // Grey
const QColor fileColor(0x3d, 0xae, 0xe9); // Plasma blue
const QColor dirtyColor(0xf6, 0x74, 0x00); // Beware orange
const QColor writebackColor(0xda, 0x44, 0x53); // Icon red
const QColor swapColor(0x8e, 0x44, 0xad); // Deep purple
const QColor allocatedColor(0x29, 0x80, 0xb9); // Abyss blue
const QColor currentBarColor(0x3d, 0xae, 0xe9); // Plasma blue
const QColor comparedBarColor(0xbd, 0xc3, 0xc7); // Cloudy grey

uint64_t pageSize()
{
    static const uint64_t size = uint64_t(sysconf(_SC_PAGESIZE));
    return size;
}

std::optional<double> mib(const std::optional<uint64_t> &bytes)
{
    if (!bytes) {
        return std::nullopt;
    }
    return double(*bytes) / bytesPerMiB;
}

std::optional<double> pagesInMiB(const std::optional<uint64_t> &pages)
{
    if (!pages) {
        return std::nullopt;
    }
    return double(*pages * pageSize()) / bytesPerMiB;
}

std::optional<double> filePercent(const Sample &sample)
{
    if (!sample.fileResident || !sample.filePages || *sample.filePages == 0) {
        return std::nullopt;
    }
    return 100.0 * double(*sample.fileResident) / double(*sample.filePages);
}

// What people read instead of the engine's identifiers.
QString measurementLabel(const std::string &name)
{
    static const QHash<QString, KLocalizedString> labels = {
        {QStringLiteral("cold_seconds"), ki18nc("@item measurement", "Cold time")},
        {QStringLiteral("warm_seconds"), ki18nc("@item measurement", "Warm time")},
        {QStringLiteral("cold_throughput"), ki18nc("@item measurement", "Cold throughput")},
        {QStringLiteral("warm_throughput"), ki18nc("@item measurement", "Warm throughput")},
        {QStringLiteral("cold_warm_ratio"), ki18nc("@item measurement", "Cold ÷ warm")},
        {QStringLiteral("io_seconds"), ki18nc("@item measurement", "Time due to I/O")},
        {QStringLiteral("allocated"), ki18nc("@item measurement", "Allocated")},
        {QStringLiteral("cache_reclaimed"), ki18nc("@item measurement", "Cache reclaimed")},
        {QStringLiteral("reclaimed_per_allocated"), ki18nc("@item measurement", "Reclaimed per allocated")},
        {QStringLiteral("warm_file_survived"), ki18nc("@item measurement", "Warm file still cached")},
        {QStringLiteral("swap_used"), ki18nc("@item measurement", "Swap used")},
        {QStringLiteral("mem_free_drop"), ki18nc("@item measurement", "Free memory fell by")},
        {QStringLiteral("write_seconds"), ki18nc("@item measurement", "Write time")},
        {QStringLiteral("write_throughput"), ki18nc("@item measurement", "Write throughput")},
        {QStringLiteral("fsync_seconds"), ki18nc("@item measurement", "fsync time")},
        {QStringLiteral("sync_seconds"), ki18nc("@item measurement", "sync time")},
        {QStringLiteral("file_dirty_peak"), ki18nc("@item measurement", "File's dirty pages at most")},
        {QStringLiteral("seconds"), ki18nc("@item measurement", "Time")},
        {QStringLiteral("throughput"), ki18nc("@item measurement", "Throughput")},
        {QStringLiteral("minor_faults"), ki18nc("@item measurement", "Minor faults")},
        {QStringLiteral("major_faults"), ki18nc("@item measurement", "Major faults")},
        {QStringLiteral("cache_bytes_added"), ki18nc("@item measurement", "Read into the cache")},
    };
    const QString key = QString::fromStdString(name);
    const auto found = labels.constFind(key);
    if (found != labels.constEnd()) {
        return found->toString();
    }
    QString text = key;
    text.replace(QLatin1Char('_'), QLatin1Char(' '));
    return text;
}

// Bytes are shown in MiB: the figures of these experiments are megabytes.
double displayValue(const std::string &unit, double value)
{
    return unit == "bytes" ? value / bytesPerMiB : value;
}

QString displayUnit(const std::string &unit)
{
    if (unit == "bytes") {
        return i18nc("@item unit", "MiB");
    }
    if (unit == "percent") {
        return QStringLiteral("%");
    }
    if (unit == "ratio") {
        return i18nc("@item unit", "×");
    }
    if (unit == "count") {
        return i18nc("@item unit", "faults");
    }
    return QString::fromStdString(unit);
}

// Three significant digits are as many as a handful of runs can tell apart.
QString formatNumber(double value)
{
    const double magnitude = std::abs(value);
    const int decimals = magnitude >= 100 || magnitude == 0 ? 0 : magnitude >= 10 ? 1 : magnitude >= 1 ? 2 : 3;
    return QLocale().toString(value, 'f', decimals);
}

// Numbers for CSV files: always with a dot, whatever the locale.
QString csvNumber(double value)
{
    return QString::number(value, 'g', 10);
}

QString csvField(const QString &text)
{
    if (text.contains(QLatin1Char(',')) || text.contains(QLatin1Char('"')) || text.contains(QLatin1Char('\n'))) {
        QString quoted = text;
        quoted.replace(QLatin1String("\""), QLatin1String("\"\""));
        return QLatin1Char('"') + quoted + QLatin1Char('"');
    }
    return text;
}

QString startedText(const Result &result)
{
    QDateTime started = QDateTime::fromString(QString::fromStdString(result.started), Qt::ISODate);
    if (!started.isValid()) {
        return QString::fromStdString(result.started);
    }
    return QLocale().toString(started.toLocalTime(), QLocale::ShortFormat);
}

QTableWidgetItem *numberItem(const QString &text)
{
    auto *item = new QTableWidgetItem(text);
    item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
    return item;
}

QString engineText(const std::string &text)
{
    return QString::fromStdString(text);
}

// The engine runs on a worker; KAuth wants the thread its objects live on,
// so the request runs on the GUI thread while the worker waits for it.
template<typename Call>
bool callOnGuiThread(Call call, std::string &error)
{
    bool ok = false;
    QString message;
    QMetaObject::invokeMethod(
        qApp,
        [&] {
            const auto result = call();
            ok = result.ok();
            message = result.message;
        },
        Qt::BlockingQueuedConnection);
    if (!ok) {
        error = message.isEmpty() ? std::string("the privileged helper failed") : message.toStdString();
    }
    return ok;
}

} // namespace

ExperimentPage::ExperimentPage(const QString &experimentName, QWidget *parent)
    : QWidget(parent)
    , m_ui(std::make_unique<Ui::ExperimentPageBase>())
    , m_experimentName(experimentName)
{
    m_ui->setupUi(this);
}

ExperimentPage::~ExperimentPage()
{
    // The engine must not outlive the page: stop it and wait, answering its
    // privileged requests meanwhile (they run on this thread).
    m_destroying = true;
    m_cancel = true;
    waitForWorker();
}

void ExperimentPage::waitForWorker()
{
    if (!m_worker) {
        return;
    }
    if (!m_worker->isFinished()) {
        QEventLoop loop;
        connect(m_worker, &QThread::finished, &loop, &QEventLoop::quit);
        if (!m_worker->isFinished()) {
            loop.exec(QEventLoop::ExcludeUserInputEvents);
        }
    }
    m_worker->wait();
    delete m_worker;
    m_worker = nullptr;
}

void ExperimentPage::setUpPage(QWidget *parametersForm,
                               const QString &explanation,
                               const QList<LiveSeries> &series,
                               const QString &leftAxisLabel,
                               const QString &rightAxisLabel,
                               const QList<BarPreset> &presets)
{
    m_series = series;
    m_presets = presets;
    m_ui->parametersLayout->addWidget(parametersForm);
    m_ui->explanationLabel->setText(explanation);
    m_ui->leftPane->setMinimumWidth(300);
    m_ui->splitter->setStretchFactor(0, 0);
    m_ui->splitter->setStretchFactor(1, 1);
    m_ui->splitter->setSizes({340, 900});

    QCustomPlot *plot = m_ui->livePlot;
    for (const LiveSeries &line : std::as_const(m_series)) {
        QCPGraph *graph = plot->addGraph(plot->xAxis, line.rightAxis ? plot->yAxis2 : plot->yAxis);
        graph->setName(line.name);
        graph->setPen(QPen(line.color, 2.0));
        graph->setAntialiased(true);
        // Dots mark the samples: a phase with a single sample (the faults
        // experiment's) is still seen, between the gaps that separate phases.
        graph->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDisc, 4));
    }
    plot->xAxis->setLabel(i18nc("@label:axis", "Time (s)"));
    plot->xAxis->setRange(0, 1);
    plot->yAxis->setLabel(leftAxisLabel);
    plot->yAxis->setRange(0, 1);
    if (!rightAxisLabel.isEmpty()) {
        plot->yAxis2->setVisible(true);
        plot->yAxis2->setLabel(rightAxisLabel);
        plot->yAxis2->setRange(0, 1);
        plot->yAxis2->grid()->setVisible(false);
    }
    plot->plotLayout()->insertRow(0);
    plot->plotLayout()->addElement(0, 0, new QCPTextElement(plot, i18nc("@title plot", "While it runs")));
    // The legend goes under the plot, so that it hides no data.
    plot->legend->setVisible(true);
    plot->axisRect()->insetLayout()->take(plot->legend);
    plot->plotLayout()->addElement(2, 0, plot->legend);
    plot->plotLayout()->setRowStretchFactor(2, 0.001);
    // Two a row when there are four lines: three do not fit beside the bar
    // chart. setFillOrder() rearranges the items already there; setWrap() does not.
    plot->legend->setWrap(m_series.size() > 3 ? 2 : 3);
    plot->legend->setFillOrder(QCPLayoutGrid::foColumnsFirst, true);
    plot->legend->setMargins(QMargins(0, 4, 0, 0));
    plot->legend->setColumnSpacing(12);
    plot->setWhatsThis(i18nc("@info:whatsthis", "What the experiment measures while it runs, sampled a few times a second."));

    QCustomPlot *bars = m_ui->barChart;
    bars->plotLayout()->insertRow(0);
    bars->plotLayout()->addElement(0, 0, new QCPTextElement(bars, i18nc("@title plot", "Variants compared")));
    bars->xAxis->setTicker(QSharedPointer<QCPAxisTickerText>(new QCPAxisTickerText));
    bars->xAxis->grid()->setVisible(false);
    bars->xAxis->setTickLength(0, 3);
    bars->yAxis->setRange(0, 1);
    bars->legend->setVisible(false);
    bars->axisRect()->insetLayout()->setInsetAlignment(0, Qt::AlignTop | Qt::AlignRight);
    bars->setWhatsThis(i18nc("@info:whatsthis", "The mean over the runs of each variant; the whiskers show the 95% confidence interval of the mean."));

    QTableWidget *table = m_ui->resultsTable;
    table->setColumnCount(ColumnCount);
    table->setHorizontalHeaderLabels({
        i18nc("@title:column which result: this run or an earlier one", "Result"),
        i18nc("@title:column", "Variant"),
        i18nc("@title:column", "Figure"),
        i18nc("@title:column", "Runs"),
        i18nc("@title:column", "Mean"),
        i18nc("@title:column 95% confidence interval of the mean", "± 95% CI"),
        i18nc("@title:column", "Unit"),
    });
    table->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    table->horizontalHeader()->setStretchLastSection(true);
    table->horizontalHeaderItem(ConfidenceColumn)
        ->setToolTip(i18nc("@info:tooltip", "Half the width of the 95% confidence interval of the mean (Student's t); empty for a single run"));

    m_ui->startButton->setIcon(QIcon::fromTheme(QStringLiteral("media-playback-start")));
    m_ui->cancelButton->setIcon(QIcon::fromTheme(QStringLiteral("process-stop")));
    m_ui->exportCsvButton->setIcon(QIcon::fromTheme(QStringLiteral("text-csv"), QIcon::fromTheme(QStringLiteral("document-export"))));
    m_ui->exportPngButton->setIcon(QIcon::fromTheme(QStringLiteral("image-png"), QIcon::fromTheme(QStringLiteral("document-export"))));
    connect(m_ui->startButton, &QPushButton::clicked, this, &ExperimentPage::start);
    connect(m_ui->cancelButton, &QPushButton::clicked, this, &ExperimentPage::cancel);
    connect(m_ui->exportCsvButton, &QPushButton::clicked, this, &ExperimentPage::askExportCsv);
    connect(m_ui->exportPngButton, &QPushButton::clicked, this, &ExperimentPage::askExportPng);
    connect(m_ui->barMeasurementCombo, &QComboBox::currentIndexChanged, this, &ExperimentPage::drawBars);
    connect(m_ui->historyCombo, &QComboBox::currentIndexChanged, this, &ExperimentPage::selectHistory);

    m_memoryTimer = new QTimer(this);
    m_memoryTimer->setInterval(100);
    connect(m_memoryTimer, &QTimer::timeout, this, &ExperimentPage::sampleMemory);

    applyPalette();
    fillBarChoices();
    reloadHistory();
    setPrivilegedAvailable(false, i18nc("@info:tooltip", "Checking whether the privileged helper can be reached…"));
}

QString ExperimentPage::experimentName() const
{
    return m_experimentName;
}

bool ExperimentPage::isRunning() const
{
    return m_running;
}

const std::optional<Result> &ExperimentPage::currentResult() const
{
    return m_current;
}

int ExperimentPage::liveSampleCount() const
{
    return m_liveSamples;
}

QString ExperimentPage::storedPath() const
{
    return m_storedPath;
}

QCustomPlot *ExperimentPage::livePlot() const
{
    return m_ui->livePlot;
}

QCustomPlot *ExperimentPage::barChart() const
{
    return m_ui->barChart;
}

QTableWidget *ExperimentPage::resultsTable() const
{
    return m_ui->resultsTable;
}

QComboBox *ExperimentPage::historyCombo() const
{
    return m_ui->historyCombo;
}

QComboBox *ExperimentPage::barMeasurementCombo() const
{
    return m_ui->barMeasurementCombo;
}

QPushButton *ExperimentPage::startButton() const
{
    return m_ui->startButton;
}

QPushButton *ExperimentPage::cancelButton() const
{
    return m_ui->cancelButton;
}

void ExperimentPage::setPrivilegedAvailable(bool available, const QString &reason)
{
    m_privilegedAvailable = available;
    privilegedAvailabilityChanged(available, reason);
}

QString ExperimentPage::defaultFolder()
{
    // The cache folder is on the home disk, where the user may write; /tmp
    // is often tmpfs, whose pages cannot be evicted.
    const QString folder = QStandardPaths::writableLocation(QStandardPaths::CacheLocation);
    QDir().mkpath(folder);
    return folder;
}

bool ExperimentPage::checkFolder(const QString &folder, QString *error)
{
    const QFileInfo info(folder);
    if (folder.isEmpty()) {
        *error = i18nc("@info", "Choose a folder for the experiment's file.");
        return false;
    }
    if (!info.isDir()) {
        *error = i18nc("@info %1 is a path", "%1: no such folder.", folder);
        return false;
    }
    if (!info.isWritable()) {
        *error = i18nc("@info %1 is a path", "%1: the folder is not writable.", folder);
        return false;
    }
    return true;
}

PrivilegedSteps ExperimentPage::privilegedSteps() const
{
    PrivilegedSteps steps;
    if (m_privilegedAvailable) {
        steps.dropCaches = [](std::string &error) {
            return callOnGuiThread(
                [] {
                    return Cachescope::Privileged::dropCaches(3);
                },
                error);
        };
        steps.swapOff = [](std::string &error) {
            return callOnGuiThread(
                [] {
                    return Cachescope::Privileged::swapOffAll();
                },
                error);
        };
        steps.swapOn = [](std::string &error) {
            return callOnGuiThread(
                [] {
                    return Cachescope::Privileged::swapOnAll();
                },
                error);
        };
    }
    return steps;
}

void ExperimentPage::start()
{
    if (m_running) {
        return;
    }
    waitForWorker();
    QString error;
    std::shared_ptr<Experiment> experiment(makeExperiment(privilegedSteps(), &error).release());
    if (!experiment) {
        showMessage(error, true);
        return;
    }
    m_ui->messageWidget->animatedHide();

    m_cancel = false;
    m_liveSamples = 0;
    m_liveMaximum = 0;
    m_liveRightMaximum = 0;
    m_lastPhase.clear();
    for (int i = 0; i < m_ui->livePlot->graphCount(); ++i) {
        m_ui->livePlot->graph(i)->data()->clear();
    }
    m_ui->livePlot->clearItems(); // the last run's markers
    m_ui->livePlot->replot(QCustomPlot::rpQueuedReplot);
    runStarting();
    m_startedMs = QDateTime::currentMSecsSinceEpoch();
    m_ui->statusLabel->setText(i18nc("@info:status", "Starting…"));

    // Queued to this page: the callbacks come from the engine's threads. A
    // page that is gone drops what is still queued for it.
    Progress progress;
    QPointer<ExperimentPage> page(this);
    progress.sample = [page](const Sample &sample) {
        QMetaObject::invokeMethod(
            page,
            [page, sample] {
                if (page) {
                    page->addSample(sample);
                }
            },
            Qt::QueuedConnection);
    };
    progress.event = [page](const Event &event) {
        QMetaObject::invokeMethod(
            page,
            [page, event] {
                if (page) {
                    page->addEvent(event);
                }
            },
            Qt::QueuedConnection);
    };

    m_worker = QThread::create([this, page, experiment, progress] {
        auto result = std::make_shared<Result>(experiment->run(progress, m_cancel));
        QMetaObject::invokeMethod(
            page,
            [page, result] {
                if (page) {
                    page->runFinished(*result);
                }
            },
            Qt::QueuedConnection);
    });
    m_worker->setObjectName(QStringLiteral("experiment ") + m_experimentName);
    setRunning(true);
    m_worker->start();
    if (samplesMemoryItself()) {
        m_memoryTimer->start();
    }
}

void ExperimentPage::cancel()
{
    if (!m_running) {
        return;
    }
    m_cancel = true;
    m_ui->cancelButton->setEnabled(false);
    m_ui->statusLabel->setText(i18nc("@info:status", "Cancelling…"));
}

void ExperimentPage::setRunning(bool running)
{
    m_running = running;
    m_ui->startButton->setEnabled(!running);
    m_ui->cancelButton->setEnabled(running);
    m_ui->parametersBox->setEnabled(!running);
    m_ui->busyBar->setVisible(running);
    if (!running) {
        m_memoryTimer->stop();
    }
    Q_EMIT runningChanged(running);
}

void ExperimentPage::sampleMemory()
{
    const auto memInfo = Cachescope::readMemInfo();
    if (!memInfo) {
        return;
    }
    Sample sample;
    sample.seconds = double(QDateTime::currentMSecsSinceEpoch() - m_startedMs) / 1000.0;
    sample.cached = memInfo->find("Cached");
    sample.memFree = memInfo->find("MemFree");
    sample.memAvailable = memInfo->find("MemAvailable");
    addSample(sample);
}

void ExperimentPage::addSample(const Sample &sample)
{
    if (!m_running || m_destroying) {
        return; // a straggler after the end
    }
    sampleArrived(sample);
    if (sample.fsyncSeconds) {
        addLiveMarker(sample.seconds, i18nc("@label plot marker, %1 milliseconds", "fsync %1 ms", formatNumber(*sample.fsyncSeconds * 1000)));
    }
    if (sample.syncSeconds) {
        addLiveMarker(sample.seconds, i18nc("@label plot marker, %1 milliseconds", "sync %1 ms", formatNumber(*sample.syncSeconds * 1000)));
    }
    QCustomPlot *plot = m_ui->livePlot;
    const bool newPhase = sample.phase != m_lastPhase && m_liveSamples > 0;
    m_lastPhase = sample.phase;
    bool added = false;
    for (int i = 0; i < m_series.size() && i < plot->graphCount(); ++i) {
        const std::optional<double> value = m_series[i].value(sample);
        if (!value) {
            continue;
        }
        if (newPhase) {
            // A new phase (the next run's read, ...): a gap, not a line joining unrelated moments.
            plot->graph(i)->addData(sample.seconds, std::numeric_limits<double>::quiet_NaN());
        }
        plot->graph(i)->addData(sample.seconds, *value);
        double &maximum = m_series[i].rightAxis ? m_liveRightMaximum : m_liveMaximum;
        maximum = std::max(maximum, *value);
        added = true;
    }
    if (!added) {
        return;
    }
    ++m_liveSamples;
    plot->xAxis->setRange(0, std::max(1.0, sample.seconds));
    // Marker texts sit right of their line, or left of it near the right
    // edge, where they would be cut off; the edge moves as time goes on.
    for (int i = 0; i < plot->itemCount(); ++i) {
        if (auto *text = qobject_cast<QCPItemText *>(plot->item(i))) {
            const bool nearRightEdge = text->position->coords().x() > 0.6 * plot->xAxis->range().upper;
            text->setPositionAlignment((nearRightEdge ? Qt::AlignRight : Qt::AlignLeft) | Qt::AlignTop);
        }
    }
    plot->yAxis->setRange(0, std::max(1.0, m_liveMaximum * 1.1));
    plot->yAxis2->setRange(0, std::max(1.0, m_liveRightMaximum * 1.1));
    plot->replot(QCustomPlot::rpQueuedReplot);
}

void ExperimentPage::addLiveMarker(double seconds, const QString &text)
{
    // A dashed line at the moment, and its text at the top, staggered so
    // that two markers close together (fsync, then sync) stay readable.
    QCustomPlot *plot = m_ui->livePlot;
    const QColor color = palette().color(QPalette::WindowText);
    auto *line = new QCPItemStraightLine(plot);
    line->point1->setCoords(seconds, 0);
    line->point2->setCoords(seconds, 1);
    line->setPen(QPen(color, 1, Qt::DashLine));
    line->setSelectable(false);
    auto *label = new QCPItemText(plot);
    label->position->setTypeX(QCPItemPosition::ptPlotCoords);
    label->position->setTypeY(QCPItemPosition::ptAxisRectRatio);
    label->position->setCoords(seconds, 0.02 + 0.07 * double((plot->itemCount() / 2 - 1) % 4));
    label->setPositionAlignment((seconds > 0.6 * plot->xAxis->range().upper ? Qt::AlignRight : Qt::AlignLeft) | Qt::AlignTop);
    label->setPadding(QMargins(3, 0, 3, 0));
    label->setText(text);
    label->setColor(color);
    label->setBrush(QBrush(palette().color(QPalette::Base)));
    label->setSelectable(false);
    plot->replot(QCustomPlot::rpQueuedReplot);
}

void ExperimentPage::addExtraWidget(QWidget *widget)
{
    m_ui->extrasLayout->addWidget(widget);
}

void ExperimentPage::addResultsTab(QWidget *widget, const QString &title)
{
    m_ui->resultsTabs->addTab(widget, title);
}

const std::optional<Result> &ExperimentPage::comparedResult() const
{
    return m_compared;
}

void ExperimentPage::addEvent(const Event &event)
{
    if (m_running && !m_cancel) {
        m_ui->statusLabel->setText(engineText(event.text));
    }
}

void ExperimentPage::runFinished(const Result &result)
{
    if (m_destroying) {
        return; // the subclass is already gone: nothing to show it on
    }
    setRunning(false);
    m_worker->wait();
    if (!result.error.empty()) {
        m_ui->statusLabel->clear();
        showMessage(i18nc("@info %1 is the reason", "The experiment could not run: %1", engineText(result.error)), true);
    } else if (result.cancelled) {
        m_ui->statusLabel->setText(i18nc("@info:status", "Cancelled after %1 s. Nothing was left behind.", formatNumber(result.seconds)));
    } else {
        QStringList lines;
        lines << i18nc("@info:status", "Finished in %1 s.", formatNumber(result.seconds));
        for (const std::string &note : result.notes) {
            lines << engineText(note);
        }
        for (const VariantResult &variant : result.variants) {
            if (variant.skipped) {
                lines << i18nc("@info:status %1 variant, %2 reason", "%1 was skipped: %2", engineText(variant.name), engineText(variant.skipReason));
            }
        }
        m_ui->statusLabel->setText(lines.join(QLatin1Char('\n')));
        m_current = result;
        storeResult(result);
        showResults();
    }
    Q_EMIT finished();
}

void ExperimentPage::storeResult(const Result &result)
{
    m_storedPath.clear();
    const QString folder = historyFolder();
    if (!QDir().mkpath(folder)) {
        showMessage(i18nc("@info %1 is a folder", "Could not keep the result: cannot make the folder %1.", folder), true);
        return;
    }
    const QString stamp = QDateTime::currentDateTimeUtc().toString(QStringLiteral("yyyyMMdd-HHmmss-zzz"));
    const QString path = QDir(folder).filePath(m_experimentName + QLatin1Char('-') + stamp + QStringLiteral(".json"));
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly)) {
        showMessage(i18nc("@info %1 path, %2 reason", "Could not keep the result in %1: %2", path, file.errorString()), true);
        return;
    }
    file.write(QJsonDocument(resultToJson(result)).toJson(QJsonDocument::Indented));
    if (!file.commit()) {
        showMessage(i18nc("@info %1 path, %2 reason", "Could not keep the result in %1: %2", path, file.errorString()), true);
        return;
    }
    m_storedPath = path;
    reloadHistory();
}

QString ExperimentPage::historyFolder()
{
    return QDir(QStandardPaths::writableLocation(QStandardPaths::AppDataLocation)).filePath(QStringLiteral("experiments"));
}

void ExperimentPage::reloadHistory()
{
    QComboBox *combo = m_ui->historyCombo;
    const QString selected = combo->currentData().toString();
    const QSignalBlocker blocker(combo);
    combo->clear();
    combo->addItem(i18nc("@item:inlistbox compare with no earlier result", "Nothing"));
    const QDir folder(historyFolder());
    QStringList names = folder.entryList({m_experimentName + QStringLiteral("-*.json")}, QDir::Files, QDir::Name);
    // The names carry the time: newest first.
    std::reverse(names.begin(), names.end());
    for (const QString &name : std::as_const(names)) {
        const QString path = folder.filePath(name);
        QFile file(path);
        if (!file.open(QIODevice::ReadOnly)) {
            continue;
        }
        const auto result = resultFromJson(QJsonDocument::fromJson(file.readAll()).object());
        if (!result || result->experiment != m_experimentName.toStdString()) {
            continue; // not ours, or damaged: nothing to compare with
        }
        QString label = startedText(*result);
        if (path == m_storedPath) {
            label = i18nc("@item:inlistbox %1 is a date", "%1 (this run)", label);
        }
        combo->addItem(label, path);
    }
    const int index = combo->findData(selected);
    combo->setCurrentIndex(std::max(0, index));
}

void ExperimentPage::selectHistory(int index)
{
    m_compared.reset();
    m_comparedLabel.clear();
    const QString path = m_ui->historyCombo->itemData(index).toString();
    if (!path.isEmpty()) {
        QFile file(path);
        if (!file.open(QIODevice::ReadOnly)) {
            showMessage(i18nc("@info %1 path, %2 reason", "Cannot read %1: %2", path, file.errorString()), true);
        } else {
            std::string error;
            m_compared = resultFromJson(QJsonDocument::fromJson(file.readAll()).object(), &error);
            if (!m_compared) {
                showMessage(i18nc("@info %1 path, %2 reason", "Cannot read %1: %2", path, engineText(error)), true);
            } else {
                m_comparedLabel = startedText(*m_compared);
            }
        }
    }
    showResults();
}

void ExperimentPage::showResults()
{
    fillTable();
    fillBarChoices();
    drawBars();
    const bool haveResults = m_current || m_compared;
    m_ui->exportCsvButton->setEnabled(haveResults);
    m_ui->exportPngButton->setEnabled(haveResults);
    resultsShown();
}

void ExperimentPage::fillTable()
{
    QTableWidget *table = m_ui->resultsTable;
    table->setRowCount(0);
    const auto addResult = [table](const Result &result, const QString &label) {
        for (const VariantResult &variant : result.variants) {
            if (variant.skipped) {
                const int row = table->rowCount();
                table->insertRow(row);
                table->setItem(row, ResultColumn, new QTableWidgetItem(label));
                table->setItem(row, VariantColumn, new QTableWidgetItem(engineText(variant.name)));
                auto *reason = new QTableWidgetItem(i18nc("@item:intable %1 is the reason", "Skipped: %1", engineText(variant.skipReason)));
                reason->setToolTip(reason->text());
                table->setItem(row, FigureColumn, reason);
                table->setSpan(row, FigureColumn, 1, ColumnCount - FigureColumn);
                continue;
            }
            for (const Measurement &measurement : variant.measurements) {
                const int row = table->rowCount();
                table->insertRow(row);
                const Statistics &statistics = measurement.statistics;
                table->setItem(row, ResultColumn, new QTableWidgetItem(label));
                table->setItem(row, VariantColumn, new QTableWidgetItem(engineText(variant.name)));
                table->setItem(row, FigureColumn, new QTableWidgetItem(measurementLabel(measurement.name)));
                table->setItem(row, RunsColumn, numberItem(QLocale().toString(statistics.count)));
                auto *mean = numberItem(measurement.unit == "count" || measurement.unit == "pages"
                                            ? QLocale().toString(statistics.mean, 'f', statistics.mean == std::round(statistics.mean) ? 0 : 1)
                                            : formatNumber(displayValue(measurement.unit, statistics.mean)));
                mean->setToolTip(i18nc("@info:tooltip",
                                       "Median %1, from %2 to %3",
                                       formatNumber(displayValue(measurement.unit, statistics.median)),
                                       formatNumber(displayValue(measurement.unit, statistics.minimum)),
                                       formatNumber(displayValue(measurement.unit, statistics.maximum))));
                table->setItem(row, MeanColumn, mean);
                table->setItem(row,
                               ConfidenceColumn,
                               numberItem(statistics.count < 2 ? QString() : formatNumber(displayValue(measurement.unit, statistics.confidenceHalfWidth))));
                table->setItem(row, UnitColumn, new QTableWidgetItem(displayUnit(measurement.unit)));
            }
        }
    };
    if (m_current) {
        addResult(*m_current, i18nc("@item:intable the result of the last run", "This run"));
    }
    if (m_compared) {
        addResult(*m_compared, m_comparedLabel);
    }
}

void ExperimentPage::fillBarChoices()
{
    QComboBox *combo = m_ui->barMeasurementCombo;
    const QString selected = combo->currentText();
    const QSignalBlocker blocker(combo);
    combo->clear();
    QStringList offered;
    for (const BarPreset &preset : std::as_const(m_presets)) {
        combo->addItem(preset.label, preset.measurements);
        if (preset.measurements.size() == 1) {
            offered << preset.measurements.first();
        }
    }
    // Then every other figure the results have, one at a time.
    for (const auto &result : {m_current, m_compared}) {
        if (!result) {
            continue;
        }
        for (const VariantResult &variant : result->variants) {
            for (const Measurement &measurement : variant.measurements) {
                const QString name = QString::fromStdString(measurement.name);
                if (!offered.contains(name)) {
                    offered << name;
                    combo->addItem(measurementLabel(measurement.name), QStringList{name});
                }
            }
        }
    }
    combo->setCurrentIndex(std::max(0, combo->findText(selected)));
}

void ExperimentPage::drawBars()
{
    QCustomPlot *plot = m_ui->barChart;
    delete m_barsGroup;
    m_barsGroup = nullptr;
    plot->clearPlottables();
    auto ticker = qSharedPointerCast<QCPAxisTickerText>(plot->xAxis->ticker());
    ticker->clear();

    const QStringList measurements = m_ui->barMeasurementCombo->currentData().toStringList();
    QList<const Result *> results;
    QStringList names;
    if (m_current) {
        results << &*m_current;
        names << i18nc("@item plot legend", "This run");
    }
    if (m_compared) {
        results << &*m_compared;
        names << m_comparedLabel;
    }

    // One category a variant (and measurement, when the choice has several),
    // in the order the results have them.
    QStringList categories;
    for (const Result *result : std::as_const(results)) {
        for (const VariantResult &variant : result->variants) {
            if (variant.skipped) {
                continue;
            }
            for (const QString &measurement : measurements) {
                if (!variant.find(measurement.toStdString())) {
                    continue;
                }
                const QString category = engineText(variant.name) + QLatin1Char('\n') + measurement;
                if (!categories.contains(category)) {
                    categories << category;
                }
            }
        }
    }
    QStringList variantsShown;
    for (const QString &category : std::as_const(categories)) {
        const QString variant = category.section(QLatin1Char('\n'), 0, 0);
        if (!variantsShown.contains(variant)) {
            variantsShown << variant;
        }
    }
    // Many bars get slanted one-line labels; a few get labels wrapped under them.
    const bool slanted = categories.size() > 5;
    plot->xAxis->setTickLabelRotation(slanted ? -40 : 0);
    for (int i = 0; i < categories.size(); ++i) {
        const QStringList parts = categories[i].split(QLatin1Char('\n'));
        QStringList lines;
        if (variantsShown.size() > 1) {
            lines << parts[0];
        }
        if (measurements.size() > 1 || lines.isEmpty()) {
            lines << measurementLabel(parts[1].toStdString());
        }
        QString label = lines.join(slanted ? QStringLiteral(", ") : QStringLiteral("\n"));
        if (!slanted && variantsShown.size() > 3) {
            label.replace(QLatin1Char(' '), QLatin1Char('\n'));
        }
        ticker->addTick(i + 1, label);
    }

    if (results.size() > 1) {
        m_barsGroup = new QCPBarsGroup(plot);
        m_barsGroup->setSpacing(2);
    }
    double maximum = 0;
    QString unit;
    for (int r = 0; r < results.size(); ++r) {
        auto *bars = new QCPBars(plot->xAxis, plot->yAxis);
        bars->setName(names[r]);
        const QColor color = r == 0 ? currentBarColor : comparedBarColor;
        bars->setPen(QPen(color.darker(130), 1));
        bars->setBrush(color);
        bars->setWidth(results.size() > 1 ? 0.35 : 0.6);
        if (m_barsGroup) {
            bars->setBarsGroup(m_barsGroup);
        }
        auto *errors = new QCPErrorBars(plot->xAxis, plot->yAxis);
        errors->setDataPlottable(bars);
        errors->setPen(QPen(palette().color(QPalette::WindowText), 1.5));
        errors->setWhiskerWidth(8);
        QVector<double> keys, values, errorValues;
        for (int i = 0; i < categories.size(); ++i) {
            const QStringList parts = categories[i].split(QLatin1Char('\n'));
            const VariantResult *variant = results[r]->variant(parts[0].toStdString());
            const Measurement *measurement = variant && !variant->skipped ? variant->find(parts[1].toStdString()) : nullptr;
            if (!measurement) {
                continue;
            }
            unit = displayUnit(measurement->unit);
            const double mean = displayValue(measurement->unit, measurement->statistics.mean);
            const double halfWidth = displayValue(measurement->unit, measurement->statistics.confidenceHalfWidth);
            keys << i + 1;
            values << mean;
            errorValues << halfWidth;
            maximum = std::max(maximum, mean + halfWidth);
        }
        bars->setData(keys, values, true);
        errors->setData(errorValues);
    }
    plot->legend->setVisible(results.size() > 1);
    plot->xAxis->setRange(0.4, categories.size() + 0.6);
    plot->yAxis->setRange(0, maximum > 0 ? maximum * 1.15 : 1);
    plot->yAxis->setLabel(measurements.isEmpty() ? QString()
                                                 : m_ui->barMeasurementCombo->currentText() + (unit.isEmpty() ? QString() : QStringLiteral(" (%1)").arg(unit)));
    plot->replot(QCustomPlot::rpQueuedReplot);
}

void ExperimentPage::showMessage(const QString &text, bool isError)
{
    m_ui->messageWidget->setMessageType(isError ? KMessageWidget::Error : KMessageWidget::Positive);
    m_ui->messageWidget->setText(text);
    m_ui->messageWidget->animatedShow();
}

bool ExperimentPage::exportCsv(const QString &path, QString *error) const
{
    QStringList lines;
    lines << QStringLiteral("result,started,variant,figure,unit,runs,mean,ci95_half_width,minimum,maximum,values,note");
    const auto addResult = [&lines](const Result &result, const QString &label) {
        const QString started = engineText(result.started);
        for (const VariantResult &variant : result.variants) {
            if (variant.skipped) {
                lines << QStringList{csvField(label),
                                     started,
                                     csvField(engineText(variant.name)),
                                     QString(),
                                     QString(),
                                     QStringLiteral("0"),
                                     QString(),
                                     QString(),
                                     QString(),
                                     QString(),
                                     QString(),
                                     csvField(QStringLiteral("skipped: ") + engineText(variant.skipReason))}
                             .join(QLatin1Char(','));
                continue;
            }
            for (const Measurement &measurement : variant.measurements) {
                QStringList values;
                for (double value : measurement.values) {
                    values << csvNumber(value);
                }
                const Statistics &statistics = measurement.statistics;
                lines << QStringList{csvField(label),
                                     started,
                                     csvField(engineText(variant.name)),
                                     engineText(measurement.name),
                                     engineText(measurement.unit),
                                     QString::number(statistics.count),
                                     csvNumber(statistics.mean),
                                     statistics.count < 2 ? QString() : csvNumber(statistics.confidenceHalfWidth),
                                     csvNumber(statistics.minimum),
                                     csvNumber(statistics.maximum),
                                     values.join(QLatin1Char(' ')),
                                     QString()}
                             .join(QLatin1Char(','));
            }
        }
    };
    if (m_current) {
        addResult(*m_current, QStringLiteral("current"));
    }
    if (m_compared) {
        addResult(*m_compared, QStringLiteral("compared"));
    }
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly | QIODevice::Text)) {
        if (error) {
            *error = i18nc("@info %1 path, %2 reason", "Cannot write %1: %2", path, file.errorString());
        }
        return false;
    }
    file.write((lines.join(QLatin1Char('\n')) + QLatin1Char('\n')).toUtf8());
    if (!file.commit()) {
        if (error) {
            *error = i18nc("@info %1 path, %2 reason", "Cannot write %1: %2", path, file.errorString());
        }
        return false;
    }
    return true;
}

bool ExperimentPage::exportPng(const QString &path, QString *error) const
{
    QList<QPixmap> pixmaps;
    for (QCustomPlot *plot : {m_ui->livePlot, m_ui->barChart}) {
        const QSize size = plot->isVisible() && plot->width() > 50 ? plot->size() : fallbackPlotSize;
        pixmaps << plot->toPixmap(size.width(), size.height());
    }
    const int width = pixmaps[0].width() + pixmaps[1].width();
    const int height = std::max(pixmaps[0].height(), pixmaps[1].height());
    QImage image(width, height, QImage::Format_ARGB32);
    image.fill(palette().color(QPalette::Window));
    {
        QPainter painter(&image);
        painter.drawPixmap(0, 0, pixmaps[0]);
        painter.drawPixmap(pixmaps[0].width(), 0, pixmaps[1]);
    }
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly) || !image.save(&file, "PNG") || !file.commit()) {
        if (error) {
            *error = i18nc("@info %1 path, %2 reason", "Cannot write %1: %2", path, file.errorString());
        }
        return false;
    }
    return true;
}

void ExperimentPage::askExportCsv()
{
    const QString stamp = QDateTime::currentDateTime().toString(QStringLiteral("yyyy-MM-dd-HHmmss"));
    const QString folder = QStandardPaths::writableLocation(QStandardPaths::DocumentsLocation);
    QString path = QFileDialog::getSaveFileName(this,
                                                i18nc("@title:window", "Export Results"),
                                                QDir(folder).filePath(QStringLiteral("cachescope-%1-%2.csv").arg(m_experimentName, stamp)),
                                                i18nc("@item:inlistbox file type", "CSV table (*.csv)"));
    if (path.isEmpty()) {
        return;
    }
    if (QFileInfo(path).suffix().isEmpty()) {
        path += QStringLiteral(".csv");
    }
    QString error;
    if (exportCsv(path, &error)) {
        showMessage(i18nc("@info %1 is a file path", "Saved the results to %1.", path), false);
    } else {
        showMessage(error, true);
    }
}

void ExperimentPage::askExportPng()
{
    const QString stamp = QDateTime::currentDateTime().toString(QStringLiteral("yyyy-MM-dd-HHmmss"));
    const QString folder = QStandardPaths::writableLocation(QStandardPaths::PicturesLocation);
    QString path = QFileDialog::getSaveFileName(this,
                                                i18nc("@title:window", "Export Plots"),
                                                QDir(folder).filePath(QStringLiteral("cachescope-%1-%2.png").arg(m_experimentName, stamp)),
                                                i18nc("@item:inlistbox file type", "PNG image (*.png)"));
    if (path.isEmpty()) {
        return;
    }
    if (QFileInfo(path).suffix().isEmpty()) {
        path += QStringLiteral(".png");
    }
    QString error;
    if (exportPng(path, &error)) {
        showMessage(i18nc("@info %1 is a file path", "Saved the plots to %1.", path), false);
    } else {
        showMessage(error, true);
    }
}

void ExperimentPage::styleAxes(QCustomPlot *plot)
{
    const QPalette pal = palette();
    const QColor text = pal.color(QPalette::WindowText);
    QColor gridColor = text;
    gridColor.setAlpha(50);
    plot->setBackground(pal.brush(QPalette::Window));
    for (QCPAxisRect *rect : plot->axisRects()) {
        rect->setBackground(pal.brush(QPalette::Base));
        for (QCPAxis *axis : rect->axes()) {
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
    }
    for (int i = 0; i < plot->plotLayout()->elementCount(); ++i) {
        if (auto *title = qobject_cast<QCPTextElement *>(plot->plotLayout()->elementAt(i))) {
            title->setTextColor(text);
            QFont titleFont = font();
            titleFont.setBold(true);
            title->setFont(titleFont);
        }
    }
    QColor legendBackground = pal.color(QPalette::Base);
    legendBackground.setAlpha(220);
    plot->legend->setBrush(plot == m_ui->livePlot ? pal.brush(QPalette::Window) : QBrush(legendBackground));
    plot->legend->setBorderPen(plot == m_ui->livePlot ? QPen(Qt::NoPen) : QPen(gridColor, 1));
    plot->legend->setTextColor(text);
    plot->legend->setFont(font());
}

void ExperimentPage::applyPalette()
{
    styleAxes(m_ui->livePlot);
    styleAxes(m_ui->barChart);
}

// --- The pages ------------------------------------------------------------------

ColdReadPage::ColdReadPage(QWidget *parent)
    : ExperimentPage(QStringLiteral("cold-read"), parent)
    , m_form(std::make_unique<Ui::ExperimentColdReadParametersBase>())
{
    auto *form = new QWidget(this);
    m_form->setupUi(form);
    m_form->folderEdit->setText(defaultFolder());
    setUpPage(form,
              xi18nc("@info",
                     "<para>A file is read twice: first <emphasis>cold</emphasis>, straight after its pages were evicted, so that every byte comes "
                     "from the disk; then <emphasis>warm</emphasis>, when every page is already in memory.</para>"
                     "<para>Expect the warm read to be many times faster: the classic demonstration reads a 500 MB file in 6 s cold and in "
                     "0.12 s warm. The ratio depends on the disk: large for a hard disk, smaller for a fast SSD.</para>"
                     "<para>The plot shows the file filling the cache during each cold read.</para>"),
              {
                  {i18nc("@label plot legend", "File in the cache"), fileColor, false, filePercent},
                  {i18nc("@label plot legend", "Page cache (right scale)"),
                   cacheColor,
                   true,
                   [](const Sample &sample) {
                       return mib(sample.cached);
                   }},
              },
              i18nc("@label:axis", "File in the cache (%)"),
              i18nc("@label:axis", "Page cache (MiB)"),
              {
                  {i18nc("@item:inlistbox", "Cold and warm time"), {QStringLiteral("cold_seconds"), QStringLiteral("warm_seconds")}},
                  {i18nc("@item:inlistbox", "Cold and warm throughput"), {QStringLiteral("cold_throughput"), QStringLiteral("warm_throughput")}},
                  {measurementLabel("cold_warm_ratio"), {QStringLiteral("cold_warm_ratio")}},
              });

    m_heatmap = new HeatmapWidget(this);
    m_heatmap->setObjectName(QStringLiteral("coldReadHeatmap"));
    m_heatmap->setMinimumHeight(170);
    m_heatmap->setWhatsThis(i18nc("@info:whatsthis",
                                  "The file's pages during the cold read: each cell is a part of the file, filled as its pages arrive in the "
                                  "cache. Sequential reads fill it from the start, a little ahead of the reader (read-ahead)."));
    m_heatmap->setVisible(false);
    addExtraWidget(m_heatmap);
}

ColdReadPage::~ColdReadPage() = default;

HeatmapWidget *ColdReadPage::fileHeatmap() const
{
    return m_heatmap;
}

void ColdReadPage::runStarting()
{
    const QString path = m_form->fileEdit->text().trimmed();
    if (!path.isEmpty()) {
        m_heatmapName = QFileInfo(path).fileName();
        m_heatmapSize = uint64_t(std::max<qint64>(QFileInfo(path).size(), 0));
    } else {
        m_heatmapName = i18nc("@label the file the experiment makes", "New file");
        m_heatmapSize = uint64_t(m_form->sizeSpin->value()) << 20;
    }
}

void ColdReadPage::sampleArrived(const Sample &sample)
{
    if (!sample.fileHistogram) {
        return;
    }
    const uint64_t recordedBytes = sample.fileHistogram->pages * Cachescope::pageSize();
    // The size asked for is exact for a file we make; the histogram's pages
    // round up, so it wins only when the two disagree by more than a page.
    const uint64_t size = recordedBytes >= m_heatmapSize && recordedBytes - m_heatmapSize < Cachescope::pageSize() ? m_heatmapSize : recordedBytes;
    m_heatmap->showRecorded(m_heatmapName, *sample.fileHistogram, size);
    m_heatmap->setVisible(true);
}

QString ColdReadPage::title() const
{
    return i18nc("@title experiment", "Cold and Warm Read");
}

QString ColdReadPage::header() const
{
    return i18nc("@title experiment", "Reading a file from the disk and from the cache");
}

QString ColdReadPage::iconName() const
{
    return QStringLiteral("media-seek-forward");
}

std::unique_ptr<Experiment> ColdReadPage::makeExperiment(const PrivilegedSteps &privileged, QString *error)
{
    ColdReadParameters parameters;
    parameters.file.path = m_form->fileEdit->text().trimmed().toStdString();
    parameters.file.folder = m_form->folderEdit->text().trimmed().toStdString();
    parameters.file.size = uint64_t(m_form->sizeSpin->value()) << 20;
    parameters.runs = m_form->runsSpin->value();
    parameters.fadviseVariant = m_form->fadviseCheck->isChecked();
    parameters.dropCachesVariant = m_form->dropCachesCheck->isChecked() && m_form->dropCachesCheck->isEnabled();
    if (!parameters.fadviseVariant && !parameters.dropCachesVariant) {
        *error = i18nc("@info", "Choose at least one way to evict the file.");
        return nullptr;
    }
    if (parameters.file.path.empty() && !checkFolder(m_form->folderEdit->text().trimmed(), error)) {
        return nullptr;
    }
    return makeColdReadExperiment(parameters, privileged);
}

void ColdReadPage::privilegedAvailabilityChanged(bool available, const QString &reason)
{
    m_form->dropCachesCheck->setEnabled(available);
    m_form->dropCachesCheck->setToolTip(available ? i18nc("@info:tooltip",
                                                          "Empties the whole page cache through the privileged helper, as `echo 3 > "
                                                          "/proc/sys/vm/drop_caches` does. You may be asked for your password.")
                                                  : reason);
}

PressurePage::PressurePage(QWidget *parent)
    : ExperimentPage(QStringLiteral("pressure"), parent)
    , m_form(std::make_unique<Ui::ExperimentPressureParametersBase>())
{
    auto *form = new QWidget(this);
    m_form->setupUi(form);
    m_form->folderEdit->setText(defaultFolder());
    setUpPage(form,
              xi18nc("@info",
                     "<para>A file is read so that its pages are cached. Then a child process takes memory step by step and touches every "
                     "page of it.</para>"
                     "<para>Expect the cache to give way first: cached memory shrinks as much as the child grows, and only when little "
                     "cache is left does swap start to fill. The page cache never keeps memory from programs.</para>"
                     "<para>The child stops short of the available memory by a safety margin, and Cancel frees its memory at once.</para>"),
              {
                  {i18nc("@label plot legend", "Cached"),
                   cacheColor,
                   false,
                   [](const Sample &sample) {
                       return mib(sample.cached);
                   }},
                  {i18nc("@label plot legend", "Free"),
                   freeColor,
                   false,
                   [](const Sample &sample) {
                       return mib(sample.memFree);
                   }},
                  {i18nc("@label plot legend", "Allocated by the child"),
                   allocatedColor,
                   false,
                   [](const Sample &sample) {
                       return mib(sample.allocated);
                   }},
                  {i18nc("@label plot legend", "Swap used"),
                   swapColor,
                   false,
                   [](const Sample &sample) -> std::optional<double> {
                       if (!sample.swapTotal || !sample.swapFree) {
                           return std::nullopt;
                       }
                       return double(*sample.swapTotal - std::min(*sample.swapTotal, *sample.swapFree)) / bytesPerMiB;
                   }},
                  {i18nc("@label plot legend", "Warm file (right scale)"), fileColor, true, filePercent},
              },
              i18nc("@label:axis", "Memory (MiB)"),
              i18nc("@label:axis", "Warm file in the cache (%)"),
              {
                  {i18nc("@item:inlistbox", "Allocated and cache reclaimed"), {QStringLiteral("allocated"), QStringLiteral("cache_reclaimed")}},
                  {measurementLabel("warm_file_survived"), {QStringLiteral("warm_file_survived")}},
                  {measurementLabel("swap_used"), {QStringLiteral("swap_used")}},
              });
}

PressurePage::~PressurePage() = default;

QString PressurePage::title() const
{
    return i18nc("@title experiment", "Memory Pressure");
}

QString PressurePage::header() const
{
    return i18nc("@title experiment", "The cache gives way when programs need memory");
}

QString PressurePage::iconName() const
{
    return QStringLiteral("memory");
}

std::unique_ptr<Experiment> PressurePage::makeExperiment(const PrivilegedSteps &privileged, QString *error)
{
    PressureParameters parameters;
    parameters.file.folder = m_form->folderEdit->text().trimmed().toStdString();
    parameters.file.size = uint64_t(m_form->sizeSpin->value()) << 20;
    parameters.limit = uint64_t(m_form->limitSpin->value()) << 20;
    parameters.step = uint64_t(m_form->stepSpin->value()) << 20;
    parameters.runs = m_form->runsSpin->value();
    parameters.withSwapVariant = m_form->withSwapCheck->isChecked();
    parameters.withoutSwapVariant = m_form->withoutSwapCheck->isChecked() && m_form->withoutSwapCheck->isEnabled();
    parameters.allowOomKiller = m_form->allowOomCheck->isChecked();
    if (!parameters.withSwapVariant && !parameters.withoutSwapVariant) {
        *error = i18nc("@info", "Choose at least one variant: with swap or without.");
        return nullptr;
    }
    if (!checkFolder(m_form->folderEdit->text().trimmed(), error)) {
        return nullptr;
    }
    return makePressureExperiment(parameters, privileged);
}

void PressurePage::privilegedAvailabilityChanged(bool available, const QString &reason)
{
    m_form->withoutSwapCheck->setEnabled(available);
    m_form->withoutSwapCheck->setToolTip(available ? i18nc("@info:tooltip",
                                                           "Turns every swap area off through the privileged helper before the run and back "
                                                           "on after it, also when the run is cancelled.")
                                                   : reason);
}

ColdStartPage::ColdStartPage(QWidget *parent)
    : ExperimentPage(QStringLiteral("cold-start"), parent)
    , m_form(std::make_unique<Ui::ExperimentColdStartParametersBase>())
{
    auto *form = new QWidget(this);
    m_form->setupUi(form);
    setUpPage(form,
              xi18nc("@info",
                     "<para>A program is started once to record which files it reads. Then only those files are evicted and the program "
                     "is started cold, then warm again.</para>"
                     "<para>Cold minus warm is the time the program waits for the disk. Evicting only its own files (a "
                     "<emphasis>selectively cold cache</emphasis>) gives a cold start close to what people see after booting; "
                     "emptying the whole cache with drop_caches makes it far slower than real, because the whole system's files must "
                     "come back too.</para>"),
              {
                  {i18nc("@label plot legend", "Cached"),
                   cacheColor,
                   false,
                   [](const Sample &sample) {
                       return mib(sample.cached);
                   }},
                  {i18nc("@label plot legend", "Free"),
                   freeColor,
                   false,
                   [](const Sample &sample) {
                       return mib(sample.memFree);
                   }},
              },
              i18nc("@label:axis", "Memory (MiB)"),
              QString(),
              {
                  {i18nc("@item:inlistbox", "Cold and warm start"), {QStringLiteral("cold_seconds"), QStringLiteral("warm_seconds")}},
                  {measurementLabel("io_seconds"), {QStringLiteral("io_seconds")}},
              });

    m_filesTable = new QTableWidget(this);
    m_filesTable->setObjectName(QStringLiteral("programFilesTable"));
    m_filesTable->setColumnCount(FilesColumnCount);
    m_filesTable->setHorizontalHeaderLabels({
        i18nc("@title:column", "File"),
        i18nc("@title:column", "Size"),
        i18nc("@title:column", "Pages"),
        i18nc("@title:column", "Cached When Warm"),
        i18nc("@title:column", "Cached After Evicting"),
        i18nc("@title:column", "Note"),
    });
    m_filesTable->horizontalHeaderItem(WarmColumn)->setToolTip(i18nc("@info:tooltip", "Pages of the file in the cache after the warm run"));
    m_filesTable->horizontalHeaderItem(EvictedColumn)
        ->setToolTip(i18nc("@info:tooltip", "Pages still cached after the file was evicted for the cold run; see the note for why"));
    m_filesTable->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_filesTable->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_filesTable->setAlternatingRowColors(true);
    m_filesTable->setWordWrap(false);
    m_filesTable->verticalHeader()->setVisible(false);
    m_filesTable->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_filesTable->horizontalHeader()->setSectionResizeMode(FileColumn, QHeaderView::Stretch);
    m_filesTable->setTextElideMode(Qt::ElideLeft); // the file's name is at the end of its path
    m_filesTable->setWhatsThis(i18nc("@info:whatsthis",
                                     "The files the program read during its warm run: only these were evicted before each cold run."));
    addResultsTab(m_filesTable, i18nc("@title:tab", "Program's Files"));
}

ColdStartPage::~ColdStartPage() = default;

QTableWidget *ColdStartPage::filesTable() const
{
    return m_filesTable;
}

namespace
{
// Sorts by a number kept beside the formatted text.
class NumberItem : public QTableWidgetItem
{
public:
    NumberItem(const QString &text, double value)
        : QTableWidgetItem(text)
    {
        setData(Qt::UserRole, value);
        setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
    }
    bool operator<(const QTableWidgetItem &other) const override
    {
        return data(Qt::UserRole).toDouble() < other.data(Qt::UserRole).toDouble();
    }
};

QString pagesOf(double resident, double pages)
{
    return i18nc("@item:intable %1 cached pages, %2 all pages, %3 percent",
                 "%1 of %2 (%3)",
                 QLocale().toString(qint64(resident)),
                 QLocale().toString(qint64(pages)),
                 pages > 0 ? QLocale().toString(100.0 * resident / pages, 'f', 0) + QLatin1Char('%') : QStringLiteral("–"));
}
} // namespace

void ColdStartPage::resultsShown()
{
    // The files of this run; of the earlier result when there is no run yet.
    const std::optional<Result> &shown = currentResult() ? currentResult() : comparedResult();
    m_filesTable->setSortingEnabled(false);
    m_filesTable->setRowCount(0);
    if (!shown) {
        return;
    }
    const QJsonArray files = shown->details.value(QStringLiteral("files")).toArray();
    m_filesTable->setRowCount(int(files.size()));
    const KFormat format;
    int row = 0;
    for (const QJsonValue &value : files) {
        const QJsonObject file = value.toObject();
        const QString path = file.value(QStringLiteral("path")).toString();
        const double size = file.value(QStringLiteral("size")).toDouble();
        const double pages = file.value(QStringLiteral("pages")).toDouble();
        const bool hidden = file.value(QStringLiteral("residency_hidden")).toBool() || !file.value(QStringLiteral("resident_warm")).isDouble();
        const double warm = file.value(QStringLiteral("resident_warm")).toDouble();
        const double evicted = file.value(QStringLiteral("resident_after_evict")).toDouble();
        auto *name = new QTableWidgetItem(path);
        name->setToolTip(path);
        m_filesTable->setItem(row, FileColumn, name);
        m_filesTable->setItem(row, SizeColumn, new NumberItem(format.formatByteSize(size, 1, KFormat::IECBinaryDialect), size));
        m_filesTable->setItem(row, PagesColumn, new NumberItem(QLocale().toString(qint64(pages)), pages));
        if (hidden) {
            // Never a number where the kernel gave none; sorted below every known figure.
            const QString reason = i18nc("@info:tooltip %1 the kernel's reason",
                                         "The kernel does not tell this user which pages of this file are cached: %1. It was still evicted.",
                                         file.value(QStringLiteral("hidden_reason")).toString());
            for (const int column : {int(WarmColumn), int(EvictedColumn)}) {
                auto *item = new NumberItem(i18nc("@item:intable residency not visible to this user", "hidden"), -1);
                item->setToolTip(reason);
                item->setForeground(palette().brush(QPalette::Disabled, QPalette::Text));
                m_filesTable->setItem(row, column, item);
            }
        } else {
            m_filesTable->setItem(row, WarmColumn, new NumberItem(pagesOf(warm, pages), pages > 0 ? warm / pages : 0));
            m_filesTable->setItem(row, EvictedColumn, new NumberItem(pagesOf(evicted, pages), pages > 0 ? evicted / pages : 0));
        }
        const QString note = file.value(QStringLiteral("remain_reason")).toString();
        auto *noteItem = new QTableWidgetItem(note);
        noteItem->setToolTip(note);
        m_filesTable->setItem(row, NoteColumn, noteItem);
        ++row;
    }
    m_filesTable->setSortingEnabled(true);
    m_filesTable->sortByColumn(SizeColumn, Qt::DescendingOrder);
}

QString ColdStartPage::title() const
{
    return i18nc("@title experiment", "Program Cold Start");
}

QString ColdStartPage::header() const
{
    return i18nc("@title experiment", "A program's start with only its own files evicted");
}

QString ColdStartPage::iconName() const
{
    return QStringLiteral("system-run");
}

std::unique_ptr<Experiment> ColdStartPage::makeExperiment(const PrivilegedSteps &privileged, QString *error)
{
    KShell::Errors splitError = KShell::NoError;
    const QStringList arguments = KShell::splitArgs(m_form->commandEdit->text().trimmed(), KShell::TildeExpand, &splitError);
    if (splitError != KShell::NoError) {
        *error = i18nc("@info", "The command has unbalanced quotes or characters a shell would interpret; write a plain program and arguments.");
        return nullptr;
    }
    if (arguments.isEmpty()) {
        *error = i18nc("@info", "Type the command to start, for example: gimp --version");
        return nullptr;
    }
    ColdStartParameters parameters;
    for (const QString &argument : arguments) {
        parameters.command.push_back(argument.toStdString());
    }
    parameters.runs = m_form->runsSpin->value();
    parameters.timeoutSeconds = m_form->timeoutSpin->value();
    parameters.dropCachesVariant = m_form->dropCachesCheck->isChecked() && m_form->dropCachesCheck->isEnabled();
    parameters.traceFolder = defaultFolder().toStdString();
    return makeColdStartExperiment(parameters, privileged);
}

void ColdStartPage::privilegedAvailabilityChanged(bool available, const QString &reason)
{
    m_form->dropCachesCheck->setEnabled(available);
    m_form->dropCachesCheck->setToolTip(available ? i18nc("@info:tooltip",
                                                          "Also starts the program after emptying the whole page cache through the "
                                                          "privileged helper. You may be asked for your password.")
                                                  : reason);
}

WritebackPage::WritebackPage(QWidget *parent)
    : ExperimentPage(QStringLiteral("writeback"), parent)
    , m_form(std::make_unique<Ui::ExperimentWritebackParametersBase>())
{
    auto *form = new QWidget(this);
    m_form->setupUi(form);
    m_form->folderEdit->setText(defaultFolder());

    // The settings that decide when the kernel starts writing back.
    QStringList settings;
    const QJsonObject values = dirtySettings();
    for (auto it = values.begin(); it != values.end(); ++it) {
        settings << QStringLiteral("vm.%1 = %2").arg(it.key(), it.value().toVariant().toString());
    }
    auto *settingsLabel = new QLabel(form);
    settingsLabel->setObjectName(QStringLiteral("dirtySettingsLabel"));
    settingsLabel->setWordWrap(true);
    settingsLabel->setTextInteractionFlags(Qt::TextSelectableByMouse);
    settingsLabel->setText(settings.isEmpty() ? i18nc("@info", "The vm.dirty_* settings cannot be read.")
                                              : i18nc("@info", "This system's settings:\n%1", settings.join(QLatin1Char('\n'))));
    m_form->formLayout->addWidget(settingsLabel, m_form->formLayout->rowCount(), 0, 1, 2);

    setUpPage(form,
              xi18nc("@info",
                     "<para>Data is written to a file without syncing. It lands in the page cache as <emphasis>dirty</emphasis> pages; the "
                     "kernel writes them to the disk later (<emphasis>writeback</emphasis>), when they are old enough or too many.</para>"
                     "<para>Expect Dirty to rise while writing, stay up for a while, and drain when the kernel's flusher starts or when "
                     "fsync asks for it. While it runs, <interface>fsync Now</interface> and <interface>sync Now</interface> force the "
                     "writeback at once and say how long it took; otherwise both run at the end. The table shows how long writing, "
                     "fsync and sync took.</para>"),
              {
                  {i18nc("@label plot legend", "Dirty"),
                   dirtyColor,
                   false,
                   [](const Sample &sample) {
                       return mib(sample.dirty);
                   }},
                  {i18nc("@label plot legend", "Writeback"),
                   writebackColor,
                   false,
                   [](const Sample &sample) {
                       return mib(sample.writeback);
                   }},
                  {i18nc("@label plot legend", "File's dirty pages"),
                   fileColor,
                   false,
                   [](const Sample &sample) {
                       return pagesInMiB(sample.fileDirty);
                   }},
                  {i18nc("@label plot legend", "Written (right scale)"),
                   allocatedColor.darker(140),
                   true,
                   [](const Sample &sample) {
                       return mib(sample.written);
                   }},
              },
              i18nc("@label:axis", "Dirty, writeback (MiB)"),
              i18nc("@label:axis", "Written (MiB)"),
              {
                  {i18nc("@item:inlistbox", "Write, fsync and sync time"),
                   {QStringLiteral("write_seconds"), QStringLiteral("fsync_seconds"), QStringLiteral("sync_seconds")}},
                  {measurementLabel("write_throughput"), {QStringLiteral("write_throughput")}},
              });

    auto *box = new QGroupBox(i18nc("@title:group", "While It Runs"), this);
    box->setObjectName(QStringLiteral("syncBox"));
    auto *grid = new QGridLayout(box);
    m_fsyncButton = new QPushButton(QIcon::fromTheme(QStringLiteral("document-save")), i18nc("@action:button", "fsync Now"), box);
    m_fsyncButton->setToolTip(i18nc("@info:tooltip", "Writes the experiment's file to the disk now and waits until it is there (fsync)."));
    m_syncButton = new QPushButton(QIcon::fromTheme(QStringLiteral("document-save-all")), i18nc("@action:button", "sync Now"), box);
    m_syncButton->setToolTip(i18nc("@info:tooltip", "Writes every dirty page of the whole system to the disks now (sync)."));
    m_fsyncTime = new QLabel(box);
    m_syncTime = new QLabel(box);
    for (QLabel *label : {m_fsyncTime, m_syncTime}) {
        label->setTextInteractionFlags(Qt::TextSelectableByMouse);
    }
    grid->addWidget(m_fsyncButton, 0, 0);
    grid->addWidget(m_fsyncTime, 0, 1);
    grid->addWidget(m_syncButton, 1, 0);
    grid->addWidget(m_syncTime, 1, 1);
    grid->setColumnStretch(1, 1);
    addExtraWidget(box);
    connect(m_fsyncButton, &QPushButton::clicked, this, [this] {
        if (m_requests) {
            m_requests->fsync.fetch_add(1);
            m_fsyncTime->setText(i18nc("@info:status", "Asked for…"));
        }
    });
    connect(m_syncButton, &QPushButton::clicked, this, [this] {
        if (m_requests) {
            m_requests->sync.fetch_add(1);
            m_syncTime->setText(i18nc("@info:status", "Asked for…"));
        }
    });
    const auto enableButtons = [this](bool running) {
        m_fsyncButton->setEnabled(running);
        m_syncButton->setEnabled(running);
    };
    connect(this, &ExperimentPage::runningChanged, this, enableButtons);
    enableButtons(false);
    m_fsyncTime->setText(i18nc("@info:status", "Not run yet"));
    m_syncTime->setText(i18nc("@info:status", "Not run yet"));
}

WritebackPage::~WritebackPage() = default;

QPushButton *WritebackPage::fsyncButton() const
{
    return m_fsyncButton;
}

QPushButton *WritebackPage::syncButton() const
{
    return m_syncButton;
}

QLabel *WritebackPage::fsyncTimeLabel() const
{
    return m_fsyncTime;
}

QLabel *WritebackPage::syncTimeLabel() const
{
    return m_syncTime;
}

void WritebackPage::runStarting()
{
    m_fsyncAsked = false;
    m_syncAsked = false;
    m_fsyncTime->setText(i18nc("@info:status", "Not run yet"));
    m_syncTime->setText(i18nc("@info:status", "Not run yet"));
}

void WritebackPage::sampleArrived(const Sample &sample)
{
    // The label keeps what the button did; the call at the end of the run
    // shows there only when the button was not used.
    const bool asked = QString::fromStdString(sample.phase).endsWith(QLatin1String("(asked)"));
    const auto show = [&](QLabel *label, bool &labelAsked, double seconds) {
        if (asked) {
            labelAsked = true;
            label->setText(i18nc("@info:status %1 milliseconds, %2 seconds since the start",
                                 "Took %1 ms (at %2 s)",
                                 formatNumber(seconds * 1000),
                                 formatNumber(sample.seconds)));
        } else if (!labelAsked) {
            label->setText(i18nc("@info:status %1 milliseconds", "At the end: took %1 ms", formatNumber(seconds * 1000)));
        }
    };
    if (sample.fsyncSeconds) {
        show(m_fsyncTime, m_fsyncAsked, *sample.fsyncSeconds);
    }
    if (sample.syncSeconds) {
        show(m_syncTime, m_syncAsked, *sample.syncSeconds);
    }
}

QString WritebackPage::title() const
{
    return i18nc("@title experiment", "Dirty Pages and Writeback");
}

QString WritebackPage::header() const
{
    return i18nc("@title experiment", "Written data waits in the cache before it reaches the disk");
}

QString WritebackPage::iconName() const
{
    return QStringLiteral("document-save");
}

std::unique_ptr<Experiment> WritebackPage::makeExperiment(const PrivilegedSteps &, QString *error)
{
    WritebackParameters parameters;
    parameters.file.folder = m_form->folderEdit->text().trimmed().toStdString();
    parameters.file.size = uint64_t(m_form->sizeSpin->value()) << 20;
    parameters.step = uint64_t(m_form->stepSpin->value()) << 20;
    parameters.waitSeconds = m_form->waitSpin->value();
    parameters.runs = m_form->runsSpin->value();
    if (!checkFolder(m_form->folderEdit->text().trimmed(), error)) {
        return nullptr;
    }
    // A fresh set for every run: a click meant for the last run is not carried over.
    m_requests = std::make_shared<WritebackRequests>();
    parameters.requests = m_requests;
    return makeWritebackExperiment(parameters);
}

void WritebackPage::privilegedAvailabilityChanged(bool, const QString &)
{
    // Nothing here needs the helper.
}

FaultsPage::FaultsPage(QWidget *parent)
    : ExperimentPage(QStringLiteral("faults"), parent)
    , m_form(std::make_unique<Ui::ExperimentFaultsParametersBase>())
{
    auto *form = new QWidget(this);
    m_form->setupUi(form);
    m_form->folderEdit->setText(defaultFolder());
    setUpPage(form,
              xi18nc("@info",
                     "<para>The same file is read in five ways: read() in small pieces, stdio with its own buffer, stdio with a buffer "
                     "given by setvbuf(), mmap(), and O_DIRECT, which bypasses the cache; each cold and warm.</para>"
                     "<para>Expect mmap to cause a page fault for every page it touches (major when the page must come from the disk, "
                     "minor when it is cached), read() in small pieces to pay for its many system calls, and O_DIRECT to add nothing to "
                     "the cache and to be as slow warm as cold.</para>"),
              {
                  {i18nc("@label plot legend", "File in the cache"), fileColor, false, filePercent},
                  {i18nc("@label plot legend", "Page cache (right scale)"),
                   cacheColor,
                   true,
                   [](const Sample &sample) {
                       return mib(sample.cached);
                   }},
              },
              i18nc("@label:axis", "File in the cache (%)"),
              i18nc("@label:axis", "Page cache (MiB)"),
              {
                  {measurementLabel("seconds"), {QStringLiteral("seconds")}},
                  {i18nc("@item:inlistbox", "Minor and major faults"), {QStringLiteral("minor_faults"), QStringLiteral("major_faults")}},
                  {measurementLabel("cache_bytes_added"), {QStringLiteral("cache_bytes_added")}},
              });
}

FaultsPage::~FaultsPage() = default;

QString FaultsPage::title() const
{
    return i18nc("@title experiment", "Page Faults and Kinds of I/O");
}

QString FaultsPage::header() const
{
    return i18nc("@title experiment", "read(), stdio, setvbuf, mmap and O_DIRECT compared");
}

QString FaultsPage::iconName() const
{
    return QStringLiteral("view-list-details");
}

std::unique_ptr<Experiment> FaultsPage::makeExperiment(const PrivilegedSteps &, QString *error)
{
    FaultsParameters parameters;
    parameters.file.folder = m_form->folderEdit->text().trimmed().toStdString();
    parameters.file.size = uint64_t(m_form->sizeSpin->value()) << 20;
    parameters.smallBuffer = uint64_t(m_form->smallBufferSpin->value());
    parameters.stdioChunk = parameters.smallBuffer;
    parameters.setvbufSize = uint64_t(m_form->setvbufSpin->value());
    parameters.runs = m_form->runsSpin->value();
    parameters.cold = m_form->coldCheck->isChecked();
    parameters.warm = m_form->warmCheck->isChecked();
    if (!parameters.cold && !parameters.warm) {
        *error = i18nc("@info", "Choose cold, warm or both.");
        return nullptr;
    }
    if (!checkFolder(m_form->folderEdit->text().trimmed(), error)) {
        return nullptr;
    }
    return makeFaultsExperiment(parameters);
}

void FaultsPage::privilegedAvailabilityChanged(bool, const QString &)
{
    // Nothing here needs the helper.
}
