// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers
//
// Text that every part of Cachescope writes the same way: byte sizes, numbers
// for CSV files and errno descriptions. One implementation, so that the
// window, the command-line tool and the helper never disagree on "1.5 MiB".

#pragma once

#include <QLocale>
#include <QString>

#include <cstdint>
#include <string>
#include <string_view>

namespace Cachescope
{

enum class ByteStyle {
    // "0 B", "512 B", "1.5 KiB", "53.0 MiB": binary units, always one decimal
    // from KiB on. Columns of numbers line up.
    OneDecimal,
    // "320 KiB" where the unit divides the size exactly, "1.5 KiB" elsewhere:
    // for labels, where "320.0 KiB" would suggest a rounding that did not happen.
    Exact,
};

// The size in binary units (KiB = 1,024 bytes). The locale decides the
// decimal separator only: the C locale (the default) for the command line and
// logs, QLocale() for text the window shows.
[[nodiscard]] QString formatBytes(uint64_t bytes, ByteStyle style = ByteStyle::OneDecimal, const QLocale &locale = QLocale::c());

// A number for a CSV file: a dot as decimal separator whatever the locale.
// With fixedDecimals < 0, up to 10 significant digits and no trailing zeros
// ("0.25", "1024", "1e-07"); otherwise exactly that many decimals ("12.0").
[[nodiscard]] QString csvNumber(double value, int fixedDecimals = -1);

// strerror() text for an errno value. Thread-safe (strerror() is not: it may
// write a shared buffer for unknown values), so the walker's threads and the
// helper can call it anywhere.
[[nodiscard]] std::string errnoText(int error);
// "what: description", e.g. "fstat: Permission denied".
[[nodiscard]] std::string errnoText(std::string_view what, int error);
[[nodiscard]] QString errnoQText(int error);

// part of whole in percent, at `decimals` decimals, for people to read:
// rounded to the nearest, but never 100 while a part is missing, nor 0 while
// there is one (16,374 of 16,384 pages is 99.9 %, not 100 %; one page of a
// terabyte is 0.1 %, not 0.0 %). 0 when whole is 0.
[[nodiscard]] double percentShown(uint64_t part, uint64_t whole, int decimals);

} // namespace Cachescope
