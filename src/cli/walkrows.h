// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers
#pragma once

// The rows of the commands that walk (status, evict, load, top): a file as
// they print it, the columns every file table starts with, and the totals
// table (one row a folder named, then the total).

#include "table.h"

#include "evict.h"
#include "load.h"
#include "residency.h"
#include "walker.h"

#include <string>
#include <vector>

namespace Cachescope::Cli
{

// One file as the commands print it, from a path named on the command line
// (root == -1) or from a walk.
struct FileRecord {
    std::string path;
    int root = -1;
    uint64_t size = 0;
    bool firstLink = true;
    Residency residency;
    Histogram histogram;
    EvictReport evict;
    LoadReport load;
};

[[nodiscard]] FileRecord recordOf(const WalkEntry &entry);
// By root (the order of the command line), then by path.
void sortRecords(std::vector<FileRecord> &records);

// "hidden (<reason>)", with the kernel's general reason when there is none.
[[nodiscard]] std::string hiddenText(const std::string &reason);

// path, size, pages, first_link, hidden and hidden_reason: the JSON every file
// row starts with. sizeHeader: the text column of the size (nullptr: JSON only).
// hidden: whether the kernel hides this row's figures.
[[nodiscard]] std::vector<Column<FileRecord>> fileHeadColumns(const char *sizeHeader, bool (*hidden)(const FileRecord &));

// A folder named on the command line, or (root false) the total of all.
struct TotalsRow {
    std::string path; // "total" for the total
    bool root = true;
    WalkTotals totals;
    ResidencyMethod method = ResidencyMethod::Cachestat;
};

// status and top: with dirty, writeback and evicted pages.
[[nodiscard]] const Table<TotalsRow> &statusTotalsTable();
// "; 4 mount points of file systems that keep no page cache not walked (...)"
// for the summary line of map and top, or "" when none was left out.
[[nodiscard]] std::string foldersNotWalkedNote(const WalkTotals &total);
// "; 312 special files (devices, FIFOs, sockets) not opened", or empty.
[[nodiscard]] std::string specialFilesNote(const WalkTotals &total);
// evict and load: resident before and after; evict also the files where pages remained.
[[nodiscard]] const Table<TotalsRow> &actionTotalsTable(FileAction action);

// The roots' rows and the total's, as a walking command prints them.
struct TotalsRows {
    std::vector<TotalsRow> roots; // roots[i] is roots[i] of the walk
    TotalsRow total;

    TotalsRows(const std::vector<std::string> &roots, const WalkResult &result, const WalkTotals &total);
    // The table; the total row only when it adds something (more than one
    // folder, or folders and files). Nothing without folders.
    void appendText(std::string &out, const Table<TotalsRow> &table, bool filesNamed, bool raw) const;
    // "roots":[...],"total":{...}
    void appendJson(std::string &json, const Table<TotalsRow> &table) const;
};

void addFileToTotals(WalkTotals &totals, uint64_t size, const Residency &residency);

// What status, evict and load print: the files' rows, then the totals.
struct WalkReport {
    const char *command = nullptr; // "status", "evict", "load"
    bool privileged = false; // status --privileged
    bool cancelled = false;
    const std::vector<FileRecord> *named = nullptr; // files named on the command line
    const std::vector<FileRecord> *walked = nullptr; // files found in the folders
    const TotalsRows *totals = nullptr;
};

// Prints the report as text or JSON, a row at a time; returns the exit
// status (the interrupt's, after saying on stderr that the figures are partial).
[[nodiscard]] int printWalkReport(Context &context, const Table<FileRecord> &files, const Table<TotalsRow> &totalsTable, const WalkReport &report);

// The same report printed in parts: the files' rows as they come (status
// prints a long --from list a batch at a time and keeps no row), then the
// totals once they are known.
class WalkReportPrinter
{
public:
    WalkReportPrinter(Context &context, const Table<FileRecord> &files, const char *command, bool privileged);
    void rows(const std::vector<FileRecord> &records);
    // filesNamed: files were named on the command line (the total row then
    // adds something to the folders' rows). Returns the exit status.
    [[nodiscard]] int finish(const Table<TotalsRow> &totalsTable, const TotalsRows &totals, bool filesNamed, bool cancelled);

private:
    Context &m_context;
    const Table<FileRecord> &m_files;
    const char *m_command;
    bool m_anyRow = false;
};

} // namespace Cachescope::Cli
