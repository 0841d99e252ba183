// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers

#include "heatmapwidget.h"

HeatmapWidget::HeatmapWidget(QWidget *parent)
    : QWidget(parent)
{
}

HeatmapWidget::~HeatmapWidget() = default;

void HeatmapWidget::setFile(const std::string &)
{
}

std::string HeatmapWidget::file() const
{
    return {};
}

void HeatmapWidget::refresh()
{
}

void HeatmapWidget::setCells(int)
{
}

void HeatmapWidget::setColors(const QColor &, const QColor &, const QColor &)
{
}
