// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers
#pragma once

// 4. Dirty pages and writeback, with fsync Now and sync Now while it runs.

#include "experimentpage.h"

class QLabel;

namespace Ui
{
class ExperimentWritebackParametersBase;
}

namespace Cachescope::App
{

class WritebackPage : public ExperimentPage
{
    Q_OBJECT
public:
    explicit WritebackPage(QWidget *parent = nullptr);
    ~WritebackPage() override;

    // fsync and sync while it runs, and what each took.
    [[nodiscard]] QPushButton *fsyncButton() const;
    [[nodiscard]] QPushButton *syncButton() const;
    [[nodiscard]] QLabel *fsyncTimeLabel() const;
    [[nodiscard]] QLabel *syncTimeLabel() const;

protected:
    std::unique_ptr<Experiments::Experiment> makeExperiment(const Experiments::PrivilegedSteps &privileged, QString *error) override;

private:
    void resetTimes();
    void showTimes(const Experiments::Sample &sample);

    std::unique_ptr<Ui::ExperimentWritebackParametersBase> m_form;
    std::shared_ptr<Experiments::WritebackRequests> m_requests;
    QPushButton *m_fsyncButton = nullptr;
    QPushButton *m_syncButton = nullptr;
    QLabel *m_fsyncTime = nullptr;
    QLabel *m_syncTime = nullptr;
    bool m_fsyncAsked = false;
    bool m_syncAsked = false;
};

} // namespace Cachescope::App
