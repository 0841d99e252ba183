// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers
#pragma once

// 9. The thrashing cliff: a working set read pass after pass in a memory
// cgroup, from half its limit to one and a half times it.

#include "experimentpage.h"

namespace Ui
{
class ExperimentThrashCliffParametersBase;
}

namespace Cachescope::App
{

class ThrashCliffPage : public ExperimentPage
{
    Q_OBJECT
public:
    explicit ThrashCliffPage(QWidget *parent = nullptr);
    ~ThrashCliffPage() override;

protected:
    std::unique_ptr<Experiments::Experiment> makeExperiment(const Experiments::PrivilegedSteps &privileged, QString *error) override;

private:
    std::unique_ptr<Ui::ExperimentThrashCliffParametersBase> m_form;
};

} // namespace Cachescope::App
