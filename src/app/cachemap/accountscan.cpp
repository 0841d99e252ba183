// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers

#include "accountscan.h"

#include <QMetaObject>
#include <QPointer>

namespace Cachescope::App
{

AccountScan::AccountScan(QObject *parent)
    : QObject(parent)
{
}

AccountScan::~AccountScan()
{
    stop();
}

void AccountScan::stop()
{
    if (m_accountant) {
        m_accountant->cancel();
    }
    if (m_thread.joinable()) {
        m_thread.join();
    }
    m_running = false;
}

void AccountScan::start(std::shared_ptr<const CacheMapTree> tree)
{
    stop();
    const uint64_t generation = ++m_generation;
    AccountOptions options;
    options.root = tree && !tree->folders.empty() ? tree->folders[tree->roots.empty() ? 0 : tree->roots.front()].path : std::string("/");
    m_accountant = std::make_unique<CacheAccountant>(options);
    CacheAccountant *accountant = m_accountant.get();
    m_running = true;
    QPointer<AccountScan> self(this);
    m_thread = std::thread([accountant, tree = std::move(tree), self, generation, this] {
        auto account = std::make_shared<const CacheAccount>(accountant->runFromMap(*tree));
        // Back on the GUI thread (the destructor joins this thread first).
        QMetaObject::invokeMethod(
            this,
            [self, generation, account = std::move(account)] {
                if (!self || self->m_generation != generation) {
                    return;
                }
                if (self->m_thread.joinable()) {
                    self->m_thread.join();
                }
                self->m_running = false;
                Q_EMIT self->finished(account);
            },
            Qt::QueuedConnection);
    });
}

void AccountScan::cancel()
{
    if (m_accountant && m_running) {
        m_accountant->cancel();
    }
}

bool AccountScan::isRunning() const
{
    return m_running;
}

} // namespace Cachescope::App
