// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers
#pragma once

#include "accessibleitems.h"
#include "cachemap.h"

#include <QColor>
#include <QWidget>

#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace Cachescope::App
{

// The cache map's picture: a squarified treemap of one folder of a
// CacheMapTree. Each box is a subfolder (or the files directly in the
// folder), its area its share of the folder's resident pages, its colour the
// cached share of its own pages; the biggest boxes show their subfolders one
// level deeper. Mount points have a dashed frame. Hover for the figures,
// click to open a folder, right-click for its actions. With the keyboard:
// the arrows move a current box (framed) to the nearest one that way, Enter
// opens it, the menu key (or Shift+F10) gives its actions, Backspace and
// Alt+Left go back, Alt+Up up. Each box is an accessible list item with its
// figures.
class CacheMapWidget : public QWidget, public AccessibleItems
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
    // A box's name ("Files directly here" for the files of the folder shown).
    [[nodiscard]] QString nameOf(const Box &box) const;
    // The tooltip's figures as plain lines, without the name.
    [[nodiscard]] QStringList figuresOf(const Box &box) const;

    // The box the keyboard is on, an index into boxes(); -1 while there is none.
    // It stays on the same folder across the snapshots of a walk; after Up or
    // Back it is the folder left.
    [[nodiscard]] int currentBox() const;
    void setCurrentBox(int index);

    // AccessibleItems: the boxes, named by their folder, with the tooltip's figures.
    [[nodiscard]] int accessibleItemCount() const override;
    [[nodiscard]] Item accessibleItem(int item) const override;
    [[nodiscard]] int accessibleItemAt(const QPoint &position) const override;
    [[nodiscard]] int accessibleCurrentItem() const override;
    void setAccessibleCurrentItem(int item) override;
    void pressAccessibleItem(int item) override;
    void showAccessibleItemMenu(int item) override;

Q_SIGNALS:
    void folderActivated(quint32 folder);
    void contextMenuRequested(quint32 folder, const QPoint &globalPos);
    // Backspace or Alt+Left; Alt+Up: what the view's Back and Up buttons do.
    void backRequested();
    void upRequested();

protected:
    void paintEvent(QPaintEvent *event) override;
    void resizeEvent(QResizeEvent *event) override;
    bool event(QEvent *event) override;
    void mouseReleaseEvent(QMouseEvent *event) override;
    void contextMenuEvent(QContextMenuEvent *event) override;
    void keyPressEvent(QKeyEvent *event) override;
    void focusInEvent(QFocusEvent *event) override;
    void focusOutEvent(QFocusEvent *event) override;

private:
    void layOut();
    void layOutChildren(uint32_t folder, const QRectF &bounds, int level);
    [[nodiscard]] QColor fillFor(const FolderTotals &totals) const;
    [[nodiscard]] const FolderTotals &totalsOf(const Box &box) const;
    // Where a box is on its own: a box that shows its subfolders inside is
    // only its header; the others are the whole box. These never overlap.
    [[nodiscard]] QRectF ownRect(int index) const;
    // The box the arrow key goes to from `from`; -1: none that way.
    [[nodiscard]] int boxToward(int from, int key) const;
    // An arrow key, Home or End: the box becomes current, its figures show.
    void moveTo(int index);
    void openActivated(int index);
    void requestMenu(int index, std::optional<QPoint> position = {});
    // The folder a box stands for: itself, or for its files the folder they are in.
    [[nodiscard]] std::string pathOf(const Box &box) const;

    std::shared_ptr<const CacheMapTree> m_tree;
    uint32_t m_folder = CacheMapFolder::NoParent;
    std::vector<Box> m_boxes;
    QColor m_empty;
    QColor m_full;
    int m_current = -1;
    // The current box by what it shows, to find it again in a new layout.
    std::string m_currentPath;
    bool m_currentFilesHere = false;
    // What each box shows, while assistive technology listens: whether a new layout has other boxes.
    std::vector<std::pair<std::string, bool>> m_boxKeys;
};

} // namespace Cachescope::App
