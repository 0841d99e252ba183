// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers

#include "thrashcliffpage.h"

#include "figuretext.h"
#include "plotstyle.h"

#include "ui_ExperimentThrashCliffParametersBase.h"

#include <KLocalizedString>

#include <QCheckBox>
#include <QLineEdit>
#include <QSpinBox>

namespace Cachescope::App
{

using namespace Experiments;

ThrashCliffPage::ThrashCliffPage(QWidget *parent)
    : ExperimentPage({QStringLiteral("thrash-cliff"),
                      i18nc("@title experiment", "Thrashing Cliff"),
                      i18nc("@title experiment", "A working set a little larger than the cache goes to the disk every time"),
                      QStringLiteral("view-statistics")},
                     parent)
    , m_form(std::make_unique<Ui::ExperimentThrashCliffParametersBase>())
{
    setUpPage({
        makeParametersForm(*m_form),
        xi18nc("@info",
               "<para>A program reads the same files again and again: a build, a test suite, a database. In a memory cgroup of a "
               "fixed size, a working set of 1 MiB files is read pass after pass, for working sets from half the cgroup's limit to one "
               "and a half times it. The first pass of each fills the cache; the next three are measured.</para>"
               "<para>Expect a cliff, not a slope: while the working set fits, every pass after the first comes from memory; just over "
               "the limit, the pages read longest ago go first, and they are the next pass's first pages, so every pass reads all of it "
               "from the disk again. The kernel calls this thrashing, and counts each page that comes back while its eviction is still remembered as a "
               "<emphasis>refault</emphasis> (cgroup v2; cgroup v1 counts none, so the reads from the disk are shown instead).</para>"
               "<para>Then the second part, why one big read does not push out what you use: files A, a quarter of the limit, are read "
               "once or twice, then files B, larger than the cgroup, are streamed once. Eviction is not a strict LRU: a page starts on the "
               "<emphasis>inactive</emphasis> list, and a second use moves it to the <emphasis>active</emphasis> list, which reclaim "
               "leaves alone while the inactive list is the larger. Expect A read once to be gone after the stream and A read twice to "
               "stay. The third way streams B with POSIX_FADV_NOREUSE, which tells the kernel B will not be used again: since Linux 6.3 "
               "accesses through a mapping of such a file do not count, but <command>read()</command> still marks its pages used, so "
               "expect no change. The multi-gen LRU, where the kernel has it, sorts pages into generations instead; the results say "
               "which LRU this kernel runs.</para>"
               "<para>The passes run in a process inside the cgroup, so nothing else on this computer is pressed. It needs the "
               "privileged helper to make the cgroup; Cancel removes the files and the cgroup.</para>"),
        {bytesSeries(i18nc("@label plot legend", "The cgroup's page cache"), PlotColors::cache, false, &Sample::groupCached)},
        i18nc("@label:axis", "Page cache (MiB)"),
        QString(),
        {
            {measurementLabel("pass_seconds"), {QStringLiteral("pass_seconds")}},
            {measurementLabel("read_from_storage"), {QStringLiteral("read_from_storage")}},
            {measurementLabel("refaults"), {QStringLiteral("refaults")}},
            {measurementLabel("first_kept_percent"), {QStringLiteral("first_kept_percent")}},
            {i18nc("@item:inlistbox", "Active(file) before and after the stream"), {QStringLiteral("active_file_before"), QStringLiteral("active_file_after")}},
        },
    });
}

ThrashCliffPage::~ThrashCliffPage() = default;

std::unique_ptr<Experiment> ThrashCliffPage::makeExperiment(const PrivilegedSteps &privileged, QString *error)
{
    ThrashCliffParameters parameters;
    parameters.folder = m_form->folderEdit->text().trimmed().toStdString();
    parameters.limit = uint64_t(m_form->limitSpin->value()) << 20;
    parameters.runs = m_form->runsSpin->value();
    parameters.scanResistance = m_form->scanCheck->isChecked();
    if (!checkFolder(m_form->folderEdit->text().trimmed(), error)) {
        return nullptr;
    }
    return makeThrashCliffExperiment(parameters, privileged);
}

} // namespace Cachescope::App
