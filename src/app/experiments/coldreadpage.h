// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers
#pragma once

// 1. Cold read against warm read, with the file's heatmap filling in during
// the cold read.

#include "experimentpage.h"
#include "heatmap/heatmapwidget.h"

namespace Ui
{
class ExperimentColdReadParametersBase;
}

namespace Cachescope::App
{

class ColdReadPage : public ExperimentPage
{
    Q_OBJECT
public:
    explicit ColdReadPage(QWidget *parent = nullptr);
    ~ColdReadPage() override;
    // The file's pages filling in during the cold read (hidden before a run).
    [[nodiscard]] HeatmapWidget *fileHeatmap() const;

protected:
    std::unique_ptr<Experiments::Experiment> makeExperiment(const Experiments::PrivilegedSteps &privileged, QString *error) override;

private:
    void prepareHeatmap();
    void showHeatmap(const Experiments::Sample &sample);

    std::unique_ptr<Ui::ExperimentColdReadParametersBase> m_form;
    HeatmapWidget *m_heatmap = nullptr;
    QString m_heatmapName; // what the heatmap calls the file of this run
    uint64_t m_heatmapSize = 0;
};

} // namespace Cachescope::App
