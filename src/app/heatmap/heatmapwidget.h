// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers
#pragma once

#include "accessibleitems.h"
#include "heatmaptexts.h"

#include <QColor>
#include <QStringList>
#include <QWidget>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace Cachescope
{
struct Histogram;
struct PageRange;
struct ResidencyOptions;
}

namespace Cachescope::App
{

class HeatmapWidgetPrivate;

// The residency of one file as a grid of cells, each a page or a bucket of
// pages, coloured by the resident fraction, dirty pages in their own colour,
// with a legend. The wheel zooms down to single pages; hovering tells the
// offset range and the counts. Hidden residency is drawn hatched with the word
// "hidden", never as a number.
//
// The file is opened once per setFile() and kept open. Reading the residency
// is quick with cachestat and happens at once; where it may be slow (mincore,
// very many cells) it runs on a worker thread and the last answer stays on
// show until the new one arrives: painting only ever draws what is known.
//
// With the keyboard, the arrows move a current cell (framed, its tooltip
// shown), past the edge of a zoomed window moving the window; Enter zooms in
// on it, + - 0 zoom, Ctrl+Left and Ctrl+Right, Page Up and Page Down, Home
// and End move the window. Each cell is an accessible list item: its page
// range and its counts.
class HeatmapWidget : public QWidget, public AccessibleItems
{
    Q_OBJECT

public:
    explicit HeatmapWidget(QWidget *parent = nullptr);
    ~HeatmapWidget() override;

    // The file to show (a path in bytes: names that are not UTF-8 work); empty clears.
    // The same path again keeps the zoom and only refreshes.
    void setFile(const std::string &path);
    [[nodiscard]] std::string file() const;
    void clear();

    // Reads the residency again (the files panel calls it on its refresh timer).
    // Notices a file that grew, shrank, was replaced or vanished.
    void refresh();

    void setCells(int cells); // cells of the whole-file view (default 1024)
    [[nodiscard]] int cells() const;
    // An invalid colour means the default from the palette and colour scheme.
    void setColors(const QColor &resident, const QColor &dirty, const QColor &empty);
    [[nodiscard]] QColor residentColor() const;
    [[nodiscard]] QColor dirtyColor() const;
    [[nodiscard]] QColor emptyColor() const;
    [[nodiscard]] QColor writebackColor() const;

    // mincore instead of cachestat (tests and benchmarks: the slow path).
    void setResidencyOptions(const Cachescope::ResidencyOptions &options);

    // Whether the "Show with Administrator Rights" button of a hidden file can
    // be used, and its tooltip (say why not, when it cannot). Off by default.
    void setPrivilegedViewAvailable(bool available, const QString &toolTip = {});
    // Residency obtained elsewhere (the privileged helper) for the current file,
    // shown with a note until the file changes or becomes visible to us.
    void setExternalHistogram(const Cachescope::Histogram &histogram);
    [[nodiscard]] bool showsPrivilegedView() const;
    // The page cache changed under a view with administrator rights (caches
    // dropped, the file evicted): the view goes, the residency is hidden again
    // and the button asks anew (polkit asks each time). why is a sentence
    // shown under "Hidden".
    void discardPrivilegedView(const QString &why);

    // Shows a histogram recorded elsewhere (an experiment's samples) for a
    // file the widget does not open: no refresh, no zoom. name is shown as the
    // file's name; setFile() or clear() end it.
    void showRecorded(const QString &name, const Cachescope::Histogram &histogram, uint64_t sizeBytes);
    [[nodiscard]] bool showsRecorded() const;
    // Compare mode (Compare with Snapshot): the pages of the file on show
    // that were cached when a snapshot was taken (sorted ranges, in this
    // computer's pages), drawn against those cached now: cached then and
    // now, newly cached, evicted since. inSnapshot false: the snapshot does
    // not record the file. Ends with clearComparison() or another file.
    void setComparison(std::vector<Cachescope::PageRange> before, bool inSnapshot, const QString &snapshotName);
    void clearComparison();
    [[nodiscard]] bool showsComparison() const;

    // What the cells count, and so what the header, the legend and the
    // tooltips say (HeatmapMeaning). Residency by default.
    void setMeaning(HeatmapMeaning meaning);
    [[nodiscard]] HeatmapMeaning meaning() const;

    // Zoom and pan, as the wheel and the keys do.
    void zoomIn();
    void zoomOut();
    void resetZoom();
    void setWindow(uint64_t firstPage, uint64_t pageCount);

    // Read-only view of what is on show (tests, benchmarks, accessibility).
    [[nodiscard]] uint64_t filePageCount() const;
    [[nodiscard]] uint64_t windowFirstPage() const; // of the cells on show
    [[nodiscard]] uint64_t windowPageCount() const;
    [[nodiscard]] int cellCount() const;
    [[nodiscard]] uint64_t cellFirstPage(int cell) const;
    [[nodiscard]] uint64_t cellPageCount(int cell) const;
    [[nodiscard]] uint64_t cellResidentPages(int cell) const;
    [[nodiscard]] uint64_t cellDirtyPages(int cell) const;
    [[nodiscard]] uint64_t cellWritebackPages(int cell) const;
    // Compare mode: pages cached now and not in the snapshot, and the other way round.
    [[nodiscard]] uint64_t cellNewlyCachedPages(int cell) const;
    [[nodiscard]] uint64_t cellEvictedSincePages(int cell) const;
    [[nodiscard]] double cellResidentFraction(int cell) const;
    [[nodiscard]] QRect cellRect(int cell) const; // widget coordinates
    [[nodiscard]] int cellAt(const QPoint &position) const; // -1: none
    [[nodiscard]] QString toolTipForCell(int cell) const;
    // The cell the keyboard is on; -1: none (no cells, or never focused).
    // It follows its page through zooms, pans and refreshes.
    [[nodiscard]] int currentCell() const;
    void setCurrentCell(int cell);
    [[nodiscard]] bool isResidencyHidden() const; // the kernel hides the residency from us
    [[nodiscard]] bool isComputing() const; // a worker is reading the residency
    [[nodiscard]] QString message() const; // why there is nothing to show, if so
    [[nodiscard]] QStringList visibleTexts() const; // every text the widget draws

    [[nodiscard]] QSize sizeHint() const override;
    [[nodiscard]] QSize minimumSizeHint() const override;

    // AccessibleItems: the cells, named by their page range, with the tooltip's figures.
    [[nodiscard]] int accessibleItemCount() const override;
    [[nodiscard]] Item accessibleItem(int item) const override;
    [[nodiscard]] int accessibleItemAt(const QPoint &position) const override;
    [[nodiscard]] int accessibleCurrentItem() const override;
    void setAccessibleCurrentItem(int item) override;

Q_SIGNALS:
    // The person asked to see a hidden file's residency with administrator rights.
    void privilegedViewRequested(const std::string &path);
    // New cells are on show (a refresh, a zoom, a worker's answer).
    void updated();

protected:
    bool event(QEvent *event) override;
    void paintEvent(QPaintEvent *event) override;
    void resizeEvent(QResizeEvent *event) override;
    void wheelEvent(QWheelEvent *event) override;
    void mousePressEvent(QMouseEvent *event) override;
    void mouseMoveEvent(QMouseEvent *event) override;
    void mouseReleaseEvent(QMouseEvent *event) override;
    void keyPressEvent(QKeyEvent *event) override;
    void leaveEvent(QEvent *event) override;
    void changeEvent(QEvent *event) override;
    void focusInEvent(QFocusEvent *event) override;
    void focusOutEvent(QFocusEvent *event) override;

private:
    // The arrow keys: the current cell moves by cells (a row is columns).
    void moveCurrent(int cells);
    // Enter: zoom in around the current cell.
    void zoomInOnCurrent();
    // The current cell's figures, where a keyboard user looks.
    void showCurrentToolTip();

    friend class HeatmapWidgetPrivate;
    std::unique_ptr<HeatmapWidgetPrivate> d;
};

} // namespace Cachescope::App
