// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers

#include "filesnaming.h"

#include <QCollator>
#include <QFile>
#include <QLocale>

#include <map>
#include <string_view>

namespace Cachescope::App
{

namespace
{

// The C locale's collation (ICU's en_US_POSIX) is byte order, "X11" before
// "apt": that is what "C.UTF-8" sessions asked for in ls, not in a file list.
// There the Unicode default order stands in, as for English.
QLocale collationLocale()
{
    const QLocale locale;
    return locale.language() == QLocale::C ? QLocale(QLocale::English, QLocale::UnitedStates) : locale;
}

// One collator a thread, made again when the default locale changes.
const QCollator &nameCollator()
{
    thread_local QString localeName;
    thread_local QCollator collator;
    const QLocale locale = collationLocale();
    if (localeName != locale.name()) {
        localeName = locale.name();
        collator = QCollator(locale);
        collator.setNumericMode(true);
        collator.setCaseSensitivity(Qt::CaseInsensitive);
    }
    return collator;
}

// The components of a path, last first: "/usr/lib" is {"lib", "usr"}.
std::vector<std::string_view> componentsFromEnd(std::string_view path)
{
    std::vector<std::string_view> components;
    while (!path.empty()) {
        const size_t slash = path.rfind('/');
        const std::string_view component = slash == std::string_view::npos ? path : path.substr(slash + 1);
        if (!component.empty()) {
            components.push_back(component);
        }
        if (slash == std::string_view::npos) {
            break;
        }
        path = path.substr(0, slash);
    }
    return components;
}

// The last `count` components of a path joined; all of them: the whole path.
// whole: with the leading slash of the whole path ("/lib" beside "usr/lib").
QString lastComponents(std::string_view path, const std::vector<std::string_view> &components, size_t count, bool whole)
{
    if (components.empty()) {
        return QFile::decodeName(QByteArray(path.data(), qsizetype(path.size())));
    }
    std::string joined = whole && path.starts_with('/') ? "/" : "";
    for (size_t i = std::min(count, components.size()); i-- > 0;) {
        joined += components[i];
        if (i > 0) {
            joined += '/';
        }
    }
    return QFile::decodeName(QByteArray::fromStdString(joined));
}

// Whether the last `count` components of a and b are the same.
bool sameEnd(const std::vector<std::string_view> &a, const std::vector<std::string_view> &b, size_t count)
{
    if (std::min(a.size(), count) != std::min(b.size(), count)) {
        return false;
    }
    for (size_t i = 0; i < std::min(a.size(), count); ++i) {
        if (a[i] != b[i]) {
            return false;
        }
    }
    return true;
}

} // namespace

int compareNames(const QString &a, const QString &b)
{
    const int order = nameCollator().compare(a, b);
    return order != 0 ? order : a.compare(b);
}

std::vector<QString> distinctLabels(const std::vector<std::string> &paths)
{
    std::vector<std::vector<std::string_view>> components;
    components.reserve(paths.size());
    std::map<std::string_view, std::vector<size_t>> byName;
    for (size_t i = 0; i < paths.size(); ++i) {
        components.push_back(componentsFromEnd(paths[i]));
        byName[components.back().empty() ? std::string_view(paths[i]) : components.back().front()].push_back(i);
    }
    std::vector<QString> labels(paths.size());
    for (const auto &[name, group] : byName) {
        for (size_t i : group) {
            // As few folders as make this label differ from every other one of the group.
            size_t count = 1;
            const auto clashes = [&](size_t n) {
                for (size_t other : group) {
                    if (other != i && sameEnd(components[i], components[other], n)) {
                        return true;
                    }
                }
                return false;
            };
            while (count < components[i].size() && clashes(count)) {
                ++count;
            }
            // Still the same as another's end: only the leading slash tells "/lib" from "usr/lib".
            labels[i] = lastComponents(paths[i], components[i], count, clashes(count));
        }
    }
    return labels;
}

bool isAtOrBelow(const std::string &path, const std::string &folder)
{
    return path == folder || (path.starts_with(folder) && (folder.ends_with('/') || path[folder.size()] == '/'));
}

std::string folderOf(const std::string &path)
{
    const size_t slash = path.rfind('/');
    if (slash == std::string::npos) {
        return {};
    }
    return slash == 0 ? std::string("/") : path.substr(0, slash);
}

QString displayBaseName(const std::string &path)
{
    std::string_view view(path);
    while (view.size() > 1 && view.back() == '/') {
        view.remove_suffix(1);
    }
    const size_t slash = view.rfind('/');
    if (slash != std::string_view::npos && view.size() > 1) {
        view.remove_prefix(slash + 1);
    }
    return QFile::decodeName(QByteArray(view.data(), qsizetype(view.size())));
}

} // namespace Cachescope::App
