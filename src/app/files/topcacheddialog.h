// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers
#pragma once

#include "top.h"

#include <QDialog>

#include <string>
#include <vector>

class QTreeWidget;

namespace Cachescope::App
{

// The files with the most pages in the page cache under some folders, most
// first. Double-clicking a file asks to show it in the list of inspected
// items; right-clicking asks for the menu of the selected files.
class TopCachedDialog : public QDialog
{
    Q_OBJECT

public:
    TopCachedDialog(const std::vector<std::string> &folders,
                    const std::vector<Cachescope::TopEntry> &entries,
                    const Cachescope::WalkTotals &totals,
                    QWidget *parent = nullptr);

    // Reads again the files that are these paths or lie below them (after an
    // eviction or a load): their figures change, their rank goes with them.
    void refreshFigures(const std::vector<std::string> &roots);

Q_SIGNALS:
    void inspectRequested(const std::string &path);
    // Right-click on the results: the paths selected, where the menu goes.
    void contextMenuRequested(const std::vector<std::string> &paths, const QPoint &globalPos);

private:
    QTreeWidget *m_list = nullptr;
};

} // namespace Cachescope::App
