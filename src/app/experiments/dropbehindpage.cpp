// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers

#include "dropbehindpage.h"

#include "figuretext.h"
#include "plotstyle.h"

#include "ui_ExperimentDropBehindParametersBase.h"

#include <KLocalizedString>

#include <QCheckBox>
#include <QLineEdit>
#include <QSpinBox>

namespace Cachescope::App
{

using namespace Experiments;

namespace
{

// "read, fadvise: run 2" -> "read, fadvise"; the setting up between runs
// belongs to no run.
QString variantOfPhase(const std::string &phase)
{
    const size_t mark = phase.rfind(": run ");
    return mark == std::string::npos ? QString() : QString::fromStdString(phase.substr(0, mark));
}

// One hue a way; the writes a lighter shade of the reads'.
QColor wayColor(const QString &variant)
{
    static const QList<std::pair<QLatin1StringView, QColor>> hues = {
        {QLatin1StringView("plain"), PlotColors::iconRed},
        {QLatin1StringView("fadvise"), PlotColors::bewareOrange},
        {QLatin1StringView("dontcache"), PlotColors::nobleGreen},
        {QLatin1StringView("direct"), PlotColors::abyssBlue},
    };
    for (const auto &[method, color] : hues) {
        if (variant.endsWith(method)) {
            return variant.startsWith(QLatin1String("write")) ? color.lighter(140) : color;
        }
    }
    return PlotColors::grey;
}

} // namespace

DropBehindPage::DropBehindPage(QWidget *parent)
    : ExperimentPage({QStringLiteral("drop-behind"),
                      i18nc("@title experiment", "Drop-Behind"),
                      i18nc("@title experiment", "Reading a big file without flushing the desktop's cache"),
                      QStringLiteral("edit-clear-history")},
                     parent)
    , m_form(std::make_unique<Ui::ExperimentDropBehindParametersBase>())
{
    setUpPage({
        makeParametersForm(*m_form),
        xi18nc("@info",
               "<para>A backup, a copy or a checksum reads a big file once. Read plainly, every page of it stays in the cache, and "
               "what does not fit pushes out the pages that were there before: your desktop's. Here a set of <emphasis>desktop</emphasis> "
               "files is read first, then the big file one of four ways, in a memory cgroup a little larger than the big file:</para>"
               "<para><emphasis>plain</emphasis> <function>read()</function>; <function>read()</function> then "
               "<function>posix_fadvise(POSIX_FADV_DONTNEED)</function> on what was read, as it goes (what <command>dd "
               "iflag=nocache</command> and backup tools do); <function>preadv2()</function> with <literal>RWF_DONTCACHE</literal> "
               "(Linux 6.14 and later, where the file system supports it: else the way says so); and <literal>O_DIRECT</literal>, "
               "which bypasses the cache. Then the same four ways write a new file.</para>"
               "<para>Expect the plain way to leave the whole file cached and to push out every page of the desktop's that does not fit beside it; the other "
               "three leave almost nothing of the file and keep the desktop's cache (a dontcache write only as its pages are written back: "
               "until then they wait, dirty, and press the desktop's), at what cost in speed the table says. The plot "
               "shows the big file's pages in the cache during each run.</para>"
               "<para>The reads and writes run in a process inside the cgroup, so nothing else on this computer is pressed. It needs "
               "the privileged helper to make the cgroup; Cancel removes the files and the cgroup.</para>"),
        {fileInCacheSeries(i18nc("@label plot legend", "Big file (%)"), false)},
        i18nc("@label:axis", "Big file in the cache (%)"),
        QString(),
        {
            {measurementLabel("desktop_kept_percent"), {QStringLiteral("desktop_kept_percent")}},
            {measurementLabel("cache_left_percent"), {QStringLiteral("cache_left_percent")}},
            {measurementLabel("throughput"), {QStringLiteral("throughput")}},
        },
        LiveKey::RunTime,
        {},
        LiveRuns{[](const std::string &phase) {
                     return variantOfPhase(phase);
                 },
                 [](const QString &variant) {
                     return wayColor(variant);
                 }},
    });
}

DropBehindPage::~DropBehindPage() = default;

std::unique_ptr<Experiment> DropBehindPage::makeExperiment(const PrivilegedSteps &privileged, QString *error)
{
    DropBehindParameters parameters;
    parameters.folder = m_form->folderEdit->text().trimmed().toStdString();
    parameters.size = uint64_t(m_form->sizeSpin->value()) << 20;
    parameters.limit = uint64_t(m_form->limitSpin->value()) << 20;
    parameters.runs = m_form->runsSpin->value();
    parameters.reads = m_form->readsCheck->isChecked();
    parameters.writes = m_form->writesCheck->isChecked();
    // A way can take a tenth of a second: the plot draws each from samples
    // as close as the engine takes them.
    parameters.sampleIntervalMs = 20;
    if (!parameters.reads && !parameters.writes) {
        *error = i18nc("@info", "Choose reading, writing or both.");
        return nullptr;
    }
    if (!checkFolder(m_form->folderEdit->text().trimmed(), error)) {
        return nullptr;
    }
    return makeDropBehindExperiment(parameters, privileged);
}

} // namespace Cachescope::App
