// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers
#pragma once

// Mount points where a walk would meet files it counts elsewhere too. A bind
// mount shows a folder of a file system at a second path, with the same
// devices and inodes, so a walk of both paths counts every page twice. The
// files of an overlay mount keep their pages in the files of its layers
// (reads through the overlay fill the lower or upper file's cache), so a walk
// of the overlay and of its layers counts those pages twice as well.
//
// Such a mount point below the roots of a walk, whose files the walk reaches
// at another path too, is named and not entered (WalkOptions::countMountsOnce).

#include "procfs.h"

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace Cachescope
{

struct MountAlias {
    enum class Kind : uint8_t {
        BindMount, // another mount of a folder the walk reaches
        Overlay, // its files' pages are those of its layers
        OverlayLayer, // a layer of an overlay walked instead (another layer is out of reach)
        RootAgain, // a folder that is one of the walk's roots (a chroot's own folder, seen from inside it)
    };
    std::string mountPoint; // as the walk names it (below one of its roots)
    // Where the walk counts the same files: one folder for a bind mount or a
    // root, every layer of an overlay (the upper one last).
    std::vector<std::string> countedAt;
    Kind kind = Kind::BindMount;
};

// The mount points below `roots` (as given to the walk: files or folders,
// relative or absolute) whose files are counted at another path below them.
// Of the mounts that show one folder of a file system, the one showing the
// most of it (then the first made) is walked, the others are aliases. An
// overlay is an alias when all its layers lie below the roots, in reach;
// otherwise it is walked and its layers in reach are aliases of it.
[[nodiscard]] std::vector<MountAlias> findMountAliases(const std::vector<MountInfoEntry> &mounts, const std::vector<std::string> &roots);

// The mount seen at each mount point: the last one made there. Holds
// pointers into mounts (and views of their mount points).
using VisibleMounts = std::map<std::string_view, const MountInfoEntry *>;
[[nodiscard]] VisibleMounts visibleMounts(const std::vector<MountInfoEntry> &mounts);
// The mount that shows an absolute path: the visible one at its longest
// mount point; nullptr under none listed (the root file system of a chroot,
// whose "/" mountinfo does not list).
[[nodiscard]] const MountInfoEntry *mountShowing(const VisibleMounts &visible, std::string_view path);

// The layers of an overlay mount, from its super options (lowerdir=, upperdir=).
[[nodiscard]] std::vector<std::string> overlayLayers(const std::string &superOptions);

} // namespace Cachescope
