// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers
#pragma once

// 7. The folder-eviction lesson: in a memory cgroup too small for four
// folders, evicting a copy nobody will read keeps the folder that will be
// read cached. A table of the figures for each file count and variant, and
// plots of the read's time and of folder 1's cached share against the count.

#include "experimentpage.h"

#include <QColor>
#include <QHash>

class QCustomPlot;
class QTableWidget;

namespace Ui
{
class ExperimentFolderThrashParametersBase;
}

namespace Cachescope::App
{

class FolderThrashPage : public ExperimentPage
{
    Q_OBJECT
public:
    enum LessonColumn {
        FilesColumn,
        VariantColumn,
        ReadColumn,
        CachedColumn,
        ReclaimedColumn,
        RefaultsColumn,
        LessonColumnCount
    };

    explicit FolderThrashPage(QWidget *parent = nullptr);
    ~FolderThrashPage() override;

    [[nodiscard]] QTableWidget *lessonTable() const;
    // The read's time against the file count, and folder 1's cached share.
    [[nodiscard]] QCustomPlot *timePlot() const;
    [[nodiscard]] QCustomPlot *cachedPlot() const;
    // Shows the plots' tab (the screenshot's view).
    void showPlots();

protected:
    std::unique_ptr<Experiments::Experiment> makeExperiment(const Experiments::PrivilegedSteps &privileged, QString *error) override;

private:
    void showLesson();

    std::unique_ptr<Ui::ExperimentFolderThrashParametersBase> m_form;
    QTableWidget *m_lessonTable = nullptr;
    QWidget *m_plots = nullptr;
    QCustomPlot *m_timePlot = nullptr;
    QCustomPlot *m_cachedPlot = nullptr;
    // The live plot's colour of each variant of the run (makeExperiment).
    QHash<QString, QColor> m_variantColors;
};

} // namespace Cachescope::App
