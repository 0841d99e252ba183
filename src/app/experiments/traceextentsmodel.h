// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers
#pragma once

// The extents of a trace, one row each, in the order they happened: the
// file, its offset and length (the seed's table), when its pages came in,
// and whether the program asked for them or only readahead brought them. The
// same rows feed the table (DisplayRole, in the user's locale) and the CSV
// export (CsvRole, in the C locale, machine-readable).

#include "trace/tracereport.h"

#include <QAbstractTableModel>

#include <optional>

namespace Cachescope::App
{

// How a mark, a row or a cell is coloured and named: what brought the pages in.
enum class ExtentKind {
    Asked, // the program used at least one of its pages
    Readahead, // only readahead brought it: the program used none of its pages
    Unknown, // the kernel cannot tell (no usage tracepoints, or no trace at all)
    Metadata, // the file system's own blocks (inode tables, extent blocks)
};

[[nodiscard]] ExtentKind extentKind(const Trace::Report &report, const Trace::Extent &extent);
// "Asked for", "Only readahead", ... as the legend and the table say it.
[[nodiscard]] QString extentKindText(ExtentKind kind);
// The name of an extent's file for people: its path, "dev:inode" when it has none, or the metadata's name.
[[nodiscard]] QString traceFileName(const Trace::Report &report, int file);
// The same, with the file's name instead of its path (the timeline's rows).
[[nodiscard]] QString traceFileShortName(const Trace::Report &report, int file);

class TraceExtentsModel : public QAbstractTableModel
{
    Q_OBJECT

public:
    enum Column {
        FileColumn,
        OffsetColumn,
        LengthColumn,
        StartColumn,
        DurationColumn,
        AskedColumn,
        KindColumn,
        ColumnCount
    };
    enum Role {
        CsvRole = Qt::UserRole + 1, // the CSV field, unquoted
        SortRole, // numbers as numbers
    };

    explicit TraceExtentsModel(QObject *parent = nullptr);

    void setReport(const std::optional<Trace::Report> &report);
    [[nodiscard]] const std::optional<Trace::Report> &report() const;

    // Every extent as CSV, with a header line:
    // file,offset_bytes,length_bytes,start_seconds,end_seconds,pages,asked_pages,kind
    [[nodiscard]] QString toCsv() const;

    [[nodiscard]] int rowCount(const QModelIndex &parent = {}) const override;
    [[nodiscard]] int columnCount(const QModelIndex &parent = {}) const override;
    [[nodiscard]] QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    [[nodiscard]] QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    [[nodiscard]] QVariant displayData(const Trace::Extent &extent, int column) const;
    [[nodiscard]] QVariant sortData(const Trace::Extent &extent, int column) const;

    std::optional<Trace::Report> m_report;
};

} // namespace Cachescope::App
