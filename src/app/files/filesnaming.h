// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers
#pragma once

#include <QString>

#include <string>
#include <vector>

namespace Cachescope::App
{

// Names in the order Dolphin shows them: natural ("d2" before "d10"),
// case-insensitive ("apt" before "X11") and in the locale's alphabet ("Äpfel"
// beside "apfel"), with QCollator in numeric mode. Names that differ only in
// case still get a fixed order. Negative, 0 or positive, as QString::compare.
[[nodiscard]] int compareNames(const QString &a, const QString &b);

// What a list of files shows for each of paths (bytes): the base name, and
// where two of them share it, as many of their folders as tell them apart
// ("usr/lib" and "local/lib"), as Kate's documents and Dolphin's tabs do. A
// path that needs all of its folders is shown whole ("/lib").
[[nodiscard]] std::vector<QString> distinctLabels(const std::vector<std::string> &paths);

// Whether path (bytes) is folder or lies below it.
[[nodiscard]] bool isAtOrBelow(const std::string &path, const std::string &folder);
// The display text of path's last name ("/" for "/").
[[nodiscard]] QString displayBaseName(const std::string &path);
// The folder that holds path ("/" for "/etc").
[[nodiscard]] std::string folderOf(const std::string &path);

} // namespace Cachescope::App
