// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers

#include "freefigurestable.h"

#include "format.h"
#include "procfs.h"

#include <QHeaderView>
#include <QLocale>

namespace Cachescope::App
{

FreeFiguresTable::FreeFiguresTable(QWidget *parent)
    : QTableWidget(parent)
{
}

void FreeFiguresTable::setUpCells()
{
    // One line a cell, whatever the width when the figures first come: a
    // figure wrapped onto two lines while the window was still being laid
    // out made the table (and the memory panel's minimum) a line taller, and
    // the main splitter kept that height once the columns had widened.
    setWordWrap(false);
    horizontalHeader()->setSectionResizeMode(QHeaderView::Stretch);
    verticalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    for (int row = 0; row < RowCount; ++row) {
        for (int column = 0; column < ColumnCount; ++column) {
            auto *cell = new QTableWidgetItem;
            cell->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
            cell->setFlags(Qt::ItemIsEnabled);
            // The cell explains itself like its heading does; swap cells
            // explain swap, whose columns mean something else.
            const QTableWidgetItem *header = row == SwapRow ? verticalHeaderItem(row) : horizontalHeaderItem(column);
            if (header) {
                cell->setToolTip(header->toolTip());
            }
            setItem(row, column, cell);
        }
    }
    fitHeight();
}

void FreeFiguresTable::fitHeight()
{
    resizeRowsToContents();
    setFixedHeight(horizontalHeader()->sizeHint().height() + verticalHeader()->length() + 2 * frameWidth());
}

void FreeFiguresTable::updateGeometries()
{
    QTableWidget::updateGeometries();
    const int fitting = horizontalHeader()->sizeHint().height() + verticalHeader()->length() + 2 * frameWidth();
    if (rowCount() > 0 && height() != fitting) {
        setFixedHeight(fitting);
    }
}

void FreeFiguresTable::showFigures(const FreeFigures &figures)
{
    const auto set = [this](int row, int column, uint64_t bytes) {
        item(row, column)->setText(formatBytes(bytes, ByteStyle::OneDecimal, QLocale()));
    };
    set(MemoryRow, TotalColumn, figures.total);
    set(MemoryRow, UsedColumn, figures.used);
    set(MemoryRow, FreeColumn, figures.free);
    set(MemoryRow, SharedColumn, figures.shared);
    set(MemoryRow, BuffCacheColumn, figures.buffCache);
    set(MemoryRow, AvailableColumn, figures.available);
    set(SwapRow, TotalColumn, figures.swapTotal);
    set(SwapRow, UsedColumn, figures.swapUsed);
    set(SwapRow, FreeColumn, figures.swapFree);
}

} // namespace Cachescope::App
