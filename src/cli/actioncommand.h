// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers
#pragma once

// evict and load: the same walk and the same output, with another action
// and another file table (evictcommand.cpp, loadcommand.cpp).

#include "commands.h"
#include "walkrows.h"

namespace Cachescope::Cli
{

// files: the table of one file's row (its text and JSON).
[[nodiscard]] int runFileAction(Context &context, const ParsedArgs &args, FileAction action, const Table<FileRecord> &files);

// The text that replaces a hidden file's figures; doneText: ": evicted, counts unknown", ...
[[nodiscard]] std::optional<std::string> hiddenActionText(const FileRecord &record, bool hidden, const char *doneText);

} // namespace Cachescope::Cli
