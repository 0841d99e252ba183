// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers
#pragma once

#include "cachemap.h"

#include <QColor>
#include <QWidget>

#include <memory>

namespace Cachescope::App
{

// The cache map's picture: a squarified treemap of one folder of a
// CacheMapTree. Each box is a subfolder (or the files directly in the
// folder), its area its share of the folder's resident pages, its colour the
// cached share of its own pages; the biggest boxes show their subfolders one
// level deeper. Mount points have a dashed frame. Hover for the figures,
// click to open a folder, right-click for its actions.
class CacheMapWidget : public QWidget
{
    Q_OBJECT

public:
    static constexpr uint32_t FilesHere = UINT32_MAX - 1; // the box of the files directly in the folder

    explicit CacheMapWidget(QWidget *parent = nullptr);

    void setTree(std::shared_ptr<const CacheMapTree> tree, uint32_t folder);
    void setColors(const QColor &empty, const QColor &full);

    struct Box {
        QRectF rect;
        uint32_t folder = CacheMapFolder::NoParent; // FilesHere: the files of `parentFolder`
        uint32_t parentFolder = CacheMapFolder::NoParent;
        int level = 1; // 1: a child of the folder shown; 2: a grandchild
    };
    // What is drawn now (for the tests and for hit-testing), outermost first.
    [[nodiscard]] const std::vector<Box> &boxes() const
    {
        return m_boxes;
    }
    [[nodiscard]] const CacheMapTree *tree() const
    {
        return m_tree.get();
    }
    // The innermost box under pos, if any.
    [[nodiscard]] const Box *boxAt(const QPointF &pos) const;
    // The tooltip of a box: name, resident, share, cached share, files, hidden.
    [[nodiscard]] QString toolTipFor(const Box &box) const;

Q_SIGNALS:
    void folderActivated(quint32 folder);
    void contextMenuRequested(quint32 folder, const QPoint &globalPos);

protected:
    void paintEvent(QPaintEvent *event) override;
    void resizeEvent(QResizeEvent *event) override;
    bool event(QEvent *event) override;
    void mouseReleaseEvent(QMouseEvent *event) override;
    void contextMenuEvent(QContextMenuEvent *event) override;

private:
    void layOut();
    void layOutChildren(uint32_t folder, const QRectF &bounds, int level);
    [[nodiscard]] QColor fillFor(const FolderTotals &totals) const;
    [[nodiscard]] const FolderTotals &totalsOf(const Box &box) const;
    [[nodiscard]] QString nameOf(const Box &box) const;

    std::shared_ptr<const CacheMapTree> m_tree;
    uint32_t m_folder = CacheMapFolder::NoParent;
    std::vector<Box> m_boxes;
    QColor m_empty;
    QColor m_full;
};

} // namespace Cachescope::App
