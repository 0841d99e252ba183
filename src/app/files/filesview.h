// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers
#pragma once

#include <QList>
#include <QTreeView>
#include <QUrl>

namespace Cachescope::App
{

// The list of inspected files: a tree that takes file drops (they are added
// and inspected) and says what to do while it is empty. Its rows drag out as
// file URLs, as in Dolphin: a drag starts from a row (selected on press as
// QAbstractItemView does), a press below the rows selects by dragging.
// Its own rows dropped back on it are refused: they are listed already.
class FilesView : public QTreeView
{
    Q_OBJECT

public:
    explicit FilesView(QWidget *parent = nullptr);

    // The rows on screen now (column 0, proxy indexes), top to bottom.
    [[nodiscard]] QModelIndexList visibleRows(int limit = 500) const;
    // The narrowest the Name column gets (about 24 characters).
    [[nodiscard]] int nameColumnMinimum() const;
    // Gives the Name column what the shown columns leave of the width.
    void fitNameColumn();

Q_SIGNALS:
    void urlsDropped(const QList<QUrl> &urls);

protected:
    void dragEnterEvent(QDragEnterEvent *event) override;
    void dragMoveEvent(QDragMoveEvent *event) override;
    void dragLeaveEvent(QDragLeaveEvent *event) override;
    void dropEvent(QDropEvent *event) override;
    void paintEvent(QPaintEvent *event) override;
    bool viewportEvent(QEvent *event) override;

private:
    bool m_dragOver = false;
};

} // namespace Cachescope::App
