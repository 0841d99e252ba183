// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers
#pragma once

// The Experiments window: the classic page-cache lessons, one page
// each, listed in a sidebar. A window of its own, so that an experiment can
// run beside the main window's memory plot.

#include <QList>
#include <QMainWindow>
#include <QSize>

class KPageWidget;
class KPageWidgetItem;

namespace Cachescope::App
{

class ExperimentPage;

class ExperimentsWindow : public QMainWindow
{
    Q_OBJECT

public:
    // Deletes itself when closed, once every engine has stopped:
    // `(new ExperimentsWindow)->show()`.
    explicit ExperimentsWindow(QWidget *parent = nullptr);
    ~ExperimentsWindow() override;

    [[nodiscard]] QList<ExperimentPage *> pages() const;
    // By engine name: "cold-read", "pressure", "cold-start", "writeback", "faults".
    [[nodiscard]] ExperimentPage *page(const QString &experimentName) const;
    void showPage(ExperimentPage *page);
    [[nodiscard]] KPageWidget *pageWidget() const;

    // The size it opens at when nothing was saved.
    static constexpr QSize defaultSize{1280, 800};

protected:
    void closeEvent(QCloseEvent *event) override;

private:
    // The saved size (or the default), never larger than the available
    // geometry of the screen it opens on, and centred there.
    void fitToScreen();
    void checkHelper();
    void deleteWhenStopped();

    KPageWidget *m_pageWidget = nullptr;
    QList<ExperimentPage *> m_pages;
    QList<KPageWidgetItem *> m_items;
};

} // namespace Cachescope::App
