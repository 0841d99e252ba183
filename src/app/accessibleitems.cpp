// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers

#include "accessibleitems.h"

#include <QAccessibleWidget>
#include <QHash>
#include <QPointer>
#include <QTimer>
#include <QWidget>

namespace Cachescope::App
{

namespace
{

// Follows QAccessible::setActive(), which the platform's bridge calls when
// a screen reader comes or goes, and which tests call on platforms without
// one (offscreen).
class ActivationObserver : public QAccessible::ActivationObserver
{
public:
    void accessibilityActiveChanged(bool active) override
    {
        m_active = active;
    }
    bool m_active = false;
};

ActivationObserver &activationObserver()
{
    static ActivationObserver *observer = [] {
        auto *made = new ActivationObserver;
        QAccessible::installActivationObserver(made);
        return made;
    }();
    return *observer;
}

// From the start: the bridge may say it is active before the first widget that asks is made.
const bool observing = (activationObserver(), true);

AccessibleItems *itemsOf(QObject *object)
{
    return dynamic_cast<AccessibleItems *>(object);
}

// One drawn item: it reads everything from its widget at each question, so
// it is never stale; it is only gone when its widget has fewer items.
class ItemInterface : public QAccessibleInterface, public QAccessibleActionInterface
{
public:
    ItemInterface(QWidget *widget, int index)
        : m_widget(widget)
        , m_index(index)
    {
    }

    [[nodiscard]] int index() const
    {
        return m_index;
    }
    [[nodiscard]] QWidget *widget() const
    {
        return m_widget;
    }

    bool isValid() const override
    {
        const AccessibleItems *items = m_widget ? itemsOf(m_widget) : nullptr;
        return items && m_index < items->accessibleItemCount();
    }
    QObject *object() const override
    {
        return nullptr;
    }
    QWindow *window() const override
    {
        return m_widget ? m_widget->window()->windowHandle() : nullptr;
    }
    QAccessibleInterface *childAt(int, int) const override
    {
        return nullptr;
    }
    QAccessibleInterface *parent() const override
    {
        return m_widget ? QAccessible::queryAccessibleInterface(m_widget) : nullptr;
    }
    QAccessibleInterface *child(int) const override
    {
        return nullptr;
    }
    int childCount() const override
    {
        return 0;
    }
    int indexOfChild(const QAccessibleInterface *) const override
    {
        return -1;
    }
    QString text(QAccessible::Text text) const override
    {
        if (!isValid()) {
            return {};
        }
        const AccessibleItems::Item item = itemsOf(m_widget)->accessibleItem(m_index);
        switch (text) {
        case QAccessible::Name:
            return item.name;
        case QAccessible::Description:
            return item.description;
        case QAccessible::Value:
            return item.value;
        default:
            return {};
        }
    }
    void setText(QAccessible::Text, const QString &) override
    {
    }
    QRect rect() const override
    {
        if (!isValid()) {
            return {};
        }
        const QRect local = itemsOf(m_widget)->accessibleItem(m_index).rect;
        return QRect(m_widget->mapToGlobal(local.topLeft()), local.size());
    }
    QAccessible::Role role() const override
    {
        return QAccessible::ListItem;
    }
    QAccessible::State state() const override
    {
        QAccessible::State state;
        if (!isValid()) {
            state.invalid = true;
            return state;
        }
        const AccessibleItems *items = itemsOf(m_widget);
        state.focusable = true;
        state.selectable = true;
        if (items->accessibleCurrentItem() == m_index) {
            state.selected = true;
            state.focused = m_widget->hasFocus();
        }
        if (!m_widget->isVisible()) {
            state.invisible = true;
        } else if (!m_widget->rect().intersects(items->accessibleItem(m_index).rect)) {
            state.offscreen = true;
        }
        return state;
    }
    void *interface_cast(QAccessible::InterfaceType type) override
    {
        return type == QAccessible::ActionInterface ? static_cast<QAccessibleActionInterface *>(this) : nullptr;
    }

    QStringList actionNames() const override
    {
        if (!isValid()) {
            return {};
        }
        const AccessibleItems::Item item = itemsOf(m_widget)->accessibleItem(m_index);
        QStringList names;
        if (item.pressable) {
            names << pressAction();
        }
        if (item.hasMenu) {
            names << showMenuAction();
        }
        names << setFocusAction();
        return names;
    }
    void doAction(const QString &name) override
    {
        if (!isValid()) {
            return;
        }
        AccessibleItems *items = itemsOf(m_widget);
        const AccessibleItems::Item item = items->accessibleItem(m_index);
        if (name == setFocusAction()) {
            items->setAccessibleCurrentItem(m_index);
        } else if (name == pressAction() && item.pressable) {
            items->pressAccessibleItem(m_index);
        } else if (name == showMenuAction() && item.hasMenu) {
            items->showAccessibleItemMenu(m_index);
        }
    }
    QStringList keyBindingsForAction(const QString &name) const override
    {
        if (name == pressAction()) {
            return {QStringLiteral("Return")};
        }
        if (name == showMenuAction()) {
            return {QStringLiteral("Menu")};
        }
        return {};
    }

private:
    QPointer<QWidget> m_widget;
    const int m_index;
};

// The widget: its child widgets, then its items. Item interfaces are made
// when asked for and kept (registered with QAccessible, which gives them
// their ids and AT-SPI paths) until the items change.
class ItemsInterface : public QAccessibleWidget
{
public:
    explicit ItemsInterface(QWidget *widget)
        : QAccessibleWidget(widget, QAccessible::List)
    {
    }
    ~ItemsInterface() override
    {
        dropItems(0);
    }

    int childCount() const override
    {
        return QAccessibleWidget::childCount() + items()->accessibleItemCount();
    }
    QAccessibleInterface *child(int index) const override
    {
        const int widgets = QAccessibleWidget::childCount();
        return index < widgets ? QAccessibleWidget::child(index) : item(index - widgets);
    }
    int indexOfChild(const QAccessibleInterface *child) const override
    {
        if (child && !child->object()) {
            const auto *found = dynamic_cast<const ItemInterface *>(child);
            return found && found->widget() == widget() && found->isValid() ? QAccessibleWidget::childCount() + found->index() : -1;
        }
        return QAccessibleWidget::indexOfChild(child);
    }
    QAccessibleInterface *childAt(int x, int y) const override
    {
        // The child widgets (QAccessibleObject's own would make every item's interface on the way).
        for (int i = 0; i < QAccessibleWidget::childCount(); ++i) {
            QAccessibleInterface *child = QAccessibleWidget::child(i);
            if (child && child->isValid() && !child->state().invisible && child->rect().contains(x, y)) {
                return child;
            }
        }
        return item(items()->accessibleItemAt(widget()->mapFromGlobal(QPoint(x, y))));
    }
    QAccessibleInterface *focusChild() const override
    {
        if (widget()->hasFocus()) {
            if (QAccessibleInterface *current = item(items()->accessibleCurrentItem())) {
                return current;
            }
        }
        return QAccessibleWidget::focusChild();
    }

    [[nodiscard]] QAccessibleInterface *item(int index) const
    {
        if (index < 0 || index >= items()->accessibleItemCount()) {
            return nullptr;
        }
        const auto found = m_ids.constFind(index);
        if (found != m_ids.constEnd()) {
            return QAccessible::accessibleInterface(*found);
        }
        auto *made = new ItemInterface(widget(), index);
        m_ids.insert(index, QAccessible::registerAccessibleInterface(made));
        return made;
    }

    // Forgets the interfaces of the items from `first` on.
    void dropItems(int first)
    {
        for (auto it = m_ids.begin(); it != m_ids.end();) {
            if (it.key() >= first) {
                QAccessible::deleteAccessibleInterface(it.value());
                it = m_ids.erase(it);
            } else {
                ++it;
            }
        }
    }

private:
    [[nodiscard]] AccessibleItems *items() const
    {
        return itemsOf(widget());
    }

    mutable QHash<int, QAccessible::Id> m_ids;
};

QAccessibleInterface *factory(const QString &, QObject *object)
{
    auto *widget = qobject_cast<QWidget *>(object);
    return widget && itemsOf(widget) ? new ItemsInterface(widget) : nullptr;
}

ItemsInterface *interfaceOf(QWidget *widget)
{
    return dynamic_cast<ItemsInterface *>(QAccessible::queryAccessibleInterface(widget));
}

} // namespace

bool accessibilityActive()
{
    return QAccessible::isActive() || activationObserver().m_active;
}

void AccessibleItems::installFactory()
{
    static const bool installed = [] {
        QAccessible::installFactory(factory);
        return true;
    }();
    Q_UNUSED(installed);
}

void AccessibleItems::itemsChanged(QWidget *widget, bool reorder)
{
    if (!accessibilityActive()) {
        return;
    }
    ItemsInterface *iface = interfaceOf(widget);
    if (!iface) {
        return;
    }
    if (reorder) {
        // New objects for new items: a client keeps no name of a box that now means another folder.
        iface->dropItems(0);
        QAccessibleEvent event(widget, QAccessible::ObjectReorder);
        QAccessible::updateAccessibility(&event);
        return;
    }
    iface->dropItems(itemsOf(widget)->accessibleItemCount());
    // Only the figures changed: the current item's are read again.
    if (QAccessibleInterface *current = iface->item(itemsOf(widget)->accessibleCurrentItem())) {
        QAccessibleEvent event(current, QAccessible::DescriptionChanged);
        QAccessible::updateAccessibility(&event);
    }
}

void AccessibleItems::focusChanged(QWidget *widget)
{
    widget->update();
    if (widget->hasFocus()) {
        // After Qt's own focus event for the widget: then the item is what has focus.
        QTimer::singleShot(0, widget, [widget] {
            currentItemChanged(widget);
        });
    }
}

void AccessibleItems::currentItemChanged(QWidget *widget)
{
    if (!accessibilityActive() || !widget->hasFocus()) {
        return;
    }
    ItemsInterface *iface = interfaceOf(widget);
    if (QAccessibleInterface *current = iface ? iface->item(itemsOf(widget)->accessibleCurrentItem()) : nullptr) {
        QAccessibleEvent event(current, QAccessible::Focus);
        QAccessible::updateAccessibility(&event);
    }
}

} // namespace Cachescope::App
