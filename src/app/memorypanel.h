// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers
#pragma once

#include "memorysampler.h"

#include <QWidget>

#include <deque>
#include <memory>

class QCustomPlot;
class QCPGraph;
class QTableWidget;
class KMessageWidget;

namespace Ui
{
class MemoryPanelBase;
}

// Memory at a glance: a stacked plot of the last five minutes (used, buffers,
// cache, free; dirty and writeback as lines on their own scale) above a
// table with the figures `free` prints.
class MemoryPanel : public QWidget
{
    Q_OBJECT

public:
    // How far back the plot reaches.
    static constexpr double historySeconds = 300;

    explicit MemoryPanel(QWidget *parent = nullptr);
    ~MemoryPanel() override;

    // The table's columns and rows, in the order `free` prints them.
    enum Column {
        TotalColumn,
        UsedColumn,
        FreeColumn,
        SharedColumn,
        BuffCacheColumn,
        AvailableColumn,
        ColumnCount
    };
    enum Row {
        MemoryRow,
        SwapRow,
        RowCount
    };

    [[nodiscard]] QCustomPlot *plot() const;
    [[nodiscard]] QTableWidget *figuresTable() const;
    [[nodiscard]] KMessageWidget *messageWidget() const;
    [[nodiscard]] std::size_t sampleCount() const;

    // The human-readable size the table and the plot's tooltips use.
    [[nodiscard]] static QString formatBytes(uint64_t bytes);

public Q_SLOTS:
    void addSample(const MemorySample &sample);
    void showError(const QString &message);
    void clearError();

protected:
    void changeEvent(QEvent *event) override;

private:
    void setUpPlot();
    void applyPalette();
    void setUpTable();
    void fitTableHeight();
    void replot();
    void updateTable(const MemorySample &sample);

    std::unique_ptr<Ui::MemoryPanelBase> m_ui;
    std::deque<MemorySample> m_samples;

    // Stacked from the bottom: each graph's values include those below it,
    // and each is filled down to the one below.
    QCPGraph *m_usedGraph = nullptr;
    QCPGraph *m_buffersGraph = nullptr;
    QCPGraph *m_cacheGraph = nullptr;
    QCPGraph *m_freeGraph = nullptr;
    // Megabytes rather than gigabytes: on the GiB scale they would be a flat line.
    QCPGraph *m_dirtyGraph = nullptr;
    QCPGraph *m_writebackGraph = nullptr;
};
