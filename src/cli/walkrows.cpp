// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers

#include "walkrows.h"

#include "commandoptions.h"

#include "commands.h"
#include "interrupt.h"

#include <algorithm>

namespace Cachescope::Cli
{

FileRecord recordOf(const WalkEntry &entry)
{
    FileRecord record;
    record.path = entry.path();
    record.root = entry.root;
    record.size = entry.size;
    record.firstLink = entry.firstLink;
    record.residency = entry.residency;
    record.histogram = entry.histogram;
    record.evict = entry.evict;
    record.load = entry.load;
    return record;
}

void sortRecords(std::vector<FileRecord> &records)
{
    std::sort(records.begin(), records.end(), [](const FileRecord &a, const FileRecord &b) {
        return a.root != b.root ? a.root < b.root : a.path < b.path;
    });
}

std::string hiddenText(const std::string &reason)
{
    return "hidden (" + (reason.empty() ? std::string("the kernel hides this file's residency") : reason) + ")";
}

std::vector<Column<FileRecord>> fileHeadColumns(const char *sizeHeader, bool (*hidden)(const FileRecord &))
{
    return {
        pathColumn<FileRecord>("the file, as the file system names it",
                               [](const FileRecord &r) {
                                   return r.path;
                               }),
        {.header = sizeHeader,
         .key = "size",
         .width = 10,
         .format = Format::Bytes,
         .help = "file size",
         .value =
             [](const FileRecord &r) {
                 return countCell(r.size);
             }},
        {.key = "pages",
         .help = "file size in pages, rounded up (0 on a file system that keeps no page cache)",
         .value =
             [](const FileRecord &r) {
                 if (r.residency.method == ResidencyMethod::NoPageCache) {
                     return countCell(0);
                 }
                 return countCell(std::max(r.residency.pages, pagesFor(r.size)));
             }},
        {.key = "first_link",
         .format = Format::Bool,
         .help = "false: a second name of a hard-linked inode, not in the totals",
         .value =
             [](const FileRecord &r) {
                 return boolCell(r.firstLink);
             },
         .inJson =
             [](const FileRecord &r) {
                 return !r.firstLink;
             }},
        {.key = "hidden",
         .format = Format::Bool,
         .help = "whether the kernel hides this file's residency from the user",
         .value =
             [hidden](const FileRecord &r) {
                 return boolCell(hidden(r));
             }},
        {.key = "hidden_reason",
         .format = Format::Text,
         .help = "why the kernel hides it",
         .value =
             [](const FileRecord &r) {
                 return textCell(r.residency.hiddenReason.empty() ? std::string("the kernel hides this file's residency") : r.residency.hiddenReason);
             },
         .inJson = hidden},
    };
}

namespace
{
uint64_t knownPages(const WalkTotals &t)
{
    return t.pages - std::min(t.pages, t.hiddenPages);
}

// Every file's residency is hidden: no figure can stand for
// what is resident, nor for what an action changed.
bool allHidden(const TotalsRow &row)
{
    return row.totals.files > 0 && row.totals.hiddenFiles >= row.totals.files;
}

// The text of a figure of the totals: "hidden" where allHidden.
std::string figureText(const TotalsRow &row, uint64_t pages, bool raw)
{
    return allHidden(row) ? std::string("hidden") : formatCellText(Format::Pages, countCell(pages), raw);
}

bool isRoot(const TotalsRow &row)
{
    return row.root;
}

// The columns both totals tables share, in the order of their JSON.
Column<TotalsRow> rootPathColumn()
{
    Column<TotalsRow> column = pathColumn<TotalsRow>("the folder or file named, or 'total' (text only)", [](const TotalsRow &row) {
        return row.path;
    });
    column.inJson = isRoot;
    return column;
}

Column<TotalsRow> countColumn(const char *header, const char *key, size_t width, uint64_t WalkTotals::*member, const char *help)
{
    return {.header = header, .key = key, .width = width, .help = help, .value = [member](const TotalsRow &row) {
                return countCell(row.totals.*member);
            }};
}

Column<TotalsRow> pagesColumn(const char *header,
                              const char *key,
                              size_t width,
                              uint64_t WalkTotals::*member,
                              const char *help,
                              std::function<bool(const TotalsRow &)> known = {})
{
    Column<TotalsRow> column = countColumn(header, key, width, member, help);
    column.format = Format::Pages;
    column.inText = std::move(known);
    return column;
}

// The column, reading "hidden" in text where every file's residency is hidden.
Column<TotalsRow> hiddenWhereAllAre(Column<TotalsRow> column, uint64_t WalkTotals::*member)
{
    column.text = [member](const TotalsRow &row, bool raw) {
        return figureText(row, row.totals.*member, raw);
    };
    return column;
}

// JSON only, and only where a filter left some file out (stderr says so in text).
Column<TotalsRow> leftOutColumn()
{
    Column<TotalsRow> column = countColumn(nullptr, "left_out", 0, &WalkTotals::filtered, "files left out by --include, --exclude or --max-size");
    column.inJson = [](const TotalsRow &row) {
        return row.totals.filtered > 0;
    };
    return column;
}

// JSON only, and only where some file was on a file system that keeps no page cache.
Column<TotalsRow> noPageCacheColumn()
{
    Column<TotalsRow> column = countColumn(nullptr,
                                           "no_page_cache",
                                           0,
                                           &WalkTotals::noPageCache,
                                           "files on file systems that keep no page cache (proc, sysfs, ...): in no size or pages; in folders never opened");
    column.inJson = [](const TotalsRow &row) {
        return row.totals.noPageCache > 0;
    };
    return column;
}

std::vector<Column<TotalsRow>> tailColumns()
{
    return {
        countColumn("HIDDEN", "hidden_files", 7, &WalkTotals::hiddenFiles, "files whose residency the kernel hides from the user"),
        countColumn(nullptr, "hidden_pages", 0, &WalkTotals::hiddenPages, "their pages"),
        countColumn(nullptr, "hard_links", 0, &WalkTotals::hardLinks, "extra names of inodes already counted"),
        countColumn("SKIPPED", "skipped", 7, &WalkTotals::skipped, "special files, never opened"),
        countColumn("ERRORS", "errors", 7, &WalkTotals::errors, "entries that failed"),
        leftOutColumn(),
        noPageCacheColumn(),
    };
}

Table<TotalsRow> makeStatusTotalsTable()
{
    const auto cachestat = [](const TotalsRow &row) {
        return row.method == ResidencyMethod::Cachestat;
    };
    Table<TotalsRow> table;
    table.columns = {
        rootPathColumn(),
        {.key = "method",
         .format = Format::Text,
         .help = "cachestat or mincore (no-page-cache where only such files were met)",
         .value =
             [](const TotalsRow &row) {
                 return textCell(methodName(row.method));
             },
         .inJson = isRoot},
        countColumn("FILES", "files", 9, &WalkTotals::files, "regular files"),
        countColumn("FOLDERS", "directories", 8, &WalkTotals::directories, "folders walked"),
        {.header = "SIZE",
         .key = "bytes",
         .width = 10,
         .format = Format::Bytes,
         .help = "sum of file sizes (none of files without page cache)",
         .value =
             [](const TotalsRow &row) {
                 return countCell(row.totals.bytes);
             }},
        countColumn(nullptr, "pages", 0, &WalkTotals::pages, "sum of file pages (none of files without page cache)"),
        hiddenWhereAllAre(pagesColumn("RESIDENT", "resident", 10, &WalkTotals::resident, "resident pages of the files whose residency is known"),
                          &WalkTotals::resident),
        {.header = "CACHED",
         .key = "cached_percent",
         .width = 7,
         .format = Format::Percent,
         .help = "resident share of the pages whose residency is known",
         .value =
             [](const TotalsRow &row) {
                 return percentCell(row.totals.resident, knownPages(row.totals));
             }},
        hiddenWhereAllAre(pagesColumn("DIRTY", "dirty", 10, &WalkTotals::dirty, "dirty pages (cachestat only)", cachestat), &WalkTotals::dirty),
        hiddenWhereAllAre(pagesColumn("WRITEBACK", "writeback", 10, &WalkTotals::writeback, "pages being written back (cachestat only)", cachestat),
                          &WalkTotals::writeback),
        countColumn(nullptr, "evicted", 0, &WalkTotals::evicted, "pages evicted since the files were opened (cachestat only)"),
        countColumn(nullptr, "recently_evicted", 0, &WalkTotals::recentlyEvicted, "evicted pages that would count as working set (cachestat only)"),
    };
    for (Column<TotalsRow> &column : tailColumns()) {
        table.columns.push_back(std::move(column));
    }
    return table;
}

uint64_t changeOf(const WalkTotals &t, FileAction action)
{
    if (action == FileAction::Evict) {
        return t.resident > t.residentAfter ? t.resident - t.residentAfter : 0;
    }
    return t.residentAfter > t.resident ? t.residentAfter - t.resident : 0;
}

Table<TotalsRow> makeActionTotalsTable(FileAction action)
{
    const bool evict = action == FileAction::Evict;
    Table<TotalsRow> table;
    table.columns = {
        rootPathColumn(),
        countColumn("FILES", "files", 9, &WalkTotals::files, "regular files"),
        countColumn(nullptr, "directories", 0, &WalkTotals::directories, "folders walked"),
        countColumn(nullptr, "bytes", 0, &WalkTotals::bytes, "sum of file sizes (none of files without page cache)"),
        countColumn(nullptr, "pages", 0, &WalkTotals::pages, "sum of file pages (none of files without page cache)"),
        hiddenWhereAllAre(pagesColumn("BEFORE", "resident", 10, &WalkTotals::resident, "resident pages before"), &WalkTotals::resident),
        {.key = "cached_percent",
         .format = Format::Percent,
         .help = "resident share before, of the pages whose residency is known",
         .value =
             [](const TotalsRow &row) {
                 return percentCell(row.totals.resident, knownPages(row.totals));
             }},
        hiddenWhereAllAre(pagesColumn("AFTER", "resident_after", 10, &WalkTotals::residentAfter, "resident pages after"), &WalkTotals::residentAfter),
        {.header = "PAGES",
         .width = 21,
         .format = Format::Text,
         .help = "resident pages after, of the pages whose residency is known",
         .value =
             [](const TotalsRow &row) {
                 return textCell(allHidden(row) ? std::string("hidden")
                                                : std::to_string(row.totals.residentAfter) + '/' + std::to_string(knownPages(row.totals)));
             }},
        {.header = evict ? "FREED" : "LOADED",
         .width = 10,
         .format = Format::Pages,
         .help = evict ? "memory freed" : "memory loaded",
         .value =
             [action](const TotalsRow &row) {
                 return countCell(changeOf(row.totals, action));
             },
         .text =
             [action](const TotalsRow &row, bool raw) {
                 return figureText(row, changeOf(row.totals, action), raw);
             }},
    };
    if (evict) {
        table.columns.push_back(countColumn("REMAINED", "remained", 8, &WalkTotals::remained, "files with pages left after the eviction"));
    }
    for (Column<TotalsRow> &column : tailColumns()) {
        table.columns.push_back(std::move(column));
    }
    return table;
}
} // namespace

const Table<TotalsRow> &statusTotalsTable()
{
    static const Table<TotalsRow> table = makeStatusTotalsTable();
    return table;
}

const Table<TotalsRow> &actionTotalsTable(FileAction action)
{
    static const Table<TotalsRow> evict = makeActionTotalsTable(FileAction::Evict);
    static const Table<TotalsRow> load = makeActionTotalsTable(FileAction::Load);
    return action == FileAction::Evict ? evict : load;
}

TotalsRows::TotalsRows(const std::vector<std::string> &rootPaths, const WalkResult &result, const WalkTotals &totalOfAll)
{
    for (size_t i = 0; i < rootPaths.size(); ++i) {
        roots.push_back(TotalsRow{rootPaths[i], true, i < result.perRoot.size() ? result.perRoot[i] : WalkTotals{}, result.method});
    }
    total = TotalsRow{"total", false, totalOfAll, result.method};
}

void TotalsRows::appendText(std::string &out, const Table<TotalsRow> &table, bool filesNamed, bool raw) const
{
    if (roots.empty()) {
        return;
    }
    table.appendHeader(out);
    for (const TotalsRow &row : roots) {
        table.appendText(out, row, raw);
    }
    if (roots.size() > 1 || filesNamed) {
        table.appendText(out, total, raw);
    }
}

void TotalsRows::appendJson(std::string &json, const Table<TotalsRow> &table) const
{
    json += "\"roots\":[";
    for (size_t i = 0; i < roots.size(); ++i) {
        json += i ? "," : "";
        table.appendJson(json, roots[i]);
    }
    json += "],\"total\":";
    table.appendJson(json, total);
}

void addFileToTotals(WalkTotals &totals, uint64_t size, const Residency &residency)
{
    totals.files += 1;
    if (residency.method == ResidencyMethod::NoPageCache) {
        totals.noPageCache += 1; // not in bytes or pages (WalkTotals::noPageCache)
        return;
    }
    totals.bytes += size;
    totals.pages += residency.pages;
    if (residency.hidden) {
        totals.hiddenFiles += 1;
        totals.hiddenPages += residency.pages;
    } else if (residency.ok()) {
        totals.resident += residency.resident;
        totals.dirty += residency.dirty;
        totals.writeback += residency.writeback;
        totals.evicted += residency.evicted;
        totals.recentlyEvicted += residency.recentlyEvicted;
    }
}

WalkReportPrinter::WalkReportPrinter(Context &context, const Table<FileRecord> &files, const char *command, bool privileged)
    : m_context(context)
    , m_files(files)
    , m_command(command)
{
    if (!context.json) {
        return; // the header comes with the first row: no rows, no header
    }
    std::string &out = context.out.buffer;
    out += "{\"command\":\"";
    out += command;
    out += "\",";
    if (privileged) {
        out += "\"privileged\":true,";
    }
    appendJsonNumber(out, "page_size", pageSize());
    out += ",\"files\":[";
}

void WalkReportPrinter::rows(const std::vector<FileRecord> &records)
{
    std::string &out = m_context.out.buffer;
    for (const FileRecord &record : records) {
        if (m_context.json) {
            out += m_anyRow ? "," : "";
            m_files.appendJson(out, record);
        } else {
            if (!m_anyRow) {
                m_files.appendHeader(out);
            }
            m_files.appendText(out, record, m_context.rawBytes);
        }
        m_anyRow = true;
        m_context.out.flushIfLarge();
    }
}

int WalkReportPrinter::finish(const Table<TotalsRow> &totalsTable, const TotalsRows &totals, bool filesNamed, bool cancelled)
{
    std::string &out = m_context.out.buffer;
    if (m_context.json) {
        // After the rows: whether the walk was cancelled is known only at its end.
        out += "],";
        appendJsonBool(out, "cancelled", cancelled);
        out += ',';
        totals.appendJson(out, totalsTable);
        out += ',';
        m_context.appendProblemsJson(out);
        out += "}\n";
    } else {
        if (m_anyRow && !totals.roots.empty()) {
            out += '\n';
        }
        totals.appendText(out, totalsTable, filesNamed, m_context.rawBytes);
    }
    noteLeftOut(m_command, totals.total.totals.filtered);
    noteWithoutPageCache(m_command, totals.total.totals.noPageCache);
    if (cancelled) {
        m_context.out.flush(); // the partial figures first, then the word that they are partial
        printError("interrupted: the totals above are partial");
        return interruptExitCode();
    }
    return m_context.anyFailed() ? ExitFailures : ExitSuccess;
}

int printWalkReport(Context &context, const Table<FileRecord> &files, const Table<TotalsRow> &totalsTable, const WalkReport &report)
{
    WalkReportPrinter printer(context, files, report.command, report.privileged);
    printer.rows(*report.named);
    printer.rows(*report.walked);
    return printer.finish(totalsTable, *report.totals, !report.named->empty(), report.cancelled);
}

std::string foldersNotWalkedNote(const WalkTotals &total)
{
    if (total.foldersNotEntered == 0) {
        return {};
    }
    return "; " + std::to_string(total.foldersNotEntered)
        + (total.foldersNotEntered == 1 ? " mount point of a file system that keeps" : " mount points of file systems that keep")
        + " no page cache not walked (--kernel-file-systems walks them)";
}

std::string specialFilesNote(const WalkTotals &total)
{
    if (total.skipped == 0) {
        return {};
    }
    return "; " + std::to_string(total.skipped) + (total.skipped == 1 ? " special file" : " special files") + " (devices, FIFOs, sockets) not opened";
}

} // namespace Cachescope::Cli
