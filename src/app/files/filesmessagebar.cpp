// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers

#include "filesmessagebar.h"

#include <KLocalizedString>

#include <QAction>
#include <QIcon>

#include <algorithm>

namespace Cachescope::App
{

FilesMessageBar::FilesMessageBar(QWidget *parent)
    : KMessageWidget(parent)
{
    setObjectName(QStringLiteral("filesMessage"));
    setWordWrap(true);
    setCloseButtonVisible(true);
    hide();
    m_flushAndEvict = new QAction(QIcon::fromTheme(QStringLiteral("document-save")), i18nc("@action:button", "Flush and Evict"), this);
    m_flushAndEvict->setToolTip(i18nc("@info:tooltip", "Write the dirty pages to disk first, then evict the same files again"));
    connect(m_flushAndEvict, &QAction::triggered, this, [this] {
        const std::vector<std::string> paths = m_paths;
        animatedHide();
        Q_EMIT flushAndEvictRequested(paths);
    });
}

void FilesMessageBar::setNext(const FilesMessage &message, const std::vector<std::string> &paths)
{
    m_next = message;
    m_nextPaths = paths;
}

void FilesMessageBar::showText(const QString &text, bool isError)
{
    if (m_next && m_next->text == text) {
        showMessage(*m_next, m_nextPaths);
    } else {
        showMessage({text, isError ? KMessageWidget::Error : KMessageWidget::Information, false}, {});
    }
    m_next.reset();
    m_nextPaths.clear();
}

void FilesMessageBar::showMessage(const FilesMessage &message, const std::vector<std::string> &paths)
{
    static const char *const icons[] = {"dialog-positive", "dialog-information", "dialog-warning", "dialog-error"};
    setMessageType(message.type);
    setIcon(QIcon::fromTheme(QLatin1String(icons[std::clamp(int(message.type), 0, 3)])));
    setText(message.text);
    removeAction(m_flushAndEvict);
    m_paths.clear();
    if (message.offersFlushAndEvict && !paths.empty()) {
        m_paths = paths;
        addAction(m_flushAndEvict);
    }
    animatedShow();
}

} // namespace Cachescope::App
