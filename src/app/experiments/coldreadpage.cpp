// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers

#include "coldreadpage.h"

#include "figuretext.h"
#include "plotstyle.h"
#include "residency.h"

#include "ui_ExperimentColdReadParametersBase.h"

#include <KLocalizedString>

#include <QFileInfo>
#include <QLabel>
#include <QLineEdit>

namespace Cachescope::App
{

using namespace Experiments;

ColdReadPage::ColdReadPage(QWidget *parent)
    : ExperimentPage({QStringLiteral("cold-read"),
                      i18nc("@title experiment", "Cold and Warm Read"),
                      i18nc("@title experiment", "Reading a file from the disk and from the cache"),
                      QStringLiteral("media-seek-forward")},
                     parent)
    , m_form(std::make_unique<Ui::ExperimentColdReadParametersBase>())
{
    setUpPage({
        makeParametersForm(*m_form),
        xi18nc("@info",
               "<para>A file is read twice: first <emphasis>cold</emphasis>, straight after its pages were evicted, so that every byte comes "
               "from the disk; then <emphasis>warm</emphasis>, when every page is already in memory.</para>"
               "<para>Expect the warm read to be many times faster: the classic demonstration reads a 500 MB file in 6 s cold and in "
               "0.12 s warm. The ratio depends on the disk: large for a hard disk, smaller for a fast SSD.</para>"
               "<para>The plot shows the file filling the cache during each cold read.</para>"),
        {
            fileInCacheSeries(i18nc("@label plot legend", "File in the cache"), false),
            bytesSeries(i18nc("@label plot legend", "Page cache (right scale)"), PlotColors::cache, true, &Sample::cached),
        },
        i18nc("@label:axis", "File in the cache (%)"),
        i18nc("@label:axis", "Page cache (MiB)"),
        {
            {i18nc("@item:inlistbox", "Cold and warm time"), {QStringLiteral("cold_seconds"), QStringLiteral("warm_seconds")}},
            {i18nc("@item:inlistbox", "Cold and warm throughput"), {QStringLiteral("cold_throughput"), QStringLiteral("warm_throughput")}},
            {measurementLabel("cold_warm_ratio"), {QStringLiteral("cold_warm_ratio")}},
        },
    });
    addPrivilegedOption(m_form->dropCachesCheck,
                        i18nc("@info:tooltip",
                              "Drops the page cache (all but the pages programs map) through the privileged helper, as `echo 3 > "
                              "/proc/sys/vm/drop_caches` does. You may be asked for your password."));

    // How far ahead the kernel reads depends on the disk: say which setting
    // the heatmap's run will meet.
    auto *readAheadLabel = new QLabel(m_form->fileEdit->parentWidget());
    readAheadLabel->setObjectName(QStringLiteral("readAheadLabel"));
    readAheadLabel->setWordWrap(true);
    m_form->formLayout->addWidget(readAheadLabel, m_form->formLayout->rowCount(), 0, 1, 2);
    const auto showReadAhead = [this, readAheadLabel] {
        const QString file = m_form->fileEdit->text().trimmed();
        readAheadLabel->setText(readAheadText(file.isEmpty() ? m_form->folderEdit->text().trimmed() : file));
    };
    connect(m_form->fileEdit, &QLineEdit::textChanged, this, showReadAhead);
    connect(m_form->folderEdit, &QLineEdit::textChanged, this, showReadAhead);
    showReadAhead();

    m_heatmap = new HeatmapWidget(this);
    m_heatmap->setObjectName(QStringLiteral("coldReadHeatmap"));
    m_heatmap->setMinimumHeight(170);
    // It takes the height there is, from 170 px: its preferred 360 px would
    // make the scrolling left pane taller than a 800-px screen has room for.
    QSizePolicy heatmapPolicy = m_heatmap->sizePolicy();
    heatmapPolicy.setVerticalPolicy(QSizePolicy::Ignored);
    heatmapPolicy.setVerticalStretch(1); // the room under the form is its, not the spacer's
    m_heatmap->setSizePolicy(heatmapPolicy);
    m_heatmap->setWhatsThis(i18nc("@info:whatsthis",
                                  "The file's pages during the cold read: each cell is a part of the file, filled as its pages arrive in the "
                                  "cache. Sequential reads fill it from the start, a little ahead of the reader (read-ahead)."));
    m_heatmap->setVisible(false);
    addExtraWidget(m_heatmap);
    connect(this, &ExperimentPage::runStarting, this, &ColdReadPage::prepareHeatmap);
    connect(this, &ExperimentPage::sampleArrived, this, &ColdReadPage::showHeatmap);
}

ColdReadPage::~ColdReadPage() = default;

HeatmapWidget *ColdReadPage::fileHeatmap() const
{
    return m_heatmap;
}

void ColdReadPage::prepareHeatmap()
{
    const QString path = m_form->fileEdit->text().trimmed();
    if (!path.isEmpty()) {
        m_heatmapName = QFileInfo(path).fileName();
        m_heatmapSize = uint64_t(std::max<qint64>(QFileInfo(path).size(), 0));
    } else {
        m_heatmapName = i18nc("@label the file the experiment makes", "New file");
        m_heatmapSize = uint64_t(m_form->sizeSpin->value()) << 20;
    }
}

void ColdReadPage::showHeatmap(const Sample &sample)
{
    if (!sample.fileHistogram) {
        return;
    }
    const uint64_t recordedBytes = sample.fileHistogram->pages * pageSize();
    // The size asked for is exact for a file we make; the histogram's pages
    // round up, so it wins only when the two disagree by more than a page.
    const uint64_t size = recordedBytes >= m_heatmapSize && recordedBytes - m_heatmapSize < pageSize() ? m_heatmapSize : recordedBytes;
    m_heatmap->showRecorded(m_heatmapName, *sample.fileHistogram, size);
    m_heatmap->setVisible(true);
}

std::unique_ptr<Experiment> ColdReadPage::makeExperiment(const PrivilegedSteps &privileged, QString *error)
{
    ColdReadParameters parameters;
    parameters.file.path = m_form->fileEdit->text().trimmed().toStdString();
    parameters.file.folder = m_form->folderEdit->text().trimmed().toStdString();
    parameters.file.size = uint64_t(m_form->sizeSpin->value()) << 20;
    parameters.runs = m_form->runsSpin->value();
    parameters.fadviseVariant = m_form->fadviseCheck->isChecked();
    parameters.dropCachesVariant = m_form->dropCachesCheck->isChecked() && m_form->dropCachesCheck->isEnabled();
    if (!parameters.fadviseVariant && !parameters.dropCachesVariant) {
        *error = i18nc("@info", "Choose at least one way to evict the file.");
        return nullptr;
    }
    if (parameters.file.path.empty() && !checkFolder(m_form->folderEdit->text().trimmed(), error)) {
        return nullptr;
    }
    return makeColdReadExperiment(parameters, privileged);
}

} // namespace Cachescope::App
