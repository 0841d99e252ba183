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
// Bytes are shown in MiB: the figures of these experiments are megabytes.
[[nodiscard]] double displayValue(const std::string &unit, double value);
[[nodiscard]] QString displayUnit(const std::string &unit);
// Three significant digits, in the user's locale.
[[nodiscard]] QString formatNumber(double value);
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
