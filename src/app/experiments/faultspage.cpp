// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers

#include "faultspage.h"

#include "figuretext.h"
#include "plotstyle.h"

#include "ui_ExperimentFaultsParametersBase.h"

#include <KLocalizedString>

namespace Cachescope::App
{

using namespace Experiments;

FaultsPage::FaultsPage(QWidget *parent)
    : ExperimentPage({QStringLiteral("faults"),
                      i18nc("@title experiment", "Page Faults and Kinds of I/O"),
                      i18nc("@title experiment", "read(), stdio, setvbuf, mmap and O_DIRECT compared"),
                      QStringLiteral("view-list-details")},
                     parent)
    , m_form(std::make_unique<Ui::ExperimentFaultsParametersBase>())
{
    setUpPage({
        makeParametersForm(*m_form),
        xi18nc("@info",
               "<para>The same file is read in five ways: read() in small pieces, stdio with its own buffer, stdio with a buffer "
               "given by setvbuf(), mmap(), and O_DIRECT, which bypasses the cache; each cold and warm.</para>"
               // Fault-around: mm/memory.c do_fault_around(), fault_around_bytes (64 KiB by default).
               "<para>Expect mmap to cause page faults where read() causes almost none (major when the page must come from the "
               "disk, minor when it is cached), but far fewer faults than pages: the kernel maps the cached pages around a fault "
               "(fault-around, 64 KiB by default) and a large folio's pages at once. read() in small pieces to pay for its many system calls, and O_DIRECT to add nothing to "
               "the cache and to be as slow warm as cold.</para>"),
        {
            fileInCacheSeries(i18nc("@label plot legend", "File in the cache"), false),
            bytesSeries(i18nc("@label plot legend", "Page cache (right scale)"), PlotColors::cache, true, &Sample::cached),
        },
        i18nc("@label:axis", "File in the cache (%)"),
        i18nc("@label:axis", "Page cache (MiB)"),
        {
            {measurementLabel("seconds"), {QStringLiteral("seconds")}},
            {i18nc("@item:inlistbox", "Minor and major faults"), {QStringLiteral("minor_faults"), QStringLiteral("major_faults")}},
            {measurementLabel("cache_bytes_added"), {QStringLiteral("cache_bytes_added")}},
        },
    });
}

FaultsPage::~FaultsPage() = default;

std::unique_ptr<Experiment> FaultsPage::makeExperiment(const PrivilegedSteps &, QString *error)
{
    FaultsParameters parameters;
    parameters.file.folder = m_form->folderEdit->text().trimmed().toStdString();
    parameters.file.size = uint64_t(m_form->sizeSpin->value()) << 20;
    parameters.smallBuffer = uint64_t(m_form->smallBufferSpin->value());
    parameters.stdioChunk = parameters.smallBuffer;
    parameters.setvbufSize = uint64_t(m_form->setvbufSpin->value());
    parameters.runs = m_form->runsSpin->value();
    parameters.cold = m_form->coldCheck->isChecked();
    parameters.warm = m_form->warmCheck->isChecked();
    if (!parameters.cold && !parameters.warm) {
        *error = i18nc("@info", "Choose cold, warm or both.");
        return nullptr;
    }
    if (!checkFolder(m_form->folderEdit->text().trimmed(), error)) {
        return nullptr;
    }
    return makeFaultsExperiment(parameters);
}

} // namespace Cachescope::App
