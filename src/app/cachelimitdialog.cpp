// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers

#include "cachelimitdialog.h"

#include "procfs.h"

#include <KConfigGroup>
#include <KLocalizedString>
#include <KSharedConfig>
#include <KShell>
#include <KWindowConfig>

#include <QCoreApplication>
#include <QDialogButtonBox>
#include <QFontDatabase>
#include <QFormLayout>
#include <QLabel>
#include <QLineEdit>
#include <QLocale>
#include <QPlainTextEdit>
#include <QProcess>
#include <QPushButton>
#include <QSpinBox>
#include <QStandardPaths>
#include <QVBoxLayout>
#include <QWindow>

#include <algorithm>

namespace Cachescope::App
{

namespace
{
constexpr const char *progressPrefix = "cachescope-cli run: ";
constexpr const char *errorPrefix = "cachescope-cli: ";
// A line of the command's this long with no newline yet is shown as it is.
constexpr qsizetype maxPendingBytes = qsizetype(64) * 1024;

// cachescope-cli next to this program (a build or an install), else on PATH.
QString cliProgram()
{
    const QString beside = QStandardPaths::findExecutable(QStringLiteral("cachescope-cli"), {QCoreApplication::applicationDirPath()});
    return beside.isEmpty() ? QStandardPaths::findExecutable(QStringLiteral("cachescope-cli")) : beside;
}

KConfigGroup savedWindowState()
{
    return KSharedConfig::openStateConfig()->group(QStringLiteral("CacheLimitDialog"));
}

// The width the window manager's title bar needs for this title: the text
// in the title font, centred, with room on either side for the icon or the
// buttons (Breeze's four are about 1.5 lines high each) and the margins.
int titleBarWidth(const QString &title)
{
    const QFontMetrics metrics(QFontDatabase::systemFont(QFontDatabase::TitleFont));
    return metrics.horizontalAdvance(title) + 2 * 7 * metrics.height();
}

// The command's output: a few lines are what it asks for (the layout's
// minimum); it takes whatever room the dialog has beyond that.
class OutputView : public QPlainTextEdit
{
public:
    using QPlainTextEdit::QPlainTextEdit;
    QSize sizeHint() const override
    {
        return QSize(QPlainTextEdit::sizeHint().width(), 6 * fontMetrics().lineSpacing() + 2 * frameWidth());
    }
};

// Takes the complete lines off the front of pending; a line that grew past
// maxPendingBytes without a newline counts as complete.
QList<QByteArray> takeLines(QByteArray &pending)
{
    QList<QByteArray> lines;
    qsizetype start = 0;
    qsizetype end;
    while ((end = pending.indexOf('\n', start)) >= 0) {
        lines << pending.mid(start, end - start);
        start = end + 1;
    }
    pending.remove(0, start);
    if (pending.size() > maxPendingBytes) {
        lines << pending;
        pending.clear();
    }
    return lines;
}
} // namespace

CacheLimitDialog::CacheLimitDialog(QWidget *parent)
    : QDialog(parent)
{
    setObjectName(QStringLiteral("cacheLimitDialog"));
    setWindowTitle(i18nc("@title:window", "Run with a Cache Limit"));
    setAttribute(Qt::WA_DeleteOnClose);
    auto *layout = new QVBoxLayout(this);
    m_explanation = new QLabel(i18nc("@info",
                                     "The command runs in a memory cgroup of its own: the files it reads are cached up to the limit, and the "
                                     "rest of the desktop's cache stays. A command that needs more memory than the limit is stopped by the kernel "
                                     "inside its cgroup."),
                               this);
    m_explanation->setObjectName(QStringLiteral("explanationLabel"));
    m_explanation->setWordWrap(true);
    layout->addWidget(m_explanation);
    auto *form = new QFormLayout;
    m_command = new QLineEdit(this);
    m_command->setObjectName(QStringLiteral("commandEdit"));
    m_command->setPlaceholderText(i18nc("@info:placeholder", "tar -cf /backup/home.tar /home"));
    form->addRow(i18nc("@label:textbox", "Command:"), m_command);
    m_limitMiB = new QSpinBox(this);
    m_limitMiB->setObjectName(QStringLiteral("limitSpin"));
    const std::optional<MemInfo> memInfo = readMemInfo();
    const uint64_t totalMiB = memInfo ? memInfo->find("MemTotal").value_or(1ULL << 30) >> 20 : 1024;
    m_limitMiB->setRange(16, int(std::min<uint64_t>(totalMiB, 1 << 30)));
    m_limitMiB->setValue(256);
    m_limitMiB->setSuffix(i18nc("@item:valuesuffix mebibytes", " MiB"));
    form->addRow(i18nc("@label:spinbox", "Cache limit:"), m_limitMiB);
    layout->addLayout(form);
    m_status = new QLabel(i18nc("@info", "Not running."), this);
    m_status->setObjectName(QStringLiteral("statusLabel"));
    m_status->setWordWrap(true);
    m_status->setTextInteractionFlags(Qt::TextSelectableByMouse);
    layout->addWidget(m_status);

    // The command's own output, as a terminal would show it.
    m_output = new OutputView(this);
    m_output->setObjectName(QStringLiteral("outputView"));
    m_output->setReadOnly(true);
    m_output->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    m_output->setLineWrapMode(QPlainTextEdit::NoWrap);
    m_output->setMaximumBlockCount(maxOutputLines);
    m_output->setPlaceholderText(i18nc("@info:placeholder", "What the command writes shows here."));
    auto *outputLabel = new QLabel(i18nc("@label", "Output of the command:"), this);
    outputLabel->setObjectName(QStringLiteral("outputLabel"));
    outputLabel->setBuddy(m_output);
    layout->addWidget(outputLabel);
    layout->addWidget(m_output, 1);
    m_outputNote = new QLabel(this);
    m_outputNote->setObjectName(QStringLiteral("outputNoteLabel"));
    m_outputNote->setWordWrap(true);
    m_outputNote->hide();
    layout->addWidget(m_outputNote);

    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Close, this);
    buttons->setObjectName(QStringLiteral("buttonBox"));
    m_start = buttons->addButton(i18nc("@action:button", "Start"), QDialogButtonBox::ActionRole);
    m_stop = buttons->addButton(i18nc("@action:button", "Stop"), QDialogButtonBox::ActionRole);
    m_stop->setEnabled(false);
    layout->addWidget(buttons);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    connect(m_start, &QPushButton::clicked, this, &CacheLimitDialog::start);
    connect(m_stop, &QPushButton::clicked, this, &CacheLimitDialog::stop);

    // Wide enough for the whole title and 600 x 450 at least, the labels at
    // their full height and ten more lines of output; then the size it had
    // when it was last closed.
    fitMinimumSize();
    const int width = std::max(minimumWidth(), 600);
    const int outputRoom = 10 * m_output->fontMetrics().lineSpacing();
    resize(width, std::max(450, layout->totalHeightForWidth(width) + outputRoom));
    create();
    KWindowConfig::restoreWindowSize(windowHandle(), savedWindowState());
    resize(windowHandle()->size().expandedTo(minimumSize()));
}

CacheLimitDialog::~CacheLimitDialog()
{
    // Closing the dialog stops the command: its cgroup goes with it.
    if (m_process && m_process->state() != QProcess::NotRunning) {
        m_process->terminate();
        m_process->waitForFinished(5000);
    }
}

void CacheLimitDialog::hideEvent(QHideEvent *event)
{
    KConfigGroup group = savedWindowState();
    KWindowConfig::saveWindowSize(windowHandle(), group);
    QDialog::hideEvent(event);
}

void CacheLimitDialog::fitMinimumSize()
{
    // At its narrowest the dialog still shows its title, and it is never so
    // low that a wrapped label would be squeezed (nor the output under six
    // lines): what fits at the minimum width fits at every larger one, where
    // labels need fewer lines.
    const int width = std::max(layout()->totalMinimumSize().width(), titleBarWidth(windowTitle()));
    setMinimumSize(width, layout()->totalHeightForWidth(width));
}

void CacheLimitDialog::showStatus(const QString &text)
{
    m_status->setText(text);
    fitMinimumSize();
}

void CacheLimitDialog::start()
{
    KShell::Errors errors = KShell::NoError;
    const QStringList command = KShell::splitArgs(m_command->text(), KShell::NoOptions, &errors);
    if (errors != KShell::NoError || command.isEmpty()) {
        showStatus(i18nc("@info", "Type a command to run, with its arguments (quoted as in a shell)."));
        return;
    }
    const QString cli = cliProgram();
    if (cli.isEmpty()) {
        showStatus(i18nc("@info", "cachescope-cli is not installed; it runs the command in its cgroup."));
        return;
    }
    delete m_process;
    m_process = new QProcess(this);
    m_pendingProgress.clear();
    m_pendingOutput.clear();
    m_figures.clear();
    m_endLines.clear();
    m_output->clear();
    m_outputLines = 0;
    m_outputShortened = false;
    m_outputNote->hide();
    // The command's stdout is cachescope-cli's; its stderr comes with the
    // CLI's figures, told apart by their prefix.
    connect(m_process, &QProcess::readyReadStandardError, this, &CacheLimitDialog::readProgress);
    connect(m_process, &QProcess::readyReadStandardOutput, this, &CacheLimitDialog::readOutput);
    connect(m_process, &QProcess::finished, this, &CacheLimitDialog::commandFinished);
    connect(m_process, &QProcess::errorOccurred, this, [this](QProcess::ProcessError error) {
        if (error == QProcess::FailedToStart) {
            commandFinished(127);
        }
    });
    const QStringList arguments = QStringList{QStringLiteral("run"),
                                              QStringLiteral("--progress"),
                                              QStringLiteral("--cache-limit"),
                                              QStringLiteral("%1M").arg(m_limitMiB->value()),
                                              QStringLiteral("--")}
        + command;
    m_process->start(cli, arguments);
    showStatus(i18nc("@info", "Starting (an administrator password may be asked for)…"));
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
    m_pendingProgress += m_process->readAllStandardError();
    QStringList commandLines;
    const auto progressLines = takeLines(m_pendingProgress);
    for (const QByteArray &bytes : progressLines) {
        const QString line = QString::fromUtf8(bytes);
        // The CLI's line may follow what the command wrote without a newline.
        const qsizetype at = line.indexOf(QLatin1String(progressPrefix));
        if (at < 0 && line.startsWith(QLatin1String(errorPrefix))) {
            m_endLines << line; // cachescope-cli could not run the command
            continue;
        }
        if (at < 0) {
            commandLines << line;
            continue;
        }
        if (at > 0) {
            commandLines << line.left(at);
        }
        const QString said = line.mid(at + qsizetype(qstrlen(progressPrefix)));
        if (said.startsWith(QLatin1String("page cache "))) {
            m_figures = said;
            showStatus(said);
        } else {
            m_endLines << said; // the figures at the end, or why it was stopped
        }
    }
    appendOutput(commandLines);
}

void CacheLimitDialog::readOutput()
{
    m_pendingOutput += m_process->readAllStandardOutput();
    QStringList lines;
    const auto outputLines = takeLines(m_pendingOutput);
    for (const QByteArray &bytes : outputLines) {
        lines << QString::fromUtf8(bytes);
    }
    appendOutput(lines);
}

void CacheLimitDialog::appendOutput(QStringList lines)
{
    if (lines.isEmpty()) {
        return;
    }
    m_outputLines += lines.size();
    // Only the last lines stay (setMaximumBlockCount): the others are not even added.
    if (lines.size() > maxOutputLines) {
        lines.erase(lines.begin(), lines.end() - maxOutputLines);
    }
    for (QString &line : lines) {
        if (line.size() > maxOutputLineLength) {
            line.truncate(maxOutputLineLength);
            line += QStringLiteral("…");
            m_outputShortened = true;
        }
    }
    m_output->appendPlainText(lines.join(QLatin1Char('\n')));
    QStringList notes;
    if (m_outputLines > maxOutputLines) {
        notes << i18ncp("@info",
                        "The command wrote %1 line; the last %2 are shown.",
                        "The command wrote %1 lines; the last %2 are shown.",
                        m_outputLines,
                        QLocale().toString(maxOutputLines));
    }
    if (m_outputShortened) {
        notes << i18nc("@info", "Lines longer than %1 characters are cut.", QLocale().toString(maxOutputLineLength));
    }
    if (!notes.isEmpty()) {
        m_outputNote->setText(notes.join(QLatin1Char(' ')));
        m_outputNote->show();
        fitMinimumSize();
    }
}

void CacheLimitDialog::commandFinished(int exitCode)
{
    readProgress();
    readOutput();
    // A last line without its newline.
    QStringList rest;
    for (QByteArray *pending : {&m_pendingOutput, &m_pendingProgress}) {
        if (!pending->isEmpty()) {
            rest << QString::fromUtf8(*pending);
            pending->clear();
        }
    }
    appendOutput(rest);
    const QString summary = m_endLines.isEmpty() ? m_figures : m_endLines.join(QLatin1Char('\n'));
    showStatus(i18nc("@info %1 is the last figures or message, %2 the exit status", "%1\nEnded with exit status %2.", summary, exitCode));
    m_start->setEnabled(true);
    m_stop->setEnabled(false);
    m_command->setEnabled(true);
    m_limitMiB->setEnabled(true);
}

} // namespace Cachescope::App
