// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers
#pragma once

#include <QAccessible>
#include <QRect>
#include <QString>

class QWidget;

namespace Cachescope::App
{

// Whether a screen reader or another assistive technology listens: the
// platform's QAccessible::isActive(), or QAccessible::setActive(true) (what
// the platform's bridge calls, and the tests). Figures meant only for it
// (the plots' descriptions) are written only then.
[[nodiscard]] bool accessibilityActive();

// A widget that draws its own items (the cache map's boxes, the heatmap's
// cells) implements this, and each item becomes an accessible child of the
// widget, after its child widgets: with a name, a description with its
// figures, its place on screen, and focus when it is the current item of the
// focused widget. Orca and other AT-SPI clients see them as list items.
class AccessibleItems
{
public:
    virtual ~AccessibleItems() = default;

    // What a screen reader is told of an item.
    struct Item {
        QString name; // a folder, a page range
        QString description; // its figures, a line each
        QString value; // the main figure, short
        QRect rect; // in the widget's coordinates
        bool pressable = false; // it has a "Press" action (opening a folder)
        bool hasMenu = false; // it has a "ShowMenu" action (its context menu)
    };

    [[nodiscard]] virtual int accessibleItemCount() const = 0;
    [[nodiscard]] virtual Item accessibleItem(int item) const = 0;
    [[nodiscard]] virtual int accessibleItemAt(const QPoint &position) const = 0; // -1: none
    [[nodiscard]] virtual int accessibleCurrentItem() const = 0; // -1: none
    // The item's "SetFocus" action: it becomes the current one, the widget
    // takes focus (its window is activated: a screen reader asked for it).
    virtual void setAccessibleCurrentItem(int item) = 0;
    // "Press" and "ShowMenu", for the items that have them.
    virtual void pressAccessibleItem(int item)
    {
        Q_UNUSED(item);
    }
    virtual void showAccessibleItemMenu(int item)
    {
        Q_UNUSED(item);
    }

    // Makes QAccessible answer with the items for every widget that
    // implements this class (once a process; the widgets call it).
    static void installFactory();
    // The items changed (another folder, other cells): assistive technology
    // reads them again. reorder: their number or meaning changed, not only
    // their figures. Nothing is done while none listens.
    static void itemsChanged(QWidget *widget, bool reorder);
    // The current item changed: while the widget has keyboard focus, it
    // gets the accessible focus (a QAccessible::Focus event for it).
    static void currentItemChanged(QWidget *widget);
    // The widget's focusInEvent() and focusOutEvent() call it: the frame
    // of the current item shows or goes, and on focus in the current item
    // gets the accessible focus after the widget's own.
    static void focusChanged(QWidget *widget);
};

} // namespace Cachescope::App
