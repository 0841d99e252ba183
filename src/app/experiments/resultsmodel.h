// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers
#pragma once

// The results on show, one row a figure of a variant (or one row for a
// skipped variant), of this run and of the earlier result compared with it.
// The same rows feed the results table (DisplayRole, in the user's locale)
// and the CSV export (CsvRole, in the C locale); the columns after
// ColumnCount exist for the CSV only and are hidden in the table.
//
// The table writes each figure with its unit, picked for the mean ("27.3 ms",
// "1.5 GiB"), and the confidence interval in the same unit as its mean, so
// that the two compare at a glance. The CSV keeps the engines' units and
// plain numbers: seconds and bytes, whatever the table shows.

#include "experiments/experiment.h"

#include <QAbstractTableModel>

#include <optional>
#include <vector>

namespace Cachescope::App
{

// A CSV field: quoted when it holds a comma, a quote or a line break.
[[nodiscard]] QString csvField(const QString &text);

class ExperimentResultsModel : public QAbstractTableModel
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
        ColumnCount, // the columns of the table
        // The CSV's own columns.
        UnitColumn = ColumnCount,
        StartedColumn,
        MinimumColumn,
        MaximumColumn,
        ValuesColumn,
        NoteColumn,
        AllColumnCount
    };
    enum Role {
        CsvRole = Qt::UserRole + 1, // the CSV field, unquoted
    };

    explicit ExperimentResultsModel(QObject *parent = nullptr);

    // Either may be absent; comparedLabel names the compared result in the table.
    void setResults(const std::optional<Experiments::Result> &current, const std::optional<Experiments::Result> &compared, const QString &comparedLabel);

    // A skipped variant: its reason fills the row from FigureColumn on.
    [[nodiscard]] bool isSkippedRow(int row) const;

    // Every row as CSV, with a header line, in the columns of the CSV.
    [[nodiscard]] QString toCsv() const;

    [[nodiscard]] int rowCount(const QModelIndex &parent = {}) const override;
    [[nodiscard]] int columnCount(const QModelIndex &parent = {}) const override;
    [[nodiscard]] QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    [[nodiscard]] QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;
    [[nodiscard]] Qt::ItemFlags flags(const QModelIndex &index) const override;

private:
    struct Row {
        const Experiments::Result *result;
        bool current;
        const Experiments::VariantResult *variant;
        const Experiments::Measurement *measurement; // null for a skipped variant
    };
    [[nodiscard]] QVariant displayData(const Row &row, int column) const;
    [[nodiscard]] QVariant csvData(const Row &row, int column) const;

    std::optional<Experiments::Result> m_current;
    std::optional<Experiments::Result> m_compared;
    QString m_comparedLabel;
    std::vector<Row> m_rows;
};

} // namespace Cachescope::App
