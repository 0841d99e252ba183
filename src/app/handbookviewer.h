// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers
#pragma once

#include <QUrl>
#include <QWidget>

class QTextBrowser;

namespace Cachescope::App
{

// The handbook's HTML pages in a window of Cachescope's own, for where no
// help viewer is installed (KHelpCenter, which Help > Cachescope Handbook
// asks first): a minimal desktop, tools/dev run's root. It says why it is
// there and offers the pages to the web browser.
class HandbookViewer : public QWidget
{
    Q_OBJECT

public:
    explicit HandbookViewer(const QUrl &index, QWidget *parent = nullptr);

    // The handbook's first page: next to the program (<prefix>/bin/../share,
    // which is also the build folder's layout), else in the data folders.
    // Empty when it is nowhere.
    [[nodiscard]] static QUrl locateIndex();
    // Whether KHelpCenter, KDE's help viewer, is installed.
    [[nodiscard]] static bool helpCenterInstalled();

    [[nodiscard]] QUrl currentPage() const;
    void showPage(const QUrl &page);
    [[nodiscard]] QTextBrowser *browser() const;

private:
    QTextBrowser *m_browser = nullptr;
    QUrl m_index;
};

} // namespace Cachescope::App
