// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers
#pragma once

// Tools > Run with a Cache Limit…: a command run by `cachescope-cli run
// --cache-limit SIZE --progress`, in a memory cgroup of its own (systemd's
// user manager or the privileged helper), its cache shown live, its own
// output (stdout and stderr) in a text area, Stop to interrupt it (the
// command gets SIGINT; its cgroup goes with it).

#include <QDialog>

class QLabel;
class QLineEdit;
class QPlainTextEdit;
class QProcess;
class QPushButton;
class QSpinBox;

namespace Cachescope::App
{

class CacheLimitDialog : public QDialog
{
    Q_OBJECT
public:
    explicit CacheLimitDialog(QWidget *parent = nullptr);
    ~CacheLimitDialog() override;

    // The command's output keeps at most this many lines, each cut at
    // maxOutputLineLength characters: the text area holds at most a few MiB.
    static constexpr int maxOutputLines = 1000;
    static constexpr int maxOutputLineLength = 4096;

protected:
    void hideEvent(QHideEvent *event) override;

private:
    void start();
    void stop();
    void readProgress();
    void readOutput();
    // The command ended (QDialog::finished is the dialog's own signal).
    void commandFinished(int exitCode);
    void appendOutput(QStringList lines);
    void showStatus(const QString &text);
    void fitMinimumSize();

    QLabel *m_explanation = nullptr;
    QLineEdit *m_command = nullptr;
    QSpinBox *m_limitMiB = nullptr;
    QLabel *m_status = nullptr;
    QPlainTextEdit *m_output = nullptr;
    QLabel *m_outputNote = nullptr;
    QPushButton *m_start = nullptr;
    QPushButton *m_stop = nullptr;
    QProcess *m_process = nullptr;
    QByteArray m_pendingProgress;
    QByteArray m_pendingOutput;
    QString m_figures; // the last live figures
    QStringList m_endLines; // what cachescope-cli said at the end, or its error
    qint64 m_outputLines = 0; // lines the command wrote in this run
    bool m_outputShortened = false; // a line was cut at maxOutputLineLength
};

} // namespace Cachescope::App
