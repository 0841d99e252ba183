// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers

// cachescope-cli account: where every page of /proc/meminfo's Cached is.

#include "commandoptions.h"
#include "interrupt.h"
#include "table.h"

#include "account.h"
#include "pathcodec.h"

namespace Cachescope::Cli
{

namespace
{

std::string processesText(const AccountPart &part)
{
    std::string text;
    for (const AccountProcess &process : part.processes) {
        text += (text.empty() ? "" : ", ") + process.command + ' ' + std::to_string(process.pid);
    }
    if (part.processCount > part.processes.size()) {
        text += (text.empty() ? "" : ", ") + std::to_string(part.processCount - part.processes.size()) + " more";
    }
    return text;
}

std::string whatText(const AccountPart &part)
{
    switch (part.kind) {
    case AccountKind::Memfd:
        return "memfd:" + part.name;
    case AccountKind::SysvShm:
    case AccountKind::SharedAnonymous:
        return part.name;
    case AccountKind::OtherNamespace:
        return part.path + " in the mount namespace of " + part.name;
    case AccountKind::CoveredFolder:
        return part.path + " (under the mount there)";
    case AccountKind::Files:
    case AccountKind::Tmpfs:
        return part.name.empty() ? part.path : part.path + " (" + part.name + ")";
    case AccountKind::DeletedFile:
        return part.path + " (deleted)";
    }
    return part.path;
}

const Table<AccountPart> &partsTable()
{
    static const Table<AccountPart> table = {
        .columns =
            {
                {.header = "CACHED",
                 .key = "bytes",
                 .width = 10,
                 .format = Format::Bytes,
                 .help = "the part's bytes in the page cache (0 when hidden)",
                 .value =
                     [](const AccountPart &p) {
                         return countCell(p.bytes);
                     },
                 .text =
                     [](const AccountPart &p, bool raw) {
                         return p.hidden ? std::string("hidden") : sizeText(p.bytes, raw);
                     }},
                {.header = "SIZE",
                 .key = "size",
                 .width = 10,
                 .format = Format::Bytes,
                 .help = "the size of the file, segment or tree",
                 .value =
                     [](const AccountPart &p) {
                         return countCell(p.sizeBytes);
                     }},
                {.header = "KIND",
                 .key = "kind",
                 .align = Align::Left,
                 .width = 16,
                 .format = Format::Text,
                 .help = "files, tmpfs, sysv-shm, memfd, shared-anonymous, deleted, namespace or covered",
                 .value =
                     [](const AccountPart &p) {
                         return textCell(accountKindName(p.kind));
                     }},
                {.key = "path",
                 .format = Format::Path,
                 .help = "the folder (mount point), or the path a deleted file had",
                 .value =
                     [](const AccountPart &p) {
                         return textCell(p.path);
                     },
                 .inJson =
                     [](const AccountPart &p) {
                         return !p.path.empty();
                     }},
                {.key = "name",
                 .format = Format::Text,
                 .help = "a memfd's name, a System V segment's key and id, a namespace's first process",
                 .value =
                     [](const AccountPart &p) {
                         return textCell(p.name);
                     },
                 .inJson =
                     [](const AccountPart &p) {
                         return !p.name.empty();
                     }},
                {.key = "evictable",
                 .format = Format::Bool,
                 .help = "false for shared memory, whose pages can only be swapped out",
                 .value =
                     [](const AccountPart &p) {
                         return boolCell(p.evictable());
                     }},
                {.key = "hidden",
                 .format = Format::Bool,
                 .help = "the kernel hides the part from you: no figure (hidden_reason says why)",
                 .value =
                     [](const AccountPart &p) {
                         return boolCell(p.hidden);
                     }},
                {.key = "hidden_reason",
                 .format = Format::Text,
                 .value =
                     [](const AccountPart &p) {
                         return textCell(p.hiddenReason);
                     },
                 .inJson =
                     [](const AccountPart &p) {
                         return p.hidden;
                     }},
                {.key = "processes",
                 .format = Format::Json,
                 .help = "the processes that hold it open or mapped, attach it, or live in the namespace",
                 .value =
                     [](const AccountPart &p) {
                         std::string list = "[";
                         for (const AccountProcess &process : p.processes) {
                             list += list.size() > 1 ? ",{" : "{";
                             appendJsonNumber(list, "pid", uint64_t(process.pid));
                             list += ',';
                             appendJsonText(list, "command", process.command);
                             list += '}';
                         }
                         return textCell(list + ']');
                     },
                 .inJson =
                     [](const AccountPart &p) {
                         return p.processCount > 0;
                     }},
                {.key = "details",
                 .format = Format::Json,
                 .help = "file_system, files, device, inode, process_count where they apply",
                 .value =
                     [](const AccountPart &p) {
                         std::string details = "{";
                         appendJsonText(details, "file_system", p.fileSystem);
                         details += ',';
                         appendJsonNumber(details, "device", p.device);
                         if (p.files > 0) {
                             details += ',';
                             appendJsonNumber(details, "files", p.files);
                         }
                         if (p.inode > 0) {
                             details += ',';
                             appendJsonNumber(details, "inode", p.inode);
                         }
                         if (p.processCount > 0) {
                             details += ',';
                             appendJsonNumber(details, "process_count", p.processCount);
                         }
                         return textCell(details + '}');
                     }},
                {.header = "PROCESSES",
                 .align = Align::Left,
                 .width = 24,
                 .format = Format::Text,
                 .help = "who holds it",
                 .value =
                     [](const AccountPart &p) {
                         std::string text = printableText(processesText(p));
                         if (text.size() > 24) {
                             text = text.substr(0, 21) + "...";
                         }
                         return textCell(text);
                     }},
                {.header = "WHAT",
                 .align = Align::Left,
                 .format = Format::Text,
                 .help = "the folder, file, segment or namespace",
                 .value =
                     [](const AccountPart &p) {
                         const std::string text = printableText(whatText(p));
                         return textCell(isValidUtf8(text) ? text : toDisplayUtf8(text));
                     }},
            },
        .span = [](const AccountPart &p) -> std::optional<std::string> {
            if (!p.hidden) {
                return std::nullopt;
            }
            return std::string("hidden");
        },
        .linesBelow =
            [](std::string &out, const AccountPart &p) {
                if (p.hidden) {
                    out += "    hidden: " + printableText(p.hiddenReason) + '\n';
                }
            },
    };
    return table;
}

const char *groupText(AccountGroup group)
{
    switch (group) {
    case AccountGroup::FilesByPath:
        return "files by path";
    case AccountGroup::SharedMemory:
        return "tmpfs and shared memory";
    case AccountGroup::DeletedFiles:
        return "deleted files still open";
    case AccountGroup::OtherNamespaces:
        return "other mount namespaces";
    case AccountGroup::CoveredFolders:
        return "folders under mount points";
    }
    return "";
}

const char *groupKey(AccountGroup group)
{
    switch (group) {
    case AccountGroup::FilesByPath:
        return "files";
    case AccountGroup::SharedMemory:
        return "shared_memory";
    case AccountGroup::DeletedFiles:
        return "deleted";
    case AccountGroup::OtherNamespaces:
        return "namespaces";
    case AccountGroup::CoveredFolders:
        return "covered";
    }
    return "";
}

std::string signedBytesText(int64_t bytes, bool raw)
{
    return bytes < 0 ? "-" + sizeText(uint64_t(-bytes), raw) : sizeText(uint64_t(bytes), raw);
}

void appendText(std::string &out, const CacheAccount &account, bool raw)
{
    const Table<AccountPart> &table = partsTable();
    table.appendHeader(out);
    for (const AccountPart &part : account.parts) {
        table.appendText(out, part, raw);
    }
    out += "\nCached " + sizeText(account.cached, raw) + ':';
    bool first = true;
    for (const AccountGroupTotal &group : accountGroups(account)) {
        out += first ? " " : ", ";
        first = false;
        out += sizeText(group.bytes, raw) + ' ' + groupText(group.group);
        if (group.group == AccountGroup::DeletedFiles) {
            out += " (" + std::to_string(group.parts) + (group.parts == 1 ? " file)" : " files)");
        }
    }
    out += std::string(first ? " " : ", ") + signedBytesText(account.unexplained, raw) + " unexplained";
    if (account.unexplained < 0) {
        out += " (pages counted in a part left the cache before Cached was read)";
    }
    out += '\n';
    const AccountHidden &hidden = account.hidden;
    if (account.inChroot) {
        out += "Note: / is a chroot here: the files of its file systems outside it are in unexplained\n";
    }
    if (account.ownIpcNamespace) {
        out += "Note: this process has an IPC namespace of its own: the system's System V segments are not seen, their pages are in unexplained\n";
    }
    if (account.mountsNotWalked > 0) {
        out += "Note: " + std::to_string(account.mountsNotWalked)
            + " FUSE or stacked mounts not walked (a daemon that does not answer would stall the account): their pages are in unexplained\n";
    }
    if (hidden.processes > 0) {
        out += "Hidden: the open files, maps and mount namespaces of " + std::to_string(hidden.processes)
            + " processes that the kernel does not let you read (run as root to see them)\n";
    }
    if (hidden.files > 0) {
        out +=
            "Hidden: " + std::to_string(hidden.files) + " files whose residency the kernel hides from you (" + sizeText(hidden.fileBytes, raw) + " in size)\n";
    }
    if (hidden.coveredMountPoints > 0) {
        out += "Hidden: the folders under " + std::to_string(hidden.coveredMountPoints) + " mount points (only root can look under a mount)\n";
    }
    uint64_t buffers = 0;
    std::string devices;
    std::string hiddenDevices;
    for (const BlockDeviceBuffers &device : account.buffersByDevice) {
        if (device.hidden) {
            hiddenDevices += "\nHidden: the buffers of " + device.hiddenReason;
            continue;
        }
        buffers += device.bytes;
        if (device.bytes > 0) {
            devices += (devices.empty() ? "" : ", ") + device.name + ' ' + sizeText(device.bytes, raw);
        }
    }
    out += "Buffers " + sizeText(account.buffers, raw) + " (beside Cached)";
    if (!devices.empty()) {
        out += ": " + devices;
    }
    if (hiddenDevices.empty() && !account.buffersByDevice.empty()) {
        out += "; unexplained " + signedBytesText(int64_t(account.buffers) - int64_t(buffers), raw);
    }
    out += hiddenDevices + '\n';
}

void appendJson(std::string &out, const CacheAccount &account)
{
    out += "{\"command\":\"account\",";
    appendJsonNumber(out, "page_size", pageSize());
    out += ',';
    appendJsonNumber(out, "meminfo_cached", account.cached);
    out += ',';
    appendJsonNumber(out, "meminfo_cached_at_start", account.memInfoBefore.value("Cached"));
    out += ',';
    appendJsonNumber(out, "meminfo_buffers", account.buffers);
    out += ',';
    appendJsonNumber(out, "meminfo_shmem", account.shmem);
    out += ",\"parts\":[";
    const Table<AccountPart> &table = partsTable();
    for (size_t i = 0; i < account.parts.size(); ++i) {
        out += i ? "," : "";
        table.appendJson(out, account.parts[i]);
    }
    out += "],\"groups\":{";
    bool first = true;
    for (const AccountGroupTotal &group : accountGroups(account)) {
        out += first ? "" : ",";
        first = false;
        appendJsonNumber(out, groupKey(group.group), group.bytes);
    }
    out += "},\"unexplained\":";
    out += std::to_string(account.unexplained);
    out += ",\"hidden\":{";
    appendJsonNumber(out, "processes", account.hidden.processes);
    out += ',';
    appendJsonNumber(out, "files", account.hidden.files);
    out += ',';
    appendJsonNumber(out, "file_bytes", account.hidden.fileBytes);
    out += ',';
    appendJsonNumber(out, "covered_mount_points", account.hidden.coveredMountPoints);
    out += "},";
    appendJsonBool(out, "in_chroot", account.inChroot);
    out += ',';
    appendJsonNumber(out, "mounts_not_walked", account.mountsNotWalked);
    out += ',';
    appendJsonBool(out, "own_ipc_namespace", account.ownIpcNamespace);
    out += ",\"buffers\":[";
    for (size_t i = 0; i < account.buffersByDevice.size(); ++i) {
        const BlockDeviceBuffers &device = account.buffersByDevice[i];
        out += i ? ",{" : "{";
        appendJsonText(out, "device", device.name);
        out += ',';
        appendJsonBool(out, "hidden", device.hidden);
        out += ',';
        if (device.hidden) {
            appendJsonText(out, "hidden_reason", device.hiddenReason);
        } else {
            appendJsonNumber(out, "bytes", device.bytes);
        }
        out += '}';
    }
    out += "],";
    appendJsonBool(out, "complete", account.complete);
    out += ",\"seconds\":";
    char seconds[32];
    std::snprintf(seconds, sizeof seconds, "%.3f", account.seconds);
    out += seconds;
    out += ',';
}

int runAccount(Context &context, const ParsedArgs &args)
{
    int exitCode = ExitSuccess;
    uint64_t depth = 0;
    WalkOptions walkOptions;
    if (!walkOptionsFrom(args, walkOptions, exitCode) || !countOption(args, "depth", 0, 64, depth, exitCode)) {
        return exitCode;
    }
    CacheAccount account;
    if (args.has("privileged")) {
        // The helper walks as root with its own options: --depth and the rest are this process's.
        if (depth != 0 || args.has("threads") || args.has("mincore")) {
            return usageError(args.command, "--privileged takes no other option: the helper makes the account with its own");
        }
        std::string error;
        if (!accountFromHelper(account, error)) {
            printError("account: " + error);
            return ExitFailures;
        }
    } else {
        AccountOptions options;
        options.depth = int(depth);
        options.threads = walkOptions.threads;
        options.residencyOptions = walkOptions.residencyOptions;
        CacheAccountant accountant(options);
        const CancelScope cancelScope([&accountant] {
            accountant.cancel();
        });
        account = accountant.run([&context](const WalkProblem &problem) {
            context.addWalkProblem(problem);
        });
    }
    std::string &out = context.out.buffer;
    if (context.json) {
        appendJson(out, account);
        context.appendProblemsJson(out);
        out += "}\n";
    } else {
        appendText(out, account, context.rawBytes);
    }
    if (!account.complete) {
        context.out.flush();
        printError("interrupted: the account above is partial");
        return interruptExitCode();
    }
    return context.anyFailed() ? ExitFailures : ExitSuccess;
}

} // namespace

Command accountCommand()
{
    return {{"account",
             "",
             "where every page of Cached is: files, shared memory, deleted files, namespaces",
             "Accounts for /proc/meminfo's Cached, to the page: the files under /\n"
             "by mount (as `map /` counts them), files on tmpfs, System V shared\n"
             "memory, memfds and anonymous shared mappings (pages that can only be\n"
             "swapped, never evicted), files deleted while a process still holds\n"
             "them open or mapped (with the processes), the mounts of other mount\n"
             "namespaces (containers, Flatpak apps) that / does not show, and the\n"
             "files in folders that another mount covers. What is left is printed as\n"
             "unexplained, never spread over the parts. The parts do not overlap:\n"
             "each file counts once, by device and inode. Buffers (the block\n"
             "devices' own cache, beside Cached) follow per device. What the kernel\n"
             "hides from you (other users' processes, the folders under mount\n"
             "points, a file only mapped) is said to be hidden, without a figure;\n"
             "run as root, or with --privileged, to see it.",
             withCommonOptions({{'d', "depth", "N", "the files by path in folders down to N levels below each mount (default 0: one part a mount)"},
                                {0, "privileged", nullptr, "the account made by the privileged helper as root (polkit asks for the administrator's password)"},
                                threadsOption,
                                mincoreOption}),
             "  cachescope-cli account\n"
             "  cachescope-cli account --privileged\n"
             "  sudo cachescope-cli account --json | jq '.parts[] | select(.kind == \"deleted\")'\n",
             0,
             0},
            runAccount};
}

} // namespace Cachescope::Cli
