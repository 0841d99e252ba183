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

// What a file row of evict or load shows: resident pages before and after, and the change.
struct ActionFigures {
    bool (*hidden)(const FileRecord &) = nullptr; // the kernel hides the file's residency
    uint64_t (*before)(const FileRecord &) = nullptr;
    uint64_t (*after)(const FileRecord &) = nullptr;
    uint64_t (*pages)(const FileRecord &) = nullptr; // of the range acted on
    const char *changeHeader = nullptr; // "FREED"
    const char *changeKey = nullptr; // "freed"; nullptr: text only
    const char *changeHelp = nullptr;
    uint64_t (*change)(const FileRecord &) = nullptr;
    const char *doneText = nullptr; // after "hidden (<reason>)": ": evicted, what that freed is hidden"
};

// The file table of evict or load: path, size, pages, first_link, hidden,
// hidden_reason, BEFORE, AFTER, PAGES (resident after/pages, text only: the
// exact count where sizes round alike), the change, then more; linesBelow a
// row in text.
[[nodiscard]] Table<FileRecord> actionFileTable(const ActionFigures &figures,
                                                const std::vector<Column<FileRecord>> &more,
                                                std::function<void(std::string &out, const FileRecord &)> linesBelow);

} // namespace Cachescope::Cli
