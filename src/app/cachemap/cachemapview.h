// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers
#pragma once

#include "account.h"
#include "cachemap.h"

#include <QUrl>
#include <QWidget>

#include <functional>
#include <memory>

class QLabel;
class QProgressBar;
class QPushButton;
class QToolButton;

namespace Cachescope::App
{

class AccountPartsDialog;
class CacheMapScan;
class CacheMapWidget;

// The Cache Map tab: which folders of the whole system (or of one folder)
// hold the page cache, as a treemap. It walks when asked (and the first time
// it is shown), draws while walking, and costs nothing afterwards: the map is
// a picture of one moment, refreshed on request.
class CacheMapView : public QWidget
{
    Q_OBJECT

public:
    explicit CacheMapView(QWidget *parent = nullptr);
    ~CacheMapView() override;

    // Walks root and shows it (cancelling a walk under way).
    void mapFolder(const QString &root);
    void refresh();
    void cancel();
    void setOneFileSystem(bool stay);
    // Whether the walk enters file systems that keep no page cache (/proc,
    // /sys, ...) below its root: not by default, they add nothing to the
    // map (WalkOptions::skipNoPageCache). For the bench (no setting offers
    // it): with it on, the tab walks what status -r walks.
    void setWalkKernelFileSystems(bool walk);
    void setColors(const QColor &empty, const QColor &full);

    // Where the view is: the folder shown, and the map's root.
    [[nodiscard]] QString currentPath() const;
    [[nodiscard]] QString rootPath() const;
    [[nodiscard]] bool isMapping() const;
    [[nodiscard]] bool isComplete() const;
    [[nodiscard]] CacheMapWidget *mapWidget() const;
    [[nodiscard]] QString summaryText() const;
    // The account of Cached under a map of / (empty for another folder's map).
    [[nodiscard]] QString accountText() const;
    [[nodiscard]] bool isAccounting() const;
    [[nodiscard]] std::shared_ptr<const CacheAccount> account() const;
    // A link of the account line: the parts of that group in a dialog.
    AccountPartsDialog *showAccountGroup(AccountGroup group);
    // "Show with Administrator Rights" on the account line, where the
    // account has hidden parts: ask(done) asks the helper for the account
    // made as root and calls done with it, or with why not (the window
    // passes PrivilegedActions::accountWithHelper). Without it, the line
    // says why (unavailableReason) instead of offering the link.
    using AccountDone = std::function<void(std::shared_ptr<const CacheAccount> account, const QString &failure)>;
    using HelperAccount = std::function<void(const AccountDone &done)>;
    void setHelperAccount(HelperAccount ask, const QString &unavailableReason = {});
    // What the link does.
    void showAccountWithAdministratorRights();
    // The bytes the map holds for its folders (it holds nothing a file).
    [[nodiscard]] size_t mapMemoryBytes() const;

    // Navigation, as the buttons and a click do.
    void open(const QString &folder);
    void back();
    void up();
    // The context menu's actions on a folder of the map.
    void evictFolder(const QString &folder);
    void showInFileList(const QString &folder);
    // Another of the window's actions changed the page cache (an eviction,
    // Drop Caches): the map is walked again, at once while it is on show,
    // else when it next shows. Under paths: only if the map holds one of them.
    void pageCacheChanged();
    void pageCacheChangedUnder(const std::vector<std::string> &paths);

Q_SIGNALS:
    void evictRequested(const QList<QUrl> &urls);
    void inspectRequested(const QList<QUrl> &urls);
    void mappingChanged(bool mapping);
    void accountChanged();

protected:
    void showEvent(QShowEvent *event) override;

private:
    void setTree(std::shared_ptr<const CacheMapTree> tree);
    void showFolder(uint32_t index, bool remember);
    void updateHeader();
    void updateAccount();
    void contextMenuFor(quint32 folder, const QPoint &globalPos);
    void chooseFolder();
    [[nodiscard]] uint32_t indexOf(const QString &path) const;

    struct Private;
    std::unique_ptr<Private> d;
};

} // namespace Cachescope::App
