// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers
#pragma once

#include <QColor>
#include <QWidget>

#include <string>

// The residency of one file as a grid of cells, each a page or a bucket of
// pages, coloured by the resident fraction, dirty pages in their own colour,
// with a legend. The wheel zooms down to single pages; hovering tells the
// offset range and the counts. Hidden residency is drawn hatched with the word
// "hidden", never as a number.
class HeatmapWidget : public QWidget
{
    Q_OBJECT

public:
    explicit HeatmapWidget(QWidget *parent = nullptr);
    ~HeatmapWidget() override;

    // The file to show (a path in bytes: names that are not UTF-8 work); empty clears.
    void setFile(const std::string &path);
    [[nodiscard]] std::string file() const;

    // Reads the residency again (the files panel calls it on its refresh timer).
    void refresh();

    void setCells(int cells); // cells of the whole-file view (default 1024)
    void setColors(const QColor &resident, const QColor &dirty, const QColor &empty);

Q_SIGNALS:
    // The person asked to see a hidden file's residency with administrator rights.
    void privilegedViewRequested(const std::string &path);
};
