// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers

#include "cachelimitdialog.h"

#include "procfs.h"

#include <KLocalizedString>
#include <KShell>

#include <QCoreApplication>
#include <QDialogButtonBox>
#include <QFormLayout>
#include <QLabel>
#include <QLineEdit>
#include <QProcess>
#include <QPushButton>
#include <QSpinBox>
#include <QStandardPaths>
#include <QVBoxLayout>

namespace Cachescope::App
{

namespace
{
constexpr const char *progressPrefix = "cachescope-cli run: ";

// cachescope-cli next to this program (a build or an install), else on PATH.
QString cliProgram()
{
    const QString beside = QStandardPaths::findExecutable(QStringLiteral("cachescope-cli"), {QCoreApplication::applicationDirPath()});
    return beside.isEmpty() ? QStandardPaths::findExecutable(QStringLiteral("cachescope-cli")) : beside;
}
} // namespace

CacheLimitDialog::CacheLimitDialog(QWidget *parent)
    : QDialog(parent)
{
    setWindowTitle(i18nc("@title:window", "Run with a Cache Limit"));
    setAttribute(Qt::WA_DeleteOnClose);
    auto *layout = new QVBoxLayout(this);
    auto *explanation = new QLabel(i18nc("@info",
                                         "The command runs in a memory cgroup of its own: the files it reads are cached up to the limit, and the "
                                         "rest of the desktop's cache stays. A command that needs more memory than the limit is stopped by the kernel "
                                         "inside its cgroup."),
                                   this);
    explanation->setWordWrap(true);
    layout->addWidget(explanation);
    auto *form = new QFormLayout;
    m_command = new QLineEdit(this);
    m_command->setPlaceholderText(i18nc("@info:placeholder", "tar -cf /backup/home.tar /home"));
    form->addRow(i18nc("@label:textbox", "Command:"), m_command);
    m_limitMiB = new QSpinBox(this);
    const std::optional<MemInfo> memInfo = readMemInfo();
    const uint64_t totalMiB = memInfo ? memInfo->find("MemTotal").value_or(1ULL << 30) >> 20 : 1024;
    m_limitMiB->setRange(16, int(std::min<uint64_t>(totalMiB, 1 << 30)));
    m_limitMiB->setValue(256);
    m_limitMiB->setSuffix(i18nc("@item:valuesuffix mebibytes", " MiB"));
    form->addRow(i18nc("@label:spinbox", "Cache limit:"), m_limitMiB);
    layout->addLayout(form);
    m_status = new QLabel(i18nc("@info", "Not running."), this);
    m_status->setWordWrap(true);
    m_status->setTextInteractionFlags(Qt::TextSelectableByMouse);
    layout->addWidget(m_status);
    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Close, this);
    m_start = buttons->addButton(i18nc("@action:button", "Start"), QDialogButtonBox::ActionRole);
    m_stop = buttons->addButton(i18nc("@action:button", "Stop"), QDialogButtonBox::ActionRole);
    m_stop->setEnabled(false);
    layout->addWidget(buttons);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    connect(m_start, &QPushButton::clicked, this, &CacheLimitDialog::start);
    connect(m_stop, &QPushButton::clicked, this, &CacheLimitDialog::stop);
}

CacheLimitDialog::~CacheLimitDialog()
{
    // Closing the dialog stops the command: its cgroup goes with it.
    if (m_process && m_process->state() != QProcess::NotRunning) {
        m_process->terminate();
        m_process->waitForFinished(5000);
    }
}

void CacheLimitDialog::start()
{
    KShell::Errors errors = KShell::NoError;
    const QStringList command = KShell::splitArgs(m_command->text(), KShell::NoOptions, &errors);
    if (errors != KShell::NoError || command.isEmpty()) {
        m_status->setText(i18nc("@info", "Type a command to run, with its arguments (quoted as in a shell)."));
        return;
    }
    const QString cli = cliProgram();
    if (cli.isEmpty()) {
        m_status->setText(i18nc("@info", "cachescope-cli is not installed; it runs the command in its cgroup."));
        return;
    }
    delete m_process;
    m_process = new QProcess(this);
    m_pending.clear();
    m_summary.clear();
    connect(m_process, &QProcess::readyReadStandardError, this, &CacheLimitDialog::readProgress);
    connect(m_process, &QProcess::finished, this, &CacheLimitDialog::finished);
    // The command's own output is not the dialog's.
    m_process->setStandardOutputFile(QProcess::nullDevice());
    const QStringList arguments = QStringList{QStringLiteral("run"),
                                              QStringLiteral("--progress"),
                                              QStringLiteral("--cache-limit"),
                                              QStringLiteral("%1M").arg(m_limitMiB->value()),
                                              QStringLiteral("--")}
        + command;
    m_process->start(cli, arguments);
    m_status->setText(i18nc("@info", "Starting (an administrator password may be asked for)…"));
    m_start->setEnabled(false);
    m_stop->setEnabled(true);
    m_command->setEnabled(false);
    m_limitMiB->setEnabled(false);
}

void CacheLimitDialog::stop()
{
    // cachescope-cli passes the interrupt on to the command.
    if (m_process) {
        m_process->terminate();
    }
}

void CacheLimitDialog::readProgress()
{
    m_pending += m_process->readAllStandardError();
    qsizetype end;
    while ((end = m_pending.indexOf('\n')) >= 0) {
        const QString line = QString::fromUtf8(m_pending.left(end));
        m_pending.remove(0, end + 1);
        if (line.startsWith(QLatin1String(progressPrefix))) {
            const QString figures = line.mid(int(qstrlen(progressPrefix)));
            m_status->setText(figures);
            m_summary = figures;
        } else if (!line.isEmpty()) {
            m_summary = line; // an error of cachescope-cli or of the command
        }
    }
}

void CacheLimitDialog::finished(int exitCode)
{
    readProgress();
    m_status->setText(i18nc("@info %1 is the last figures or message, %2 the exit status", "%1\nEnded with exit status %2.", m_summary, exitCode));
    m_start->setEnabled(true);
    m_stop->setEnabled(false);
    m_command->setEnabled(true);
    m_limitMiB->setEnabled(true);
}

} // namespace Cachescope::App
