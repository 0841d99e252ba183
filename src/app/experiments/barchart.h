// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers
#pragma once

// The "Variants compared" chart of an experiment page: the mean of a figure
// over the runs of each variant, with the 95% confidence interval as
// whiskers, for this run and the earlier result beside it. The figure is
// chosen in a combo box: the page's presets first (several figures of one
// unit side by side), then every other figure the results have.

#include "experiments/experiment.h"

#include <QList>
#include <QString>
#include <QStringList>

#include <optional>

class QComboBox;
class QCPBarsGroup;
class QCustomPlot;

namespace Cachescope::App
{

// What the bar chart can show: one or more measurements of the same unit.
struct BarPreset {
    QString label;
    QStringList measurements;
};

class BarChart
{
public:
    BarChart(QCustomPlot *plot, QComboBox *measurementCombo, const QList<BarPreset> &presets);

    // Offers the figures of these results and draws the chosen one.
    void showResults(const std::optional<Experiments::Result> &current, const std::optional<Experiments::Result> &compared, const QString &comparedLabel);
    // Draws the figure chosen in the combo box.
    void draw();

private:
    void fillChoices();

    QCustomPlot *m_plot;
    QComboBox *m_combo;
    QList<BarPreset> m_presets;
    std::optional<Experiments::Result> m_current;
    std::optional<Experiments::Result> m_compared;
    QString m_comparedLabel;
    QCPBarsGroup *m_barsGroup = nullptr;
};

} // namespace Cachescope::App
