// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers
#pragma once

#include <QFutureWatcher>
#include <QObject>

#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

namespace Cachescope
{
class Pins;
}

namespace Cachescope::App
{

// Keep in Memory: files of the list locked in memory (mlock, through the
// core's pinFiles) while the window runs. Locking reads the files in, so it
// runs off the GUI thread; it is all or nothing for what was asked at once,
// with the same checks as `cachescope-cli lock` (a refusal names the
// numbers). Released on request, when a file leaves the list, and on quit
// (destruction).
class KeepInMemory : public QObject
{
    Q_OBJECT

public:
    explicit KeepInMemory(QObject *parent = nullptr);
    ~KeepInMemory() override;

    void keep(const std::vector<std::string> &paths);
    void release(const std::vector<std::string> &paths);
    // Releases every kept path that is path or lies below it (a row left the list).
    void releaseUnder(const std::string &path);
    [[nodiscard]] bool isKept(const std::string &path) const;
    [[nodiscard]] bool isBusy() const;
    [[nodiscard]] size_t keptCount() const;
    // The device and inode of every kept file (a stat each, now): an eviction
    // tells its own pins from other programs' maps by them.
    [[nodiscard]] std::set<std::pair<uint64_t, uint64_t>> keptFiles() const;

Q_SIGNALS:
    void changed();
    // Locking read these files in: their rows and folders have new figures.
    void loaded(const std::vector<std::string> &paths);
    // What a person should read: what is kept now, or why nothing was.
    void message(const QString &text, bool isError);

private:
    struct Outcome {
        std::vector<std::pair<std::string, std::shared_ptr<Cachescope::Pins>>> pinned;
        std::string error;
        uint64_t bytes = 0;
    };
    void finished();

    std::map<std::string, std::shared_ptr<Cachescope::Pins>> m_kept;
    QFutureWatcher<Outcome> m_watcher;
};

} // namespace Cachescope::App
