// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers
#pragma once

#include "residency.h"

#include <QDateTime>
#include <QObject>
#include <QString>
#include <QVariantMap>

#include <cstdint>
#include <functional>
#include <memory>
#include <string>

class QAction;
class QWidget;
class KActionCollection;
namespace Cachescope::Privileged
{
struct Result;
struct FileResidency;
struct ReclaimResult;
struct AccountResult;
class RequestQueue;
enum class Operation;
}

namespace Cachescope::App
{

class HeatmapWidget;

// The window's side of the privileged helper: the Memory menu's
// Drop Caches and Swap actions, "Show with Administrator Rights" for files
// whose residency the kernel hides from us, and the Applications tab's
// reclaim. Every request goes through one Privileged::RequestQueue, so that
// the window asks one thing at a time (and polkit shows one dialog at a
// time): a second click while one is pending waits its turn. Eviction never
// goes through here
// (docs/helper-security.md rule 13): the files panel evicts with the user's
// own descriptors.
class PrivilegedActions : public QObject
{
    Q_OBJECT

public:
    // What a request does; selects texts, confirmation and the marker.
    enum class Request {
        DropPageCache, // drop_caches level 1
        DropDentriesAndInodes, // level 2
        DropAll, // level 3
        SwapOffAll,
        SwapOnAgain,
        CreateSwapFile,
        RemoveSwapFile,
        Residency,
    };
    Q_ENUM(Request)

    // Probes the helper once (Privileged::helperAvailable: system bus, polkit, helper).
    explicit PrivilegedActions(QObject *parent = nullptr);
    ~PrivilegedActions() override;

    // Registers memory_drop_pagecache, memory_drop_slab, memory_drop_all,
    // swap_off_all, swap_on_again, swap_create_file and swap_remove_file, plus
    // the toolbar drop-downs memory_drop_caches and memory_swap that hold them.
    // All are disabled, with the reason as tooltip, when the helper cannot be reached.
    void setUpActions(KActionCollection *collection);
    [[nodiscard]] QAction *action(Request request) const; // nullptr before setUpActions / for Residency

    [[nodiscard]] bool isAvailable() const;
    // Why not, in a sentence for a tooltip; empty when available.
    [[nodiscard]] QString unavailableReason() const;

    // Where the confirmations appear (default: the active window).
    void setDialogParent(QWidget *parent);
    // Dropping caches and turning swap off ask first (with "don't ask again");
    // tests switch that off.
    void setConfirmationsEnabled(bool enabled);

    // Requests waiting or running in the queue.
    [[nodiscard]] int pendingRequests() const;

    // The swap the kernel has now (SwapTotal): with none, Turn Off All Swap
    // is disabled and its tooltip says why. The window passes each memory
    // sample's figure; unknown (never set) leaves the action enabled.
    void setSwapTotal(uint64_t bytes);

    // Reclaims the file pages of a cgroup of this user's through the helper
    // (Privileged::reclaimRequest), queued as the other requests; done gets
    // the result on this thread.
    void reclaimCgroup(const QString &cgroup, const std::function<void(const Cachescope::Privileged::ReclaimResult &)> &done);
    // The account of Cached made by the helper as root
    // (Privileged::accountRequest), queued as the other requests.
    void accountWithHelper(const std::function<void(const Cachescope::Privileged::AccountResult &)> &done);

    // The helper's answer for one file as the heatmap's histogram over the
    // whole file (its buckets: the cells asked for, at most one per page). A
    // malformed answer (buckets holding more pages than they cover, ...)
    // becomes a histogram with error set and a reason. Exposed for tests.
    [[nodiscard]] static Cachescope::Histogram histogramFromResidency(const Cachescope::Privileged::FileResidency &file);
    // The sentence shown when `request` failed with `result` (empty on success).
    [[nodiscard]] static QString failureText(Request request, const Cachescope::Privileged::Result &result);
    // The marker label of a successful request ("Dropped page cache", ...).
    [[nodiscard]] static QString markerLabel(Request request);

public Q_SLOTS:
    // Probe the helper again (after installing it, say) and update the actions.
    void recheckAvailability();

    // Requests the actions also trigger; each confirms first where disruptive.
    void dropCaches(int level);
    void swapOffAll();

    // Opens path read-only as the user (refusing what is not a regular file),
    // hands the descriptor to the helper and emits residencyReady with a
    // histogram of `buckets` buckets (1..4096), or message() with why not.
    void requestResidency(const std::string &path, int buckets);
    // The same, with the heatmap's cells, filling the heatmap when the answer
    // arrives and it still shows this file.
    void showResidencyWithAdministratorRights(const std::string &path, Cachescope::App::HeatmapWidget *heatmap);

    // What a finished request turns into: message(), markerRequested(), and
    // for Residency residencyReady(). Public so that tests can feed results.
    void handleResult(Request request, const Cachescope::Privileged::Result &result);

Q_SIGNALS:
    // For the memory graph: a vertical marker at `when` with a short label and
    // the figures before and after (cached, free, available; swap in use).
    void markerRequested(const QDateTime &when, const QString &label, const QString &details);
    void message(const QString &text, bool isError);
    // swapoff bringing pages back: percent 0..100, or -1 when unknown.
    void progress(const QString &text, int percent);
    // Whether any request is queued or running.
    void busyChanged(bool busy);
    void availabilityChanged(bool available, const QString &reason);
    void residencyReady(const std::string &path, const Cachescope::Histogram &histogram);
    // A request of ours changed the page cache of the whole system (a drop
    // of caches): what shows residency reads it again. what: the marker's
    // label ("Dropped page cache").
    void pageCacheChanged(const QString &what);

private:
    // Confirms where disruptive, builds the helper action and queues it.
    void submit(Request request);
    [[nodiscard]] bool confirm(Request request);
    void updateActions();
    void handleProgress(Cachescope::Privileged::Operation operation, const QVariantMap &data);
    // While the helper drops caches: the unsaved data it writes to disk first.
    void startFlushProgress();
    void reportFlushProgress();
    void stopFlushProgress();
    // requestResidency with something to do with the histogram once it is there.
    void startResidency(const std::string &path, int buckets, const std::function<void(const Cachescope::Histogram &)> &use);
    void requestStarted();
    void requestDone();

    struct Private;
    std::unique_ptr<Private> d;
};

} // namespace Cachescope::App
