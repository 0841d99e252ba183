// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers
#pragma once

#include <QTableWidget>

namespace Cachescope
{
struct FreeFigures;
}

namespace Cachescope::App
{

// The figures `free` prints, in its rows and columns, each cell explaining
// itself like its heading does. Exactly as tall as its rows: it never
// scrolls, and the plot above gets every other pixel. The memory panel's
// form (MemoryPanelBase.ui) holds it as a promoted QTableWidget, with the
// headings and their tooltips.
class FreeFiguresTable : public QTableWidget
{
    Q_OBJECT

public:
    // The columns and rows, in the order `free` prints them.
    enum Column {
        TotalColumn,
        UsedColumn,
        FreeColumn,
        SharedColumn,
        BuffCacheColumn,
        AvailableColumn,
        ColumnCount
    };
    enum Row {
        MemoryRow,
        SwapRow,
        RowCount
    };

    explicit FreeFiguresTable(QWidget *parent = nullptr);

    // Makes the cells (once the form has set the headings).
    void setUpCells();
    // Fits the height to the heading and the rows (again after font changes).
    void fitHeight();
    void showFigures(const FreeFigures &figures);

protected:
    // Rows fit their contents whenever those change (new figures, the
    // platform's own font on Wayland): the height follows, or the last row
    // is cut off.
    void updateGeometries() override;
};

} // namespace Cachescope::App
