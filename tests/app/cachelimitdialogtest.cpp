// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers

// Run with a Cache Limit…: a command run through cachescope-cli run in its
// own memory cgroup (as root here: the helper's action in process), its
// cache shown while it runs, its exit status at the end, and Stop.

#include "cachelimitdialog.h"
#include "testutil.h"

#include <QDialogButtonBox>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSpinBox>
#include <QTest>

using Cachescope::App::CacheLimitDialog;

namespace
{
QPushButton *button(CacheLimitDialog &dialog, const QString &text)
{
    for (QPushButton *each : dialog.findChildren<QPushButton *>()) {
        if (each->text().remove(QLatin1Char('&')) == text) {
            return each;
        }
    }
    return nullptr;
}
} // namespace

class CacheLimitDialogTest : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase()
    {
        if (!TestUtil::isRoot()) {
            QSKIP("the dialog's runs need a memory cgroup: root in tools/dev's root (the helper's action in process)");
        }
    }

    void runShowsTheCacheAndTheExitStatus()
    {
        CacheLimitDialog dialog;
        dialog.setAttribute(Qt::WA_DeleteOnClose, false);
        dialog.findChild<QLineEdit *>()->setText(QStringLiteral("sh -c 'sleep 1.5; exit 3'"));
        dialog.findChild<QSpinBox *>()->setValue(32);
        QLabel *status = dialog.findChildren<QLabel *>().last();
        QPushButton *start = button(dialog, QStringLiteral("Start"));
        QVERIFY(start);
        start->click();
        QTRY_VERIFY_WITH_TIMEOUT(status->text().contains(QLatin1String("page cache")), 20000);
        QVERIFY(status->text().contains(QLatin1String("limit 32.0 MiB")));
        QTRY_VERIFY_WITH_TIMEOUT(status->text().contains(QLatin1String("exit status 3")), 20000);
        // The figures may name the exit status a moment before the CLI itself has ended.
        QTRY_VERIFY_WITH_TIMEOUT(start->isEnabled(), 20000);
    }

    void stopInterruptsTheCommand()
    {
        CacheLimitDialog dialog;
        dialog.setAttribute(Qt::WA_DeleteOnClose, false);
        dialog.findChild<QLineEdit *>()->setText(QStringLiteral("sleep 60"));
        QLabel *status = dialog.findChildren<QLabel *>().last();
        button(dialog, QStringLiteral("Start"))->click();
        QTRY_VERIFY_WITH_TIMEOUT(status->text().contains(QLatin1String("page cache")), 20000);
        button(dialog, QStringLiteral("Stop"))->click();
        // The command got SIGINT from cachescope-cli: 128 + 2.
        QTRY_VERIFY_WITH_TIMEOUT(status->text().contains(QLatin1String("exit status 130")), 20000);
    }
};

QTEST_MAIN(CacheLimitDialogTest)

#include "cachelimitdialogtest.moc"
