// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers
#pragma once

#include "filesjobreport.h"

#include <KMessageWidget>

#include <optional>
#include <string>
#include <vector>

class QAction;

namespace Cachescope::App
{

// The files panel's message bar, above the list as Dolphin has its own: what
// an eviction or a load did, why a drop was refused. A warning about dirty
// pages carries Flush and Evict for the very paths of that eviction, which
// need not be in the list (a drop on the evict zone).
class FilesMessageBar : public KMessageWidget
{
    Q_OBJECT

public:
    explicit FilesMessageBar(QWidget *parent = nullptr);

    // The next showText() with this text shows message instead (its type and,
    // when it offers one, Flush and Evict for paths).
    void setNext(const FilesMessage &message, const std::vector<std::string> &paths);
    // A sentence for the person: an error, or else information.
    void showText(const QString &text, bool isError);

Q_SIGNALS:
    void flushAndEvictRequested(const std::vector<std::string> &paths);

private:
    void showMessage(const FilesMessage &message, const std::vector<std::string> &paths);

    QAction *m_flushAndEvict = nullptr;
    std::vector<std::string> m_paths; // of the message on show
    std::optional<FilesMessage> m_next;
    std::vector<std::string> m_nextPaths;
};

} // namespace Cachescope::App
