// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers

#include "pressurepage.h"

#include "figuretext.h"
#include "plotstyle.h"

#include "ui_ExperimentPressureParametersBase.h"

#include <KLocalizedString>

#include <QCheckBox>

#include <algorithm>

namespace Cachescope::App
{

using namespace Experiments;

PressurePage::PressurePage(QWidget *parent)
    : ExperimentPage({QStringLiteral("pressure"),
                      i18nc("@title experiment", "Memory Pressure"),
                      i18nc("@title experiment", "The cache gives way when programs need memory"),
                      QStringLiteral("memory")},
                     parent)
    , m_form(std::make_unique<Ui::ExperimentPressureParametersBase>())
{
    setUpPage({
        makeParametersForm(*m_form),
        xi18nc("@info",
               "<para>A file is read so that its pages are cached. Then a child process takes memory step by step and touches every "
               "page of it.</para>"
               // vm.swappiness: Documentation/admin-guide/sysctl/vm.rst; reclaim balances anon and file by cost in mm/vmscan.c.
               "<para>Expect the cache to give way first: cached memory shrinks about as much as the child grows. With "
               "vm.swappiness at 0 swap starts to fill only when little cache is left; at the default of 60 the kernel weighs "
               "programs' memory against the cache by what reclaiming each has cost, so some memory may go to swap earlier.</para>"
               "<para>By default the child reads the file and takes memory in a memory cgroup only a little larger than the file, "
               "so the cache must give way however much memory this computer has free, and nothing else is pressed. On the whole "
               "machine the cache gives way only when memory is short.</para>"
               "<para>The child stops short of the available memory by a safety margin, and Cancel frees its memory at once.</para>"),
        {
            // Contained, the cgroup's cache (the machine's would dwarf it).
            {i18nc("@label plot legend", "Cached"),
             PlotColors::cache,
             false,
             [](const Sample &sample) {
                 return mebibytes(sample.groupCached ? sample.groupCached : sample.cached);
             }},
            {i18nc("@label plot legend", "Free"),
             PlotColors::grey,
             false,
             [](const Sample &sample) {
                 return sample.groupCached ? std::nullopt : mebibytes(sample.memFree);
             }},
            bytesSeries(i18nc("@label plot legend", "Cgroup's memory"), PlotColors::teal, false, &Sample::groupUsage),
            bytesSeries(i18nc("@label plot legend", "Allocated by the child"), PlotColors::abyssBlue, false, &Sample::allocated),
            swapUsedSeries(i18nc("@label plot legend", "Swap used")),
            fileInCacheSeries(i18nc("@label plot legend", "Warm file (right scale)"), true),
        },
        i18nc("@label:axis", "Memory (MiB)"),
        i18nc("@label:axis", "Warm file in the cache (%)"),
        {
            {i18nc("@item:inlistbox", "Allocated and cache reclaimed"), {QStringLiteral("allocated"), QStringLiteral("cache_reclaimed")}},
            {measurementLabel("warm_file_survived"), {QStringLiteral("warm_file_survived")}},
            {measurementLabel("swap_used"), {QStringLiteral("swap_used")}},
        },
    });
    addPrivilegedOption(m_form->containedCheck,
                        i18nc("@info:tooltip",
                              "The child reads the file and takes memory in a memory cgroup of the file's size plus the amount "
                              "below, made by the privileged helper and removed after the run, so that the cache gives way on any "
                              "computer and nothing else is pressed."));
    connect(m_form->containedCheck, &QCheckBox::toggled, m_form->headroomSpin, &QWidget::setEnabled);
    addPrivilegedOption(m_form->withoutSwapCheck,
                        i18nc("@info:tooltip",
                              "Turns every swap area off through the privileged helper before the run and back "
                              "on after it, also when the run is cancelled."));
}

PressurePage::~PressurePage() = default;

std::unique_ptr<Experiment> PressurePage::makeExperiment(const PrivilegedSteps &privileged, QString *error)
{
    PressureParameters parameters;
    parameters.file.folder = m_form->folderEdit->text().trimmed().toStdString();
    parameters.file.size = uint64_t(m_form->sizeSpin->value()) << 20;
    parameters.limit = uint64_t(m_form->limitSpin->value()) << 20;
    parameters.step = uint64_t(m_form->stepSpin->value()) << 20;
    parameters.runs = m_form->runsSpin->value();
    parameters.withSwapVariant = m_form->withSwapCheck->isChecked();
    parameters.withoutSwapVariant = m_form->withoutSwapCheck->isChecked() && m_form->withoutSwapCheck->isEnabled();
    parameters.allowOomKiller = m_form->allowOomCheck->isChecked();
    parameters.contained = m_form->containedCheck->isChecked() && m_form->containedCheck->isEnabled();
    parameters.containHeadroom = uint64_t(m_form->headroomSpin->value()) << 20;
    if (!parameters.withSwapVariant && !parameters.withoutSwapVariant) {
        *error = i18nc("@info", "Choose at least one variant: with swap or without.");
        return nullptr;
    }
    if (!checkFolder(m_form->folderEdit->text().trimmed(), error)) {
        return nullptr;
    }
    return makePressureExperiment(parameters, privileged);
}

} // namespace Cachescope::App
