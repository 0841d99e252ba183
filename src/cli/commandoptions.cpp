// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers

#include "commandoptions.h"
#include "interrupt.h"

#include "format.h"
#include "residency.h"

#include <fcntl.h>
#include <poll.h>
#include <unistd.h>

#include <atomic>
#include <cstring>
#include <thread>

namespace Cachescope::Cli
{

const OptionSpec followOption{'L', "follow", nullptr, "follow symlinks (to files and folders) inside folders; loops are detected"};
const OptionSpec oneFileSystemOption{'x', "one-file-system", nullptr, "stay on the file system of each PATH"};
const OptionSpec kernelFileSystemsOption{0, "kernel-file-systems", nullptr, "also walk file systems that keep no page cache (proc, sysfs, cgroup, ...)"};
const OptionSpec threadsOption{'j', "threads", "N", "walk with N threads (default: one a core, at least 2)"};
const OptionSpec mincoreOption{0, "mincore", nullptr, "use mincore(2) even where cachestat(2) exists (no dirty/writeback figures)"};
const OptionSpec verboseOption{'v', "verbose", nullptr, "list every file found under a folder, not only the totals"};

std::vector<OptionSpec> withSelectionOptions(std::vector<OptionSpec> options)
{
    options.push_back({0, "include", "GLOB", "only files whose name matches GLOB (repeatable; a GLOB with '/' matches the whole path)"});
    options.push_back({0, "exclude", "GLOB", "leave out files and folders whose name matches GLOB (repeatable)"});
    options.push_back({0, "max-size", "SIZE", "leave out files larger than SIZE (suffixes K, M, G, T)"});
    options.push_back({0, "from", "FILE", "read the paths from FILE, one a line ('-': standard input), besides any PATH"});
    options.push_back({'0', "null", nullptr, "with --from: the paths end with NUL, not newline (find -print0)"});
    return options;
}

namespace
{
// Whether a read of fd would return at once (data, or the end), without waiting.
[[nodiscard]] bool readableNow(int fd)
{
    pollfd ready{fd, POLLIN, 0};
    return poll(&ready, 1, 0) > 0;
}
} // namespace

bool PathListReader::open(const std::string &source, bool nulSeparated, std::string &error)
{
    const bool standardInput = source == "-";
    m_fd = STDIN_FILENO;
    if (!standardInput) {
        m_owned.reset(::open(source.c_str(), O_RDONLY | O_CLOEXEC));
        if (!m_owned) {
            error = "--from '" + source + "': " + errnoText(errno);
            return false;
        }
        m_fd = m_owned.get();
    }
    m_where = standardInput ? std::string("--from -: standard input") : "--from '" + source + "'";
    struct stat st;
    if (fstat(m_fd, &st) == 0 && S_ISDIR(st.st_mode)) {
        error = m_where + ": is a folder, not a list of paths";
        return false;
    }
    m_separator = nulSeparated ? '\0' : '\n';
    m_buffer.resize(size_t(1) << 16);
    return true;
}

bool PathListReader::next(std::vector<std::string> &paths, size_t most, std::string &reason)
{
    size_t added = 0;
    while (!m_ended && added < most) {
        if (m_at == m_end) {
            if (added > 0 && !readableNow(m_fd)) {
                // The writer has written no more yet (a `find` still looking):
                // answer these meanwhile rather than wait for a whole batch.
                return true;
            }
            const ssize_t n = ::read(m_fd, m_buffer.data(), m_buffer.size());
            if (n < 0) {
                if (errno == EINTR && !interrupted()) {
                    continue;
                }
                reason = errnoText(errno);
                return false;
            }
            m_at = 0;
            m_end = size_t(n);
            if (n == 0) {
                m_ended = true;
                if (!m_pending.empty()) {
                    paths.push_back(std::move(m_pending));
                    m_pending.clear();
                }
                break;
            }
        }
        const char *start = m_buffer.data() + m_at;
        const auto *found = static_cast<const char *>(memchr(start, m_separator, m_end - m_at));
        if (!found) {
            m_pending.append(start, m_end - m_at);
            m_at = m_end;
            continue;
        }
        m_pending.append(start, size_t(found - start));
        m_at += size_t(found - start) + 1;
        if (!m_pending.empty()) {
            paths.push_back(std::move(m_pending));
            ++added;
        }
        m_pending.clear();
    }
    return true;
}

bool readPathList(const std::string &source, bool nulSeparated, std::vector<std::string> &paths, std::string &error)
{
    PathListReader reader;
    if (!reader.open(source, nulSeparated, error)) {
        return false;
    }
    while (!reader.ended()) {
        std::string reason;
        if (!reader.next(paths, SIZE_MAX, reason)) {
            error = reader.name() + ": " + reason;
            return false;
        }
    }
    return true;
}

void noteLeftOut(std::string_view command, uint64_t files)
{
    if (files == 0) {
        return;
    }
    printError(std::string(command) + ": " + std::to_string(files) + (files == 1 ? " file" : " files") + " left out by --include, --exclude or --max-size");
}

void noteWithoutPageCache(std::string_view command, uint64_t files)
{
    if (files == 0) {
        return;
    }
    // status has nothing to leave: it says why those files add no size.
    const std::string what = command == "status" ? std::string("counted as files, in no size or pages") : "nothing there to " + std::string(command);
    printError(std::string(command) + ": " + std::to_string(files) + (files == 1 ? " file is" : " files are")
               + " on a file system that keeps no page cache (proc, sysfs, cgroup, ...): " + what);
}

std::vector<OptionSpec> withCommonOptions(std::vector<OptionSpec> options)
{
    options.push_back({0, "json", nullptr, "print one JSON document (schema: docs/cli.md)"});
    options.push_back({0, "bytes", nullptr, "print sizes as raw byte counts instead of KiB/MiB/GiB"});
    options.push_back({'h', "help", nullptr, "show this help"});
    return options;
}

bool countOption(const ParsedArgs &args, const char *name, uint64_t minimum, uint64_t maximum, uint64_t &value, int &exitCode)
{
    const std::optional<std::string> text = args.value(name);
    if (!text) {
        return true;
    }
    const std::optional<uint64_t> number = parseCount(*text);
    if (!number || *number < minimum || *number > maximum) {
        exitCode =
            usageError(args.command,
                       std::string("--") + name + ": '" + *text + "' is not a whole number from " + std::to_string(minimum) + " to " + std::to_string(maximum));
        return false;
    }
    value = *number;
    return true;
}

bool watchOptionsFrom(const ParsedArgs &args, double &interval, uint64_t &count, int &exitCode)
{
    count = 0;
    interval = 0;
    if (!countOption(args, "count", 1, UINT64_MAX / 2, count, exitCode)) {
        return false;
    }
    if (const std::optional<std::string> text = args.value("watch")) {
        const std::optional<double> seconds = parseSeconds(*text);
        if (!seconds) {
            exitCode = usageError(args.command, "--watch: '" + *text + "' is not a number of seconds greater than 0");
            return false;
        }
        interval = *seconds;
    } else if (count > 0) {
        exitCode = usageError(args.command, "--count needs --watch SECONDS");
        return false;
    }
    return true;
}

int repeatEvery(Context &context, double interval, uint64_t count, const std::function<bool(uint64_t round)> &appendRound)
{
    if (interval == 0) {
        return appendRound(0) ? ExitSuccess : ExitFailures;
    }
    const CancelScope scope;
    for (uint64_t round = 0; count == 0 || round < count; ++round) {
        if (!appendRound(round)) {
            return ExitFailures;
        }
        context.out.flush(); // each sample as it is taken: someone is watching
        if ((count != 0 && round + 1 == count) || sleepUnlessInterrupted(interval)) {
            break;
        }
    }
    return interrupted() ? interruptExitCode() : ExitSuccess;
}

bool bytesOption(const ParsedArgs &args, const char *name, uint64_t &value, int &exitCode, uint64_t minimum)
{
    const std::optional<std::string> text = args.value(name);
    if (!text) {
        return true;
    }
    const std::optional<uint64_t> number = parseBytes(*text);
    if (!number || *number < minimum) {
        const std::string what = minimum == 0 ? "' is not a byte count (examples: 4096, 64K, 1.5M, 2G)"
                                              : "' is not a byte count of at least " + std::to_string(minimum) + " (examples: 4096, 64K, 64M, 1G)";
        exitCode = usageError(args.command, std::string("--") + name + ": '" + *text + what);
        return false;
    }
    value = *number;
    return true;
}

bool walkOptionsFrom(const ParsedArgs &args, WalkOptions &options, int &exitCode)
{
    options.followSymlinks = args.has("follow");
    options.oneFileSystem = args.has("one-file-system");
    options.residencyOptions.forceMincore = args.has("mincore");
    uint64_t threads = 0;
    if (!countOption(args, "threads", 1, 256, threads, exitCode)) {
        return false;
    }
    options.threads = int(threads);
    options.filter.include = args.values("include");
    options.filter.exclude = args.values("exclude");
    for (const std::string &glob : options.filter.include) {
        if (glob.empty()) {
            exitCode = usageError(args.command, "--include: an empty GLOB matches nothing");
            return false;
        }
    }
    for (const std::string &glob : options.filter.exclude) {
        if (glob.empty()) {
            exitCode = usageError(args.command, "--exclude: an empty GLOB matches nothing");
            return false;
        }
    }
    return bytesOption(args, "max-size", options.filter.maxSize, exitCode, 1);
}

namespace
{
// The folder of the last file named in this thread, opened with O_PATH: a
// list from `find` names many files of one folder in a row, and looking up
// one name in it spares the kernel walking the whole path again, twice a file
// (the look before the open, and the open). Kept only inside one batch of
// forEachIndex, so that a folder renamed meanwhile is not used for long;
// elsewhere (evict, load and lock act on one file after another, lock holds
// them for hours) each name is looked up by its whole path.
struct NamedFolder {
    std::string path;
    UniqueFd fd;
    bool kept = false; // inside a batch of forEachIndex
};
thread_local NamedFolder lastFolder;

// Whether the last device a named file was on keeps no page cache, kept as
// lastFolder is: a list of paths mostly stays on one file system, and one
// statfs a file would cost a --from list of 200,000 files a system call
// each; never kept from one batch to the next, since a device number (0:N of
// proc, sysfs, tmpfs) can be another file system's once its mount is gone.
struct NamedDevice {
    bool known = false;
    dev_t device = 0;
    bool keepsNoPageCache = false;
    bool kept = false; // inside a batch of forEachIndex
};
thread_local NamedDevice lastDevice;

struct NameIn {
    int dirFd = AT_FDCWD;
    const char *name = nullptr;
};

// Where to look path up: its folder's descriptor and its last component, or
// the whole path from the working folder when the folder does not open (the
// look-up by the whole path then fails with its own reason).
[[nodiscard]] NameIn nameIn(const std::string &path)
{
    const size_t slash = path.rfind('/');
    if (!lastFolder.kept || slash == std::string::npos || slash + 1 == path.size()) {
        return {AT_FDCWD, path.c_str()};
    }
    const std::string_view folder(path.data(), slash == 0 ? 1 : slash);
    if (!lastFolder.fd || lastFolder.path != folder) {
        lastFolder.path.assign(folder);
        lastFolder.fd.reset(::open(lastFolder.path.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC));
        if (!lastFolder.fd) {
            return {AT_FDCWD, path.c_str()};
        }
    }
    return {lastFolder.fd.get(), path.c_str() + slash + 1};
}
} // namespace

ArgumentKind classify(Context &context, const std::string &path, const PathFilter &filter, struct stat *looked)
{
    struct stat own;
    struct stat &st = looked ? *looked : own;
    const NameIn where = nameIn(path);
    if (fstatat(where.dirFd, where.name, &st, 0) != 0) {
        context.fail(path, errnoText(errno));
        return ArgumentKind::Missing;
    }
    if (S_ISDIR(st.st_mode)) {
        return ArgumentKind::Folder;
    }
    if (S_ISREG(st.st_mode)) {
        if (!filter.admitsNamedFile(path, uint64_t(st.st_size))) {
            ++context.leftOut;
            return ArgumentKind::LeftOut;
        }
        return ArgumentKind::File;
    }
    context.skip(path, std::string(kindName(kindOfMode(st.st_mode))) + ": skipped, never opened");
    return ArgumentKind::Special;
}

std::vector<std::string>
filesAndFolders(Context &context, std::vector<std::string>::const_iterator first, std::vector<std::string>::const_iterator last, const PathFilter &filter)
{
    std::vector<std::string> paths;
    for (auto it = first; it != last; ++it) {
        const ArgumentKind kind = classify(context, *it, filter);
        if (kind == ArgumentKind::Folder || kind == ArgumentKind::File) {
            paths.push_back(*it);
        }
    }
    return paths;
}

UniqueFd openNamedFile(Context &context, const std::string &path, struct stat &st, const struct stat *looked)
{
    int error = 0;
    std::string errorText;
    const NameIn where = nameIn(path);
    UniqueFd fd(openRegularFile(where.dirFd, where.name, false, st, error, errorText, looked));
    if (!fd) {
        context.fail(path, errorText.empty() ? errnoText(error ? error : EIO) : errorText);
    }
    return fd;
}

bool namedFileKeepsNoPageCache(int fd, const struct stat &st)
{
    if (lastDevice.known && lastDevice.device == st.st_dev) {
        return lastDevice.keepsNoPageCache;
    }
    const bool none = descriptorKeepsNoPageCache(fd);
    if (lastDevice.kept) {
        lastDevice.known = true;
        lastDevice.device = st.st_dev;
        lastDevice.keepsNoPageCache = none;
    }
    return none;
}

void forEachIndex(size_t count, int threads, const std::function<void(size_t)> &work)
{
    // Below this, starting threads costs more than it saves (a few
    // microseconds a file against tens for a thread).
    constexpr size_t worthThreads = 256;
    const size_t wanted = threads > 0 ? size_t(threads) : std::max<size_t>(2, std::thread::hardware_concurrency());
    std::atomic<size_t> next{0};
    const auto run = [&] {
        lastFolder = {};
        lastFolder.kept = true;
        lastDevice = {};
        lastDevice.kept = true;
        for (size_t i = next++; i < count && !interrupted(); i = next++) {
            work(i);
        }
        lastFolder = {};
        lastDevice = {};
    };
    std::vector<std::thread> helpers;
    if (count >= worthThreads) {
        for (size_t t = 1; t < wanted; ++t) {
            helpers.emplace_back(run);
        }
    }
    run();
    for (std::thread &helper : helpers) {
        helper.join();
    }
}

} // namespace Cachescope::Cli
