// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers

#include "treemaplayout.h"

#include <algorithm>
#include <numeric>

namespace Cachescope::App
{

namespace
{
// The worst aspect ratio of a row of areas laid along a side of this length.
double worstRatio(double sum, double smallest, double largest, double side)
{
    const double sideSquared = side * side;
    const double sumSquared = sum * sum;
    return std::max(sideSquared * largest / sumSquared, sumSquared / (sideSquared * smallest));
}
} // namespace

std::vector<QRectF> squarify(const std::vector<double> &weights, const QRectF &bounds)
{
    std::vector<QRectF> rects(weights.size());
    const double total = std::accumulate(weights.begin(), weights.end(), 0.0);
    if (weights.empty() || total <= 0 || bounds.isEmpty()) {
        return rects;
    }
    const double scale = bounds.width() * bounds.height() / total;
    QRectF free = bounds;
    size_t first = 0;
    while (first < weights.size()) {
        const double side = std::min(free.width(), free.height());
        // Grow the row while its worst rectangle gets more square.
        double sum = weights[first] * scale;
        double largest = sum;
        double smallest = sum;
        double worst = worstRatio(sum, smallest, largest, side);
        size_t end = first + 1;
        while (end < weights.size()) {
            const double area = weights[end] * scale;
            const double candidate = worstRatio(sum + area, std::min(smallest, area), std::max(largest, area), side);
            if (candidate > worst) {
                break;
            }
            sum += area;
            smallest = std::min(smallest, area);
            largest = std::max(largest, area);
            worst = candidate;
            ++end;
        }
        if (end == weights.size()) {
            sum = free.width() * free.height(); // what rounding left over goes to the last row
        }
        // The row fills a strip along the shorter side of what is left.
        const bool wide = free.width() >= free.height();
        const double thickness = sum / side;
        double along = wide ? free.top() : free.left();
        for (size_t i = first; i < end; ++i) {
            const double length = (end == weights.size() && i + 1 == end) ? (wide ? free.bottom() : free.right()) - along : weights[i] * scale / thickness;
            rects[i] = wide ? QRectF(free.left(), along, thickness, length) : QRectF(along, free.top(), length, thickness);
            along += length;
        }
        if (wide) {
            free.setLeft(free.left() + thickness);
        } else {
            free.setTop(free.top() + thickness);
        }
        first = end;
    }
    return rects;
}

} // namespace Cachescope::App
