// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers

#include "format.h"

#include <array>
#include <charconv>
#include <cmath>
#include <cstring>
#include <iterator>

namespace Cachescope
{

QString formatBytes(uint64_t bytes, ByteStyle style, const QLocale &locale)
{
    if (bytes < 1024) {
        return locale.toString(qulonglong(bytes)) + QStringLiteral(" B");
    }
    static constexpr std::array<const char *, 6> units{"KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
    uint64_t unitBytes = 1024;
    double value = double(bytes) / 1024.0;
    size_t unit = 0;
    // 1023.95 and up would print as "1024.0": move to the next unit instead.
    while (value >= 1023.95 && unit + 1 < units.size()) {
        value /= 1024.0;
        unitBytes *= 1024;
        ++unit;
    }
    const int decimals = style == ByteStyle::Exact && bytes % unitBytes == 0 ? 0 : 1;
    // Rounded as printf("%.1f") rounds (the exact binary value, ties to
    // even: 1280 bytes are "1.2 KiB"), as the command line always printed;
    // QLocale alone would round ties up. The locale then only writes it.
    char digits[64];
    const std::to_chars_result end = std::to_chars(std::begin(digits), std::end(digits), value, std::chars_format::fixed, decimals);
    std::from_chars(std::begin(digits), end.ptr, value, std::chars_format::fixed);
    return locale.toString(value, 'f', decimals) + QLatin1Char(' ') + QLatin1String(units[unit]);
}

QString csvNumber(double value, int fixedDecimals)
{
    return fixedDecimals < 0 ? QString::number(value, 'g', 10) : QString::number(value, 'f', fixedDecimals);
}

std::string errnoText(int error)
{
    // strerrordesc_np() reads a constant table (glibc 2.32+); unknown values
    // get a fixed sentence rather than strerror()'s shared buffer.
    if (const char *text = strerrordesc_np(error)) {
        return text;
    }
    return "error " + std::to_string(error);
}

std::string errnoText(std::string_view what, int error)
{
    std::string text(what);
    text += ": ";
    text += errnoText(error);
    return text;
}

QString errnoQText(int error)
{
    return QString::fromStdString(errnoText(error));
}

double percentShown(uint64_t part, uint64_t whole, int decimals)
{
    if (whole == 0) {
        return 0.0;
    }
    const double step = std::pow(10.0, -decimals);
    const double shown = std::round(100.0 * double(part) / double(whole) / step) * step;
    if (part > 0 && shown < step / 2) {
        return step;
    }
    if (part < whole && shown > 100.0 - step / 2) {
        return 100.0 - step;
    }
    return shown;
}

} // namespace Cachescope
