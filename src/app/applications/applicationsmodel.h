// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers
#pragma once

#include "cgroups/applications.h"

#include <QAbstractTableModel>
#include <QCollator>
#include <QIcon>
#include <QSortFilterProxyModel>

namespace Cachescope::App
{

// The rows of "cache by application" (Cgroups::ApplicationsReport), named
// and iconed from their desktop files (KService), and a last row with the
// total. Updated in place from each report, so that a sorted view keeps its
// selection while the figures change.
class ApplicationsModel : public QAbstractTableModel
{
    Q_OBJECT

public:
    enum Column {
        NameColumn,
        PageCacheColumn,
        DirtyColumn,
        RefaultsColumn,
        PressureColumn,
        LimitColumn,
        ColumnCount
    };
    enum Role {
        SortRole = Qt::UserRole + 1, // numbers as numbers; names as text
        IsTotalRole, // bool: the total row
        CgroupFolderRole, // QString: the folder, for memory.reclaim
        CgroupVersionRole, // int: 1 or 2
        PageCacheBytesRole, // quint64
        CgroupPathRole, // QString: in its hierarchy, as /proc/PID/cgroup names it
    };

    explicit ApplicationsModel(QObject *parent = nullptr);

    void setReport(const Cgroups::ApplicationsReport &report);
    [[nodiscard]] const Cgroups::ApplicationsReport &report() const;

    // The row of a cgroup path; -1 when none.
    [[nodiscard]] int rowOfCgroup(const QString &cgroupPath) const;

    [[nodiscard]] int rowCount(const QModelIndex &parent = {}) const override;
    [[nodiscard]] int columnCount(const QModelIndex &parent = {}) const override;
    [[nodiscard]] QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    [[nodiscard]] QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

    // What the user reads for a row: the application's name from its
    // desktop file, else the unit or the cgroup.
    [[nodiscard]] static QString displayName(const Cgroups::ApplicationCache &row);

private:
    struct Naming {
        QString name;
        QIcon icon;
        QString comment;
    };
    [[nodiscard]] const Naming &namingOf(const Cgroups::ApplicationCache &row) const;
    [[nodiscard]] QVariant totalData(int column, int role) const;

    Cgroups::ApplicationsReport m_report;
    // Desktop files looked up once per id: KService reads sycoca, not each file.
    mutable std::map<std::string, Naming> m_namings;
};

// Sorts numbers as numbers and names naturally in the user's locale ("Kate 2"
// before "Kate 10"), and keeps the total row last in either order.
class ApplicationsSortModel : public QSortFilterProxyModel
{
    Q_OBJECT

public:
    explicit ApplicationsSortModel(QObject *parent = nullptr);

protected:
    [[nodiscard]] bool lessThan(const QModelIndex &left, const QModelIndex &right) const override;

private:
    [[nodiscard]] int naturalCompare(const QString &a, const QString &b) const;

    QCollator m_collator;
};

} // namespace Cachescope::App
