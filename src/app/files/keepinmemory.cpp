// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers

#include "keepinmemory.h"

#include "format.h"
#include "pin.h"

#include <KLocalizedString>

#include <QtConcurrentRun>

#include <sys/stat.h>

namespace Cachescope::App
{

KeepInMemory::KeepInMemory(QObject *parent)
    : QObject(parent)
{
    connect(&m_watcher, &QFutureWatcher<Outcome>::finished, this, &KeepInMemory::finished);
}

KeepInMemory::~KeepInMemory()
{
    // A lock under way finishes first (its pins are then dropped with the result).
    m_watcher.waitForFinished();
}

void KeepInMemory::keep(const std::vector<std::string> &paths)
{
    if (m_watcher.isRunning()) {
        Q_EMIT message(i18nc("@info", "Still locking the files asked for before; try again when that is done."), true);
        return;
    }
    std::vector<std::string> wanted;
    for (const std::string &path : paths) {
        if (!isKept(path)) {
            wanted.push_back(path);
        }
    }
    if (wanted.empty()) {
        return;
    }
    m_watcher.setFuture(QtConcurrent::run([wanted] {
        // One pin a file, so that each can be released alone; the limit check
        // of each counts what the earlier ones locked (VmLck).
        Outcome outcome;
        for (const std::string &path : wanted) {
            PinResult result = pinFiles({{path}});
            if (!result.ok()) {
                outcome.pinned.clear(); // all or nothing: unlocks what this request locked
                outcome.error = result.error;
                return outcome;
            }
            outcome.bytes += result.pins->bytes();
            outcome.pinned.emplace_back(path, std::shared_ptr<Pins>(std::move(result.pins)));
        }
        return outcome;
    }));
    Q_EMIT changed();
}

void KeepInMemory::finished()
{
    // Taken, not copied: a copy left in the future would keep the pins locked.
    Outcome outcome = m_watcher.future().takeResult();
    if (!outcome.error.empty()) {
        Q_EMIT message(i18nc("@info %1 why, from the kernel's limits or the file", "Nothing was kept in memory: %1", QString::fromStdString(outcome.error)),
                       true);
    } else {
        std::vector<std::string> paths;
        for (auto &[path, pins] : outcome.pinned) {
            m_kept[path] = std::move(pins);
            paths.push_back(path);
        }
        Q_EMIT loaded(paths);
        Q_EMIT message(i18ncp("@info %2 an amount of memory",
                              "Keeping %1 file (%2) in memory while Cachescope runs.",
                              "Keeping %1 files (%2) in memory while Cachescope runs.",
                              int(outcome.pinned.size()),
                              formatBytes(outcome.bytes, ByteStyle::OneDecimal, QLocale())),
                       false);
    }
    Q_EMIT changed();
}

void KeepInMemory::release(const std::vector<std::string> &paths)
{
    bool any = false;
    for (const std::string &path : paths) {
        any = m_kept.erase(path) > 0 || any;
    }
    if (any) {
        Q_EMIT changed();
    }
}

void KeepInMemory::releaseUnder(const std::string &path)
{
    std::vector<std::string> below;
    for (const auto &[kept, pins] : m_kept) {
        if (kept == path || (kept.size() > path.size() && kept.compare(0, path.size(), path) == 0 && (path.back() == '/' || kept[path.size()] == '/'))) {
            below.push_back(kept);
        }
    }
    release(below);
}

bool KeepInMemory::isKept(const std::string &path) const
{
    return m_kept.count(path) > 0;
}

bool KeepInMemory::isBusy() const
{
    return m_watcher.isRunning();
}

size_t KeepInMemory::keptCount() const
{
    return m_kept.size();
}

std::set<std::pair<uint64_t, uint64_t>> KeepInMemory::keptFiles() const
{
    std::set<std::pair<uint64_t, uint64_t>> files;
    for (const auto &[path, pins] : m_kept) {
        struct stat st{};
        if (stat(path.c_str(), &st) == 0) {
            files.emplace(uint64_t(st.st_dev), uint64_t(st.st_ino));
        }
    }
    return files;
}

} // namespace Cachescope::App
