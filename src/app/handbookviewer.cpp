// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers

#include "handbookviewer.h"

#include <KLocalizedString>
#include <KMessageWidget>

#include <QCoreApplication>
#include <QDesktopServices>
#include <QDir>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QIcon>
#include <QImage>
#include <QPushButton>
#include <QStandardPaths>
#include <QTextBrowser>
#include <QToolButton>
#include <QVBoxLayout>

namespace Cachescope::App
{

namespace
{
constexpr auto indexInData = "cachescope/handbook/index.html";

// The pages name KDE's common style, images and licences as help:/ URLs
// (help:/kdoctools6-common/...), which only a help viewer resolves: here
// they are the files under doc/HTML/en/ in the data folders, and nothing
// (not a broken image) where KDocTools' files are not installed.
class HandbookBrowser : public QTextBrowser
{
public:
    using QTextBrowser::QTextBrowser;

    QVariant loadResource(int type, const QUrl &name) override
    {
        if (name.scheme() != QLatin1String("help")) {
            return QTextBrowser::loadResource(type, name);
        }
        const QString file = QStandardPaths::locate(QStandardPaths::GenericDataLocation, QLatin1String("doc/HTML/en") + name.path());
        if (!file.isEmpty()) {
            return QTextBrowser::loadResource(type, QUrl::fromLocalFile(file));
        }
        if (type == QTextDocument::ImageResource) {
            QImage none(1, 1, QImage::Format_ARGB32);
            none.fill(Qt::transparent);
            return none;
        }
        return {};
    }
};
}

HandbookViewer::HandbookViewer(const QUrl &index, QWidget *parent)
    : QWidget(parent, Qt::Window)
    , m_index(index)
{
    setWindowTitle(i18nc("@title:window", "Cachescope Handbook"));
    setWindowIcon(QIcon::fromTheme(QStringLiteral("help-contents")));
    setAttribute(Qt::WA_DeleteOnClose);

    auto *note = new KMessageWidget(this);
    note->setObjectName(QStringLiteral("handbookViewerNote"));
    note->setMessageType(KMessageWidget::Information);
    note->setWordWrap(true);
    note->setCloseButtonVisible(false);
    note->setText(i18nc("@info", "KHelpCenter, KDE's help viewer, is not installed, so Cachescope shows its handbook here."));

    m_browser = new HandbookBrowser(this);
    m_browser->setObjectName(QStringLiteral("handbookBrowser"));
    m_browser->setAccessibleName(i18nc("@info:whatsthis", "Handbook page"));
    // Pages of the handbook here; links out of it (kernel documentation, man
    // pages on the web) in the web browser.
    m_browser->setOpenLinks(false);
    connect(m_browser, &QTextBrowser::anchorClicked, this, [this](const QUrl &link) {
        const QUrl target = m_browser->source().resolved(link);
        if (target.isLocalFile()) {
            showPage(target);
        } else {
            QDesktopServices::openUrl(target);
        }
    });

    auto button = [this](const char *icon, const QString &toolTip) {
        auto *b = new QToolButton(this);
        b->setIcon(QIcon::fromTheme(QLatin1String(icon)));
        b->setToolTip(toolTip);
        b->setAccessibleName(toolTip); // an icon alone says nothing to a screen reader
        b->setAutoRaise(true);
        return b;
    };
    QToolButton *back = button("go-previous", i18nc("@info:tooltip", "Back"));
    QToolButton *forward = button("go-next", i18nc("@info:tooltip", "Forward"));
    QToolButton *contents = button("go-home", i18nc("@info:tooltip", "Table of contents"));
    back->setEnabled(false);
    forward->setEnabled(false);
    connect(back, &QToolButton::clicked, m_browser, &QTextBrowser::backward);
    connect(forward, &QToolButton::clicked, m_browser, &QTextBrowser::forward);
    connect(contents, &QToolButton::clicked, this, [this] {
        showPage(m_index);
    });
    connect(m_browser, &QTextBrowser::backwardAvailable, back, &QToolButton::setEnabled);
    connect(m_browser, &QTextBrowser::forwardAvailable, forward, &QToolButton::setEnabled);
    auto *webBrowser = new QPushButton(QIcon::fromTheme(QStringLiteral("internet-web-browser")), i18nc("@action:button", "Open in Web Browser"), this);
    webBrowser->setToolTip(i18nc("@info:tooltip", "Show this page in the web browser"));
    connect(webBrowser, &QPushButton::clicked, this, [this] {
        QDesktopServices::openUrl(m_browser->source());
    });

    auto *bar = new QHBoxLayout;
    bar->addWidget(back);
    bar->addWidget(forward);
    bar->addWidget(contents);
    bar->addStretch(1);
    bar->addWidget(webBrowser);
    auto *layout = new QVBoxLayout(this);
    layout->addWidget(note);
    layout->addLayout(bar);
    layout->addWidget(m_browser, 1);

    // Wide enough for the handbook's tables, as a help viewer opens.
    const QFontMetrics metrics(font());
    resize(metrics.averageCharWidth() * 110, metrics.lineSpacing() * 45);
    showPage(index);
}

QUrl HandbookViewer::locateIndex()
{
    const QString besideProgram = QDir(QCoreApplication::applicationDirPath()).filePath(QLatin1String("../share/") + QLatin1String(indexInData));
    if (QFileInfo::exists(besideProgram)) {
        return QUrl::fromLocalFile(QDir::cleanPath(besideProgram));
    }
    const QString inData = QStandardPaths::locate(QStandardPaths::GenericDataLocation, QLatin1String(indexInData));
    return inData.isEmpty() ? QUrl() : QUrl::fromLocalFile(inData);
}

bool HandbookViewer::helpCenterInstalled()
{
    return !QStandardPaths::findExecutable(QStringLiteral("khelpcenter")).isEmpty();
}

QUrl HandbookViewer::currentPage() const
{
    return m_browser->source();
}

void HandbookViewer::showPage(const QUrl &page)
{
    m_browser->setSource(page);
}

QTextBrowser *HandbookViewer::browser() const
{
    return m_browser;
}

} // namespace Cachescope::App
