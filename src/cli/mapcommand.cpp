// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers

// cachescope-cli map: the page cache by folder, as an indented tree.

#include "commandoptions.h"
#include "interrupt.h"
#include "walkrows.h"

#include "cachemap.h"
#include "pathcodec.h"

namespace Cachescope::Cli
{

namespace
{

struct MapRow {
    const CacheMapFolder *folder = nullptr;
    int depth = 0; // 0: a root
    uint64_t allResident = 0; // of every root: what the share is of
};

const Table<MapRow> &mapTable()
{
    static const Table<MapRow> table = {
        .columns =
            {
                {.header = "RESIDENT",
                 .key = "resident",
                 .width = 10,
                 .format = Format::Pages,
                 .help = "resident pages in the folder's tree, of the files whose residency is known",
                 .value =
                     [](const MapRow &r) {
                         return countCell(r.folder->tree.resident);
                     }},
                {.key = "resident_bytes",
                 .format = Format::Bytes,
                 .help = "the memory those pages take",
                 .value =
                     [](const MapRow &r) {
                         return countCell(r.folder->tree.resident * pageSize());
                     }},
                {.header = "SHARE",
                 .key = "share_percent",
                 .width = 6,
                 .format = Format::Percent,
                 .help = "the folder's share of what the whole map holds in the page cache",
                 .value =
                     [](const MapRow &r) {
                         return percentCell(r.folder->tree.resident, r.allResident);
                     }},
                {.header = "CACHED",
                 .key = "cached_percent",
                 .width = 7,
                 .format = Format::Percent,
                 .help = "resident share of the folder's known pages",
                 .value =
                     [](const MapRow &r) {
                         return percentCell(r.folder->tree.resident, r.folder->tree.pages);
                     }},
                {.header = "SIZE",
                 .key = "size",
                 .width = 10,
                 .format = Format::Bytes,
                 .help = "the sizes of the files in the folder's tree (hidden ones included)",
                 .value =
                     [](const MapRow &r) {
                         return countCell(r.folder->tree.bytes);
                     }},
                {.key = "pages",
                 .help = "file pages whose residency is known",
                 .value =
                     [](const MapRow &r) {
                         return countCell(r.folder->tree.pages);
                     }},
                {.header = "FILES",
                 .key = "files",
                 .width = 8,
                 .help = "regular files in the folder's tree (each inode once)",
                 .value =
                     [](const MapRow &r) {
                         return countCell(r.folder->tree.files);
                     }},
                {.key = "folders",
                 .help = "folders in the folder's tree",
                 .value =
                     [](const MapRow &r) {
                         return countCell(r.folder->tree.folders);
                     }},
                {.key = "dirty",
                 .help = "dirty pages (0 without cachestat)",
                 .value =
                     [](const MapRow &r) {
                         return countCell(r.folder->tree.dirty);
                     }},
                {.header = "HIDDEN",
                 .key = "hidden_files",
                 .width = 7,
                 .help = "files whose residency the kernel hides from you: not in RESIDENT",
                 .value =
                     [](const MapRow &r) {
                         return countCell(r.folder->tree.hiddenFiles);
                     },
                 .inText =
                     [](const MapRow &r) {
                         return r.folder->tree.hiddenFiles > 0;
                     }},
                {.key = "hidden_size",
                 .format = Format::Bytes,
                 .help = "the sizes of the hidden files",
                 .value =
                     [](const MapRow &r) {
                         return countCell(r.folder->tree.hiddenBytes);
                     }},
                {.key = "problems",
                 .help = "entries that failed or were skipped (named in \"problems\")",
                 .value =
                     [](const MapRow &r) {
                         return countCell(r.folder->tree.problems);
                     }},
                {.key = "depth",
                 .help = "0 for a folder named on the command line",
                 .value =
                     [](const MapRow &r) {
                         return countCell(uint64_t(r.depth));
                     }},
                {.key = "mount_point",
                 .format = Format::Bool,
                 .help = "on another file system than the folder above it",
                 .value =
                     [](const MapRow &r) {
                         return boolCell(r.folder->mountPoint);
                     }},
                {.key = "no_page_cache",
                 .format = Format::Bool,
                 .help = "on a file system that keeps no page cache (proc, sysfs, ...): not walked (--kernel-file-systems walks it)",
                 .value =
                     [](const MapRow &r) {
                         return boolCell(r.folder->noPageCache);
                     }},
                {.key = "counted_at",
                 .format = Format::Json,
                 .help = "a bind mount, an overlay or a folder mapped already whose files are counted at these folders of the map: not walked, so that each "
                         "page counts once",
                 .value =
                     [](const MapRow &r) {
                         std::string list = "[";
                         for (const std::string &path : r.folder->countedAt) {
                             list += list.size() > 1 ? "," : "";
                             appendJsonString(list, isValidUtf8(path) ? path : toDisplayUtf8(path));
                         }
                         return textCell(list + ']');
                     },
                 .inText =
                     [](const MapRow &) {
                         return false;
                     }},
                {.header = "FOLDER",
                 .align = Align::Left,
                 .format = Format::Text,
                 .help = "the folder, indented under the one it is in",
                 .value =
                     [](const MapRow &r) {
                         return textCell(std::string(size_t(2 * r.depth), ' ') + std::string(r.folder->name()));
                     }},
                {.key = "path",
                 .format = Format::Path,
                 .help = "the folder's path",
                 .value =
                     [](const MapRow &r) {
                         return textCell(r.folder->path);
                     }},
            },
        .lineEnd =
            [](const MapRow &r) {
                if (!r.folder->countedAt.empty()) {
                    std::string places;
                    for (const std::string &path : r.folder->countedAt) {
                        places += (places.empty() ? "" : ", ") + path;
                    }
                    const char *what = "  (bind mount of ";
                    switch (r.folder->countedAtKind) {
                    case MountAlias::Kind::Overlay:
                        what = "  (overlay of ";
                        break;
                    case MountAlias::Kind::OverlayLayer:
                        what = "  (a layer of the overlay ";
                        break;
                    case MountAlias::Kind::RootAgain:
                        what = "  (the folder ";
                        break;
                    case MountAlias::Kind::BindMount:
                        break;
                    }
                    return what + places + ": counted there, not walked)";
                }
                if (r.folder->noPageCache) {
                    return std::string(r.folder->mountPoint ? "  (mount point, keeps no page cache: not walked)" : "  (keeps no page cache: not walked)");
                }
                return std::string(r.folder->mountPoint ? "  (mount point)" : "");
            },
    };
    return table;
}

// Depth first, the most resident folder first at every level, down to maxDepth.
void collectRows(const CacheMapTree &tree, uint32_t index, int depth, int maxDepth, std::vector<MapRow> &rows)
{
    rows.push_back({&tree.folders[index], depth, tree.total.resident});
    if (depth >= maxDepth) {
        return;
    }
    for (uint32_t child : tree.folders[index].children) {
        collectRows(tree, child, depth + 1, maxDepth, rows);
    }
}

int runMap(Context &context, const ParsedArgs &args)
{
    int exitCode = ExitSuccess;
    WalkOptions options;
    uint64_t depth = 2;
    if (!walkOptionsFrom(args, options, exitCode) || !countOption(args, "depth", 0, 4096, depth, exitCode)) {
        return exitCode;
    }
    // /proc, /sys and the like hold no page cache: a map of the cache names them and walks on.
    options.skipNoPageCache = !args.has("kernel-file-systems");
    std::vector<std::string> roots;
    for (auto it = args.positional.begin(); it != args.positional.end(); ++it) {
        const ArgumentKind kind = classify(context, *it);
        if (kind == ArgumentKind::Folder) {
            roots.push_back(*it);
        } else if (kind == ArgumentKind::File) {
            context.fail(*it, "a file, not a folder: a map is of folders (cachescope-cli status shows a file)");
        }
    }
    CacheMapResult result;
    if (!roots.empty()) {
        CacheMapBuilder builder;
        Walker walker(CacheMapBuilder::walkOptions(options));
        builder.attach(walker, [&context](const WalkProblem &problem) {
            context.addWalkProblem(problem);
        });
        // Ctrl+C ends the walk; the map so far is printed, marked partial.
        const CancelScope cancelScope(&walker);
        result.walk = walker.walk(roots);
        result.walk.cancelled = result.walk.cancelled || interrupted();
        result.tree = builder.take(!result.walk.cancelled);
    }
    std::vector<MapRow> rows;
    for (uint32_t root : result.tree.roots) {
        collectRows(result.tree, root, 0, int(depth), rows);
    }
    const Table<MapRow> &table = mapTable();
    std::string &out = context.out.buffer;
    const WalkTotals &total = result.walk.total;
    if (context.json) {
        out += "{\"command\":\"map\",";
        appendJsonNumber(out, "page_size", pageSize());
        out += ',';
        appendJsonNumber(out, "depth", depth);
        out += ",\"folders\":[";
        for (size_t i = 0; i < rows.size(); ++i) {
            out += i ? "," : "";
            table.appendJson(out, rows[i]);
        }
        out += "],";
        appendJsonBool(out, "complete", result.tree.complete);
        out += ',';
        appendJsonNumber(out, "folders_not_walked", total.foldersNotEntered);
        out += ',';
        appendJsonNumber(out, "mounts_counted_elsewhere", total.mountsCountedElsewhere);
        out += ",\"total\":";
        statusTotalsTable().appendJson(out, TotalsRow{"total", false, total, result.walk.method});
        out += ',';
        context.appendProblemsJson(out);
        out += "}\n";
    } else {
        if (!rows.empty()) {
            table.appendHeader(out);
        }
        for (const MapRow &row : rows) {
            table.appendText(out, row, context.rawBytes);
        }
        out += '\n' + std::to_string(total.files) + " files in " + std::to_string(total.directories) + " folders, "
            + sizeText(total.resident * pageSize(), context.rawBytes) + " resident";
        if (total.hiddenFiles > 0) {
            out += "; " + std::to_string(total.hiddenFiles) + " files hidden by the kernel, not in RESIDENT (run as their owner or as root)";
        }
        out += foldersNotWalkedNote(total);
        out += specialFilesNote(total);
        if (total.mountsCountedElsewhere > 0) {
            out += "; " + std::to_string(total.mountsCountedElsewhere) + (total.mountsCountedElsewhere == 1 ? " folder" : " folders")
                + " counted elsewhere in the map (bind mounts, overlays) not walked, so that each page counts once";
        }
        out += '\n';
    }
    if (result.walk.cancelled) {
        context.out.flush();
        printError("interrupted: the map above is partial");
        return interruptExitCode();
    }
    return context.anyFailed() ? ExitFailures : ExitSuccess;
}

} // namespace

Command mapCommand()
{
    return {{"map",
             "DIR...",
             "how much of the page cache each folder holds, as a tree",
             "Walks the folders and adds up, for every folder, the resident pages of\n"
             "the files in its tree; prints the folders down to --depth, the most\n"
             "resident first at every level, indented under the folder they are in.\n"
             "SHARE is the folder's part of what the whole map holds in the cache.\n"
             "Files whose residency the kernel hides from you are counted in HIDDEN,\n"
             "never in RESIDENT. Mount points are marked; -x stays on each folder's\n"
             "file system. Mount points of file systems that keep no page cache\n"
             "(proc, sysfs, cgroup, ...) below a folder named are marked and not\n"
             "walked, nor anything mounted below them. Memory grows with the\n"
             "number of folders, not files.",
             withCommonOptions({{'d', "depth", "N", "how many levels of folders to print (default 2; 0: the roots only)"},
                                followOption,
                                oneFileSystemOption,
                                kernelFileSystemsOption,
                                threadsOption,
                                mincoreOption}),
             "  cachescope-cli map / -x --depth 3\n"
             "  cachescope-cli map --json ~/.cache\n",
             1},
            runMap};
}

} // namespace Cachescope::Cli
