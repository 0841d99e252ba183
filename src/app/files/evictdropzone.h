// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers
#pragma once

#include <QFrame>
#include <QList>
#include <QUrl>

namespace Cachescope::App
{

// A visible target: files and folders dropped here are evicted from the page
// cache at once. It lights up while something that can be dropped is over it.
class EvictDropZone : public QFrame
{
    Q_OBJECT

public:
    explicit EvictDropZone(QWidget *parent = nullptr);

    [[nodiscard]] bool isHighlighted() const
    {
        return m_highlighted;
    }
    // Shows the drag-over look without a drag (screenshots).
    void setHighlighted(bool highlighted);

    QSize sizeHint() const override;
    QSize minimumSizeHint() const override;

Q_SIGNALS:
    void urlsDropped(const QList<QUrl> &urls);

protected:
    void paintEvent(QPaintEvent *event) override;
    void dragEnterEvent(QDragEnterEvent *event) override;
    void dragMoveEvent(QDragMoveEvent *event) override;
    void dragLeaveEvent(QDragLeaveEvent *event) override;
    void dropEvent(QDropEvent *event) override;

private:
    bool m_highlighted = false;
};

} // namespace Cachescope::App
