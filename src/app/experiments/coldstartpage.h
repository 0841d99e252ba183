// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers
#pragma once

// 3. A program's cold start with only its own files evicted, and the list of
// those files with size and residency.

#include "experimentpage.h"

class QTableWidget;

namespace Ui
{
class ExperimentColdStartParametersBase;
}

namespace Cachescope::App
{

class ColdStartPage : public ExperimentPage
{
    Q_OBJECT
public:
    enum FilesColumn {
        FileColumn,
        SizeColumn,
        PagesColumn,
        WarmColumn,
        EvictedColumn,
        NoteColumn,
        FilesColumnCount
    };

    explicit ColdStartPage(QWidget *parent = nullptr);
    ~ColdStartPage() override;
    // The program's files with size and residency, of the result on show.
    [[nodiscard]] QTableWidget *filesTable() const;

protected:
    std::unique_ptr<Experiments::Experiment> makeExperiment(const Experiments::PrivilegedSteps &privileged, QString *error) override;

private:
    void showFiles();

    std::unique_ptr<Ui::ExperimentColdStartParametersBase> m_form;
    QTableWidget *m_filesTable = nullptr;
};

} // namespace Cachescope::App
