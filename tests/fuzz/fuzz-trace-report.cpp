// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers

// A trace file (JSON): the replay's input.

#include "fuzzinput.h"

#include "trace/tracereport.h"

#include <QByteArray>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    std::string error;
    (void)Cachescope::Trace::reportFromJsonBytes(QByteArray(reinterpret_cast<const char *>(data), qsizetype(size)), &error);
    return 0;
}
