// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers
#pragma once

// What QAccessible tells a screen reader, for the tests of the widgets that
// draw their own items (the cache map's boxes, the heatmap's cells): the
// events it sends, recorded as they were at that moment.

#include <QAccessible>
#include <QList>
#include <QString>
#include <QWidget>

namespace AccessibleEvents
{

struct Recorded {
    QAccessible::Event type;
    QString name;
    QAccessible::Role role;
    QObject *parentObject; // the widget an item belongs to
};

inline QList<Recorded> &recorded()
{
    static QList<Recorded> events;
    return events;
}

inline void record(QAccessibleEvent *event)
{
    QAccessibleInterface *iface = event->accessibleInterface();
    const bool valid = iface && iface->isValid();
    QAccessibleInterface *parent = valid ? iface->parent() : nullptr;
    recorded().append(
        {event->type(), valid ? iface->text(QAccessible::Name) : QString(), valid ? iface->role() : QAccessible::NoRole, parent ? parent->object() : nullptr});
}

// While it lives, QAccessible is active, as the platform's bridge makes it
// when a screen reader starts (also on the offscreen platform, which has
// none), and its events are recorded here instead of going to a bridge.
class Listening
{
public:
    Listening()
    {
        recorded().clear();
        QAccessible::installUpdateHandler(record);
        QAccessible::setActive(true);
    }
    ~Listening()
    {
        QAccessible::setActive(false);
        QAccessible::installUpdateHandler(nullptr);
    }
    Listening(const Listening &) = delete;
    Listening &operator=(const Listening &) = delete;
};

// The last object that got the accessible focus, if any.
inline const Recorded *lastFocus()
{
    const QList<Recorded> &events = recorded();
    for (auto it = events.crbegin(); it != events.crend(); ++it) {
        if (it->type == QAccessible::Focus) {
            return &*it;
        }
    }
    return nullptr;
}

// The name of the last object that got the accessible focus ("" for none).
inline QString lastFocusName()
{
    const Recorded *focus = lastFocus();
    return focus ? focus->name : QString();
}

// The accessible child for item `item` of a widget with `items` drawn items
// (they come after its child widgets).
inline QAccessibleInterface *itemInterface(QWidget *widget, int items, int item)
{
    QAccessibleInterface *iface = QAccessible::queryAccessibleInterface(widget);
    return iface->child(iface->childCount() - items + item);
}

} // namespace AccessibleEvents
