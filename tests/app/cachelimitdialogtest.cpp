// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers

// Run with a Cache Limit…: its size (the whole title, the explanation and
// the result never squeezed or overlapping, at any size it can take), and a
// command run through cachescope-cli run in its own memory cgroup (as root
// here: the helper's action in process), its cache shown while it runs, its
// output, its exit status at the end, and Stop.

#include "cachelimitdialog.h"
#include "testutil.h"

#include <KSharedConfig>

#include <QDialogButtonBox>
#include <QDir>
#include <QFontDatabase>
#include <QFontInfo>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSpinBox>
#include <QStandardPaths>
#include <QTest>
#include <QTextBlock>

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

QLabel *label(CacheLimitDialog &dialog, const char *name)
{
    return dialog.findChild<QLabel *>(QLatin1String(name));
}

// Nothing in the dialog overlaps anything else, and every wrapped label has
// the height its text needs at its width. Empty when that holds.
QString layoutProblems(CacheLimitDialog &dialog)
{
    QStringList problems;
    QList<QWidget *> shown;
    for (QWidget *child : dialog.findChildren<QWidget *>(Qt::FindDirectChildrenOnly)) {
        if (child->isVisible()) {
            shown << child;
        }
    }
    for (int i = 0; i < shown.size(); ++i) {
        for (int j = i + 1; j < shown.size(); ++j) {
            if (shown[i]->geometry().intersects(shown[j]->geometry())) {
                problems << QStringLiteral("%1 overlaps %2").arg(shown[i]->objectName(), shown[j]->objectName());
            }
        }
        if (!dialog.rect().contains(shown[i]->geometry())) {
            problems << QStringLiteral("%1 is outside").arg(shown[i]->objectName());
        }
        if (auto *text = qobject_cast<QLabel *>(shown[i]); text && text->wordWrap() && text->height() < text->heightForWidth(text->width())) {
            problems << QStringLiteral("%1 is cut: %2 of %3 px high").arg(text->objectName()).arg(text->height()).arg(text->heightForWidth(text->width()));
        }
    }
    return problems.join(QStringLiteral("; "));
}

// Shows the dialog, runs command in it and waits for the end.
void runToTheEnd(CacheLimitDialog &dialog, const QString &command)
{
    dialog.setAttribute(Qt::WA_DeleteOnClose, false);
    dialog.show();
    QVERIFY(QTest::qWaitForWindowExposed(&dialog));
    dialog.findChild<QLineEdit *>(QStringLiteral("commandEdit"))->setText(command);
    QPushButton *start = button(dialog, QStringLiteral("Start"));
    QVERIFY(start);
    start->click();
    QVERIFY(!start->isEnabled());
    QTRY_VERIFY_WITH_TIMEOUT(start->isEnabled(), 20000);
}

void resizeTo(CacheLimitDialog &dialog, const QSize &size)
{
    dialog.resize(size);
    QTRY_COMPARE(dialog.size(), size.expandedTo(dialog.minimumSize()));
}
} // namespace

class CacheLimitDialogTest : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
        KSharedConfig::openStateConfig()->deleteGroup(QStringLiteral("CacheLimitDialog"));
    }

    // It opened at 292 x 224, its title cut by the window manager.
    void opensShowingTheTitleAndTheExplanation()
    {
        CacheLimitDialog dialog;
        dialog.setAttribute(Qt::WA_DeleteOnClose, false);
        dialog.show();
        QVERIFY(QTest::qWaitForWindowExposed(&dialog));
        // The title centred in its bar, with room on either side for four
        // buttons of about 1.5 lines each.
        const QFontMetrics title(QFontDatabase::systemFont(QFontDatabase::TitleFont));
        QVERIFY2(dialog.width() >= title.horizontalAdvance(dialog.windowTitle()) + 2 * 6 * title.height(), qPrintable(QString::number(dialog.width())));
        QVERIFY(dialog.width() >= 600);
        QVERIFY(dialog.height() >= 450);
        QLabel *explanation = label(dialog, "explanationLabel");
        QVERIFY(explanation);
        QVERIFY(explanation->isVisible());
        QTRY_VERIFY2(layoutProblems(dialog).isEmpty(), qPrintable(layoutProblems(dialog)));
        // Its narrowest still shows the whole title.
        QVERIFY(dialog.minimumWidth() >= title.horizontalAdvance(dialog.windowTitle()) + 2 * 6 * title.height());
    }

    void closedSizeComesBack()
    {
        const QSize chosen(820, 640);
        {
            CacheLimitDialog dialog;
            dialog.setAttribute(Qt::WA_DeleteOnClose, false);
            dialog.show();
            QVERIFY(QTest::qWaitForWindowExposed(&dialog));
            resizeTo(dialog, chosen);
            dialog.close();
        }
        CacheLimitDialog again;
        again.setAttribute(Qt::WA_DeleteOnClose, false);
        QCOMPARE(again.size(), chosen);
        KSharedConfig::openStateConfig()->deleteGroup(QStringLiteral("CacheLimitDialog"));
    }

    void runShowsTheCacheAndTheExitStatus()
    {
        if (!TestUtil::isRoot()) {
            QSKIP("the dialog's runs need a memory cgroup: root in tools/dev's root (the helper's action in process)");
        }
        CacheLimitDialog dialog;
        dialog.setAttribute(Qt::WA_DeleteOnClose, false);
        dialog.findChild<QLineEdit *>()->setText(QStringLiteral("sh -c 'sleep 1.5; exit 3'"));
        dialog.findChild<QSpinBox *>()->setValue(32);
        QLabel *status = label(dialog, "statusLabel");
        QVERIFY(status);
        QPushButton *start = button(dialog, QStringLiteral("Start"));
        QVERIFY(start);
        start->click();
        QTRY_VERIFY_WITH_TIMEOUT(status->text().contains(QLatin1String("page cache")), 20000);
        QVERIFY(status->text().contains(QLatin1String("limit 32.0 MiB")));
        QTRY_VERIFY_WITH_TIMEOUT(status->text().contains(QLatin1String("exit status 3")), 20000);
        // The figures may name the exit status a moment before the CLI itself has ended.
        QTRY_VERIFY_WITH_TIMEOUT(start->isEnabled(), 20000);
    }

    // The command's stdout and stderr in a monospace text area; the result
    // (several lines) beside nothing, at every size the dialog can take.
    void runShowsTheCommandsOutput()
    {
        if (!TestUtil::isRoot()) {
            QSKIP("the dialog's runs need a memory cgroup: root in tools/dev's root (the helper's action in process)");
        }
        CacheLimitDialog dialog;
        runToTheEnd(dialog, QStringLiteral("sh -c 'echo hello; echo oops >&2'"));
        if (QTest::currentTestFailed()) {
            return;
        }
        auto *output = dialog.findChild<QPlainTextEdit *>(QStringLiteral("outputView"));
        QVERIFY(output);
        QVERIFY(output->isReadOnly());
        QVERIFY(QFontInfo(output->font()).fixedPitch());
        QLabel *status = label(dialog, "statusLabel");
        QVERIFY(status);
        QVERIFY2(status->text().contains(QLatin1String("Ended with exit status 0")), qPrintable(status->text()));
        const QStringList lines = output->toPlainText().split(QLatin1Char('\n'));
        QVERIFY2(lines.contains(QLatin1String("hello")) && lines.contains(QLatin1String("oops")), qPrintable(output->toPlainText()));
        // The command's lines are its output, not the result.
        QVERIFY2(!status->text().contains(QLatin1String("oops")), qPrintable(status->text()));
        QVERIFY(!output->toPlainText().contains(QLatin1String("cachescope-cli")));

        QLabel *explanation = label(dialog, "explanationLabel");
        const auto check = [&](const char *where) {
            // The layout follows a new text at the next turn of the event
            // loop (a posted LayoutRequest): polled, as a person sees it.
            QTRY_VERIFY2(layoutProblems(dialog).isEmpty() && !status->geometry().intersects(explanation->geometry()),
                         qPrintable(QStringLiteral("%1: %2").arg(QLatin1String(where), layoutProblems(dialog))));
        };
        check("as it opened");
        // As a person sees it after a run.
        const QString screenshots = qEnvironmentVariable("CACHESCOPE_SCREENSHOT_DIR", QStringLiteral(CACHESCOPE_TEST_SCRATCH "/../screenshots"));
        QVERIFY(QDir().mkpath(screenshots));
        QVERIFY(dialog.grab().save(QDir(screenshots).filePath(QStringLiteral("cachelimit-dialog.png"))));
        resizeTo(dialog, dialog.minimumSize());
        check("at its minimum size");
        resizeTo(dialog, QSize(dialog.minimumWidth(), 2000));
        check("narrow and high");
        resizeTo(dialog, QSize(1600, dialog.minimumHeight()));
        check("wide and low");
        resizeTo(dialog, QSize(1, 1));
        check("asked for 1 x 1");
    }

    // A command that writes much: the last lines are kept, and it says so.
    void longOutputKeepsTheLastLines()
    {
        if (!TestUtil::isRoot()) {
            QSKIP("the dialog's runs need a memory cgroup: root in tools/dev's root (the helper's action in process)");
        }
        CacheLimitDialog dialog;
        QLabel *note = label(dialog, "outputNoteLabel");
        QVERIFY(note);
        QVERIFY(note->isHidden());
        runToTheEnd(dialog, QStringLiteral("seq 5000"));
        if (QTest::currentTestFailed()) {
            return;
        }
        auto *output = dialog.findChild<QPlainTextEdit *>(QStringLiteral("outputView"));
        QVERIFY(output);
        QCOMPARE(output->document()->blockCount(), CacheLimitDialog::maxOutputLines);
        QCOMPARE(output->document()->firstBlock().text(), QStringLiteral("4001"));
        QCOMPARE(output->document()->lastBlock().text(), QStringLiteral("5000"));
        QVERIFY(note->isVisible());
        QVERIFY2(note->text().contains(QLatin1String("the last")), qPrintable(note->text()));
        QTRY_VERIFY2(layoutProblems(dialog).isEmpty(), qPrintable(layoutProblems(dialog)));
    }

    void stopInterruptsTheCommand()
    {
        if (!TestUtil::isRoot()) {
            QSKIP("the dialog's runs need a memory cgroup: root in tools/dev's root (the helper's action in process)");
        }
        CacheLimitDialog dialog;
        dialog.setAttribute(Qt::WA_DeleteOnClose, false);
        dialog.findChild<QLineEdit *>()->setText(QStringLiteral("sleep 60"));
        QLabel *status = label(dialog, "statusLabel");
        QVERIFY(status);
        button(dialog, QStringLiteral("Start"))->click();
        QTRY_VERIFY_WITH_TIMEOUT(status->text().contains(QLatin1String("page cache")), 20000);
        button(dialog, QStringLiteral("Stop"))->click();
        // The command got SIGINT from cachescope-cli: 128 + 2.
        QTRY_VERIFY_WITH_TIMEOUT(status->text().contains(QLatin1String("exit status 130")), 20000);
    }
};

QTEST_MAIN(CacheLimitDialogTest)

#include "cachelimitdialogtest.moc"
