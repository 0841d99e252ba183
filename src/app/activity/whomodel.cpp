// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers

#include "whomodel.h"

#include "format.h"

#include <KLocalizedString>

#include <QCollator>
#include <QLocale>

#include <algorithm>
#include <cmath>
#include <unordered_map>

namespace Cachescope::App
{

WhoModel::WhoModel(QObject *parent)
    : QAbstractTableModel(parent)
{
}

void WhoModel::setMeasures(const std::array<Measure, measureCount> &measures)
{
    m_measures = measures;
    Q_EMIT headerDataChanged(Qt::Horizontal, FirstMeasureColumn, ThirdMeasureColumn);
    if (!m_entries.empty()) {
        Q_EMIT dataChanged(index(0, FirstMeasureColumn), index(rowCount() - 1, HistoryColumn));
    }
}

const WhoModel::Measure &WhoModel::measure(int measureIndex) const
{
    return m_measures.at(size_t(std::clamp(measureIndex, 0, measureCount - 1)));
}

void WhoModel::setHistoryLength(int intervals)
{
    m_historyLength = std::max(2, intervals);
}

void WhoModel::setSparklineMeasure(int measureIndex)
{
    measureIndex = std::clamp(measureIndex, 0, measureCount - 1);
    if (measureIndex == m_sparkline) {
        return;
    }
    m_sparkline = measureIndex;
    Q_EMIT headerDataChanged(Qt::Horizontal, HistoryColumn, HistoryColumn);
    if (!m_entries.empty()) {
        Q_EMIT dataChanged(index(0, HistoryColumn), index(rowCount() - 1, HistoryColumn));
    }
}

int WhoModel::sparklineMeasure() const
{
    return m_sparkline;
}

void WhoModel::addInterval(std::vector<Row> rows, double seconds)
{
    m_intervalSeconds.push_back(seconds);
    while (int(m_intervalSeconds.size()) > m_historyLength) {
        m_intervalSeconds.pop_front();
    }
    std::unordered_map<QString, size_t> incoming;
    incoming.reserve(rows.size());
    for (size_t i = 0; i < rows.size(); ++i) {
        incoming.emplace(rows[i].key, i);
    }
    const auto push = [this](Entry &entry, const std::array<double, measureCount> &values) {
        for (int m = 0; m < measureCount; ++m) {
            std::deque<double> &series = entry.history[size_t(m)];
            series.push_back(values[size_t(m)]);
            while (int(series.size()) > m_historyLength) {
                series.pop_front();
            }
        }
    };

    // Rows seen before: new figures, or zeros; a minute of zeros and they go.
    for (Entry &entry : m_entries) {
        if (const auto found = incoming.find(entry.row.key); found != incoming.end()) {
            entry.row = std::move(rows[found->second]);
            entry.active = true;
            entry.quiet = 0;
            incoming.erase(found);
        } else {
            entry.row.perSecond = {};
            entry.active = false;
            ++entry.quiet;
        }
        push(entry, entry.row.perSecond);
    }
    // Over the bound, the rows quiet the longest go first, as many as
    // make room (rows active in this interval always stay).
    std::vector<bool> evicted(m_entries.size(), false);
    if (m_entries.size() + incoming.size() > size_t(maxRows)) {
        std::vector<size_t> order(m_entries.size());
        for (size_t i = 0; i < order.size(); ++i) {
            order[i] = i;
        }
        std::stable_sort(order.begin(), order.end(), [this](size_t a, size_t b) {
            return m_entries[a].quiet > m_entries[b].quiet;
        });
        size_t excess = m_entries.size() + incoming.size() - size_t(maxRows);
        for (size_t i = 0; i < order.size() && excess > 0 && m_entries[order[i]].quiet > 0; ++i, --excess) {
            evicted[order[i]] = true;
        }
    }
    const auto gone = [this, &evicted](size_t index) {
        const Entry &entry = m_entries[index];
        return evicted[index] || std::all_of(entry.history.begin(), entry.history.end(), [](const std::deque<double> &series) {
                   return std::all_of(series.begin(), series.end(), [](double value) {
                       return value <= 0;
                   });
               });
    };

    // Runs of rows that go, each removed at once (from the end: the
    // positions before a run stay right).
    for (int last = int(m_entries.size()) - 1; last >= 0;) {
        if (!gone(size_t(last))) {
            --last;
            continue;
        }
        int first = last;
        while (first > 0 && gone(size_t(first - 1))) {
            --first;
        }
        beginRemoveRows({}, first, last);
        m_entries.erase(m_entries.begin() + first, m_entries.begin() + last + 1);
        evicted.erase(evicted.begin() + first, evicted.begin() + last + 1);
        endRemoveRows();
        last = first - 1;
    }
    if (!m_entries.empty()) {
        Q_EMIT dataChanged(index(0, 0), index(rowCount() - 1, ColumnCount - 1));
    }

    // New rows, in the order they came (the most active first).
    std::vector<size_t> fresh;
    fresh.reserve(incoming.size());
    for (const auto &[key, position] : incoming) {
        fresh.push_back(position);
    }
    std::sort(fresh.begin(), fresh.end());
    if (!fresh.empty()) {
        beginInsertRows({}, rowCount(), rowCount() + int(fresh.size()) - 1);
        for (size_t position : fresh) {
            Entry entry;
            entry.row = std::move(rows[position]);
            entry.active = true;
            push(entry, entry.row.perSecond);
            m_entries.push_back(std::move(entry));
        }
        endInsertRows();
    }
}

void WhoModel::clear()
{
    m_intervalSeconds.clear();
    if (m_entries.empty()) {
        return;
    }
    beginResetModel();
    m_entries.clear();
    endResetModel();
}

const WhoModel::Row *WhoModel::rowAt(int row) const
{
    return row >= 0 && row < rowCount() ? &m_entries[size_t(row)].row : nullptr;
}

const WhoModel::Row *WhoModel::rowOf(const QString &key) const
{
    const auto found = std::find_if(m_entries.begin(), m_entries.end(), [&key](const Entry &entry) {
        return entry.row.key == key;
    });
    return found != m_entries.end() ? &found->row : nullptr;
}

QList<double> WhoModel::history(const QString &key, int measure) const
{
    const auto found = std::find_if(m_entries.begin(), m_entries.end(), [&key](const Entry &entry) {
        return entry.row.key == key;
    });
    if (found == m_entries.end()) {
        return {};
    }
    const std::deque<double> &series = found->history[size_t(std::clamp(measure, 0, measureCount - 1))];
    return QList<double>(series.begin(), series.end());
}

double WhoModel::historyTotal(const QString &key, int measure) const
{
    const QList<double> series = history(key, measure);
    // A row's history ends with the newest interval, as the lengths do.
    double total = 0;
    const qsizetype offset = qsizetype(m_intervalSeconds.size()) - series.size();
    for (qsizetype i = 0; i < series.size(); ++i) {
        const qsizetype at = offset + i;
        total += series[i] * (at >= 0 ? m_intervalSeconds[size_t(at)] : 0.0);
    }
    return total;
}

int WhoModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : int(m_entries.size());
}

int WhoModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QString WhoModel::figureText(double perSecond, int measure) const
{
    if (perSecond <= 0) {
        return QStringLiteral("–");
    }
    if (m_measures[size_t(std::clamp(measure, 0, measureCount - 1))].bytes) {
        return i18nc("@item bytes per second", "%1/s", formatBytes(uint64_t(std::llround(perSecond)), ByteStyle::OneDecimal, QLocale()));
    }
    return i18nc("@item events per second", "%1/s", QLocale().toString(perSecond, 'f', perSecond < 10 ? 1 : 0));
}

QVariant WhoModel::data(const QModelIndex &index, int role) const
{
    if (!index.isValid() || index.row() >= rowCount()) {
        return {};
    }
    const Entry &entry = m_entries[size_t(index.row())];
    const int column = index.column();
    const int measure = column - FirstMeasureColumn;
    switch (role) {
    case Qt::DisplayRole:
        if (column == NameColumn) {
            return entry.row.name;
        }
        if (column >= FirstMeasureColumn && column <= ThirdMeasureColumn) {
            return figureText(entry.row.perSecond[size_t(measure)], measure);
        }
        return {};
    case Qt::DecorationRole:
        return column == NameColumn && !entry.row.icon.isNull() ? QVariant(entry.row.icon) : QVariant();
    case Qt::ToolTipRole: {
        if (column == HistoryColumn) {
            const std::deque<double> &series = entry.history[size_t(m_sparkline)];
            const double peak = series.empty() ? 0 : *std::max_element(series.begin(), series.end());
            return i18nc("@info:tooltip %1 what is drawn, %2 the highest value",
                         "%1 over the last minute; the highest: %2",
                         m_measures[size_t(m_sparkline)].title,
                         figureText(peak, m_sparkline));
        }
        return entry.row.toolTip;
    }
    case Qt::TextAlignmentRole:
        return column == NameColumn ? QVariant(Qt::AlignLeft | Qt::AlignVCenter) : QVariant(Qt::AlignRight | Qt::AlignVCenter);
    case SortRole:
        if (column == NameColumn) {
            return entry.row.name;
        }
        if (column == HistoryColumn) {
            const std::deque<double> &series = entry.history[size_t(m_sparkline)];
            double sum = 0;
            for (double value : series) {
                sum += value;
            }
            return sum;
        }
        return entry.row.perSecond[size_t(measure)];
    case HistoryRole: {
        const std::deque<double> &series = entry.history[size_t(m_sparkline)];
        return QVariant::fromValue(QList<double>(series.begin(), series.end()));
    }
    case KeyRole:
        return entry.row.key;
    case MeasureRole:
        return m_sparkline;
    default:
        return {};
    }
}

QVariant WhoModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal) {
        return {};
    }
    if (role == Qt::DisplayRole) {
        switch (section) {
        case NameColumn:
            return i18nc("@title:column", "Name");
        case FirstMeasureColumn:
        case SecondMeasureColumn:
        case ThirdMeasureColumn:
            return m_measures[size_t(section - FirstMeasureColumn)].title;
        case HistoryColumn:
            return i18nc("@title:column a small plot of the last minute", "Last Minute");
        default:
            return {};
        }
    }
    if (role == Qt::ToolTipRole) {
        if (section >= FirstMeasureColumn && section <= ThirdMeasureColumn) {
            return m_measures[size_t(section - FirstMeasureColumn)].toolTip;
        }
        if (section == HistoryColumn) {
            return i18nc("@info:tooltip",
                         "The sorted figure over the last minute, each row to its own highest value: %1",
                         m_measures[size_t(m_sparkline)].title);
        }
    }
    if (role == Qt::TextAlignmentRole) {
        return section == NameColumn ? QVariant(Qt::AlignLeft | Qt::AlignVCenter) : QVariant(Qt::AlignRight | Qt::AlignVCenter);
    }
    return {};
}

WhoSortModel::WhoSortModel(QObject *parent)
    : QSortFilterProxyModel(parent)
{
    setSortRole(WhoModel::SortRole);
    setDynamicSortFilter(true);
}

bool WhoSortModel::lessThan(const QModelIndex &left, const QModelIndex &right) const
{
    const QVariant a = left.data(WhoModel::SortRole);
    const QVariant b = right.data(WhoModel::SortRole);
    if (left.column() == WhoModel::NameColumn) {
        static const QCollator collator = [] {
            QCollator c;
            c.setNumericMode(true);
            c.setCaseSensitivity(Qt::CaseInsensitive);
            return c;
        }();
        return collator.compare(a.toString(), b.toString()) < 0;
    }
    const double x = a.toDouble();
    const double y = b.toDouble();
    if (x != y) {
        return x < y;
    }
    // Ties (most rows are quiet in a column) in a steady order.
    return left.data(WhoModel::KeyRole).toString() > right.data(WhoModel::KeyRole).toString();
}

} // namespace Cachescope::App
