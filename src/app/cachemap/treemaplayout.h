// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers
#pragma once

#include <QRectF>

#include <vector>

namespace Cachescope::App
{

// Squarified treemap layout (Bruls, Huizing and van Wijk, 2000): rectangles
// whose areas are proportional to the weights and whose sides stay close to
// square, so that small shares are still boxes a pointer can find, not
// slivers. The weights must be positive and sorted largest first; the result
// has one rectangle per weight, in the same order, tiling bounds exactly.
[[nodiscard]] std::vector<QRectF> squarify(const std::vector<double> &weights, const QRectF &bounds);

} // namespace Cachescope::App
