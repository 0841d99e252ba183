// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers

#include "experimentpage.h"

#include "cachescopesettings.h"

#include "experimenthistory.h"
#include "experimentrunner.h"
#include "figuretext.h"
#include "resultsmodel.h"

#include "ui_ExperimentPageBase.h"

#include <KLocalizedString>
#include <KMessageWidget>
#include <KShell>

#include <QAbstractButton>
#include <QBoxLayout>
#include <QDateTime>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QHeaderView>
#include <QLineEdit>
#include <QPainter>
#include <QSaveFile>
#include <QScrollArea>
#include <QStandardPaths>
#include <QStyle>

#include <qcustomplot.h>

#include <algorithm>

namespace Cachescope::App
{

using namespace Experiments;

namespace
{
// The size a plot is exported at when it has not been laid out on screen.
constexpr QSize fallbackPlotSize{600, 400};

} // namespace

bool ExperimentPage::writeFile(const QString &path, const QByteArray &contents, QIODevice::OpenMode mode, QString *error)
{
    QSaveFile file(path);
    if (file.open(QIODevice::WriteOnly | mode)) {
        file.write(contents);
        if (file.commit()) {
            return true;
        }
    }
    if (error) {
        *error = i18nc("@info %1 path, %2 reason", "Cannot write %1: %2", path, file.errorString());
    }
    return false;
}

bool ExperimentPage::writeImage(const QString &path, const QImage &image, QString *error)
{
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly) || !image.save(&file, "PNG") || !file.commit()) {
        if (error) {
            *error = i18nc("@info %1 path, %2 reason", "Cannot write %1: %2", path, file.errorString());
        }
        return false;
    }
    return true;
}

ExperimentPage::ExperimentPage(const Identity &identity, QWidget *parent)
    : QWidget(parent)
    , m_ui(std::make_unique<Ui::ExperimentPageBase>())
    , m_identity(identity)
    , m_privilegedReason(i18nc("@info:tooltip", "Checking whether the privileged helper can be reached…"))
    , m_runner(new ExperimentRunner(this))
    , m_history(std::make_unique<ExperimentHistory>(identity.experimentName))
    , m_resultsModel(new ExperimentResultsModel(this))
{
    m_ui->setupUi(this);
    connect(m_runner, &ExperimentRunner::sampleArrived, this, &ExperimentPage::addSample);
    connect(m_runner, &ExperimentRunner::eventArrived, this, [this](const Event &event) {
        if (!m_runner->isCancelling()) {
            m_ui->statusLabel->setText(engineText(event.text));
        }
    });
    connect(m_runner, &ExperimentRunner::finished, this, &ExperimentPage::runFinished);
}

// Nothing waits here: the runner cancels a running engine and lets it end on its own.
ExperimentPage::~ExperimentPage() = default;

void ExperimentPage::setUpPage(const Content &content)
{
    if (auto *folderEdit = content.parametersForm->findChild<QLineEdit *>(QStringLiteral("folderEdit"))) {
        folderEdit->setText(defaultFolder());
    }
    m_ui->parametersLayout->addWidget(content.parametersForm);
    m_ui->explanationLabel->setText(content.explanation);
    m_ui->leftPane->setMinimumWidth(300);
    // A long explanation and form scroll rather than making the window
    // taller than the screen.
    auto *leftScroll = new QScrollArea;
    leftScroll->setObjectName(QStringLiteral("leftScroll"));
    leftScroll->setWidgetResizable(true);
    leftScroll->setFrameShape(QFrame::NoFrame);
    leftScroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    QWidget *leftPane = m_ui->splitter->replaceWidget(0, leftScroll);
    leftScroll->setWidget(leftPane);
    leftPane->setAutoFillBackground(false);
    leftScroll->viewport()->setAutoFillBackground(false);
    leftPane->show();
    leftScroll->setMinimumWidth(leftPane->minimumWidth() + leftScroll->style()->pixelMetric(QStyle::PM_ScrollBarExtent));
    m_ui->splitter->setStretchFactor(0, 0);
    m_ui->splitter->setStretchFactor(1, 1);
    m_ui->splitter->setSizes({340 + leftScroll->style()->pixelMetric(QStyle::PM_ScrollBarExtent), 900});

    // "Bars show" under the bar chart it controls, at its full width: the
    // bar beside the table has "Compare with" and the exports, and no room
    // to spare for a third wide field.
    auto *barColumn = new QVBoxLayout;
    barColumn->setContentsMargins(0, 0, 0, 0);
    const int barIndex = m_ui->plotsLayout->indexOf(m_ui->barChart);
    m_ui->plotsLayout->removeWidget(m_ui->barChart);
    barColumn->addWidget(m_ui->barChart, 1);
    auto *barChoice = new QHBoxLayout;
    m_ui->resultsBarLayout->removeWidget(m_ui->barMeasurementLabel);
    m_ui->resultsBarLayout->removeWidget(m_ui->barMeasurementCombo);
    barChoice->addWidget(m_ui->barMeasurementLabel);
    // Aligned rather than followed by a stretch: a page that draws its own
    // plots hides both, and the empty column then takes no room.
    barChoice->addWidget(m_ui->barMeasurementCombo, 1, Qt::AlignLeft);
    barColumn->addLayout(barChoice);
    m_ui->plotsLayout->insertLayout(barIndex, barColumn, 1);
    m_ui->plotsLayout->setStretchFactor(m_ui->livePlot, 1);
    // As wide as its longest figure's name, never squeezed.
    m_ui->barMeasurementCombo->setSizePolicy(QSizePolicy::Fixed, QSizePolicy::Fixed);

    m_livePlot = std::make_unique<LivePlot>(m_ui->livePlot,
                                            content.series,
                                            content.leftAxisLabel,
                                            content.rightAxisLabel,
                                            content.liveKey,
                                            content.livePlaceholder,
                                            content.liveRuns);
    m_barChart = std::make_unique<BarChart>(m_ui->barChart, m_ui->barMeasurementCombo, content.presets);

    QTableView *table = m_ui->resultsTable;
    table->setModel(m_resultsModel);
    for (int column = ExperimentResultsModel::ColumnCount; column < ExperimentResultsModel::AllColumnCount; ++column) {
        table->setColumnHidden(column, true); // the CSV's own
    }
    // The figure's name takes the room left over; the numbers keep to their
    // width, right beside it, as in Dolphin's details view.
    table->horizontalHeader()->setStretchLastSection(false);
    table->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    table->horizontalHeader()->setSectionResizeMode(ExperimentResultsModel::FigureColumn, QHeaderView::Stretch);

    m_ui->startButton->setIcon(QIcon::fromTheme(QStringLiteral("media-playback-start")));
    m_ui->cancelButton->setIcon(QIcon::fromTheme(QStringLiteral("process-stop")));
    m_ui->exportCsvButton->setIcon(QIcon::fromTheme(QStringLiteral("text-csv"), QIcon::fromTheme(QStringLiteral("document-export"))));
    m_ui->exportPngButton->setIcon(QIcon::fromTheme(QStringLiteral("image-png"), QIcon::fromTheme(QStringLiteral("document-export"))));
    connect(m_ui->startButton, &QPushButton::clicked, this, &ExperimentPage::start);
    connect(m_ui->cancelButton, &QPushButton::clicked, this, &ExperimentPage::cancel);
    connect(m_ui->exportCsvButton, &QPushButton::clicked, this, &ExperimentPage::askExportCsv);
    connect(m_ui->exportPngButton, &QPushButton::clicked, this, &ExperimentPage::askExportPng);
    connect(m_ui->barMeasurementCombo, &QComboBox::currentIndexChanged, this, [this] {
        m_barChart->draw();
    });
    connect(m_ui->historyCombo, &QComboBox::currentIndexChanged, this, &ExperimentPage::selectHistory);

    reloadHistory();
}

QString ExperimentPage::experimentName() const
{
    return m_identity.experimentName;
}

QString ExperimentPage::title() const
{
    return m_identity.title;
}

QString ExperimentPage::header() const
{
    return m_identity.header;
}

QString ExperimentPage::iconName() const
{
    return m_identity.iconName;
}

bool ExperimentPage::isRunning() const
{
    return m_runner->isRunning();
}

const std::optional<Result> &ExperimentPage::currentResult() const
{
    return m_current;
}

int ExperimentPage::liveSampleCount() const
{
    return m_livePlot->sampleCount();
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

QTableView *ExperimentPage::resultsTable() const
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

QPushButton *ExperimentPage::exportCsvButton() const
{
    return m_ui->exportCsvButton;
}

QPushButton *ExperimentPage::exportPngButton() const
{
    return m_ui->exportPngButton;
}

void ExperimentPage::setPrivilegedAvailable(bool available, const QString &reason)
{
    m_privilegedAvailable = available;
    m_privilegedReason = reason;
    for (const PrivilegedOption &option : std::as_const(m_privilegedOptions)) {
        showPrivilegedOption(option);
    }
}

PrivilegedSteps ExperimentPage::privilegedSteps() const
{
    return ExperimentRunner::privilegedSteps(m_privilegedAvailable);
}

void ExperimentPage::addPrivilegedOption(QAbstractButton *option, const QString &toolTip)
{
    m_privilegedOptions.append({option, toolTip});
    showPrivilegedOption(m_privilegedOptions.last());
}

void ExperimentPage::showPrivilegedOption(const PrivilegedOption &option)
{
    option.option->setEnabled(m_privilegedAvailable);
    option.option->setToolTip(m_privilegedAvailable ? option.toolTip : m_privilegedReason);
}

QString ExperimentPage::readAheadText(const QString &path)
{
    const std::optional<uint64_t> kib = readAheadKiB(path.toStdString());
    if (!kib) {
        return i18nc("@info", "The readahead setting of this disk (read_ahead_kb) cannot be read.");
    }
    return i18nc("@info %1 a number of KiB", "Readahead of this disk: up to %1 KiB (read_ahead_kb; most disks have 128).", *kib);
}

QString ExperimentPage::defaultFolder()
{
    // Settings > General > Experiments folder, else a folder of their own in
    // the cache folder: on the home disk, where the user may write (/tmp is
    // often tmpfs, whose pages cannot be evicted), apart from what else
    // lives there (tools/dev's build roots, GBs, in ~/.cache/cachescope).
    const QUrl chosen = CachescopeSettings::self()->experimentsFolder();
    const QString folder = chosen.isLocalFile() && !chosen.toLocalFile().isEmpty()
        ? chosen.toLocalFile()
        : QDir(QStandardPaths::writableLocation(QStandardPaths::CacheLocation)).filePath(QStringLiteral("experiments"));
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

std::vector<std::string> ExperimentPage::splitCommand(const QString &text, QString *error)
{
    KShell::Errors splitError = KShell::NoError;
    const QStringList arguments = KShell::splitArgs(text.trimmed(), KShell::TildeExpand, &splitError);
    if (splitError != KShell::NoError) {
        *error = i18nc("@info", "The command has unbalanced quotes or characters a shell would interpret; write a plain program and arguments.");
        return {};
    }
    if (arguments.isEmpty()) {
        *error = i18nc("@info", "Type the command to start, for example: gimp --version");
        return {};
    }
    std::vector<std::string> command;
    for (const QString &argument : arguments) {
        command.push_back(argument.toStdString());
    }
    return command;
}

void ExperimentPage::start()
{
    if (m_runner->isRunning()) {
        return;
    }
    QString error;
    std::unique_ptr<Experiment> experiment = makeExperiment(privilegedSteps(), &error);
    if (!experiment) {
        showMessage(error, true);
        return;
    }
    m_ui->messageWidget->animatedHide();
    m_livePlot->clear();
    Q_EMIT runStarting();
    m_ui->statusLabel->setText(i18nc("@info:status", "Starting…"));
    m_runner->start(std::move(experiment));
    setRunning(true);
}

void ExperimentPage::cancel()
{
    if (!m_runner->isRunning()) {
        return;
    }
    m_runner->cancel();
    m_ui->cancelButton->setEnabled(false);
    m_ui->statusLabel->setText(i18nc("@info:status", "Cancelling…"));
}

void ExperimentPage::setRunning(bool running)
{
    m_ui->startButton->setEnabled(!running);
    m_ui->cancelButton->setEnabled(running);
    m_ui->parametersBox->setEnabled(!running);
    m_ui->busyBar->setVisible(running);
    Q_EMIT runningChanged(running);
}

void ExperimentPage::addSample(const Sample &sample)
{
    if (!m_runner->isRunning()) {
        return; // a sample queued before the end
    }
    Q_EMIT sampleArrived(sample);
    if (sample.fsyncSeconds) {
        m_livePlot->addMarker(sample.seconds, i18nc("@label plot marker, %1 a duration (27.3 ms)", "fsync %1", formatDuration(*sample.fsyncSeconds)));
    }
    if (sample.syncSeconds) {
        m_livePlot->addMarker(sample.seconds, i18nc("@label plot marker, %1 a duration (27.3 ms)", "sync %1", formatDuration(*sample.syncSeconds)));
    }
    (void)m_livePlot->addSample(sample);
}

void ExperimentPage::addExtraWidget(QWidget *widget)
{
    m_ui->extrasLayout->addWidget(widget);
    // A widget that asks for the height left (the cold read's heatmap) gets
    // it, rather than the spacer under it.
    if (const int stretch = widget->sizePolicy().verticalStretch(); stretch > 0) {
        m_ui->leftLayout->setStretchFactor(m_ui->extrasLayout, stretch);
    }
}

void ExperimentPage::addResultsTab(QWidget *widget, const QString &title)
{
    m_ui->resultsTabs->addTab(widget, title);
    // A table in a tab is named by its tab for a screen reader, as the tab names it for the eye.
    if (widget->accessibleName().isEmpty()) {
        widget->setAccessibleName(title);
    }
}

const std::optional<Result> &ExperimentPage::comparedResult() const
{
    return m_compared;
}

void ExperimentPage::replacePlots(QWidget *plots)
{
    for (QWidget *replaced : {static_cast<QWidget *>(m_ui->livePlot),
                              static_cast<QWidget *>(m_ui->barChart),
                              static_cast<QWidget *>(m_ui->barMeasurementLabel),
                              static_cast<QWidget *>(m_ui->barMeasurementCombo)}) {
        replaced->hide();
    }
    m_ui->plotsLayout->addWidget(plots);
}

void ExperimentPage::addExportButton(QPushButton *button)
{
    m_ui->resultsBarLayout->insertWidget(m_ui->resultsBarLayout->indexOf(m_ui->exportCsvButton), button);
}

void ExperimentPage::runFinished(const Result &result)
{
    setRunning(false);
    if (!result.error.empty()) {
        m_ui->statusLabel->clear();
        showMessage(i18nc("@info %1 is the reason", "The experiment could not run: %1", engineText(result.error)), true);
    } else if (result.cancelled) {
        m_ui->statusLabel->setText(
            i18nc("@info:status %1 a duration (1.25 s)", "Cancelled after %1. Nothing was left behind.", formatDuration(result.seconds)));
    } else {
        QStringList lines;
        lines << i18nc("@info:status %1 a duration (1.25 s)", "Finished in %1.", formatDuration(result.seconds));
        lines << noteLines(result);
        m_ui->statusLabel->setText(lines.join(QLatin1Char('\n')));
        m_current = result;
        storeResult(result);
        showResults();
    }
    Q_EMIT finished();
}

void ExperimentPage::storeResult(const Result &result)
{
    QString error;
    m_storedPath = m_history->store(result, &error);
    if (m_storedPath.isEmpty()) {
        showMessage(error, true);
        return;
    }
    reloadHistory();
}

QString ExperimentPage::historyFolder()
{
    return ExperimentHistory::folder();
}

void ExperimentPage::reloadHistory()
{
    QComboBox *combo = m_ui->historyCombo;
    const QString selected = combo->currentData().toString();
    const QSignalBlocker blocker(combo);
    combo->clear();
    combo->addItem(i18nc("@item:inlistbox compare with no earlier result", "Nothing"));
    const QList<ExperimentHistory::Entry> entries = m_history->entries();
    for (const ExperimentHistory::Entry &entry : entries) {
        QString label = startedText(entry.result);
        if (entry.path == m_storedPath) {
            label = i18nc("@item:inlistbox %1 is a date", "%1 (this run)", label);
        }
        combo->addItem(label, entry.path);
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
        QString error;
        m_compared = ExperimentHistory::load(path, &error);
        if (!m_compared) {
            showMessage(error, true);
        } else {
            m_comparedLabel = startedText(*m_compared);
        }
    }
    showResults();
}

void ExperimentPage::showResults()
{
    m_resultsModel->setResults(m_current, m_compared, m_comparedLabel);
    QTableView *table = m_ui->resultsTable;
    table->clearSpans();
    for (int row = 0; row < m_resultsModel->rowCount(); ++row) {
        if (m_resultsModel->isSkippedRow(row)) {
            table->setSpan(row, ExperimentResultsModel::FigureColumn, 1, ExperimentResultsModel::ColumnCount - ExperimentResultsModel::FigureColumn);
        }
    }
    m_barChart->showResults(m_current, m_compared, m_comparedLabel);
    const bool haveResults = m_current || m_compared;
    m_ui->exportCsvButton->setEnabled(haveResults);
    m_ui->exportPngButton->setEnabled(haveResults);
    Q_EMIT resultsShown();
}

void ExperimentPage::showMessage(const QString &text, bool isError)
{
    m_ui->messageWidget->setMessageType(isError ? KMessageWidget::Error : KMessageWidget::Positive);
    m_ui->messageWidget->setText(text);
    m_ui->messageWidget->animatedShow();
}

bool ExperimentPage::exportCsv(const QString &path, QString *error) const
{
    return writeFile(path, m_resultsModel->toCsv().toUtf8(), QIODevice::Text, error);
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
    return writeImage(path, image, error);
}

void ExperimentPage::askExportCsv()
{
    askExport(
        i18nc("@title:window", "Export Results"),
        QStandardPaths::DocumentsLocation,
        QStringLiteral("csv"),
        i18nc("@item:inlistbox file type", "CSV table (*.csv)"),
        [this](const QString &path, QString *error) {
            return exportCsv(path, error);
        },
        ki18nc("@info %1 is a file path", "Saved the results to %1."));
}

void ExperimentPage::askExportPng()
{
    askExport(
        i18nc("@title:window", "Export Plots"),
        QStandardPaths::PicturesLocation,
        QStringLiteral("png"),
        i18nc("@item:inlistbox file type", "PNG image (*.png)"),
        [this](const QString &path, QString *error) {
            return exportPng(path, error);
        },
        ki18nc("@info %1 is a file path", "Saved the plots to %1."));
}

void ExperimentPage::askExport(const QString &title,
                               QStandardPaths::StandardLocation location,
                               const QString &suffix,
                               const QString &filter,
                               const std::function<bool(const QString &, QString *)> &write,
                               const KLocalizedString &saved)
{
    const QString stamp = QDateTime::currentDateTime().toString(QStringLiteral("yyyy-MM-dd-HHmmss"));
    const QString folder = QStandardPaths::writableLocation(location);
    const QString proposed = QStringLiteral("cachescope-%1-%2.%3").arg(experimentName(), stamp, suffix);
    QString path = QFileDialog::getSaveFileName(this, title, QDir(folder).filePath(proposed), filter);
    if (path.isEmpty()) {
        return;
    }
    if (QFileInfo(path).suffix().isEmpty()) {
        path += QLatin1Char('.') + suffix;
    }
    QString error;
    if (write(path, &error)) {
        showMessage(saved.subs(path).toString(), false);
    } else {
        showMessage(error, true);
    }
}

} // namespace Cachescope::App
