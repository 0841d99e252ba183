// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers
#pragma once

// 10. Memory that cannot be evicted: a file on a tmpfs through Evict,
// drop_caches, a memory cgroup's limit and swap.

#include "experimentpage.h"

namespace Ui
{
class ExperimentShmemParametersBase;
}

namespace Cachescope::App
{

class ShmemPage : public ExperimentPage
{
    Q_OBJECT
public:
    explicit ShmemPage(QWidget *parent = nullptr);
    ~ShmemPage() override;

protected:
    std::unique_ptr<Experiments::Experiment> makeExperiment(const Experiments::PrivilegedSteps &privileged, QString *error) override;

private:
    std::unique_ptr<Ui::ExperimentShmemParametersBase> m_form;
};

} // namespace Cachescope::App
