// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers
#pragma once

// 8. Drop-behind: a big file read and written four ways, and what each
// leaves of the desktop's cache.

#include "experimentpage.h"

namespace Ui
{
class ExperimentDropBehindParametersBase;
}

namespace Cachescope::App
{

class DropBehindPage : public ExperimentPage
{
    Q_OBJECT
public:
    explicit DropBehindPage(QWidget *parent = nullptr);
    ~DropBehindPage() override;

protected:
    std::unique_ptr<Experiments::Experiment> makeExperiment(const Experiments::PrivilegedSteps &privileged, QString *error) override;

private:
    std::unique_ptr<Ui::ExperimentDropBehindParametersBase> m_form;
};

} // namespace Cachescope::App
