// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers

#include "writebackpage.h"

#include "figuretext.h"
#include "plotstyle.h"

#include "ui_ExperimentWritebackParametersBase.h"

#include <KLocalizedString>

#include <QGridLayout>
#include <QGroupBox>
#include <QLabel>
#include <QPushButton>

namespace Cachescope::App
{

using namespace Experiments;

WritebackPage::WritebackPage(QWidget *parent)
    : ExperimentPage({QStringLiteral("writeback"),
                      i18nc("@title experiment", "Dirty Pages and Writeback"),
                      i18nc("@title experiment", "Written data waits in the cache before it reaches the disk"),
                      QStringLiteral("document-save")},
                     parent)
    , m_form(std::make_unique<Ui::ExperimentWritebackParametersBase>())
{
    QWidget *form = makeParametersForm(*m_form);

    // The settings that decide when the kernel starts writing back.
    QStringList settings;
    const QJsonObject values = dirtySettings();
    for (auto it = values.begin(); it != values.end(); ++it) {
        settings << QStringLiteral("vm.%1 = %2").arg(it.key(), it.value().toVariant().toString());
    }
    auto *settingsLabel = new QLabel(form);
    settingsLabel->setObjectName(QStringLiteral("dirtySettingsLabel"));
    settingsLabel->setWordWrap(true);
    settingsLabel->setTextInteractionFlags(Qt::TextSelectableByMouse);
    settingsLabel->setText(settings.isEmpty() ? i18nc("@info", "The vm.dirty_* settings cannot be read.")
                                              : i18nc("@info", "This system's settings:\n%1", settings.join(QLatin1Char('\n'))));
    m_form->formLayout->addWidget(settingsLabel, m_form->formLayout->rowCount(), 0, 1, 2);

    setUpPage({
        form,
        xi18nc("@info",
               "<para>Data is written to a file without syncing. It lands in the page cache as <emphasis>dirty</emphasis> pages; the "
               "kernel writes them to the disk later (<emphasis>writeback</emphasis>), when they are old enough or too many.</para>"
               // vm.dirty_expire_centisecs (30 s) and dirty_writeback_centisecs (5 s): Documentation/admin-guide/sysctl/vm.rst.
               "<para>Expect Dirty to rise while writing. With the usual settings, and a file well under "
               "vm.dirty_background_ratio, nothing happens for about 30 s (vm.dirty_expire_centisecs); then, at the flusher's next "
               "wake-up (every 5 s, vm.dirty_writeback_centisecs), Writeback rises and Dirty drains. fsync drains it at once. "
               "While it runs, <interface>fsync Now</interface> and <interface>sync Now</interface> force the "
               "writeback at once and say how long it took; otherwise both run at the end. The table shows how long writing, "
               "fsync and sync took.</para>"),
        {
            bytesSeries(i18nc("@label plot legend", "Dirty"), PlotColors::dirty, false, &Sample::dirty),
            bytesSeries(i18nc("@label plot legend", "Writeback"), PlotColors::writeback, false, &Sample::writeback),
            {i18nc("@label plot legend", "File's dirty pages"),
             PlotColors::plasmaBlue,
             false,
             [](const Sample &sample) {
                 return pagesInMebibytes(sample.fileDirty);
             }},
            bytesSeries(i18nc("@label plot legend", "Written (right scale)"), PlotColors::abyssBlue.darker(140), true, &Sample::written),
        },
        i18nc("@label:axis", "Dirty, writeback (MiB)"),
        i18nc("@label:axis", "Written (MiB)"),
        {
            {i18nc("@item:inlistbox", "Write, fsync and sync time"),
             {QStringLiteral("write_seconds"), QStringLiteral("fsync_seconds"), QStringLiteral("sync_seconds")}},
            {measurementLabel("write_throughput"), {QStringLiteral("write_throughput")}},
        },
    });

    auto *box = new QGroupBox(i18nc("@title:group", "While It Runs"), this);
    box->setObjectName(QStringLiteral("syncBox"));
    auto *grid = new QGridLayout(box);
    m_fsyncButton = new QPushButton(QIcon::fromTheme(QStringLiteral("document-save")), i18nc("@action:button", "fsync Now"), box);
    m_fsyncButton->setToolTip(i18nc("@info:tooltip", "Writes the experiment's file to the disk now and waits until it is there (fsync)."));
    m_syncButton = new QPushButton(QIcon::fromTheme(QStringLiteral("document-save-all")), i18nc("@action:button", "sync Now"), box);
    m_syncButton->setToolTip(i18nc("@info:tooltip", "Writes every dirty page of the whole system to the disks now (sync)."));
    m_fsyncTime = new QLabel(box);
    m_syncTime = new QLabel(box);
    for (QLabel *label : {m_fsyncTime, m_syncTime}) {
        label->setTextInteractionFlags(Qt::TextSelectableByMouse);
    }
    grid->addWidget(m_fsyncButton, 0, 0);
    grid->addWidget(m_fsyncTime, 0, 1);
    grid->addWidget(m_syncButton, 1, 0);
    grid->addWidget(m_syncTime, 1, 1);
    grid->setColumnStretch(1, 1);
    addExtraWidget(box);
    connect(m_fsyncButton, &QPushButton::clicked, this, [this] {
        if (m_requests) {
            m_requests->fsync.fetch_add(1);
            m_fsyncTime->setText(i18nc("@info:status", "Asked for…"));
        }
    });
    connect(m_syncButton, &QPushButton::clicked, this, [this] {
        if (m_requests) {
            m_requests->sync.fetch_add(1);
            m_syncTime->setText(i18nc("@info:status", "Asked for…"));
        }
    });
    const auto enableButtons = [this](bool running) {
        m_fsyncButton->setEnabled(running);
        m_syncButton->setEnabled(running);
    };
    connect(this, &ExperimentPage::runningChanged, this, enableButtons);
    connect(this, &ExperimentPage::runStarting, this, &WritebackPage::resetTimes);
    connect(this, &ExperimentPage::sampleArrived, this, &WritebackPage::showTimes);
    enableButtons(false);
    m_fsyncTime->setText(i18nc("@info:status", "Not run yet"));
    m_syncTime->setText(i18nc("@info:status", "Not run yet"));
}

WritebackPage::~WritebackPage() = default;

QPushButton *WritebackPage::fsyncButton() const
{
    return m_fsyncButton;
}

QPushButton *WritebackPage::syncButton() const
{
    return m_syncButton;
}

QLabel *WritebackPage::fsyncTimeLabel() const
{
    return m_fsyncTime;
}

QLabel *WritebackPage::syncTimeLabel() const
{
    return m_syncTime;
}

void WritebackPage::resetTimes()
{
    m_fsyncAsked = false;
    m_syncAsked = false;
    m_fsyncTime->setText(i18nc("@info:status", "Not run yet"));
    m_syncTime->setText(i18nc("@info:status", "Not run yet"));
}

void WritebackPage::showTimes(const Sample &sample)
{
    // The label keeps what the button did; the call at the end of the run
    // shows there only when the button was not used.
    const bool asked = QString::fromStdString(sample.phase).endsWith(QLatin1String("(asked)"));
    const auto show = [&](QLabel *label, bool &labelAsked, double seconds) {
        if (asked) {
            labelAsked = true;
            label->setText(i18nc("@info:status %1 a duration (27.3 ms), %2 the time since the start (1.25 s)",
                                 "Took %1 (at %2)",
                                 formatDuration(seconds),
                                 formatDuration(sample.seconds)));
        } else if (!labelAsked) {
            label->setText(i18nc("@info:status %1 a duration (27.3 ms)", "At the end: took %1", formatDuration(seconds)));
        }
    };
    if (sample.fsyncSeconds) {
        show(m_fsyncTime, m_fsyncAsked, *sample.fsyncSeconds);
    }
    if (sample.syncSeconds) {
        show(m_syncTime, m_syncAsked, *sample.syncSeconds);
    }
}

std::unique_ptr<Experiment> WritebackPage::makeExperiment(const PrivilegedSteps &, QString *error)
{
    WritebackParameters parameters;
    parameters.file.folder = m_form->folderEdit->text().trimmed().toStdString();
    parameters.file.size = uint64_t(m_form->sizeSpin->value()) << 20;
    parameters.step = uint64_t(m_form->stepSpin->value()) << 20;
    parameters.waitSeconds = m_form->waitSpin->value();
    parameters.runs = m_form->runsSpin->value();
    if (!checkFolder(m_form->folderEdit->text().trimmed(), error)) {
        return nullptr;
    }
    // A fresh set for every run: a click meant for the last run is not carried over.
    m_requests = std::make_shared<WritebackRequests>();
    parameters.requests = m_requests;
    return makeWritebackExperiment(parameters);
}

} // namespace Cachescope::App
