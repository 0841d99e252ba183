// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers
#pragma once

#include <QAbstractTableModel>
#include <QIcon>
#include <QList>
#include <QSortFilterProxyModel>
#include <QString>

#include <array>
#include <deque>
#include <vector>

namespace Cachescope::App
{

// A top list of the Activity tab's "Who" part: its rows (processes, files,
// applications) with three figures a second each (for processes and files
// as root: brought in, evicted, dirtied) and the last minute of each, one
// value an interval, for the sparkline. A row stays while it did anything
// in the last minute, and goes after a quiet minute.
class WhoModel : public QAbstractTableModel
{
    Q_OBJECT

public:
    enum Column {
        NameColumn,
        FirstMeasureColumn,
        SecondMeasureColumn,
        ThirdMeasureColumn,
        HistoryColumn,
        ColumnCount
    };
    static constexpr int measureCount = 3;
    // A busy minute on a big machine names thousands of files: the list
    // keeps the rows that did something most recently.
    static constexpr int maxRows = 500;
    enum Role {
        SortRole = Qt::UserRole + 1, // a number for measures, the name otherwise
        HistoryRole, // QList<double>: the sparkline's measure, oldest first
        KeyRole, // the row's key
        MeasureRole, // for HistoryColumn: which measure the sparkline draws (0-2)
    };

    // What a measure is: its heading, what its heading's tooltip says
    // (which file or event made it), and whether it counts bytes (else
    // events).
    struct Measure {
        QString title;
        QString toolTip;
        bool bytes = true;
    };

    struct Row {
        QString key; // what identifies the row from one interval to the next
        QString name;
        QIcon icon;
        QString toolTip; // who or what it is: the pid, the user, the path
        std::array<double, measureCount> perSecond{};
        // For the window's actions: the process and the file, where a row is one.
        int pid = 0;
        QString path;
        quint64 device = 0;
        quint64 inode = 0;
    };

    explicit WhoModel(QObject *parent = nullptr);

    void setMeasures(const std::array<Measure, measureCount> &measures);
    [[nodiscard]] const Measure &measure(int index) const;
    // How many intervals the history keeps: a minute of them.
    void setHistoryLength(int intervals);
    // The measure the sparkline draws (the sorted one's).
    void setSparklineMeasure(int index);
    [[nodiscard]] int sparklineMeasure() const;

    // One interval of `seconds`: the rows that did something in it. Rows
    // seen before keep their place (and the view its selection); the
    // others get a zero.
    void addInterval(std::vector<Row> rows, double seconds = 1.0);
    void clear();

    [[nodiscard]] const Row *rowAt(int row) const;
    [[nodiscard]] const Row *rowOf(const QString &key) const;
    [[nodiscard]] QList<double> history(const QString &key, int measure) const;
    // What a row's figures a second add up to over the history kept (each
    // interval's figure times its own length): bytes, or events.
    [[nodiscard]] double historyTotal(const QString &key, int measure) const;

    [[nodiscard]] int rowCount(const QModelIndex &parent = {}) const override;
    [[nodiscard]] int columnCount(const QModelIndex &parent = {}) const override;
    [[nodiscard]] QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    [[nodiscard]] QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

    // A figure a second as the list shows it ("12.5 MiB/s", "3.0/s").
    [[nodiscard]] QString figureText(double perSecond, int measure) const;

private:
    struct Entry {
        Row row;
        std::array<std::deque<double>, measureCount> history;
        bool active = false; // did something in the newest interval
        int quiet = 0; // intervals since it last did something
    };

    std::vector<Entry> m_entries;
    std::deque<double> m_intervalSeconds; // the newest last, as long as the longest history
    std::array<Measure, measureCount> m_measures;
    int m_historyLength = 60;
    int m_sparkline = 0;
};

// Sorts by the numbers behind the figures, the names with natural order.
class WhoSortModel : public QSortFilterProxyModel
{
    Q_OBJECT

public:
    explicit WhoSortModel(QObject *parent = nullptr);

protected:
    [[nodiscard]] bool lessThan(const QModelIndex &left, const QModelIndex &right) const override;
};

} // namespace Cachescope::App
