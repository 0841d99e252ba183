// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers
#pragma once

// 5. Page faults and kinds of I/O: read(), stdio, setvbuf, mmap and O_DIRECT.

#include "experimentpage.h"

namespace Ui
{
class ExperimentFaultsParametersBase;
}

namespace Cachescope::App
{

class FaultsPage : public ExperimentPage
{
    Q_OBJECT
public:
    explicit FaultsPage(QWidget *parent = nullptr);
    ~FaultsPage() override;

protected:
    std::unique_ptr<Experiments::Experiment> makeExperiment(const Experiments::PrivilegedSteps &privileged, QString *error) override;

private:
    std::unique_ptr<Ui::ExperimentFaultsParametersBase> m_form;
};

} // namespace Cachescope::App
