// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers
#pragma once

#include "filesjob.h"

#include <QString>

#include <cstdint>

namespace Cachescope::App
{

// What the files panel tells the person about a job: the progress line while
// it runs, and the message when an eviction or a load has ended (what was
// freed or loaded, what stayed and why, what failed).
class FilesJobReport
{
public:
    // "Evicting… 1,024 entries, 3.5 MiB"
    [[nodiscard]] static QString progress(FilesJob::Kind kind, uint64_t entries, uint64_t bytes);
    [[nodiscard]] static QString evicted(const FilesJob &job);
    [[nodiscard]] static QString loaded(const FilesJob &job);
};

} // namespace Cachescope::App
