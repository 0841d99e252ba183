// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers
#pragma once

// Tools > Run with a Cache Limit…: a command run by `cachescope-cli run
// --cache-limit SIZE --progress`, in a memory cgroup of its own (systemd's
// user manager or the privileged helper), its cache shown live, Stop to
// interrupt it (the command gets SIGINT; its cgroup goes with it).

#include <QDialog>

class QLabel;
class QLineEdit;
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

private:
    void start();
    void stop();
    void readProgress();
    void finished(int exitCode);

    QLineEdit *m_command = nullptr;
    QSpinBox *m_limitMiB = nullptr;
    QLabel *m_status = nullptr;
    QPushButton *m_start = nullptr;
    QPushButton *m_stop = nullptr;
    QProcess *m_process = nullptr;
    QByteArray m_pending;
    QString m_summary;
};

} // namespace Cachescope::App
