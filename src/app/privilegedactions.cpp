// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers

#include "privilegedactions.h"

#include "format.h"

#include "heatmap/heatmapwidget.h"
#include "helperprotocol.h"
#include "pathcodec.h"
#include "privileged.h"
#include "procfs.h"
#include "uniquefd.h"

#include <KActionCollection>
#include <KActionMenu>
#include <KLocalizedString>
#include <KMessageBox>

#include <QAction>
#include <QApplication>
#include <QHash>
#include <QIcon>
#include <QPointer>
#include <QTimer>

#include <fcntl.h>
#include <sys/stat.h>

#include <cerrno>
#include <filesystem>
#include <optional>

namespace Cachescope::App
{

using Privileged::Failure;
using Privileged::Result;

namespace
{

// The window's experiment swap file: big enough to show swapping in the
// memory graph, small enough for any disk with room for Cachescope.
constexpr qint64 experimentSwapFileBytes = 512LL << 20;

QString bytesText(uint64_t bytes)
{
    return formatBytes(bytes, ByteStyle::OneDecimal, QLocale());
}

// "3.1 GiB → 210 MiB"
QString beforeAfter(uint64_t before, uint64_t after)
{
    return i18nc("@info a figure before and after a change", "%1 → %2", bytesText(before), bytesText(after));
}

int levelOf(PrivilegedActions::Request request)
{
    switch (request) {
    case PrivilegedActions::Request::DropPageCache:
        return 1;
    case PrivilegedActions::Request::DropDentriesAndInodes:
        return 2;
    case PrivilegedActions::Request::DropAll:
        return 3;
    default:
        return 0;
    }
}

// What a request does, as the subject of a sentence ("Dropping the page cache failed: ...").
QString doingText(PrivilegedActions::Request request)
{
    using R = PrivilegedActions::Request;
    switch (request) {
    case R::DropPageCache:
        return i18nc("@info subject of a sentence", "Dropping the page cache");
    case R::DropDentriesAndInodes:
        return i18nc("@info subject of a sentence", "Dropping the dentry and inode caches");
    case R::DropAll:
        return i18nc("@info subject of a sentence", "Dropping the page cache and the dentry and inode caches");
    case R::SwapOffAll:
        return i18nc("@info subject of a sentence", "Turning swap off");
    case R::SwapOnAgain:
        return i18nc("@info subject of a sentence", "Turning swap on again");
    case R::CreateSwapFile:
        return i18nc("@info subject of a sentence", "Creating the experiment swap file");
    case R::RemoveSwapFile:
        return i18nc("@info subject of a sentence", "Removing the experiment swap file");
    case R::Residency:
        return i18nc("@info subject of a sentence", "Reading the residency with administrator rights");
    }
    return {};
}

uint64_t swapUsedNow()
{
    const std::optional<MemInfo> memInfo = readMemInfo();
    return memInfo ? freeFigures(*memInfo).swapUsed : 0;
}

// The memory figures after a swap change, read by us (the helper's swap
// replies carry no meminfo): free, available, swap in use.
QString memoryNowText()
{
    const std::optional<MemInfo> memInfo = readMemInfo();
    if (!memInfo) {
        return {};
    }
    const FreeFigures figures = freeFigures(*memInfo);
    return i18nc("@info memory figures after a change",
                 "Now: free %1, available %2, swap in use %3 of %4",
                 bytesText(memInfo->value("MemFree")),
                 bytesText(memInfo->value("MemAvailable")),
                 bytesText(figures.swapUsed),
                 bytesText(figures.swapTotal));
}

QString areasText(const Privileged::SwapResult &swap)
{
    QStringList parts;
    for (qsizetype i = 0; i < swap.areas.size(); ++i) {
        parts << (i < swap.priorities.size() ? i18nc("@item swap area and its priority", "%1 (priority %2)", swap.areas[i], swap.priorities[i])
                                             : swap.areas[i]);
    }
    return parts.join(QStringLiteral(", "));
}

} // namespace

struct PrivilegedActions::Private {
    Privileged::RequestQueue *queue = nullptr;
    bool available = false;
    QString unavailableReason;
    bool confirmations = true;
    QPointer<QWidget> dialogParent;
    QHash<Request, QAction *> actions;
    QHash<QAction *, QString> toolTips; // each action's tooltip when the helper is there
    QList<QAction *> menus; // the toolbar drop-downs
    int outstanding = 0; // requests queued or running
    uint64_t swapUsedAtStart = 0; // for the swapoff progress
    // While a drop of caches runs: polls /proc/meminfo for what sync() still has to write.
    QTimer *flushProgress = nullptr;
    std::optional<uint64_t> swapTotal; // setSwapTotal()
};

PrivilegedActions::PrivilegedActions(QObject *parent)
    : QObject(parent)
    , d(std::make_unique<Private>())
{
    d->queue = new Privileged::RequestQueue(this);
    connect(d->queue, &Privileged::RequestQueue::progress, this, &PrivilegedActions::handleProgress);
    d->flushProgress = new QTimer(this);
    d->flushProgress->setInterval(250);
    connect(d->flushProgress, &QTimer::timeout, this, &PrivilegedActions::reportFlushProgress);
    connect(d->queue, &Privileged::RequestQueue::started, this, [this](Privileged::Operation operation) {
        if (operation == Privileged::Operation::DropCaches) {
            startFlushProgress();
        }
    });
    d->available = Privileged::helperAvailable(&d->unavailableReason);
    if (d->available) {
        d->unavailableReason.clear();
    }
}

PrivilegedActions::~PrivilegedActions() = default;

void PrivilegedActions::setUpActions(KActionCollection *collection)
{
    auto make = [this, collection](Request request, const char *name, const char *icon, const QString &text, const QString &toolTip) {
        auto *action = new QAction(QIcon::fromTheme(QLatin1String(icon)), text, this);
        action->setToolTip(toolTip);
        action->setStatusTip(toolTip);
        collection->addAction(QLatin1String(name), action);
        d->actions.insert(request, action);
        d->toolTips.insert(action, toolTip);
        connect(action, &QAction::triggered, this, [this, request] {
            submit(request);
        });
        return action;
    };

    // drop_caches drops only clean pages no program maps: mapped and dirty
    // pages stay (Documentation/admin-guide/sysctl/vm.rst).
    QAction *pageCache =
        make(Request::DropPageCache,
             "memory_drop_pagecache",
             "edit-clear-history",
             i18nc("@action", "Drop Page Cache"),
             i18nc("@info:tooltip", "Write unsaved data to disk, then drop the clean pages of the page cache that no program maps (drop_caches level 1)"));
    QAction *slab = make(Request::DropDentriesAndInodes,
                         "memory_drop_slab",
                         "edit-clear",
                         i18nc("@action", "Drop Dentries and Inodes"),
                         i18nc("@info:tooltip", "Empty the kernel's caches of file names and inodes (drop_caches level 2)"));
    QAction *all = make(Request::DropAll,
                        "memory_drop_all",
                        "edit-clear-all",
                        i18nc("@action", "Drop Both"),
                        i18nc("@info:tooltip", "Drop the unmapped page cache and the dentry and inode caches (drop_caches level 3)"));
    QAction *swapOff = make(Request::SwapOffAll,
                            "swap_off_all",
                            "media-playback-stop",
                            i18nc("@action", "Turn Off All Swap"),
                            i18nc("@info:tooltip", "Bring every swapped-out page back into memory and turn all swap areas off"));
    QAction *swapOn = make(Request::SwapOnAgain,
                           "swap_on_again",
                           "media-playback-start",
                           i18nc("@action", "Turn Swap On Again"),
                           i18nc("@info:tooltip", "Turn on again, with their old priorities, the swap areas Cachescope turned off"));
    QAction *create = make(Request::CreateSwapFile,
                           "swap_create_file",
                           "document-new",
                           i18nc("@action", "Create Experiment Swap File"),
                           i18nc("@info:tooltip %1 is a size, %2 a path",
                                 "Create a swap file of %1 at %2 and turn it on",
                                 bytesText(experimentSwapFileBytes),
                                 QString::fromLatin1(HelperProtocol::experimentSwapPath)));
    QAction *remove = make(Request::RemoveSwapFile,
                           "swap_remove_file",
                           "edit-delete",
                           i18nc("@action", "Remove Experiment Swap File"),
                           i18nc("@info:tooltip", "Turn swap off on the experiment swap file and delete it"));

    // Drop-downs for the toolbar; the menu bar uses submenus of the rc file.
    auto *dropMenu = new KActionMenu(QIcon::fromTheme(QStringLiteral("edit-clear-all")), i18nc("@action", "Drop Caches"), this);
    dropMenu->setPopupMode(QToolButton::InstantPopup);
    dropMenu->addAction(pageCache);
    dropMenu->addAction(slab);
    dropMenu->addAction(all);
    collection->addAction(QStringLiteral("memory_drop_caches"), dropMenu);
    auto *swapMenu = new KActionMenu(QIcon::fromTheme(QStringLiteral("drive-harddisk")), i18nc("@action", "Swap"), this);
    swapMenu->setPopupMode(QToolButton::InstantPopup);
    swapMenu->addAction(swapOff);
    swapMenu->addAction(swapOn);
    swapMenu->addSeparator();
    swapMenu->addAction(create);
    swapMenu->addAction(remove);
    collection->addAction(QStringLiteral("memory_swap"), swapMenu);
    d->toolTips.insert(dropMenu, i18nc("@info:tooltip", "Empty the kernel's caches (needs administrator rights)"));
    d->toolTips.insert(swapMenu, i18nc("@info:tooltip", "Turn swap off and on, or try swap with an experiment swap file (needs administrator rights)"));
    d->menus = {dropMenu, swapMenu};

    updateActions();
}

QAction *PrivilegedActions::action(Request request) const
{
    return d->actions.value(request);
}

bool PrivilegedActions::isAvailable() const
{
    return d->available;
}

QString PrivilegedActions::unavailableReason() const
{
    return d->unavailableReason;
}

void PrivilegedActions::setDialogParent(QWidget *parent)
{
    d->dialogParent = parent;
}

void PrivilegedActions::setConfirmationsEnabled(bool enabled)
{
    d->confirmations = enabled;
}

int PrivilegedActions::pendingRequests() const
{
    return d->outstanding;
}

void PrivilegedActions::recheckAvailability()
{
    QString reason;
    const bool available = Privileged::helperAvailable(&reason);
    if (available) {
        reason.clear();
    }
    if (available == d->available && reason == d->unavailableReason) {
        return;
    }
    d->available = available;
    d->unavailableReason = reason;
    updateActions();
    Q_EMIT availabilityChanged(available, reason);
}

void PrivilegedActions::setSwapTotal(uint64_t bytes)
{
    const bool hadSwap = d->swapTotal.value_or(1) > 0; // unknown counted as some
    d->swapTotal = bytes;
    if (hadSwap != (bytes > 0)) {
        updateActions();
    }
}

void PrivilegedActions::updateActions()
{
    QAction *swapOff = d->actions.value(Request::SwapOffAll);
    const bool noSwap = d->swapTotal == uint64_t(0);
    auto apply = [this, swapOff, noSwap](QAction *action) {
        if (action == swapOff && d->available && noSwap) {
            const QString why = i18nc("@info:tooltip", "No swap area is on: there is nothing to turn off");
            action->setEnabled(false);
            action->setToolTip(why);
            action->setStatusTip(why);
            return;
        }
        action->setEnabled(d->available);
        const QString toolTip = d->available ? d->toolTips.value(action) : d->unavailableReason;
        action->setToolTip(toolTip);
        action->setStatusTip(toolTip);
    };
    for (QAction *action : std::as_const(d->actions)) {
        apply(action);
    }
    for (QAction *menu : std::as_const(d->menus)) {
        apply(menu);
    }
}

bool PrivilegedActions::confirm(Request request)
{
    if (!d->confirmations) {
        return true;
    }
    QString text;
    QString title;
    QString key;
    // The button says what it does, as KDE's HIG asks, never "Continue".
    const QAction *action = d->actions.value(request);
    const KGuiItem confirmButton(action ? action->text() : QString(), action ? action->icon() : QIcon());
    switch (request) {
    case Request::DropPageCache:
    case Request::DropAll:
        title = i18nc("@title:window", "Drop Caches");
        text = xi18nc("@info",
                      "<para>Drop the page cache?</para><para>Unsaved data is written to disk first; pages that programs map stay. Afterwards "
                      "programs read their files from disk again, so the system is slower for a while.</para>");
        key = QStringLiteral("ConfirmDropCaches");
        break;
    case Request::DropDentriesAndInodes:
        title = i18nc("@title:window", "Drop Caches");
        text = xi18nc("@info",
                      "<para>Empty the caches of file names and inodes?</para><para>Listing and opening files is slower until they have been "
                      "read again.</para>");
        key = QStringLiteral("ConfirmDropCaches");
        break;
    case Request::SwapOffAll:
        title = i18nc("@title:window", "Turn Off Swap");
        text = xi18nc("@info",
                      "<para>Turn off all swap?</para><para>Every swapped-out page (%1 now) is read back into memory. That can take minutes, and "
                      "the system is slow meanwhile.</para>",
                      bytesText(swapUsedNow()));
        key = QStringLiteral("ConfirmSwapOff");
        break;
    case Request::RemoveSwapFile:
        title = i18nc("@title:window", "Turn Off Swap");
        text = xi18nc("@info",
                      "<para>Turn off swap on the experiment swap file and delete it?</para><para>The pages swapped out there are read back into "
                      "memory first.</para>");
        key = QStringLiteral("ConfirmSwapOff");
        break;
    default:
        // Turning swap on, creating the swap file and reading residency
        // disrupt nothing; polkit still asks for the password.
        return true;
    }
    QWidget *parent = d->dialogParent ? d->dialogParent.data() : QApplication::activeWindow();
    return KMessageBox::warningContinueCancel(parent, text, title, confirmButton, KStandardGuiItem::cancel(), key) == KMessageBox::Continue;
}

void PrivilegedActions::submit(Request request)
{
    // Without a helper the queue answers "unavailable" at once: asking first would be pointless.
    if (d->available && !confirm(request)) {
        return;
    }
    Privileged::Request helperRequest;
    switch (request) {
    case Request::DropPageCache:
    case Request::DropDentriesAndInodes:
    case Request::DropAll:
        helperRequest = Privileged::dropCachesRequest(levelOf(request));
        break;
    case Request::SwapOffAll:
        d->swapUsedAtStart = swapUsedNow();
        helperRequest = Privileged::swapOffRequest(QString());
        break;
    case Request::SwapOnAgain:
        helperRequest = Privileged::swapOnRequest(QString());
        break;
    case Request::CreateSwapFile:
        helperRequest = Privileged::createExperimentSwapFileRequest(experimentSwapFileBytes);
        break;
    case Request::RemoveSwapFile:
        d->swapUsedAtStart = swapUsedNow();
        helperRequest = Privileged::removeExperimentSwapFileRequest();
        break;
    case Request::Residency:
        return; // needs a path: requestResidency()
    }
    requestStarted();
    if (d->outstanding > 1) {
        Q_EMIT message(i18nc("@info", "%1 starts when the helper has finished the request before it.", doingText(request)), false);
    }
    d->queue->enqueue(helperRequest, [this, request](const Privileged::Reply &reply) {
        handleResult(request, reply);
        requestDone();
    });
}

void PrivilegedActions::dropCaches(int level)
{
    switch (level) {
    case 1:
        submit(Request::DropPageCache);
        return;
    case 2:
        submit(Request::DropDentriesAndInodes);
        return;
    case 3:
        submit(Request::DropAll);
        return;
    default:
        Q_EMIT message(i18nc("@info", "There is no drop_caches level %1: use 1 (page cache), 2 (dentries and inodes) or 3 (both).", level), true);
    }
}

void PrivilegedActions::swapOffAll()
{
    submit(Request::SwapOffAll);
}

void PrivilegedActions::requestStarted()
{
    if (++d->outstanding == 1) {
        Q_EMIT busyChanged(true);
    }
}

void PrivilegedActions::requestDone()
{
    if (--d->outstanding == 0) {
        Q_EMIT busyChanged(false);
    }
}

void PrivilegedActions::requestResidency(const std::string &path, int buckets)
{
    startResidency(path, buckets, {});
}

void PrivilegedActions::startResidency(const std::string &path, int buckets, const std::function<void(const Histogram &)> &use)
{
    const QString shownPath = QString::fromStdString(toDisplayUtf8(path));
    // Opened by us, as the user, read-only, to refuse FIFOs, devices and
    // directories before anything is sent and to learn which file the answer
    // must be about. The helper gets the path and opens it as us
    // (docs/helper-security.md rule 9).
    struct stat st = {};
    int error = 0;
    std::string errorText;
    const UniqueFd fd(openRegularFile(AT_FDCWD, path.c_str(), false, st, error, errorText));
    if (!fd.isValid()) {
        Q_EMIT message(i18nc("@info path: reason", "Cannot show %1 with administrator rights: %2", shownPath, QString::fromStdString(errorText)), true);
        return;
    }
    const int clampedBuckets = std::clamp(buckets, 1, HelperProtocol::maxBuckets);
    std::error_code noFolder; // the path is then sent as it is, and the helper refuses it if relative
    const std::filesystem::path absolute = std::filesystem::absolute(path, noFolder);
    const Privileged::Request request = Privileged::residencyRequest({QByteArray::fromStdString(noFolder ? path : absolute.string())}, clampedBuckets);

    requestStarted();
    if (d->outstanding > 1) {
        Q_EMIT message(i18nc("@info", "%1 starts when the helper has finished the request before it.", doingText(Request::Residency)), false);
    }
    const uint64_t device = uint64_t(st.st_dev);
    const uint64_t inode = uint64_t(st.st_ino);
    d->queue->enqueue(request, [this, path, shownPath, device, inode, use](const Privileged::Reply &reply) {
        const Privileged::ResidencyResult residency = Privileged::toResidencyResult(reply);
        if (!residency.ok()) {
            handleResult(Request::Residency, residency);
        } else if (residency.files.size() == 1 && !residency.files.front().error.isEmpty()) {
            Q_EMIT message(i18nc("@info path: reason", "Cannot show %1 with administrator rights: %2", shownPath, residency.files.front().error), true);
        } else if (residency.files.size() != 1 || residency.files.front().device != device || residency.files.front().inode != inode) {
            Q_EMIT message(i18nc("@info", "The helper answered about a different file than %1; nothing is shown.", shownPath), true);
        } else {
            const Histogram histogram = histogramFromResidency(residency.files.front());
            if (!histogram.ok()) {
                Q_EMIT message(
                    i18nc("@info path: reason", "Cannot show %1 with administrator rights: %2", shownPath, QString::fromStdString(histogram.errorText)),
                    true);
            } else {
                const Privileged::FileResidency &file = residency.files.front();
                Q_EMIT message(i18nc("@info",
                                     "%1 with administrator rights: %2 of %3 in the page cache.",
                                     shownPath,
                                     bytesText(file.resident * pageSize()),
                                     bytesText(file.sizeBytes)),
                               false);
                if (use) {
                    use(histogram);
                }
                Q_EMIT residencyReady(path, histogram);
            }
        }
        requestDone();
    });
}

void PrivilegedActions::reclaimCgroup(const QString &cgroup, const std::function<void(const Privileged::ReclaimResult &)> &done)
{
    requestStarted();
    d->queue->enqueue(Privileged::reclaimRequest(cgroup), [this, done](const Privileged::Reply &reply) {
        if (done) {
            done(Privileged::toReclaimResult(reply));
        }
        requestDone();
    });
}

void PrivilegedActions::accountWithHelper(const std::function<void(const Privileged::AccountResult &)> &done)
{
    requestStarted();
    d->queue->enqueue(Privileged::accountRequest(), [this, done](const Privileged::Reply &reply) {
        if (done) {
            Privileged::AccountResult result;
            static_cast<Privileged::Result &>(result) = reply;
            if (result.ok()) {
                result.account = reply.account;
            }
            done(result);
        }
        requestDone();
    });
}

void PrivilegedActions::showResidencyWithAdministratorRights(const std::string &path, HeatmapWidget *heatmap)
{
    if (!heatmap) {
        requestResidency(path, 1024);
        return;
    }
    // The heatmap takes the answer only while it still shows this file (the
    // person may have moved on while polkit asked for the password).
    QPointer<HeatmapWidget> target = heatmap;
    startResidency(path, heatmap->cells(), [target, path](const Histogram &histogram) {
        if (target && target->file() == path) {
            target->setExternalHistogram(histogram);
        }
    });
}

void PrivilegedActions::handleProgress(Privileged::Operation operation, const QVariantMap &data)
{
    if (operation != Privileged::Operation::SwapOff || !data.contains(HelperProtocol::progressSwapUsedBytes)) {
        return;
    }
    const uint64_t used = data.value(HelperProtocol::progressSwapUsedBytes).toULongLong();
    // The figure at the click may be older than the start of the request.
    d->swapUsedAtStart = std::max(d->swapUsedAtStart, used);
    const int percent = d->swapUsedAtStart > 0 ? int((d->swapUsedAtStart - used) * 100 / d->swapUsedAtStart) : -1;
    const QString area = data.value(HelperProtocol::progressArea).toString();
    Q_EMIT progress(area.isEmpty() ? i18nc("@info:progress", "Turning swap off: %1 still to bring back into memory", bytesText(used))
                                   : i18nc("@info:progress", "Turning swap off on %1: %2 still to bring back into memory", area, bytesText(used)),
                    percent);
}

void PrivilegedActions::startFlushProgress()
{
    // The helper writes every dirty page to disk (sync) before it drops:
    // with a lot unsaved that takes seconds, which the bar above the window
    // counts down, as the kernel's own Dirty and Writeback figures fall.
    reportFlushProgress();
    d->flushProgress->start();
}

void PrivilegedActions::reportFlushProgress()
{
    const std::optional<MemInfo> memInfo = readMemInfo();
    const uint64_t unsaved = memInfo ? memInfo->value("Dirty") + memInfo->value("Writeback") : 0;
    // Under a MiB, sync() is done in a moment: no figure to count down.
    if (unsaved < (uint64_t(1) << 20)) {
        Q_EMIT progress(i18nc("@info:progress", "Dropping caches…"), -1);
        return;
    }
    Q_EMIT progress(i18nc("@info:progress", "Dropping caches: writing %1 of unsaved file data to disk first…", bytesText(unsaved)), -1);
}

void PrivilegedActions::stopFlushProgress()
{
    d->flushProgress->stop();
}

QString PrivilegedActions::markerLabel(Request request)
{
    switch (request) {
    case Request::DropPageCache:
        return i18nc("@label marker on the memory graph", "Dropped page cache");
    case Request::DropDentriesAndInodes:
        return i18nc("@label marker on the memory graph", "Dropped dentries and inodes");
    case Request::DropAll:
        return i18nc("@label marker on the memory graph", "Dropped all caches");
    case Request::SwapOffAll:
        return i18nc("@label marker on the memory graph", "Swap off");
    case Request::SwapOnAgain:
        return i18nc("@label marker on the memory graph", "Swap on");
    case Request::CreateSwapFile:
        return i18nc("@label marker on the memory graph", "Experiment swap on");
    case Request::RemoveSwapFile:
        return i18nc("@label marker on the memory graph", "Experiment swap removed");
    case Request::Residency:
        break;
    }
    return {};
}

QString PrivilegedActions::failureText(Request request, const Result &result)
{
    if (result.ok()) {
        return {};
    }
    // Privileged::resultOfError already wrote the reason for people (not
    // authorized, busy, how much memory is missing, timeout, ...).
    const QString why = result.message.isEmpty() ? i18nc("@info", "the helper gave no reason.") : result.message;
    switch (result.failure) {
    case Failure::Cancelled:
        return i18nc("@info what was cancelled", "%1 was cancelled: nothing changed.", doingText(request));
    case Failure::NothingToDo:
        return i18nc("@info what: why", "%1: nothing to do. %2", doingText(request), why);
    default:
        return i18nc("@info what failed: why", "%1 failed: %2", doingText(request), why);
    }
}

void PrivilegedActions::handleResult(Request request, const Result &result)
{
    if (levelOf(request) != 0) {
        stopFlushProgress();
    }
    if (!result.ok()) {
        const bool isError = result.failure != Failure::Cancelled && result.failure != Failure::NothingToDo;
        Q_EMIT message(failureText(request, result), isError);
        if (result.failure == Failure::Unavailable) {
            // The helper went away (or was never there): say so on the actions too.
            recheckAvailability();
        }
        return;
    }
    const QDateTime when = QDateTime::currentDateTime();
    switch (request) {
    case Request::DropPageCache:
    case Request::DropDentriesAndInodes:
    case Request::DropAll: {
        const Privileged::DropCachesResult drop = Privileged::toDropCachesResult(result);
        QStringList lines;
        lines << i18nc("@info memory figure before → after", "Cached: %1", beforeAfter(drop.before.cached, drop.after.cached));
        lines << i18nc("@info memory figure before → after", "Free: %1", beforeAfter(drop.before.memFree, drop.after.memFree));
        lines << i18nc("@info memory figure before → after", "Available: %1", beforeAfter(drop.before.memAvailable, drop.after.memAvailable));
        if (request != Request::DropPageCache) {
            lines << i18nc("@info memory figure before → after", "Reclaimable slab: %1", beforeAfter(drop.before.sReclaimable, drop.after.sReclaimable));
        }
        const QString details = lines.join(QLatin1Char('\n'));
        Q_EMIT markerRequested(when, markerLabel(request), details);
        const uint64_t freed = drop.before.cached > drop.after.cached ? drop.before.cached - drop.after.cached : 0;
        Q_EMIT message(i18nc("@info", "%1 from the page cache dropped. %2", bytesText(freed), lines.join(QStringLiteral(", "))), false);
        // Level 2 drops the page cache of every inode it frees, so each level changes it.
        Q_EMIT pageCacheChanged(markerLabel(request));
        return;
    }
    case Request::SwapOffAll:
    case Request::SwapOnAgain: {
        const Privileged::SwapResult swap = Privileged::toSwapResult(result);
        QStringList lines;
        if (request == Request::SwapOffAll) {
            lines << i18nc("@info", "Turned off: %1", areasText(swap));
            if (result.data.contains(HelperProtocol::replySwapUsedBefore)) {
                lines << i18nc("@info swap figure before → after",
                               "Swap in use: %1",
                               beforeAfter(result.data.value(HelperProtocol::replySwapUsedBefore).toULongLong(),
                                           result.data.value(HelperProtocol::replySwapUsedAfter).toULongLong()));
            }
        } else {
            lines << i18nc("@info", "Turned on: %1", areasText(swap));
        }
        lines << memoryNowText();
        lines.removeAll(QString());
        Q_EMIT markerRequested(when, markerLabel(request), lines.join(QLatin1Char('\n')));
        Q_EMIT message(lines.join(QStringLiteral(". ")), false);
        if (request == Request::SwapOffAll) {
            Q_EMIT progress(i18nc("@info:progress", "Swap is off"), 100);
        }
        return;
    }
    case Request::CreateSwapFile:
    case Request::RemoveSwapFile: {
        const QString path = result.data.value(HelperProtocol::replyPath).toString();
        QStringList lines;
        if (request == Request::CreateSwapFile) {
            lines << i18nc("@info", "Swap on %1 (%2)", path, bytesText(result.data.value(HelperProtocol::replySizeBytes).toULongLong()));
        } else {
            lines << i18nc("@info", "Removed %1", path);
        }
        lines << memoryNowText();
        lines.removeAll(QString());
        Q_EMIT markerRequested(when, markerLabel(request), lines.join(QLatin1Char('\n')));
        Q_EMIT message(lines.join(QStringLiteral(". ")), false);
        return;
    }
    case Request::Residency:
        // The answer needs the path it belongs to: requestResidency() handles it.
        return;
    }
}

Histogram PrivilegedActions::histogramFromResidency(const Privileged::FileResidency &file)
{
    Histogram histogram;
    // The answer crossed the system bus from another process: check that it
    // describes a file of this size before the heatmap draws it.
    auto malformed = [&histogram](const std::string &why) {
        histogram.error = EPROTO;
        histogram.errorText = "the helper's answer is malformed (" + why + ")";
        histogram.resident.clear();
        return histogram;
    };
    if (file.method == QLatin1String("cachestat")) {
        histogram.method = ResidencyMethod::Cachestat;
    } else if (file.method == QLatin1String("mincore")) {
        histogram.method = ResidencyMethod::Mincore;
    } else {
        return malformed("unknown method \"" + file.method.toStdString() + "\"");
    }
    histogram.windowFirst = 0;
    histogram.pages = file.pages;
    // Per bucket the helper sends resident pages only; dirty and writeback are file totals.
    histogram.detail = false;
    if (file.pages != pagesFor(file.sizeBytes)) {
        return malformed(std::to_string(file.pages) + " pages for " + std::to_string(file.sizeBytes) + " bytes");
    }
    if (file.histogram.size() > size_t(HelperProtocol::maxBuckets) || file.histogram.size() > file.pages) {
        return malformed(std::to_string(file.histogram.size()) + " buckets for " + std::to_string(file.pages) + " pages");
    }
    if (file.pages > 0 && file.histogram.empty()) {
        return malformed("no buckets");
    }
    histogram.resident = file.histogram;
    for (int bucket = 0; bucket < histogram.buckets(); ++bucket) {
        if (histogram.resident[size_t(bucket)] > histogram.pagesIn(bucket)) {
            return malformed("bucket " + std::to_string(bucket) + " holds more resident pages than it covers");
        }
    }
    return histogram;
}

} // namespace Cachescope::App
