// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers
#pragma once

#include "top.h"

#include <QDialog>

#include <string>
#include <vector>

namespace Cachescope::App
{

// The files with the most pages in the page cache under some folders, most
// first. Double-clicking a file adds it to the list of inspected items.
class TopCachedDialog : public QDialog
{
    Q_OBJECT

public:
    TopCachedDialog(const std::vector<std::string> &folders,
                    const std::vector<Cachescope::TopEntry> &entries,
                    const Cachescope::WalkTotals &totals,
                    QWidget *parent = nullptr);

Q_SIGNALS:
    void inspectRequested(const std::string &path);
};

} // namespace Cachescope::App
