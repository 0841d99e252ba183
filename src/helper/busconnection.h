// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers
#pragma once

// The service's one connection to the system bus (docs/helper-security.md
// rule 9): sd-bus, told before it connects that it takes no file
// descriptors, so that the bus refuses to deliver a message carrying one
// (dbus-daemon answers its sender NotSupported). No descriptor of a caller's
// ever reaches this process, so none can hold it in close(). QtDBus and
// GDBus always offer descriptor passing on a unix socket, and so does
// polkit-qt; this process opens no such connection.
//
// The connection is driven by the Qt event loop of the thread that opened it
// (a socket notifier and a timer); every sd-bus call is made on that thread.

#include <QObject>
#include <QString>
#include <QTimer>

#include <functional>
#include <memory>

struct sd_bus;
struct sd_bus_message;
class QSocketNotifier;

namespace Cachescope::Helper
{

class BusConnection : public QObject
{
public:
    ~BusConnection() override;

    // The system bus ($DBUS_SYSTEM_BUS_ADDRESS, else the standard socket),
    // without descriptor passing. nullptr, and *error, when it cannot be
    // reached or would pass descriptors after all.
    [[nodiscard]] static std::unique_ptr<BusConnection> openSystemBus(QString *error);

    [[nodiscard]] sd_bus *bus() const;
    // After a message was queued outside a dispatch (a worker's result):
    // writes it out soon.
    void wake();
    // Called once when the bus connection is lost (the service then ends).
    void setLostHandler(std::function<void()> lost);

private:
    explicit BusConnection(sd_bus *bus);
    void dispatch();
    void rearm();

    sd_bus *m_bus = nullptr;
    QSocketNotifier *m_readable = nullptr;
    QSocketNotifier *m_writable = nullptr;
    QTimer m_timer;
    std::function<void()> m_lost;
    bool m_dispatching = false;
};

// sd-bus reference counting as RAII, for messages kept past their handler.
struct MessageRef {
    MessageRef() = default;
    explicit MessageRef(sd_bus_message *message); // takes a new reference
    MessageRef(const MessageRef &other);
    MessageRef &operator=(const MessageRef &other);
    ~MessageRef();
    [[nodiscard]] sd_bus_message *get() const
    {
        return m_message;
    }

private:
    sd_bus_message *m_message = nullptr;
};

} // namespace Cachescope::Helper
