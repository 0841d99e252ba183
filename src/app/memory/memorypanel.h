// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers
#pragma once

#include "freefigurestable.h"
#include "memorysampler.h"

#include <QColor>
#include <QList>
#include <QWidget>

#include <deque>
#include <memory>
#include <vector>

class QCustomPlot;
class QCPGraph;
class QCPItemStraightLine;
class QCPItemText;
class QTableWidget;
class QSplitter;
class QTabWidget;
class KActionCollection;
class KMessageWidget;

namespace Ui
{
class MemoryPanelBase;
}

namespace Cachescope::App
{

class MemoryMarkers;

// Memory at a glance: a stacked plot of the last minutes (used, buffers,
// cache, free; dirty and writeback as lines on their own scale), a second
// tab with page cache activity from /proc/vmstat, and below them a table
// with the figures `free` prints.
class MemoryPanel : public QWidget
{
    Q_OBJECT

public:
    static constexpr int defaultHistoryMinutes = 5;

    explicit MemoryPanel(QWidget *parent = nullptr);
    ~MemoryPanel() override;

    // The table's columns and rows, in the order `free` prints them.
    using enum FreeFiguresTable::Column;
    using enum FreeFiguresTable::Row;
    enum Tab {
        MemoryTab,
        ActivityTab
    };

    // memory_export_plot and memory_export_samples (before setupGUI).
    void setUpActions(KActionCollection *collection);

    [[nodiscard]] QCustomPlot *plot() const;
    [[nodiscard]] QCustomPlot *ratesPlot() const;
    [[nodiscard]] QTabWidget *tabs() const;
    [[nodiscard]] QTableWidget *figuresTable() const;
    [[nodiscard]] KMessageWidget *messageWidget() const;
    [[nodiscard]] std::size_t sampleCount() const;
    [[nodiscard]] const std::deque<MemorySample> &samples() const;

    void setHistoryMinutes(int minutes);
    [[nodiscard]] double historySeconds() const;

    // Puts `part` under the activity plot in the Activity tab, with a
    // splitter between them (the "Who" part).
    void addActivityPart(QWidget *part);
    [[nodiscard]] QWidget *activityTab() const;

    // Whether the activity plot is on screen, and so whether vmstat needs reading.
    [[nodiscard]] bool ratesShown() const;

    // What hovering shows at `key` seconds relative to the newest sample (a
    // negative number): the sample nearest to it. Empty without samples.
    [[nodiscard]] QString memoryHoverText(double key) const;
    [[nodiscard]] QString ratesHoverText(double key) const;

    // Writes the plot of the current tab as PNG or PDF (by the name's
    // suffix), or every sample in the history as CSV. On failure: false and
    // *error names the path and the reason.
    bool exportPlot(const QString &path, QString *error = nullptr);
    bool exportSamples(const QString &path, QString *error = nullptr);

    [[nodiscard]] int markerCount() const;

public Q_SLOTS:
    void addSample(const Cachescope::App::MemorySample &sample);
    // Marks this moment on the memory plot (the caches were dropped, swap
    // went off): a vertical line with a label; hovering near it shows details.
    void addMarker(const QString &label, const QString &details);
    void showError(const QString &message);
    void clearError();
    // The window calls this when it is minimised or restored: nothing is
    // drawn that nobody can see.
    void updateVisibility();

Q_SIGNALS:
    void ratesShownChanged(bool shown);
    // Something a person should read, such as where an export went.
    void message(const QString &text, bool isError);

protected:
    void changeEvent(QEvent *event) override;
    void showEvent(QShowEvent *event) override;
    void hideEvent(QHideEvent *event) override;
    bool eventFilter(QObject *watched, QEvent *event) override;

private:
    std::unique_ptr<MemoryMarkers> m_markers;

    void setUpPlot();
    void setUpRatesPlot();
    void setUpTimeAxis();
    // The seconds the time axes span: from the oldest sample kept to now,
    // at least 2 s and at most the history.
    [[nodiscard]] double shownSeconds() const;
    void applyTimeSpan();
    void applyPalette();
    void replot();
    void replotRates();
    void showHover(QCustomPlot *plot, const QPoint &position);
    // A figure of a sample as hovering shows it and a screen reader reads it.
    struct Figure {
        QColor color;
        QString name;
        QString value;
    };
    [[nodiscard]] QList<Figure> memoryFigures(const MemorySample &sample) const;
    [[nodiscard]] QList<Figure> rateFigures(const VmStatRates &rates) const;
    // While assistive technology listens, each plot's accessible
    // description says the latest figures ("Now: Used 3.1 GiB, …, Cache
    // 2.1 GiB, Free 10.3 GiB, …"), at each sample; else nothing is written.
    void describeLatest();
    // Values under the pointer (showHover) and the leave event for plot.
    void trackHover(QCustomPlot *plot);
    [[nodiscard]] const MemorySample *sampleNear(double key) const;
    [[nodiscard]] QString timeText(double key) const;
    // A size as the table and the tooltips show it.
    [[nodiscard]] static QString bytesText(uint64_t bytes);
    void askExportPlot();
    void askExportSamples();

    std::unique_ptr<Ui::MemoryPanelBase> m_ui;
    std::deque<MemorySample> m_samples;
    double m_historySeconds = defaultHistoryMinutes * 60.0;
    bool m_ratesShown = false;
    // Set when samples arrived while a plot could not be seen.
    bool m_plotStale = false;
    bool m_ratesPlotStale = false;

    // Stacked from the bottom: each graph's values include those below it,
    // and each is filled down to the one below.
    QCPGraph *m_usedGraph = nullptr;
    QCPGraph *m_buffersGraph = nullptr;
    QCPGraph *m_cacheGraph = nullptr;
    QCPGraph *m_freeGraph = nullptr;
    // Megabytes rather than gigabytes: on the GiB scale they would be a flat line.
    QCPGraph *m_dirtyGraph = nullptr;
    QCPGraph *m_writebackGraph = nullptr;

    // Three panes side by side, each with numbers of one kind.
    QCPGraph *m_readGraph = nullptr;
    QCPGraph *m_writtenGraph = nullptr;
    QCPGraph *m_minorFaultsGraph = nullptr;
    QCPGraph *m_majorFaultsGraph = nullptr;
    QCPGraph *m_refaultsGraph = nullptr;

    QSplitter *m_activitySplitter = nullptr;

    // The moment hovering points at, one line per pane.
    QList<QCPItemStraightLine *> m_hoverLines;
};

} // namespace Cachescope::App
