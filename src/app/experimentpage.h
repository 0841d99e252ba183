// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers
#pragma once

// One page of the Experiments window: what to expect and why, the
// parameters (a Designer form per experiment), Start and Cancel, a live plot
// fed by the engine while it runs on a worker thread, a results table, a bar
// chart comparing the variants (mean and 95% confidence interval), earlier
// results to compare with, and export as CSV and PNG.

#include "experiments/engines.h"

#include <QColor>
#include <QList>
#include <QPointer>
#include <QStringList>
#include <QWidget>

#include <atomic>
#include <functional>
#include <memory>
#include <optional>

namespace Cachescope::App
{
class HeatmapWidget;
}
using Cachescope::App::HeatmapWidget;
class QCPBarsGroup;
class QComboBox;
class QLabel;
class QCustomPlot;
class QPushButton;
class QTableWidget;
class QThread;
class QTimer;

namespace Ui
{
class ExperimentPageBase;
class ExperimentColdReadParametersBase;
class ExperimentPressureParametersBase;
class ExperimentColdStartParametersBase;
class ExperimentWritebackParametersBase;
class ExperimentFaultsParametersBase;
}

class ExperimentPage : public QWidget
{
    Q_OBJECT

public:
    enum Column {
        ResultColumn,
        VariantColumn,
        FigureColumn,
        RunsColumn,
        MeanColumn,
        ConfidenceColumn,
        UnitColumn,
        ColumnCount
    };

    ~ExperimentPage() override;

    // The engine's name ("cold-read", ...), also the prefix of stored results.
    [[nodiscard]] QString experimentName() const;
    // For the window's list of experiments.
    [[nodiscard]] virtual QString title() const = 0;
    [[nodiscard]] virtual QString header() const = 0;
    [[nodiscard]] virtual QString iconName() const = 0;

    [[nodiscard]] bool isRunning() const;
    // The result on show (after a run), if any.
    [[nodiscard]] const std::optional<Cachescope::Experiments::Result> &currentResult() const;
    // Live samples received during the current or last run.
    [[nodiscard]] int liveSampleCount() const;
    // Where the last result was stored (empty before a run or when it could not be).
    [[nodiscard]] QString storedPath() const;

    [[nodiscard]] QCustomPlot *livePlot() const;
    [[nodiscard]] QCustomPlot *barChart() const;
    [[nodiscard]] QTableWidget *resultsTable() const;
    [[nodiscard]] QComboBox *historyCombo() const;
    [[nodiscard]] QComboBox *barMeasurementCombo() const;
    [[nodiscard]] QPushButton *startButton() const;
    [[nodiscard]] QPushButton *cancelButton() const;

    // The variants that need the root helper (drop_caches, swap off) can be
    // chosen only when it can be reached; otherwise reason says why.
    void setPrivilegedAvailable(bool available, const QString &reason);

    // The results table (current and compared) as CSV, and the live plot and
    // the bar chart side by side as PNG. On failure: false and *error names
    // the path and the reason.
    bool exportCsv(const QString &path, QString *error = nullptr) const;
    bool exportPng(const QString &path, QString *error = nullptr) const;

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

protected:
    // A line of the live plot: its value in a sample, nullopt when the sample has none.
    struct LiveSeries {
        QString name;
        QColor color;
        bool rightAxis = false;
        std::function<std::optional<double>(const Cachescope::Experiments::Sample &)> value;
    };
    // What the bar chart can show: one or more measurements of the same unit.
    struct BarPreset {
        QString label;
        QStringList measurements;
    };

    ExperimentPage(const QString &experimentName, QWidget *parent);

    // Called by the subclass's constructor once its form exists.
    void setUpPage(QWidget *parametersForm,
                   const QString &explanation,
                   const QList<LiveSeries> &series,
                   const QString &leftAxisLabel,
                   const QString &rightAxisLabel,
                   const QList<BarPreset> &presets);
    // The engine from the form; nullptr and *error when the form is not usable.
    [[nodiscard]] virtual std::unique_ptr<Cachescope::Experiments::Experiment> makeExperiment(const Cachescope::Experiments::PrivilegedSteps &privileged,
                                                                                              QString *error) = 0;
    virtual void privilegedAvailabilityChanged(bool available, const QString &reason) = 0;
    // Engines that report no samples of their own (cold start) get memory
    // figures read by the page while they run.
    [[nodiscard]] virtual bool samplesMemoryItself() const
    {
        return false;
    }
    // Hooks for a page's own widgets: a run begins (before the first
    // sample), a sample arrives while it runs, the results on show changed
    // (a run ended, or an earlier result was chosen to compare with).
    virtual void runStarting()
    {
    }
    virtual void sampleArrived(const Cachescope::Experiments::Sample &sample)
    {
        Q_UNUSED(sample)
    }
    virtual void resultsShown()
    {
    }
    // A widget of the page's own under Start and Cancel, and a tab beside the
    // results table (the tab bar shows once there are two).
    void addExtraWidget(QWidget *widget);
    void addResultsTab(QWidget *widget, const QString &title);
    // The earlier result chosen to compare with, if any.
    [[nodiscard]] const std::optional<Cachescope::Experiments::Result> &comparedResult() const;

    // A folder edit's default: a disk-backed place the user owns.
    [[nodiscard]] static QString defaultFolder();
    // Checks that folder exists; on failure *error names it and the reason.
    [[nodiscard]] static bool checkFolder(const QString &folder, QString *error);
    [[nodiscard]] Cachescope::Experiments::PrivilegedSteps privilegedSteps() const;

private:
    void addSample(const Cachescope::Experiments::Sample &sample);
    void addLiveMarker(double seconds, const QString &text);
    void addEvent(const Cachescope::Experiments::Event &event);
    void runFinished(const Cachescope::Experiments::Result &result);
    void setRunning(bool running);
    void applyPalette();
    void styleAxes(QCustomPlot *plot);
    void showResults();
    void fillTable();
    void fillBarChoices();
    void drawBars();
    void storeResult(const Cachescope::Experiments::Result &result);
    void selectHistory(int index);
    void showMessage(const QString &text, bool isError);
    void sampleMemory();
    void askExportCsv();
    void askExportPng();
    void waitForWorker();

    std::unique_ptr<Ui::ExperimentPageBase> m_ui;
    QString m_experimentName;
    QList<LiveSeries> m_series;
    QList<BarPreset> m_presets;
    bool m_privilegedAvailable = false;

    QThread *m_worker = nullptr;
    std::atomic<bool> m_cancel{false};
    bool m_running = false;
    bool m_destroying = false;
    int m_liveSamples = 0;
    double m_liveMaximum = 0;
    double m_liveRightMaximum = 0;
    std::string m_lastPhase;
    QTimer *m_memoryTimer = nullptr;
    qint64 m_startedMs = 0;

    std::optional<Cachescope::Experiments::Result> m_current;
    std::optional<Cachescope::Experiments::Result> m_compared;
    QString m_comparedLabel;
    QString m_storedPath;
    QCPBarsGroup *m_barsGroup = nullptr;
};

class ColdReadPage : public ExperimentPage
{
    Q_OBJECT
public:
    explicit ColdReadPage(QWidget *parent = nullptr);
    ~ColdReadPage() override;
    [[nodiscard]] QString title() const override;
    [[nodiscard]] QString header() const override;
    [[nodiscard]] QString iconName() const override;
    // The file's pages filling in during the cold read (hidden before a run).
    [[nodiscard]] HeatmapWidget *fileHeatmap() const;

protected:
    std::unique_ptr<Cachescope::Experiments::Experiment> makeExperiment(const Cachescope::Experiments::PrivilegedSteps &privileged, QString *error) override;
    void privilegedAvailabilityChanged(bool available, const QString &reason) override;
    void runStarting() override;
    void sampleArrived(const Cachescope::Experiments::Sample &sample) override;

private:
    std::unique_ptr<Ui::ExperimentColdReadParametersBase> m_form;
    HeatmapWidget *m_heatmap = nullptr;
    QString m_heatmapName; // what the heatmap calls the file of this run
    uint64_t m_heatmapSize = 0;
};

class PressurePage : public ExperimentPage
{
    Q_OBJECT
public:
    explicit PressurePage(QWidget *parent = nullptr);
    ~PressurePage() override;
    [[nodiscard]] QString title() const override;
    [[nodiscard]] QString header() const override;
    [[nodiscard]] QString iconName() const override;

protected:
    std::unique_ptr<Cachescope::Experiments::Experiment> makeExperiment(const Cachescope::Experiments::PrivilegedSteps &privileged, QString *error) override;
    void privilegedAvailabilityChanged(bool available, const QString &reason) override;

private:
    std::unique_ptr<Ui::ExperimentPressureParametersBase> m_form;
};

class ColdStartPage : public ExperimentPage
{
    Q_OBJECT
public:
    explicit ColdStartPage(QWidget *parent = nullptr);
    ~ColdStartPage() override;
    [[nodiscard]] QString title() const override;
    [[nodiscard]] QString header() const override;
    [[nodiscard]] QString iconName() const override;

protected:
    std::unique_ptr<Cachescope::Experiments::Experiment> makeExperiment(const Cachescope::Experiments::PrivilegedSteps &privileged, QString *error) override;
    void privilegedAvailabilityChanged(bool available, const QString &reason) override;
    [[nodiscard]] bool samplesMemoryItself() const override
    {
        return true;
    }
    void resultsShown() override;

public:
    enum FilesColumn {
        FileColumn,
        SizeColumn,
        PagesColumn,
        WarmColumn,
        EvictedColumn,
        NoteColumn,
        FilesColumnCount
    };
    // The program's files with size and residency, of the result on show.
    [[nodiscard]] QTableWidget *filesTable() const;

private:
    std::unique_ptr<Ui::ExperimentColdStartParametersBase> m_form;
    QTableWidget *m_filesTable = nullptr;
};

class WritebackPage : public ExperimentPage
{
    Q_OBJECT
public:
    explicit WritebackPage(QWidget *parent = nullptr);
    ~WritebackPage() override;
    [[nodiscard]] QString title() const override;
    [[nodiscard]] QString header() const override;
    [[nodiscard]] QString iconName() const override;

    // fsync and sync while it runs, and what each took.
    [[nodiscard]] QPushButton *fsyncButton() const;
    [[nodiscard]] QPushButton *syncButton() const;
    [[nodiscard]] QLabel *fsyncTimeLabel() const;
    [[nodiscard]] QLabel *syncTimeLabel() const;

protected:
    std::unique_ptr<Cachescope::Experiments::Experiment> makeExperiment(const Cachescope::Experiments::PrivilegedSteps &privileged, QString *error) override;
    void privilegedAvailabilityChanged(bool available, const QString &reason) override;
    void runStarting() override;
    void sampleArrived(const Cachescope::Experiments::Sample &sample) override;

private:
    std::unique_ptr<Ui::ExperimentWritebackParametersBase> m_form;
    std::shared_ptr<Cachescope::Experiments::WritebackRequests> m_requests;
    QPushButton *m_fsyncButton = nullptr;
    QPushButton *m_syncButton = nullptr;
    QLabel *m_fsyncTime = nullptr;
    QLabel *m_syncTime = nullptr;
    bool m_fsyncAsked = false;
    bool m_syncAsked = false;
};

class FaultsPage : public ExperimentPage
{
    Q_OBJECT
public:
    explicit FaultsPage(QWidget *parent = nullptr);
    ~FaultsPage() override;
    [[nodiscard]] QString title() const override;
    [[nodiscard]] QString header() const override;
    [[nodiscard]] QString iconName() const override;

protected:
    std::unique_ptr<Cachescope::Experiments::Experiment> makeExperiment(const Cachescope::Experiments::PrivilegedSteps &privileged, QString *error) override;
    void privilegedAvailabilityChanged(bool available, const QString &reason) override;

private:
    std::unique_ptr<Ui::ExperimentFaultsParametersBase> m_form;
};
