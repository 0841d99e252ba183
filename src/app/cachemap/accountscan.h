// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers
#pragma once

#include "account.h"
#include "cachemap.h"

#include <QObject>

#include <memory>
#include <thread>

namespace Cachescope::App
{

// The rest of the account of Cached once the Cache Map of / is made:
// shared memory, deleted files still open, other mount namespaces, folders
// under mount points (CacheAccountant::runFromMap), off the GUI thread.
// Cancel at any time; destruction cancels and waits.
class AccountScan : public QObject
{
    Q_OBJECT

public:
    explicit AccountScan(QObject *parent = nullptr);
    ~AccountScan() override;

    void start(std::shared_ptr<const CacheMapTree> tree);
    void cancel();
    [[nodiscard]] bool isRunning() const;

Q_SIGNALS:
    void finished(std::shared_ptr<const Cachescope::CacheAccount> account);

private:
    void stop();

    std::unique_ptr<CacheAccountant> m_accountant;
    std::thread m_thread;
    bool m_running = false;
    uint64_t m_generation = 0;
};

} // namespace Cachescope::App
