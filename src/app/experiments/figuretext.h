// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers
#pragma once

// How the Experiments window writes the engines' figures: names people read
// instead of the engines' identifiers, units, and numbers with as many digits
// as a handful of runs can tell apart.

#include "experiments/experiment.h"

#include <QString>
#include <QStringList>

#include <optional>
#include <string>

namespace Cachescope::App
{

// "Cold time" for "cold_seconds"; an unknown name with its underscores as spaces.
[[nodiscard]] QString measurementLabel(const std::string &name);
// Three significant digits, in the user's locale.
[[nodiscard]] QString formatNumber(double value);

// How a figure of an engine's unit ("s", "bytes", "MiB/s", "MB/s",
// "percent", "ratio", "pages", "count") is shown: multiplied by factor, in
// unit. The unit is picked for a magnitude, as `free -h` and KDE do: 27 ms,
// not 0.027 s; 1.5 GiB, not 1,536 MiB.
struct DisplayScale {
    double factor = 1;
    QString unit; // empty for plain counts
    bool joined = false; // "85%", "3.2×": no space before the unit
    bool whole = false; // counts and pages: whole numbers with group separators
};
[[nodiscard]] DisplayScale displayScale(const std::string &unit, double magnitude);
// The value in that scale, with its unit: "27.3 ms".
[[nodiscard]] QString formatScaled(double value, const DisplayScale &scale);
// The value with the unit that suits it best.
[[nodiscard]] QString formatFigure(const std::string &unit, double value);
// A duration in seconds, in the unit that suits it: "850 µs", "27.3 ms", "1.25 s", "2.50 min".
[[nodiscard]] QString formatDuration(double seconds);
// When the result was started, in the user's locale and time zone.
[[nodiscard]] QString startedText(const Experiments::Result &result);
// The engines write English text in UTF-8 (reasons, variant names, notes).
[[nodiscard]] QString engineText(const std::string &text);
// A finished result's notes, then a line for each variant it skipped and why.
[[nodiscard]] QStringList noteLines(const Experiments::Result &result);

// Live-plot values: bytes and pages in MiB, the share of a file in the cache.
[[nodiscard]] std::optional<double> mebibytes(const std::optional<uint64_t> &bytes);
[[nodiscard]] std::optional<double> pagesInMebibytes(const std::optional<uint64_t> &pages);
[[nodiscard]] std::optional<double> filePercent(const Experiments::Sample &sample);

} // namespace Cachescope::App
