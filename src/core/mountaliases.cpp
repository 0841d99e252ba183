// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers

#include "mountaliases.h"

#include <climits>
#include <cstdlib>
#include <map>
#include <optional>
#include <string_view>

namespace Cachescope
{

namespace
{

// What follows `folder` in `path` ("" for the folder itself, else "/a/b"),
// or nullopt when path is not below it. Both absolute and without a
// trailing slash, but for "/".
std::optional<std::string_view> below(std::string_view folder, std::string_view path)
{
    if (path == folder) {
        return std::string_view();
    }
    if (folder == "/") {
        return path.starts_with('/') ? std::optional(path) : std::nullopt;
    }
    if (path.size() > folder.size() && path.starts_with(folder) && path[folder.size()] == '/') {
        return path.substr(folder.size());
    }
    return std::nullopt;
}

std::string joined(std::string_view folder, std::string_view rest)
{
    std::string path(folder);
    if (!rest.empty()) {
        if (!path.empty() && path.back() == '/') {
            path.pop_back();
        }
        path.append(rest);
    }
    return path;
}

struct Root {
    std::string given;
    std::string real; // realpath(given)
};

// The walk's name for a real path below one of the roots, or nullopt.
std::optional<std::string> walkPath(const std::vector<Root> &roots, std::string_view path)
{
    for (const Root &root : roots) {
        if (const std::optional<std::string_view> rest = below(root.real, path)) {
            return joined(root.given, *rest);
        }
    }
    return std::nullopt;
}

} // namespace

std::vector<std::string> overlayLayers(const std::string &superOptions)
{
    // seq_show_option() escapes ",= \t\n\\" in a value as \ooo; overlayfs
    // separates lower layers with ':' (two for data-only ones) and escapes a
    // ':' of a path as "\:".
    std::vector<std::string> lower;
    std::string upper;
    size_t start = 0;
    while (start <= superOptions.size()) {
        size_t end = superOptions.find(',', start);
        if (end == std::string::npos) {
            end = superOptions.size();
        }
        const std::string_view option = std::string_view(superOptions).substr(start, end - start);
        start = end + 1;
        if (option.starts_with("upperdir=")) {
            upper = decodeOctalEscapes(option.substr(9));
        } else if (option.starts_with("lowerdir=")) {
            const std::string list = decodeOctalEscapes(option.substr(9));
            std::string layer;
            for (size_t i = 0; i <= list.size(); ++i) {
                if (i < list.size() && list[i] == '\\' && i + 1 < list.size()) {
                    layer.push_back(list[++i]);
                } else if (i == list.size() || list[i] == ':') {
                    if (!layer.empty()) {
                        lower.push_back(std::move(layer));
                    }
                    layer.clear();
                } else {
                    layer.push_back(list[i]);
                }
            }
        }
    }
    if (!upper.empty()) {
        lower.push_back(std::move(upper));
    }
    return lower;
}

VisibleMounts visibleMounts(const std::vector<MountInfoEntry> &mounts)
{
    VisibleMounts visible;
    for (const MountInfoEntry &mount : mounts) {
        visible[mount.mountPoint] = &mount;
    }
    return visible;
}

const MountInfoEntry *mountShowing(const VisibleMounts &visible, std::string_view path)
{
    for (std::string_view folder = path;;) {
        if (const auto found = visible.find(folder); found != visible.end()) {
            return found->second;
        }
        if (folder == "/" || folder.empty()) {
            return nullptr;
        }
        const size_t slash = folder.rfind('/');
        folder = slash == 0 ? std::string_view("/") : folder.substr(0, slash);
    }
}

std::vector<MountAlias> findMountAliases(const std::vector<MountInfoEntry> &mounts, const std::vector<std::string> &rootPaths)
{
    std::vector<Root> roots;
    for (const std::string &given : rootPaths) {
        char real[PATH_MAX];
        if (realpath(given.c_str(), real)) {
            roots.push_back({given, real});
        }
    }
    const VisibleMounts visible = visibleMounts(mounts);
    const auto mountShowing = [&visible](std::string_view path) {
        return Cachescope::mountShowing(visible, path);
    };

    std::vector<MountAlias> aliases;
    for (const auto &[mountPoint, mount] : visible) {
        const std::optional<std::string> name = walkPath(roots, mountPoint);
        if (!name) {
            continue;
        }
        if (mount->fsType == "overlay") {
            // Layers in reach are counted where they are, and the overlay not
            // walked. Where one is out of reach (outside the roots, or under
            // the overlay itself, as tools/dev run's overlay on /usr over
            // /usr), the overlay is walked instead, and the layers in reach
            // (its upper folder on a tmpfs) are not.
            std::vector<std::string> inReach;
            bool allInReach = true;
            for (const std::string &layer : overlayLayers(mount->superOptions)) {
                // Under no mount listed: on the root file system of a chroot,
                // which mountinfo does not list (its "/" is no mount point).
                const MountInfoEntry *showing = mountShowing(layer);
                const std::optional<std::string> layerName = walkPath(roots, layer);
                if (layerName && (!showing || showing->fsType != "overlay")) {
                    inReach.push_back(*layerName);
                } else {
                    allInReach = false;
                }
            }
            if (allInReach && !inReach.empty()) {
                aliases.push_back(MountAlias{*name, std::move(inReach), MountAlias::Kind::Overlay});
            } else {
                for (std::string &layer : inReach) {
                    aliases.push_back(MountAlias{std::move(layer), {*name}, MountAlias::Kind::OverlayLayer});
                }
            }
            continue;
        }
        // The mounts of the same file system that show this one's folder too,
        // at a path the walk reaches through them: the one that shows the
        // most of the file system is walked, then the one made first.
        const MountInfoEntry *walked = mount;
        std::string walkedPath(mountPoint);
        for (const auto &[otherPoint, other] : visible) {
            if (other == mount || other->device != mount->device || other->fsType == "overlay") {
                continue;
            }
            const std::optional<std::string_view> inside = below(other->root, mount->root);
            if (!inside) {
                continue;
            }
            std::string path = joined(otherPoint, *inside);
            if (mountShowing(path) != other || !walkPath(roots, path)) {
                continue;
            }
            if (other->root.size() < walked->root.size() || (other->root.size() == walked->root.size() && other->id < walked->id)) {
                walked = other;
                walkedPath = std::move(path);
            }
        }
        if (walked != mount) {
            aliases.push_back(MountAlias{*name, {*walkPath(roots, walkedPath)}, MountAlias::Kind::BindMount});
        }
    }
    return aliases;
}

} // namespace Cachescope
