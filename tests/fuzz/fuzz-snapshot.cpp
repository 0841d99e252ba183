// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers

// A snapshot file (JSON), as people send them to each other.

#include "fuzzinput.h"

#include "snapshot.h"

#include <QByteArray>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    QString error;
    const std::optional<Cachescope::Snapshot> snapshot =
        Cachescope::snapshotFromJson(QByteArray(reinterpret_cast<const char *>(data), qsizetype(size)), &error);
    if (snapshot) {
        (void)snapshot->residentPages();
    }
    return 0;
}
