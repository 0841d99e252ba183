// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers

#include "applicationsmodel.h"

#include "desktopapplication.h"

#include "format.h"

#include <KLocalizedString>

#include <QFont>
#include <QLocale>

namespace Cachescope::App
{

using Cgroups::ApplicationCache;
using Cgroups::GroupKind;
using Cgroups::MemoryLimit;

namespace
{

QString bytesText(uint64_t bytes)
{
    return formatBytes(bytes, ByteStyle::OneDecimal, QLocale());
}

QString kindText(GroupKind kind)
{
    switch (kind) {
    case GroupKind::Application:
        return i18nc("@info:tooltip kind of a cgroup", "Application");
    case GroupKind::UserService:
        return i18nc("@info:tooltip kind of a cgroup", "Service of your session");
    case GroupKind::SystemService:
        return i18nc("@info:tooltip kind of a cgroup", "System service");
    case GroupKind::Session:
        return i18nc("@info:tooltip kind of a cgroup", "Login session");
    case GroupKind::Other:
        return i18nc("@info:tooltip kind of a cgroup", "Other processes");
    case GroupKind::Cgroup:
        return i18nc("@info:tooltip kind of a cgroup", "Memory cgroup");
    }
    return {};
}

QString kindIconName(GroupKind kind)
{
    switch (kind) {
    case GroupKind::Application:
        return QStringLiteral("applications-other");
    case GroupKind::UserService:
    case GroupKind::SystemService:
        return QStringLiteral("preferences-system-services");
    case GroupKind::Session:
        return QStringLiteral("system-users");
    case GroupKind::Other:
    case GroupKind::Cgroup:
        break;
    }
    return QStringLiteral("folder-grey");
}

QString limitText(const MemoryLimit &limit)
{
    switch (limit.kind) {
    case MemoryLimit::Kind::Bytes:
        return bytesText(limit.bytes);
    case MemoryLimit::Kind::None:
        return i18nc("@item no memory limit", "None");
    case MemoryLimit::Kind::Unknown:
        break;
    }
    return i18nc("@item a figure the kernel does not give", "Unknown");
}

} // namespace

ApplicationsModel::ApplicationsModel(QObject *parent)
    : QAbstractTableModel(parent)
{
}

QString ApplicationsModel::displayName(const ApplicationCache &row)
{
    if (!row.desktopFileId.empty()) {
        return QString::fromStdString(row.desktopFileId);
    }
    return QString::fromStdString(row.name);
}

const ApplicationsModel::Naming &ApplicationsModel::namingOf(const ApplicationCache &row) const
{
    const std::string key = row.desktopFileId.empty() ? std::string(Cgroups::groupKindName(row.kind)) + ':' + row.name : row.desktopFileId;
    if (const auto found = m_namings.find(key); found != m_namings.end()) {
        return found->second;
    }
    if (m_namings.size() > 4096) {
        m_namings.clear(); // services and scopes come and go: keep it bounded
    }
    Naming naming;
    if (const std::optional<DesktopApplication> application = desktopApplication(QString::fromStdString(row.desktopFileId))) {
        naming.name = application->name;
        naming.icon = QIcon::fromTheme(application->iconName, QIcon::fromTheme(kindIconName(row.kind)));
        naming.comment = application->comment;
    }
    if (naming.name.isEmpty()) {
        naming.name = displayName(row);
        naming.icon = QIcon::fromTheme(kindIconName(row.kind));
    }
    return m_namings.emplace(key, std::move(naming)).first->second;
}

void ApplicationsModel::setReport(const Cgroups::ApplicationsReport &report)
{
    // Same cgroups in the same order: only the figures change, and views
    // keep their selection and scroll position.
    const bool sameRows = report.rows.size() == m_report.rows.size()
        && std::equal(report.rows.begin(), report.rows.end(), m_report.rows.begin(), [](const ApplicationCache &a, const ApplicationCache &b) {
                              return a.cgroupPath == b.cgroupPath;
                          });
    if (sameRows && !m_report.rows.empty()) {
        m_report = report;
        Q_EMIT dataChanged(index(0, 0), index(rowCount() - 1, ColumnCount - 1));
        return;
    }
    beginResetModel();
    m_report = report;
    endResetModel();
}

const Cgroups::ApplicationsReport &ApplicationsModel::report() const
{
    return m_report;
}

int ApplicationsModel::rowOfCgroup(const QString &cgroupPath) const
{
    const std::string path = cgroupPath.toStdString();
    for (size_t i = 0; i < m_report.rows.size(); ++i) {
        if (m_report.rows[i].cgroupPath == path) {
            return int(i);
        }
    }
    return -1;
}

int ApplicationsModel::rowCount(const QModelIndex &parent) const
{
    if (parent.isValid() || !m_report.found) {
        return 0;
    }
    return int(m_report.rows.size()) + 1; // the total last
}

int ApplicationsModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant ApplicationsModel::totalData(int column, int role) const
{
    const Cgroups::CacheAccounting &a = m_report.accounting;
    if (role == IsTotalRole) {
        return true;
    }
    if (role == Qt::FontRole) {
        QFont font;
        font.setBold(true);
        return font;
    }
    uint64_t dirty = 0;
    for (const ApplicationCache &row : m_report.rows) {
        dirty += row.stats.fileDirty.value_or(0);
    }
    if (role == Qt::DisplayRole) {
        switch (column) {
        case NameColumn:
            return i18ncp("@item the total row", "Total of %1 row", "Total of %1 rows", int(m_report.rows.size()));
        case PageCacheColumn:
            return bytesText(a.rowsFile);
        case DirtyColumn:
            return bytesText(dirty);
        default:
            return {};
        }
    }
    if (role == Qt::ToolTipRole && a.meminfoCached) {
        return i18nc("@info:tooltip", "/proc/meminfo counts %1 as Cached; the rows hold %2.", bytesText(*a.meminfoCached), bytesText(a.rowsFile));
    }
    if (role == Qt::TextAlignmentRole && column != NameColumn) {
        return QVariant(Qt::AlignRight | Qt::AlignVCenter);
    }
    if (role == SortRole) {
        return column == PageCacheColumn ? QVariant(qulonglong(a.rowsFile)) : QVariant();
    }
    return {};
}

QVariant ApplicationsModel::data(const QModelIndex &index, int role) const
{
    if (!index.isValid() || index.row() >= rowCount()) {
        return {};
    }
    if (size_t(index.row()) == m_report.rows.size()) {
        return totalData(index.column(), role);
    }
    const ApplicationCache &row = m_report.rows[size_t(index.row())];
    const Cgroups::MemoryStats &stats = row.stats;
    const std::optional<double> pressure = stats.pressure ? std::optional<double>(stats.pressure->someAvg10) : std::nullopt;
    switch (role) {
    case IsTotalRole:
        return false;
    case CgroupFolderRole:
        return QString::fromStdString(row.folder);
    case CgroupVersionRole:
        return int(m_report.version);
    case PageCacheBytesRole:
        return qulonglong(stats.file.value_or(0));
    case CgroupPathRole:
        return QString::fromStdString(row.cgroupPath);
    case Qt::DecorationRole:
        return index.column() == NameColumn ? QVariant(namingOf(row).icon) : QVariant();
    case Qt::TextAlignmentRole:
        return index.column() == NameColumn ? QVariant() : QVariant(Qt::AlignRight | Qt::AlignVCenter);
    case Qt::ToolTipRole: {
        const Naming &naming = namingOf(row);
        QString tip = QStringLiteral("<b>%1</b>").arg(naming.name.toHtmlEscaped());
        if (!naming.comment.isEmpty()) {
            tip += QStringLiteral("<br/>") + naming.comment.toHtmlEscaped();
        }
        tip += QStringLiteral("<br/>") + kindText(row.kind);
        tip += QStringLiteral("<br/><tt>%1</tt>").arg(QString::fromStdString(row.cgroupPath).toHtmlEscaped());
        if (stats.fileMapped || stats.fileWriteback) {
            tip += QStringLiteral("<br/>")
                + i18nc("@info:tooltip",
                        "Mapped by its processes: %1; being written: %2",
                        bytesText(stats.fileMapped.value_or(0)),
                        bytesText(stats.fileWriteback.value_or(0)));
        }
        return tip;
    }
    case SortRole:
        switch (index.column()) {
        case NameColumn:
            return namingOf(row).name;
        case PageCacheColumn:
            return qulonglong(stats.file.value_or(0));
        case DirtyColumn:
            return qulonglong(stats.fileDirty.value_or(0));
        case RefaultsColumn:
            return row.refaultsPerSecond.value_or(-1.0);
        case PressureColumn:
            return pressure.value_or(-1.0);
        case LimitColumn:
            return stats.limit().isLimited() ? qulonglong(stats.limit().bytes) : ~qulonglong(0);
        default:
            return {};
        }
    case Qt::DisplayRole:
        switch (index.column()) {
        case NameColumn:
            return namingOf(row).name;
        case PageCacheColumn:
            return stats.file ? bytesText(*stats.file) : QStringLiteral("–");
        case DirtyColumn:
            return stats.fileDirty ? bytesText(*stats.fileDirty) : QStringLiteral("–");
        case RefaultsColumn:
            // Unknown until the second sample, or where the kernel has no counter.
            return row.refaultsPerSecond ? QLocale().toString(*row.refaultsPerSecond, 'f', *row.refaultsPerSecond < 10 ? 1 : 0) : QStringLiteral("–");
        case PressureColumn:
            return pressure ? i18nc("@item percent", "%1 %", QLocale().toString(*pressure, 'f', 2)) : QStringLiteral("–");
        case LimitColumn:
            return limitText(stats.limit());
        default:
            return {};
        }
    default:
        return {};
    }
}

QVariant ApplicationsModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal) {
        return {};
    }
    if (role == Qt::DisplayRole) {
        switch (section) {
        case NameColumn:
            return i18nc("@title:column", "Name");
        case PageCacheColumn:
            return i18nc("@title:column", "Page Cache");
        case DirtyColumn:
            return i18nc("@title:column", "Dirty");
        case RefaultsColumn:
            return i18nc("@title:column file pages read again after eviction", "Refaults/s");
        case PressureColumn:
            return i18nc("@title:column memory pressure", "Pressure");
        case LimitColumn:
            return i18nc("@title:column memory limit", "Limit");
        default:
            return {};
        }
    }
    if (role == Qt::ToolTipRole) {
        switch (section) {
        case PageCacheColumn:
            return i18nc("@info:tooltip", "Page cache charged to the application's memory cgroup, tmpfs and shared memory included");
        case DirtyColumn:
            return i18nc("@info:tooltip", "Of its page cache, the pages waiting to be written to disk");
        case RefaultsColumn:
            return i18nc("@info:tooltip", "File pages read again after the kernel evicted them, per second: many mean its cache is too small for what it does");
        case PressureColumn:
            return i18nc("@info:tooltip", "Share of the last 10 seconds in which some of its processes waited for memory (cgroup v2 only)");
        case LimitColumn:
            return i18nc("@info:tooltip", "The tighter of memory.high and memory.max (cgroup v1: memory.limit_in_bytes)");
        default:
            return {};
        }
    }
    if (role == Qt::TextAlignmentRole && section != NameColumn) {
        return QVariant(Qt::AlignRight | Qt::AlignVCenter);
    }
    return {};
}

ApplicationsSortModel::ApplicationsSortModel(QObject *parent)
    : QSortFilterProxyModel(parent)
{
    setSortRole(ApplicationsModel::SortRole);
    m_collator.setNumericMode(true);
    m_collator.setCaseSensitivity(Qt::CaseInsensitive);
}

int ApplicationsSortModel::naturalCompare(const QString &a, const QString &b) const
{
    // Runs of digits compare as numbers, the text between them in the
    // user's locale: the collator's own numeric mode is missing where Qt
    // collates without ICU and in the C locale.
    qsizetype i = 0;
    qsizetype j = 0;
    while (i < a.size() && j < b.size()) {
        const bool digitA = a.at(i).isDigit();
        const bool digitB = b.at(j).isDigit();
        qsizetype endA = i;
        qsizetype endB = j;
        while (endA < a.size() && a.at(endA).isDigit() == digitA) {
            ++endA;
        }
        while (endB < b.size() && b.at(endB).isDigit() == digitB) {
            ++endB;
        }
        const QStringView partA = QStringView(a).mid(i, endA - i);
        const QStringView partB = QStringView(b).mid(j, endB - j);
        int order = 0;
        if (digitA && digitB) {
            // Without leading zeros, the longer number is the larger.
            const auto withoutLeadingZeros = [](QStringView number) {
                qsizetype k = 0;
                while (k + 1 < number.size() && number.at(k) == u'0') {
                    ++k;
                }
                return number.mid(k);
            };
            const QStringView numberA = withoutLeadingZeros(partA);
            const QStringView numberB = withoutLeadingZeros(partB);
            order = numberA.size() != numberB.size() ? (numberA.size() < numberB.size() ? -1 : 1) : numberA.compare(numberB);
        } else {
            order = m_collator.compare(partA, partB);
        }
        if (order != 0) {
            return order;
        }
        i = endA;
        j = endB;
    }
    return (a.size() - i)<(b.size() - j) ? -1 : (a.size() - i)>(b.size() - j) ? 1 : 0;
}

bool ApplicationsSortModel::lessThan(const QModelIndex &left, const QModelIndex &right) const
{
    const bool leftTotal = left.data(ApplicationsModel::IsTotalRole).toBool();
    const bool rightTotal = right.data(ApplicationsModel::IsTotalRole).toBool();
    if (leftTotal || rightTotal) {
        // Last whichever way the view sorts: "less" in descending order, "greater" in ascending.
        return sortOrder() == Qt::AscendingOrder ? rightTotal && !leftTotal : leftTotal && !rightTotal;
    }
    const QVariant a = left.data(sortRole());
    const QVariant b = right.data(sortRole());
    if (a.typeId() == QMetaType::QString) {
        return naturalCompare(a.toString(), b.toString()) < 0;
    }
    return QVariant::compare(a, b) == QPartialOrdering::Less;
}

} // namespace Cachescope::App
