// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers

#include "topcacheddialog.h"
#include "filesmodel.h"
#include "filesnaming.h"
#include "format.h"
#include "residency.h"

#include <KLocalizedString>

#include <QDialogButtonBox>
#include <QHeaderView>
#include <QLabel>
#include <QLocale>
#include <QMimeDatabase>
#include <QTreeWidget>
#include <QVBoxLayout>

#include <algorithm>

namespace Cachescope::App
{

namespace
{
// A tree item that sorts its number columns by number and its paths as
// Dolphin sorts names (natural, case-insensitive).
class NumberItem : public QTreeWidgetItem
{
public:
    using QTreeWidgetItem::QTreeWidgetItem;
    bool operator<(const QTreeWidgetItem &other) const override
    {
        const int column = treeWidget() ? treeWidget()->sortColumn() : 0;
        const QVariant a = data(column, Qt::UserRole);
        const QVariant b = other.data(column, Qt::UserRole);
        if (a.isValid() && b.isValid() && a.toDouble() != b.toDouble()) {
            return a.toDouble() < b.toDouble();
        }
        return compareNames(text(0), other.text(0)) < 0;
    }
};

constexpr int pathRole = Qt::UserRole + 1;

std::string pathOf(const QTreeWidgetItem *item)
{
    return item->data(0, pathRole).toByteArray().toStdString();
}

// Cached, Cached % and Size, with the numbers they sort by.
void setFigures(QTreeWidgetItem *item, uint64_t resident, uint64_t pages, uint64_t size)
{
    item->setText(1, formatBytes(resident * pageSize(), ByteStyle::OneDecimal, QLocale()));
    item->setData(1, Qt::UserRole, double(resident));
    const double fraction = pages == 0 ? 0.0 : double(resident) / double(pages);
    item->setText(2, i18nc("@item:intable percent", "%1%", QLocale().toString(percentShown(resident, pages, 0), 'f', 0)));
    item->setData(2, Qt::UserRole, fraction);
    item->setText(3, formatBytes(size, ByteStyle::OneDecimal, QLocale()));
    item->setData(3, Qt::UserRole, double(size));
}
} // namespace

TopCachedDialog::TopCachedDialog(const std::vector<std::string> &folders, const std::vector<TopEntry> &entries, const WalkTotals &totals, QWidget *parent)
    : QDialog(parent)
{
    setObjectName(QStringLiteral("topCachedDialog"));
    setAttribute(Qt::WA_DeleteOnClose);
    QStringList names;
    for (const std::string &folder : folders) {
        names << displayPath(folder);
    }
    setWindowTitle(i18nc("@title:window", "Top Cached Files in %1", names.join(QStringLiteral(", "))));

    auto *layout = new QVBoxLayout(this);
    auto *summary = new QLabel(this);
    summary->setWordWrap(true);
    QString text;
    if (totals.files > 0 && totals.hiddenFiles == totals.files) {
        // Never a number for what the kernel hides.
        text = i18ncp("@info",
                      "The kernel hides the page cache of the %1 file there from you: nothing can be ranked.",
                      "The kernel hides the page cache of all %1 files there from you: nothing can be ranked.",
                      qulonglong(totals.files));
    } else {
        text = i18ncp("@info",
                      "%2 of %3 in %1 file is in the page cache.",
                      "%2 of %3 in %1 files is in the page cache.",
                      qulonglong(totals.files - totals.hiddenFiles),
                      formatBytes(totals.resident * pageSize(), ByteStyle::OneDecimal, QLocale()),
                      formatBytes(totals.pages > totals.hiddenPages ? (totals.pages - totals.hiddenPages) * pageSize() : 0, ByteStyle::OneDecimal, QLocale()));
    }
    if (totals.hiddenFiles > 0 && totals.hiddenFiles < totals.files) {
        text += QLatin1Char(' ')
            + i18ncp("@info",
                     "The kernel hides the page cache of %1 file from you: it is not ranked.",
                     "The kernel hides the page cache of %1 files from you: they are not ranked.",
                     qulonglong(totals.hiddenFiles));
    }
    summary->setText(text);
    layout->addWidget(summary);

    auto *list = new QTreeWidget(this);
    list->setObjectName(QStringLiteral("topCachedList"));
    list->setRootIsDecorated(false);
    list->setUniformRowHeights(true);
    list->setHeaderLabels(
        {i18nc("@title:column", "File"), i18nc("@title:column", "Cached"), i18nc("@title:column", "Cached %"), i18nc("@title:column", "Size")});
    const QMimeDatabase mimeDatabase;
    for (const TopEntry &entry : entries) {
        auto *item = new NumberItem(list);
        const QString path = displayPath(entry.path);
        item->setText(0, path);
        item->setToolTip(0, path);
        item->setData(0, pathRole, QByteArray::fromStdString(entry.path));
        item->setIcon(
            0,
            QIcon::fromTheme(mimeDatabase.mimeTypeForFile(path, QMimeDatabase::MatchExtension).iconName(), QIcon::fromTheme(QStringLiteral("unknown"))));
        setFigures(item, entry.resident, entry.pages, entry.size);
        for (int column = 1; column < 4; ++column) {
            item->setTextAlignment(column, Qt::AlignRight | Qt::AlignVCenter);
        }
    }
    list->setSortingEnabled(true);
    list->sortByColumn(1, Qt::DescendingOrder);
    list->header()->setSectionResizeMode(0, QHeaderView::Stretch);
    list->header()->setStretchLastSection(false);
    for (int column = 1; column < 4; ++column) {
        list->header()->setSectionResizeMode(column, QHeaderView::ResizeToContents);
    }
    connect(list, &QTreeWidget::itemActivated, this, [this](QTreeWidgetItem *item) {
        Q_EMIT inspectRequested(pathOf(item));
    });
    // The menu of the files panel's rows, for the selected results.
    list->setSelectionMode(QAbstractItemView::ExtendedSelection);
    list->setContextMenuPolicy(Qt::CustomContextMenu);
    connect(list, &QWidget::customContextMenuRequested, this, [this, list](const QPoint &pos) {
        std::vector<std::string> paths;
        const auto selectedItems = list->selectedItems();
        for (const QTreeWidgetItem *item : selectedItems) {
            paths.push_back(pathOf(item));
        }
        if (paths.empty()) {
            if (const QTreeWidgetItem *item = list->itemAt(pos)) {
                paths.push_back(pathOf(item));
            }
        }
        if (!paths.empty()) {
            Q_EMIT contextMenuRequested(paths, list->viewport()->mapToGlobal(pos));
        }
    });
    m_list = list;
    layout->addWidget(list, 1);
    if (entries.empty()) {
        list->setVisible(false);
        layout->addWidget(new QLabel(i18nc("@info", "No file there has pages in the page cache."), this));
    }

    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Close, this);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    layout->addWidget(buttons);
    resize(fontMetrics().averageCharWidth() * 110, fontMetrics().height() * 30);
}

void TopCachedDialog::refreshFigures(const std::vector<std::string> &roots)
{
    // The items first: new figures may sort them anew.
    QList<QTreeWidgetItem *> items;
    for (int row = 0; row < m_list->topLevelItemCount(); ++row) {
        items.append(m_list->topLevelItem(row));
    }
    for (QTreeWidgetItem *item : items) {
        const std::string path = pathOf(item);
        if (std::none_of(roots.begin(), roots.end(), [&path](const std::string &root) {
                return isAtOrBelow(path, root);
            })) {
            continue;
        }
        // Hidden or gone now: the figures stay as ranked, never a guess.
        const Residency residency = residencyOfPath(path);
        if (residency.ok() && !residency.hidden) {
            setFigures(item, residency.resident, residency.pages, residency.sizeBytes);
        }
    }
}

} // namespace Cachescope::App
