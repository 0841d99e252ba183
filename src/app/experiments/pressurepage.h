// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers
#pragma once

// 2. Memory pressure: the cache gives way when a program needs memory, with
// swap and without.

#include "experimentpage.h"

namespace Ui
{
class ExperimentPressureParametersBase;
}

namespace Cachescope::App
{

class PressurePage : public ExperimentPage
{
    Q_OBJECT
public:
    explicit PressurePage(QWidget *parent = nullptr);
    ~PressurePage() override;

protected:
    std::unique_ptr<Experiments::Experiment> makeExperiment(const Experiments::PrivilegedSteps &privileged, QString *error) override;

private:
    std::unique_ptr<Ui::ExperimentPressureParametersBase> m_form;
};

} // namespace Cachescope::App
