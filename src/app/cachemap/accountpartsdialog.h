// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers
#pragma once

#include "account.h"

#include <QDialog>

#include <memory>

class QTreeWidget;

namespace Cachescope::App
{

// The parts of one group of the account of Cached (the links under the
// Cache Map): each with its bytes in the cache, its size, what it is and the
// processes that hold it; the hidden ones say why instead of a number.
class AccountPartsDialog : public QDialog
{
    Q_OBJECT

public:
    AccountPartsDialog(std::shared_ptr<const CacheAccount> account, AccountGroup group, QWidget *parent = nullptr);

    [[nodiscard]] QTreeWidget *partsList() const;
    // "deleted files still open", ...: the group as the account line says it.
    [[nodiscard]] static QString groupTitle(AccountGroup group);

private:
    QTreeWidget *m_list = nullptr;
    std::shared_ptr<const CacheAccount> m_account;
};

} // namespace Cachescope::App
