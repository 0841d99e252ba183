// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers
#pragma once

// One page of the Experiments window: what to expect and why, the
// parameters (a Designer form per experiment), Start and Cancel, a live plot
// fed by the engine while it runs, a results table, a bar chart comparing
// the variants (mean and 95% confidence interval), earlier results to
// compare with, and export as CSV and PNG.
//
// An experiment's page derives from this class (src/app/experiments/, one
// file each): it names the experiment, fills in setUpPage() and turns its
// form into an engine in makeExperiment(). The parts live in their own
// classes: ExperimentRunner (the worker thread), ExperimentHistory (stored
// results), ExperimentResultsModel (table and CSV), LivePlot and BarChart.

#include "barchart.h"
#include "experiments/engines.h"
#include "liveplot.h"

#include <QIODevice>
#include <QList>
#include <QStandardPaths>
#include <QStringList>
#include <QWidget>

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

class KLocalizedString;
class QImage;
class QAbstractButton;
class QComboBox;
class QCustomPlot;
class QPushButton;
class QTableView;

namespace Ui
{
class ExperimentPageBase;
}

namespace Cachescope::App
{

class ExperimentHistory;
class ExperimentResultsModel;
class ExperimentRunner;

class ExperimentPage : public QWidget
{
    Q_OBJECT

public:
    ~ExperimentPage() override;

    // The engine's name ("cold-read", ...), also the prefix of stored results.
    [[nodiscard]] QString experimentName() const;
    // For the window's list of experiments.
    [[nodiscard]] QString title() const;
    [[nodiscard]] QString header() const;
    [[nodiscard]] QString iconName() const;

    [[nodiscard]] bool isRunning() const;
    // The result on show (after a run), if any.
    [[nodiscard]] const std::optional<Experiments::Result> &currentResult() const;
    // Live samples received during the current or last run.
    [[nodiscard]] int liveSampleCount() const;
    // Where the last result was stored (empty before a run or when it could not be).
    [[nodiscard]] QString storedPath() const;

    [[nodiscard]] QCustomPlot *livePlot() const;
    [[nodiscard]] QCustomPlot *barChart() const;
    // Its model is an ExperimentResultsModel.
    [[nodiscard]] QTableView *resultsTable() const;
    [[nodiscard]] QComboBox *historyCombo() const;
    [[nodiscard]] QComboBox *barMeasurementCombo() const;
    [[nodiscard]] QPushButton *startButton() const;
    [[nodiscard]] QPushButton *cancelButton() const;
    [[nodiscard]] QPushButton *exportCsvButton() const;
    [[nodiscard]] QPushButton *exportPngButton() const;

    // The variants that need the root helper (drop_caches, swap off) can be
    // chosen only when it can be reached; otherwise reason says why.
    void setPrivilegedAvailable(bool available, const QString &reason);

    // The results table (current and compared) as CSV, and the live plot and
    // the bar chart side by side as PNG; a page with plots of its own
    // (replacePlots) exports its own. On failure: false and *error names the
    // path and the reason.
    virtual bool exportCsv(const QString &path, QString *error = nullptr) const;
    virtual bool exportPng(const QString &path, QString *error = nullptr) const;

    // <AppDataLocation>/experiments: stored results, one JSON file a run.
    [[nodiscard]] static QString historyFolder();
    // Reads the stored results of this experiment again into the history list.
    void reloadHistory();

public Q_SLOTS:
    void start();
    void cancel();

Q_SIGNALS:
    void runningChanged(bool running);
    // After every run, finished, failed or cancelled.
    void finished();
    // For a page's own widgets: a run begins (before the first sample), a
    // sample arrives while it runs, the results on show changed (a run
    // ended, or an earlier result was chosen to compare with).
    void runStarting();
    void sampleArrived(const Cachescope::Experiments::Sample &sample);
    void resultsShown();

protected:
    // What the window's list says of the experiment.
    struct Identity {
        QString experimentName; // the engine's
        QString title;
        QString header;
        QString iconName;
    };
    // What a page puts into the frame, given to setUpPage().
    struct Content {
        QWidget *parametersForm = nullptr;
        QString explanation;
        QList<LiveSeries> series;
        QString leftAxisLabel;
        QString rightAxisLabel; // empty: no right axis
        QList<BarPreset> presets;
        // What the live plot's horizontal axis counts, and what it says while empty.
        LiveKey liveKey = LiveKey::Time;
        QString livePlaceholder{};
        // For LiveKey::RunTime: which variant a phase is a run of, and its colour.
        LiveRuns liveRuns{};
    };

    ExperimentPage(const Identity &identity, QWidget *parent);

    // A widget of the page with the Designer form set up on it.
    template<typename Form>
    [[nodiscard]] QWidget *makeParametersForm(Form &form)
    {
        auto *widget = new QWidget(this);
        form.setupUi(widget);
        return widget;
    }
    // Called by the subclass's constructor once its form exists. A folder
    // edit in the form called folderEdit starts at defaultFolder().
    void setUpPage(const Content &content);
    // The engine from the form; nullptr and *error when the form is not usable.
    [[nodiscard]] virtual std::unique_ptr<Experiments::Experiment> makeExperiment(const Experiments::PrivilegedSteps &privileged, QString *error) = 0;

    // A choice that needs the privileged helper: enabled with toolTip when
    // the helper can be reached, disabled with the reason otherwise.
    void addPrivilegedOption(QAbstractButton *option, const QString &toolTip);
    // A widget of the page's own under Start and Cancel, and a tab beside the
    // results table (the tab bar shows once there are two).
    void addExtraWidget(QWidget *widget);
    void addResultsTab(QWidget *widget, const QString &title);
    // The earlier result chosen to compare with, if any.
    [[nodiscard]] const std::optional<Experiments::Result> &comparedResult() const;
    // What an engine gets for its privileged steps: the helper's when it can
    // be reached, else none.
    [[nodiscard]] Experiments::PrivilegedSteps privilegedSteps() const;
    // A page that draws its results its own way: plots takes the place of the
    // live plot and the bar chart (hidden, with the bar chart's choice).
    void replacePlots(QWidget *plots);
    // A button beside the export buttons.
    void addExportButton(QPushButton *button);
    // Asks where to save (proposing a name in location), writes, and says how it went.
    void askExport(const QString &title,
                   QStandardPaths::StandardLocation location,
                   const QString &suffix,
                   const QString &filter,
                   const std::function<bool(const QString &, QString *)> &write,
                   const KLocalizedString &saved);
    void showMessage(const QString &text, bool isError);
    // Write a file in one go (QSaveFile); on failure *error names the path and the reason.
    [[nodiscard]] static bool writeFile(const QString &path, const QByteArray &contents, QIODevice::OpenMode mode, QString *error);
    [[nodiscard]] static bool writeImage(const QString &path, const QImage &image, QString *error);

    // A folder edit's default: a disk-backed place the user owns.
    [[nodiscard]] static QString defaultFolder();
    // The read_ahead_kb of the disk that holds path, for the pages whose
    // figures depend on it (the readahead window grows up to it).
    [[nodiscard]] static QString readAheadText(const QString &path);
    // Checks that folder exists; on failure *error names it and the reason.
    [[nodiscard]] static bool checkFolder(const QString &folder, QString *error);
    // A command line typed by a person as argv (never through a shell); empty and *error when it cannot be used.
    [[nodiscard]] static std::vector<std::string> splitCommand(const QString &text, QString *error);

private:
    struct PrivilegedOption {
        QAbstractButton *option;
        QString toolTip;
    };

    void addSample(const Experiments::Sample &sample);
    void runFinished(const Experiments::Result &result);
    void setRunning(bool running);
    void showResults();
    void storeResult(const Experiments::Result &result);
    void selectHistory(int index);
    void askExportCsv();
    void askExportPng();
    void showPrivilegedOption(const PrivilegedOption &option);

    std::unique_ptr<Ui::ExperimentPageBase> m_ui;
    Identity m_identity;
    bool m_privilegedAvailable = false;
    QString m_privilegedReason;
    QList<PrivilegedOption> m_privilegedOptions;

    ExperimentRunner *m_runner = nullptr;
    std::unique_ptr<ExperimentHistory> m_history;
    ExperimentResultsModel *m_resultsModel = nullptr;
    std::unique_ptr<LivePlot> m_livePlot;
    std::unique_ptr<BarChart> m_barChart;

    std::optional<Experiments::Result> m_current;
    std::optional<Experiments::Result> m_compared;
    QString m_comparedLabel;
    QString m_storedPath;
};

} // namespace Cachescope::App
