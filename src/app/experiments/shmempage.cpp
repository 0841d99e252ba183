// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers

#include "shmempage.h"

#include "figuretext.h"
#include "plotstyle.h"

#include "ui_ExperimentShmemParametersBase.h"

#include <KLocalizedString>

#include <QCheckBox>
#include <QLineEdit>
#include <QSpinBox>

#include <algorithm>

namespace Cachescope::App
{

using namespace Experiments;

ShmemPage::ShmemPage(QWidget *parent)
    : ExperimentPage({QStringLiteral("shmem"),
                      i18nc("@title experiment", "Memory That Cannot Be Evicted"),
                      i18nc("@title experiment", "A file on tmpfs is cache that only swap can take back"),
                      QStringLiteral("media-flash")},
                     parent)
    , m_form(std::make_unique<Ui::ExperimentShmemParametersBase>())
{
    setUpPage({
        makeParametersForm(*m_form),
        xi18nc("@info",
               "<para>A file on a tmpfs (<filename>/dev/shm</filename>, <filename>/run</filename>, often <filename>/tmp</filename>), "
               "and shared memory of programs, live in the page cache: <command>free</command> counts them in "
               "<emphasis>buff/cache</emphasis> and in <emphasis>shared</emphasis>, and /proc/meminfo in Cached and Shmem. But no disk "
               "is behind them.</para>"
               "<para>The experiment writes a file to a tmpfs and watches it through four steps. Expect Shmem and Cached to grow by the "
               "file's size; Evict (posix_fadvise) and then drop_caches to leave every page of it in memory, while drop_caches empties "
               "the rest of the cache; in a memory cgroup that holds the file and little more, a process that asks for as much memory again "
               "to hit the cgroup's limit, because without swap the file's pages can go nowhere; and, paged out with swap on, the file "
               "to leave memory for swap, the one place it can go.</para>"
               "<para>This is why dropping caches did not free the memory a <command>free</command> column promised: its buff/cache "
               "includes every tmpfs. The Cache Map's account shows it under tmpfs and shared memory.</para>"
               "<para>The cgroup and the experiment swap file need the privileged helper; Cancel removes the file, the tmpfs, the "
               "cgroup and the swap file.</para>"),
        {
            bytesSeries(i18nc("@label plot legend", "Shmem (free's shared)"), PlotColors::bewareOrange, false, &Sample::shmem),
            bytesSeries(i18nc("@label plot legend", "Cgroup's memory"), PlotColors::teal, false, &Sample::groupUsage),
            bytesSeries(i18nc("@label plot legend", "Allocated by the worker"), PlotColors::abyssBlue, false, &Sample::allocated),
            swapUsedSeries(i18nc("@label plot legend", "Swap used")),
            fileInCacheSeries(i18nc("@label plot legend", "File in memory (right scale)"), true),
        },
        i18nc("@label:axis", "Memory (MiB)"),
        i18nc("@label:axis", "File in memory (%)"),
        {
            {i18nc("@item:inlistbox", "The file in memory after each step"), {QStringLiteral("file_resident_percent"), QStringLiteral("shmem_kept_percent")}},
            {i18nc("@item:inlistbox", "Shmem and Cached grew by"), {QStringLiteral("shmem_added"), QStringLiteral("cached_added")}},
            {measurementLabel("swap_used"), {QStringLiteral("swap_used")}},
            {measurementLabel("allocated"), {QStringLiteral("allocated")}},
        },
    });
    addPrivilegedOption(m_form->pageOutCheck,
                        i18nc("@info:tooltip",
                              "With swap on (the experiment swap file, made and removed through the privileged helper, where this computer "
                              "has none), the file is mapped and its pages reclaimed on request (MADV_PAGEOUT): they go to swap."));
}

ShmemPage::~ShmemPage() = default;

std::unique_ptr<Experiment> ShmemPage::makeExperiment(const PrivilegedSteps &privileged, QString *error)
{
    Q_UNUSED(error)
    ShmemParameters parameters;
    parameters.folder = m_form->tmpfsEdit->text().trimmed().toStdString();
    parameters.size = uint64_t(m_form->sizeSpin->value()) << 20;
    parameters.runs = m_form->runsSpin->value();
    parameters.pressure = m_form->pressureCheck->isChecked();
    parameters.withSwapVariant = m_form->pageOutCheck->isChecked() && m_form->pageOutCheck->isEnabled();
    return makeShmemExperiment(parameters, privileged);
}

} // namespace Cachescope::App
