// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers

// cachescope-cli evict: drop files and folders from the page cache.

#include "actioncommand.h"
#include "commandoptions.h"

namespace Cachescope::Cli
{

namespace
{

const Table<FileRecord> &fileTable()
{
    static const Table<FileRecord> table =
        actionFileTable({.hidden =
                             [](const FileRecord &r) {
                                 return r.evict.hidden;
                             },
                         .before =
                             [](const FileRecord &r) {
                                 return r.evict.before;
                             },
                         .after =
                             [](const FileRecord &r) {
                                 return r.evict.after;
                             },
                         .pages =
                             [](const FileRecord &r) {
                                 return r.evict.pages;
                             },
                         .changeHeader = "FREED",
                         .changeKey = "freed",
                         .changeHelp = "pages freed: before - after",
                         .change =
                             [](const FileRecord &r) {
                                 return r.evict.freedPages();
                             },
                         .doneText = ": evicted, what that freed is hidden"},
                        {
                            {.key = "dirty_after",
                             .help = "dirty pages left",
                             .value =
                                 [](const FileRecord &r) {
                                     return countCell(r.evict.dirtyAfter);
                                 },
                             .inJson =
                                 [](const FileRecord &r) {
                                     return !r.evict.hidden;
                                 }},
                            {.key = "remain_reason",
                             .format = Format::Text,
                             .help = "why pages stayed: none, dirty, mapped, shmem, hidden, unknown",
                             .value =
                                 [](const FileRecord &r) {
                                     return textCell(remainReasonName(r.evict.reason));
                                 }},
                            {.key = "remain_text",
                             .format = Format::Text,
                             .help = "why pages stayed, for people",
                             .value =
                                 [](const FileRecord &r) {
                                     return textCell(remainReasonText(r.evict.reason));
                                 },
                             .inJson =
                                 [](const FileRecord &r) {
                                     return r.evict.reason != RemainReason::None;
                                 }},
                        },
                        [](std::string &out, const FileRecord &r) {
                            if (!r.evict.hidden && r.evict.after > 0) {
                                out += "            " + std::to_string(r.evict.after) + " pages stayed: " + remainReasonText(r.evict.reason) + '\n';
                            }
                        });
    return table;
}

int runEvict(Context &context, const ParsedArgs &args)
{
    return runFileAction(context, args, FileAction::Evict, fileTable());
}

} // namespace

Command evictCommand()
{
    return {{"evict",
             "PATH...",
             "drop files and folders (recursively) from the page cache",
             "Asks the kernel to drop the cached pages of each file (posix_fadvise\n"
             "DONTNEED); folders are walked recursively. Prints resident memory before\n"
             "and after for each file named, and for files under a folder only those\n"
             "where pages stayed (all with -v), with the reason they stayed: dirty\n"
             "(use --flush), mapped by a running process, or in memory-only storage\n"
             "(tmpfs). Then one line of totals a folder.\n"
             "\n"
             "Eviction also works on files whose residency is hidden from you; their\n"
             "counts show as hidden.",
             withCommonOptions(withSelectionOptions({{0, "flush", nullptr, "fdatasync each file first, so that dirty pages can be dropped"},
                                                     {0, "offset", "BYTES", "start of the range in each file (default 0; suffixes K, M, G, T)"},
                                                     {0, "length", "BYTES", "length of the range (default: to the end of the file)"},
                                                     verboseOption,
                                                     followOption,
                                                     oneFileSystemOption,
                                                     threadsOption})),
             "  cachescope-cli evict big.iso\n"
             "  cachescope-cli evict --flush ~/build\n",
             1},
            runEvict};
}

} // namespace Cachescope::Cli
