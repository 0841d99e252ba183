// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers

#include "resultsmodel.h"

#include "figuretext.h"
#include "format.h"

#include <KLocalizedString>

#include <QLocale>

namespace Cachescope::App
{

using namespace Experiments;

QString csvField(const QString &text)
{
    if (text.contains(QLatin1Char(',')) || text.contains(QLatin1Char('"')) || text.contains(QLatin1Char('\n'))) {
        QString quoted = text;
        quoted.replace(QLatin1String("\""), QLatin1String("\"\""));
        return QLatin1Char('"') + quoted + QLatin1Char('"');
    }
    return text;
}

namespace
{

// The CSV's columns, in its order, and their names in its header line.
struct CsvColumn {
    int column;
    const char *name;
};
constexpr CsvColumn csvColumns[] = {
    {ExperimentResultsModel::ResultColumn, "result"},
    {ExperimentResultsModel::StartedColumn, "started"},
    {ExperimentResultsModel::VariantColumn, "variant"},
    {ExperimentResultsModel::FigureColumn, "figure"},
    {ExperimentResultsModel::UnitColumn, "unit"},
    {ExperimentResultsModel::RunsColumn, "runs"},
    {ExperimentResultsModel::MeanColumn, "mean"},
    {ExperimentResultsModel::ConfidenceColumn, "ci95_half_width"},
    {ExperimentResultsModel::MinimumColumn, "minimum"},
    {ExperimentResultsModel::MaximumColumn, "maximum"},
    {ExperimentResultsModel::ValuesColumn, "values"},
    {ExperimentResultsModel::NoteColumn, "note"},
};

} // namespace

ExperimentResultsModel::ExperimentResultsModel(QObject *parent)
    : QAbstractTableModel(parent)
{
}

void ExperimentResultsModel::setResults(const std::optional<Result> &current, const std::optional<Result> &compared, const QString &comparedLabel)
{
    beginResetModel();
    m_current = current;
    m_compared = compared;
    m_comparedLabel = comparedLabel;
    m_rows.clear();
    const auto addResult = [this](const Result &result, bool isCurrent) {
        for (const VariantResult &variant : result.variants) {
            if (variant.skipped) {
                m_rows.push_back({&result, isCurrent, &variant, nullptr});
                continue;
            }
            for (const Measurement &measurement : variant.measurements) {
                m_rows.push_back({&result, isCurrent, &variant, &measurement});
            }
        }
    };
    if (m_current) {
        addResult(*m_current, true);
    }
    if (m_compared) {
        addResult(*m_compared, false);
    }
    endResetModel();
}

bool ExperimentResultsModel::isSkippedRow(int row) const
{
    return row >= 0 && row < int(m_rows.size()) && !m_rows[size_t(row)].measurement;
}

int ExperimentResultsModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : int(m_rows.size());
}

int ExperimentResultsModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : AllColumnCount;
}

Qt::ItemFlags ExperimentResultsModel::flags(const QModelIndex &index) const
{
    return index.isValid() ? Qt::ItemIsSelectable | Qt::ItemIsEnabled : Qt::NoItemFlags;
}

QVariant ExperimentResultsModel::data(const QModelIndex &index, int role) const
{
    if (!index.isValid() || index.row() >= int(m_rows.size())) {
        return {};
    }
    const Row &row = m_rows[size_t(index.row())];
    const int column = index.column();
    switch (role) {
    case Qt::DisplayRole:
        return displayData(row, column);
    case CsvRole:
        return csvData(row, column);
    case Qt::TextAlignmentRole:
        if (row.measurement && (column == RunsColumn || column == MeanColumn || column == ConfidenceColumn)) {
            return (Qt::AlignRight | Qt::AlignVCenter).toInt();
        }
        return {};
    case Qt::ToolTipRole:
        if (!row.measurement && column == FigureColumn) {
            return displayData(row, column);
        }
        if (row.measurement && column == MeanColumn) {
            const Statistics &statistics = row.measurement->statistics;
            const DisplayScale scale = displayScale(row.measurement->unit, statistics.mean);
            return i18nc("@info:tooltip",
                         "Median %1, from %2 to %3",
                         formatScaled(statistics.median, scale),
                         formatScaled(statistics.minimum, scale),
                         formatScaled(statistics.maximum, scale));
        }
        return {};
    default:
        return {};
    }
}

QVariant ExperimentResultsModel::displayData(const Row &row, int column) const
{
    switch (column) {
    case ResultColumn:
        return row.current ? i18nc("@item:intable the result of the last run", "This run") : m_comparedLabel;
    case VariantColumn:
        return engineText(row.variant->name);
    case FigureColumn:
        if (!row.measurement) {
            return i18nc("@item:intable %1 is the reason", "Skipped: %1", engineText(row.variant->skipReason));
        }
        return measurementLabel(row.measurement->name);
    default:
        break;
    }
    if (!row.measurement) {
        return {};
    }
    const Statistics &statistics = row.measurement->statistics;
    // The mean decides the unit; its interval is written in the same one.
    const DisplayScale scale = displayScale(row.measurement->unit, statistics.mean);
    switch (column) {
    case RunsColumn:
        return QLocale().toString(statistics.count);
    case MeanColumn:
        return formatScaled(statistics.mean, scale);
    case ConfidenceColumn:
        return statistics.count < 2 ? QString() : formatScaled(statistics.confidenceHalfWidth, scale);
    default:
        return {};
    }
}

QVariant ExperimentResultsModel::csvData(const Row &row, int column) const
{
    switch (column) {
    case ResultColumn:
        return row.current ? QStringLiteral("current") : QStringLiteral("compared");
    case StartedColumn:
        return engineText(row.result->started);
    case VariantColumn:
        return engineText(row.variant->name);
    case RunsColumn:
        return row.measurement ? QString::number(row.measurement->statistics.count) : QStringLiteral("0");
    case NoteColumn:
        return row.measurement ? QString() : QStringLiteral("skipped: ") + engineText(row.variant->skipReason);
    default:
        break;
    }
    if (!row.measurement) {
        return QString();
    }
    const Statistics &statistics = row.measurement->statistics;
    switch (column) {
    case FigureColumn:
        return engineText(row.measurement->name);
    case UnitColumn:
        return engineText(row.measurement->unit);
    case MeanColumn:
        return csvNumber(statistics.mean);
    case ConfidenceColumn:
        return statistics.count < 2 ? QString() : csvNumber(statistics.confidenceHalfWidth);
    case MinimumColumn:
        return csvNumber(statistics.minimum);
    case MaximumColumn:
        return csvNumber(statistics.maximum);
    case ValuesColumn: {
        QStringList values;
        for (double value : row.measurement->values) {
            values << csvNumber(value);
        }
        return values.join(QLatin1Char(' '));
    }
    default:
        return QString();
    }
}

QVariant ExperimentResultsModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal) {
        return {};
    }
    if (role == Qt::DisplayRole) {
        switch (section) {
        case ResultColumn:
            return i18nc("@title:column which result: this run or an earlier one", "Result");
        case VariantColumn:
            return i18nc("@title:column", "Variant");
        case FigureColumn:
            return i18nc("@title:column", "Figure");
        case RunsColumn:
            return i18nc("@title:column", "Runs");
        case MeanColumn:
            return i18nc("@title:column", "Mean");
        case ConfidenceColumn:
            return i18nc("@title:column 95% confidence interval of the mean", "± 95% CI");
        default:
            break;
        }
    }
    if (role == Qt::ToolTipRole && section == ConfidenceColumn) {
        return i18nc("@info:tooltip", "Half the width of the 95% confidence interval of the mean (Student's t); empty for a single run");
    }
    if (role == CsvRole) {
        for (const CsvColumn &csv : csvColumns) {
            if (csv.column == section) {
                return QString::fromLatin1(csv.name);
            }
        }
    }
    return QAbstractTableModel::headerData(section, orientation, role);
}

QString ExperimentResultsModel::toCsv() const
{
    QStringList lines;
    QStringList header;
    for (const CsvColumn &csv : csvColumns) {
        header << headerData(csv.column, Qt::Horizontal, CsvRole).toString();
    }
    lines << header.join(QLatin1Char(','));
    for (int row = 0; row < rowCount(); ++row) {
        QStringList fields;
        for (const CsvColumn &csv : csvColumns) {
            fields << csvField(index(row, csv.column).data(CsvRole).toString());
        }
        lines << fields.join(QLatin1Char(','));
    }
    return lines.join(QLatin1Char('\n')) + QLatin1Char('\n');
}

} // namespace Cachescope::App
