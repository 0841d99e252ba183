// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers

#include "filespanel.h"

FilesPanel::FilesPanel(QWidget *parent)
    : QWidget(parent)
{
}

FilesPanel::~FilesPanel() = default;

void FilesPanel::setUpActions(KActionCollection *)
{
}

void FilesPanel::inspectUrls(const QList<QUrl> &)
{
}

void FilesPanel::evictUrls(const QList<QUrl> &)
{
}

void FilesPanel::setRefreshInterval(int)
{
}

void FilesPanel::setHeatmapCells(int)
{
}

void FilesPanel::setFollowSymlinks(bool)
{
}

void FilesPanel::setOneFileSystem(bool)
{
}

void FilesPanel::setPaused(bool)
{
}
