// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers

#include "traceextentsmodel.h"

#include "format.h"
#include "residency.h"
#include "resultsmodel.h"

#include <KLocalizedString>

#include <QFile>
#include <QFileInfo>
#include <QLocale>

namespace Cachescope::App
{

using namespace Trace;

namespace
{

QString milliseconds(double seconds)
{
    return i18nc("@item:intable time, %1 milliseconds", "%1 ms", QLocale().toString(seconds * 1000.0, 'f', 3));
}

// The CSV's columns, in its order, and their names in its header line.
constexpr const char *csvHeader = "file,offset_bytes,length_bytes,start_seconds,end_seconds,pages,asked_pages,kind";

const char *kindKey(ExtentKind kind)
{
    switch (kind) {
    case ExtentKind::Asked:
        return "asked";
    case ExtentKind::Readahead:
        return "readahead";
    case ExtentKind::Metadata:
        return "metadata";
    case ExtentKind::Unknown:
        break;
    }
    return "unknown";
}

} // namespace

ExtentKind extentKind(const Report &report, const Extent &extent)
{
    if (extent.file >= 0 && size_t(extent.file) < report.files.size() && report.files[size_t(extent.file)].metadata) {
        return ExtentKind::Metadata;
    }
    if (!report.usageKnown) {
        return ExtentKind::Unknown;
    }
    return extent.askedPages > 0 ? ExtentKind::Asked : ExtentKind::Readahead;
}

QString extentKindText(ExtentKind kind)
{
    switch (kind) {
    case ExtentKind::Asked:
        return i18nc("@item what brought pages into the cache", "Asked for");
    case ExtentKind::Readahead:
        return i18nc("@item what brought pages into the cache", "Only readahead");
    case ExtentKind::Metadata:
        return i18nc("@item what brought pages into the cache", "File system metadata");
    case ExtentKind::Unknown:
        break;
    }
    return i18nc("@item what brought pages into the cache", "Read (asked or readahead: unknown)");
}

namespace
{
// The disk whose metadata a metadata "file" holds: its device node when the
// engine found it, else its number (the inode of the block device's own
// pages is the device number, as the kernel encodes it: major << 20 | minor).
QString metadataDevice(const File &file, bool shortName)
{
    if (!file.path.empty()) {
        const QString path = QFile::decodeName(file.path.c_str());
        return shortName ? QFileInfo(path).fileName() : path;
    }
    return QStringLiteral("%1:%2").arg(file.inode >> 20).arg(file.inode & 0xfffff);
}

QString fileName(const Report &report, int file, bool shortName)
{
    if (file < 0 || size_t(file) >= report.files.size()) {
        return i18nc("@item a file the trace does not name", "(unknown file)");
    }
    const File &f = report.files[size_t(file)];
    if (f.metadata) {
        return shortName ? i18nc("@item %1 the disk", "metadata of %1", metadataDevice(f, true))
                         : i18nc("@item %1 the disk", "File system metadata on %1", metadataDevice(f, false));
    }
    if (f.path.empty()) {
        return QString::fromStdString(f.displayName()); // dev:inode
    }
    const QString path = QFile::decodeName(f.path.c_str());
    return shortName ? QFileInfo(path).fileName() : path;
}
} // namespace

QString traceFileName(const Report &report, int file)
{
    return fileName(report, file, false);
}

QString traceFileShortName(const Report &report, int file)
{
    return fileName(report, file, true);
}

TraceExtentsModel::TraceExtentsModel(QObject *parent)
    : QAbstractTableModel(parent)
{
}

void TraceExtentsModel::setReport(const std::optional<Report> &report)
{
    beginResetModel();
    m_report = report;
    endResetModel();
}

const std::optional<Report> &TraceExtentsModel::report() const
{
    return m_report;
}

int TraceExtentsModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() || !m_report ? 0 : int(m_report->extents.size());
}

int TraceExtentsModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant TraceExtentsModel::data(const QModelIndex &index, int role) const
{
    if (!index.isValid() || !m_report || index.row() >= rowCount()) {
        return {};
    }
    const Extent &extent = m_report->extents[size_t(index.row())];
    const bool timed = m_report->method == Method::Tracefs;
    const uint64_t page = pageSize();
    switch (role) {
    case Qt::DisplayRole:
        return displayData(extent, index.column());
    case SortRole:
        return sortData(extent, index.column());
    case Qt::TextAlignmentRole:
        return index.column() == FileColumn || index.column() == KindColumn ? QVariant(Qt::AlignLeft | Qt::AlignVCenter)
                                                                            : QVariant(Qt::AlignRight | Qt::AlignVCenter);
    case Qt::ToolTipRole:
        switch (index.column()) {
        case FileColumn:
            return traceFileName(*m_report, extent.file);
        case OffsetColumn:
            return i18nc("@info:tooltip",
                         "Byte %1, page %2",
                         QLocale().toString(qulonglong(extent.firstPage * page)),
                         QLocale().toString(qulonglong(extent.firstPage)));
        case LengthColumn:
            return i18ncp("@info:tooltip", "%1 page", "%1 pages", qulonglong(extent.pageCount));
        default:
            return {};
        }
    case CsvRole:
        switch (index.column()) {
        case FileColumn:
            return traceFileName(*m_report, extent.file);
        case OffsetColumn:
            return QString::number(extent.firstPage * page);
        case LengthColumn:
            return QString::number(extent.pageCount * page);
        case StartColumn:
            return timed ? csvNumber(extent.startSeconds) : QString();
        case DurationColumn:
            return timed ? csvNumber(extent.endSeconds) : QString();
        case AskedColumn:
            return m_report->usageKnown && extentKind(*m_report, extent) != ExtentKind::Metadata ? QString::number(extent.askedPages) : QString();
        case KindColumn:
            return QString::fromLatin1(kindKey(extentKind(*m_report, extent)));
        default:
            return {};
        }
    default:
        return {};
    }
}

QVariant TraceExtentsModel::displayData(const Extent &extent, int column) const
{
    if (!m_report) {
        return {};
    }
    const bool timed = m_report->method == Method::Tracefs;
    const uint64_t page = pageSize();
    switch (column) {
    case FileColumn:
        return traceFileName(*m_report, extent.file);
    case OffsetColumn:
        return formatBytes(extent.firstPage * page, ByteStyle::Exact, QLocale());
    case LengthColumn:
        return formatBytes(extent.pageCount * page, ByteStyle::Exact, QLocale());
    case StartColumn:
        return timed ? milliseconds(extent.startSeconds) : QStringLiteral("–");
    case DurationColumn:
        return timed ? milliseconds(extent.endSeconds - extent.startSeconds) : QStringLiteral("–");
    case AskedColumn:
        if (extentKind(*m_report, extent) == ExtentKind::Metadata) {
            return QStringLiteral("–"); // not the program's: neither asked for nor readahead
        }
        if (!m_report->usageKnown) {
            return i18nc("@item:intable asked-for pages not known", "unknown");
        }
        return i18nc("@item:intable %1 pages asked for, %2 pages in the extent",
                     "%1 of %2",
                     QLocale().toString(qulonglong(extent.askedPages)),
                     QLocale().toString(qulonglong(extent.pageCount)));
    case KindColumn:
        return extentKindText(extentKind(*m_report, extent));
    default:
        return {};
    }
}

QVariant TraceExtentsModel::sortData(const Extent &extent, int column) const
{
    switch (column) {
    case FileColumn:
    case KindColumn:
        return displayData(extent, column);
    case OffsetColumn:
        return qulonglong(extent.firstPage);
    case LengthColumn:
        return qulonglong(extent.pageCount);
    case StartColumn:
        return extent.startSeconds;
    case DurationColumn:
        return extent.endSeconds - extent.startSeconds;
    case AskedColumn:
        return qulonglong(extent.askedPages);
    default:
        return {};
    }
}

QVariant TraceExtentsModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal) {
        return {};
    }
    if (role == Qt::DisplayRole) {
        switch (section) {
        case FileColumn:
            return i18nc("@title:column", "File");
        case OffsetColumn:
            return i18nc("@title:column", "Offset");
        case LengthColumn:
            return i18nc("@title:column", "Length");
        case StartColumn:
            return i18nc("@title:column time since the command started", "Time");
        case DurationColumn:
            return i18nc("@title:column how long the extent took to come in", "Duration");
        case AskedColumn:
            return i18nc("@title:column pages the program used", "Asked For");
        case KindColumn:
            return i18nc("@title:column", "Brought In By");
        default:
            return {};
        }
    }
    if (role == Qt::ToolTipRole) {
        switch (section) {
        case OffsetColumn:
            return i18nc("@info:tooltip", "Where the extent starts in its file; for metadata, where it starts on the disk");
        case StartColumn:
            return i18nc("@info:tooltip", "When its first page came into the cache, since the command started");
        case AskedColumn:
            return i18nc("@info:tooltip", "Pages of the extent the program read or mapped; the rest only readahead brought in");
        default:
            return {};
        }
    }
    return {};
}

QString TraceExtentsModel::toCsv() const
{
    QStringList lines{QString::fromLatin1(csvHeader)};
    if (!m_report) {
        return lines.join(QLatin1Char('\n')) + QLatin1Char('\n');
    }
    for (int row = 0; row < rowCount(); ++row) {
        QStringList fields;
        for (int column = 0; column < ColumnCount; ++column) {
            fields << csvField(index(row, column).data(CsvRole).toString());
        }
        // The table has no column of pages (Length says it); the CSV has, before asked_pages.
        const Extent &extent = m_report->extents[size_t(row)];
        fields.insert(AskedColumn, QString::number(extent.pageCount));
        lines << fields.join(QLatin1Char(','));
    }
    return lines.join(QLatin1Char('\n')) + QLatin1Char('\n');
}

} // namespace Cachescope::App
