// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers
#pragma once

// 6. Where a start's pages come from: a program (or the built-in lesson) is
// traced from its start to its exit, and the page shows every extent the
// kernel read for it: when (the timeline), where in each file (the heatmap,
// the table), and whether the program asked for it or readahead brought it
// in, with the totals. Replay reads the same extents again in the order they
// came, in file order and in disk order, and compares with the cold start.
//
// With the privileged helper the kernel's page-cache events are traced
// (tracefs); without it the page evicts the program's files, runs it and
// compares their residency, which tells which pages but not when: the page
// says so where the timeline would be.

#include "experimentpage.h"
#include "trace/tracereport.h"

#include <optional>

class QCustomPlot;
class QComboBox;
class QFormLayout;
class QGroupBox;
class QLabel;
class QSpinBox;
class QTableView;

namespace Ui
{
class ExperimentTraceParametersBase;
}

namespace Cachescope::App
{

class BarChart;
class ExperimentRunner;
class HeatmapWidget;
class TraceExtentsModel;
class TraceTimeline;

class TracePage : public ExperimentPage
{
    Q_OBJECT

public:
    explicit TracePage(QWidget *parent = nullptr);
    ~TracePage() override;

    // The trace on show: of this run, else of the earlier result compared with.
    [[nodiscard]] const std::optional<Trace::Report> &shownReport() const;
    // Shows a trace as a run would (a trace file opened, tests).
    void showReport(const std::optional<Trace::Report> &report);

    [[nodiscard]] QCustomPlot *timelinePlot() const;
    [[nodiscard]] TraceTimeline *timeline() const;
    [[nodiscard]] QTableView *extentsTable() const;
    [[nodiscard]] HeatmapWidget *fileHeatmap() const;
    [[nodiscard]] QComboBox *heatmapFileCombo() const;
    // The totals as "label: value" lines, as the totals box shows them.
    [[nodiscard]] QStringList totals() const;

    [[nodiscard]] QPushButton *replayButton() const;
    [[nodiscard]] QPushButton *cancelReplayButton() const;
    [[nodiscard]] QCustomPlot *replayPlot() const;
    [[nodiscard]] QLabel *replayCheckLabel() const;
    [[nodiscard]] bool isReplaying() const;
    [[nodiscard]] const std::optional<Experiments::Result> &replayResult() const;

    // The trace file (JSON), the extents (CSV) and the timeline (PNG).
    bool exportJson(const QString &path, QString *error = nullptr) const;
    bool exportCsv(const QString &path, QString *error = nullptr) const override;
    bool exportPng(const QString &path, QString *error = nullptr) const override;

public Q_SLOTS:
    void replay();
    void cancelReplay();

Q_SIGNALS:
    // After every replay, finished, failed or cancelled.
    void replayFinished();

protected:
    std::unique_ptr<Experiments::Experiment> makeExperiment(const Experiments::PrivilegedSteps &privileged, QString *error) override;

private:
    void showShownResult();
    void showTotals();
    void fillHeatmapFiles();
    void showHeatmapFile(int index);
    void replayDone(const Experiments::Result &result);
    void updateButtons();
    void askExportJson();

    std::unique_ptr<Ui::ExperimentTraceParametersBase> m_form;
    std::optional<Trace::Report> m_report;
    bool m_replayable = false; // a traced file is still there

    QCustomPlot *m_timelinePlot = nullptr;
    TraceTimeline *m_timeline = nullptr;
    TraceExtentsModel *m_extentsModel = nullptr;
    QTableView *m_extentsTable = nullptr;
    QComboBox *m_heatmapFileCombo = nullptr;
    HeatmapWidget *m_heatmap = nullptr;
    QGroupBox *m_totalsBox = nullptr;
    QFormLayout *m_totalsLayout = nullptr;
    QStringList m_totals;

    ExperimentRunner *m_replayRunner = nullptr;
    QPushButton *m_replayButton = nullptr;
    QPushButton *m_cancelReplayButton = nullptr;
    QSpinBox *m_replayRunsSpin = nullptr;
    QComboBox *m_replayMeasurementCombo = nullptr;
    QCustomPlot *m_replayPlot = nullptr;
    std::unique_ptr<BarChart> m_replayChart;
    QLabel *m_replayStatus = nullptr;
    QLabel *m_replayCheckLabel = nullptr;
    std::optional<Experiments::Result> m_replayResult;
};

} // namespace Cachescope::App
