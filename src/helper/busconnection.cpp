// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers

#include "busconnection.h"

#include "cachescope_helper_debug.h"

#include <QSocketNotifier>

#include <systemd/sd-bus.h>

#include <poll.h>
#include <time.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

namespace Cachescope::Helper
{

std::unique_ptr<BusConnection> BusConnection::openSystemBus(QString *error)
{
    sd_bus *bus = nullptr;
    int r = sd_bus_new(&bus);
    if (r < 0) {
        *error = QStringLiteral("sd_bus_new: %1").arg(QString::fromLocal8Bit(strerror(-r)));
        return nullptr;
    }
    // The address as libdbus and sd_bus_open_system() take it; the test
    // fixture's private bus sets it.
    const char *address = getenv("DBUS_SYSTEM_BUS_ADDRESS");
    if ((r = sd_bus_set_address(bus, address && *address ? address : "unix:path=/run/dbus/system_bus_socket")) < 0
        || (r = sd_bus_set_bus_client(bus, 1)) < 0
        // docs/helper-security.md rule 9: before the connection is made, so
        // that authentication never offers NEGOTIATE_UNIX_FD.
        || (r = sd_bus_negotiate_fds(bus, 0)) < 0 || (r = sd_bus_set_description(bus, "cachescope-helper")) < 0 || (r = sd_bus_start(bus)) < 0) {
        *error = QStringLiteral("cannot connect to the system bus: %1").arg(QString::fromLocal8Bit(strerror(-r)));
        sd_bus_unref(bus);
        return nullptr;
    }
    // Fail closed: a connection that could receive descriptors is refused.
    if (sd_bus_can_send(bus, SD_BUS_TYPE_UNIX_FD) != 0) {
        *error = QStringLiteral("the bus connection would pass file descriptors; refusing to serve on it");
        sd_bus_unref(bus);
        return nullptr;
    }
    return std::unique_ptr<BusConnection>(new BusConnection(bus));
}

BusConnection::BusConnection(sd_bus *bus)
    : m_bus(bus)
{
    const int fd = sd_bus_get_fd(bus);
    m_readable = new QSocketNotifier(fd, QSocketNotifier::Read, this);
    m_writable = new QSocketNotifier(fd, QSocketNotifier::Write, this);
    connect(m_readable, &QSocketNotifier::activated, this, &BusConnection::dispatch);
    connect(m_writable, &QSocketNotifier::activated, this, &BusConnection::dispatch);
    m_timer.setSingleShot(true);
    m_timer.setTimerType(Qt::PreciseTimer);
    connect(&m_timer, &QTimer::timeout, this, &BusConnection::dispatch);
    rearm();
}

BusConnection::~BusConnection()
{
    sd_bus_flush_close_unref(m_bus);
}

sd_bus *BusConnection::bus() const
{
    return m_bus;
}

void BusConnection::setLostHandler(std::function<void()> lost)
{
    m_lost = std::move(lost);
}

void BusConnection::wake()
{
    if (!m_dispatching) {
        rearm();
    }
}

void BusConnection::dispatch()
{
    // A handler may queue replies; they go out in the same round.
    m_dispatching = true;
    for (;;) {
        const int r = sd_bus_process(m_bus, nullptr);
        if (r < 0) {
            m_dispatching = false;
            qCWarning(CACHESCOPE_HELPER) << "lost the system bus:" << strerror(-r);
            m_readable->setEnabled(false);
            m_writable->setEnabled(false);
            m_timer.stop();
            if (m_lost) {
                auto lost = std::move(m_lost);
                lost();
            }
            return;
        }
        if (r == 0) {
            break;
        }
    }
    m_dispatching = false;
    rearm();
}

void BusConnection::rearm()
{
    const int events = sd_bus_get_events(m_bus);
    if (events < 0) {
        // Closing: the next dispatch reports it.
        m_timer.start(0);
        return;
    }
    m_readable->setEnabled(events & POLLIN);
    m_writable->setEnabled(events & POLLOUT);
    uint64_t until = 0;
    if (sd_bus_get_timeout(m_bus, &until) < 0 || until == UINT64_MAX) {
        m_timer.stop();
        return;
    }
    timespec now{};
    clock_gettime(CLOCK_MONOTONIC, &now);
    const uint64_t nowUsec = uint64_t(now.tv_sec) * 1000000U + uint64_t(now.tv_nsec) / 1000U;
    m_timer.start(until > nowUsec ? int(std::min<uint64_t>((until - nowUsec + 999) / 1000, 60000)) : 0);
}

MessageRef::MessageRef(sd_bus_message *message)
    : m_message(sd_bus_message_ref(message))
{
}

MessageRef::MessageRef(const MessageRef &other)
    : m_message(other.m_message ? sd_bus_message_ref(other.m_message) : nullptr)
{
}

MessageRef &MessageRef::operator=(const MessageRef &other)
{
    if (this != &other) {
        sd_bus_message *old = m_message;
        m_message = other.m_message ? sd_bus_message_ref(other.m_message) : nullptr;
        if (old) {
            sd_bus_message_unref(old);
        }
    }
    return *this;
}

MessageRef::~MessageRef()
{
    if (m_message) {
        sd_bus_message_unref(m_message);
    }
}

} // namespace Cachescope::Helper
