// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers
#pragma once

// The state behind HeatmapWidget (its d-pointer): the open file, the cells on
// show, the worker that reads them off the UI thread, and the layout. Only
// heatmapwidget.cpp includes it.

#include "heatmapwidget.h"

#include "format.h"
#include "heatmapcolors.h"
#include "heatmapgrid.h"
#include "heatmapmodel.h"
#include "heatmappainter.h"
#include "heatmaptexts.h"
#include "residency.h"
#include "uniquefd.h"

#include <KLocalizedString>

#include <QFile>
#include <QFileInfo>
#include <QFutureWatcher>
#include <QPushButton>
#include <QStyle>
#include <QtConcurrentRun>

#include <fcntl.h>
#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <memory>

namespace Cachescope::App
{

constexpr int defaultHeatmapCells = 1024;
// Compared with more ranges than this, a bucket view asks the kernel often
// enough to be read off the UI thread.
constexpr size_t slowComparisonRanges = 1024;

class HeatmapWidgetPrivate
{
public:
    explicit HeatmapWidgetPrivate(HeatmapWidget *widget)
        : q(widget)
    {
    }

    HeatmapWidget *const q;

    std::string path;
    // A recorded histogram on show (showRecorded): no file is open.
    bool recorded = false;
    HeatmapMeaning meaning = HeatmapMeaning::Residency;
    QString recordedName;
    // Compare mode (setComparison): the pages cached when the snapshot was taken.
    std::shared_ptr<const std::vector<PageRange>> comparison;
    bool comparisonInSnapshot = true;
    QString comparisonName;
    UniqueFd fd;
    struct stat st = {};
    ResidencyOptions options;
    int cells = defaultHeatmapCells;

    // What the person asked to see; `shown` says what is on show.
    Heatmap::Window window;
    bool wholeFileView = true;
    Heatmap::HeatmapCells shown;
    bool haveCells = false;
    QString message; // no file, cannot open, vanished, empty, error
    // Why the view with administrator rights went (discardPrivilegedView), said under "Hidden".
    QString privilegedViewGone;

    // Work off the UI thread: at most one worker per file; a request that
    // comes while it runs waits for it (pending), and a result whose
    // generation is not the latest is dropped.
    uint64_t generation = 0;
    QFutureWatcher<Heatmap::HeatmapCells> *job = nullptr;
    bool pending = false;

    HeatmapColors colors;

    QPushButton *privilegedButton = nullptr;

    mutable HeatmapGrid layout;
    mutable bool layoutValid = false;

    int hovered = -1;
    // The keyboard's current cell, by the page it starts at: it follows that
    // page through zooms, pans and refreshes. None until the widget first has focus.
    bool hasCurrent = false;
    uint64_t currentPage = 0;
    int wheelRemainder = 0;
    bool dragging = false;
    bool pressed = false;
    QPoint pressPosition;
    Heatmap::Window pressWindow;

    [[nodiscard]] QString shownPath() const
    {
        return QFile::decodeName(QByteArray::fromStdString(path));
    }

    [[nodiscard]] QString displayName() const
    {
        if (recorded) {
            return recordedName;
        }
        return QFileInfo(shownPath()).fileName();
    }

    [[nodiscard]] uint64_t fileSize() const
    {
        return uint64_t(std::max<off_t>(st.st_size, 0));
    }

    [[nodiscard]] uint64_t filePages() const
    {
        return pagesFor(fileSize());
    }

    [[nodiscard]] uint64_t minimumWindow() const
    {
        return std::max<uint64_t>(1, std::min<uint64_t>(uint64_t(cells), filePages()));
    }

    [[nodiscard]] bool showsCells() const
    {
        return haveCells && message.isEmpty() && shown.status.known() && !shown.cells.empty();
    }

    [[nodiscard]] bool showsHidden() const
    {
        return haveCells && message.isEmpty() && shown.status.hidden && !shown.privileged;
    }

    [[nodiscard]] bool zoomable() const
    {
        return fd.isValid() && showsCells() && !shown.privileged && filePages() > minimumWindow();
    }

    // The cell that holds currentPage, or the nearest at the window's edge.
    [[nodiscard]] int currentCell() const
    {
        if (!hasCurrent || !showsCells()) {
            return -1;
        }
        const auto after = std::upper_bound(shown.cells.begin(), shown.cells.end(), currentPage, [](uint64_t page, const Heatmap::Cell &c) {
            return page < c.firstPage;
        });
        return after == shown.cells.begin() ? 0 : int(after - shown.cells.begin()) - 1;
    }

    [[nodiscard]] const Heatmap::Cell *cell(int index) const
    {
        if (!showsCells() || index < 0 || size_t(index) >= shown.cells.size()) {
            return nullptr;
        }
        return &shown.cells[size_t(index)];
    }

    void updateColors()
    {
        colors.update(q->palette());
    }

    // --- Files ---------------------------------------------------------------

    void openFile(bool keepWindow)
    {
        fd.reset();
        int error = 0;
        std::string errorText;
        fd = openRegularFile(AT_FDCWD, path.c_str(), false, st, error, errorText);
        if (!fd.isValid()) {
            st = {};
            if (error == ENOENT) {
                showMessage(i18nc("@info", "“%1” does not exist.", shownPath()));
            } else {
                showMessage(i18nc("@info %1 a path, %2 the reason", "Cannot open “%1”: %2", shownPath(), QString::fromLocal8Bit(errorText.c_str())));
            }
            return;
        }
        message.clear();
        if (!keepWindow || wholeFileView) {
            window = {0, filePages()};
            wholeFileView = true;
        } else {
            window = Heatmap::clamped(window, filePages(), minimumWindow());
        }
        requestCompute();
    }

    void showMessage(const QString &text)
    {
        dropJob();
        message = text;
        shown = {};
        haveCells = false;
        hovered = -1;
        layoutValid = false;
        updateButton();
        q->update();
        AccessibleItems::itemsChanged(q, true);
        Q_EMIT q->updated();
    }

    // --- Computing -----------------------------------------------------------

    void dropJob()
    {
        ++generation;
        pending = false;
        if (job) {
            // It finishes on its own (it owns a duplicate of the descriptor);
            // nobody listens to it any more.
            QObject::disconnect(job, nullptr, q, nullptr);
            job = nullptr;
        }
    }

    // What the cells on show mean: compared with a snapshot, residency reads differently.
    [[nodiscard]] HeatmapMeaning shownMeaning() const
    {
        return haveCells && shown.compared && meaning == HeatmapMeaning::Residency ? HeatmapMeaning::SnapshotComparison : meaning;
    }

    [[nodiscard]] static Heatmap::HeatmapCells computeCells(int fd,
                                                            const struct stat &st,
                                                            Heatmap::Window window,
                                                            int cells,
                                                            const ResidencyOptions &options,
                                                            const std::shared_ptr<const std::vector<PageRange>> &before)
    {
        Heatmap::HeatmapCells result = Heatmap::compute(fd, st, window, cells, options);
        if (before) {
            Heatmap::compare(result, fd, st, *before);
        }
        return result;
    }

    void requestCompute()
    {
        if (!fd.isValid()) {
            return;
        }
        ++generation;
        if (!Heatmap::mayBeSlow(cells, options) && !(comparison && comparison->size() > slowComparisonRanges)) {
            apply(computeCells(fd.get(), st, window, cells, options, comparison));
            return;
        }
        if (job) {
            pending = true;
            return;
        }
        startJob();
    }

    void startJob()
    {
        // Shared, because QtConcurrent copies the function it runs.
        auto jobFd = std::make_shared<UniqueFd>(fcntl(fd.get(), F_DUPFD_CLOEXEC, 0));
        if (!jobFd->isValid()) {
            showMessage(i18nc("@info %1 the reason", "Cannot read the residency: %1", errnoQText(errno)));
            return;
        }
        const uint64_t jobGeneration = generation;
        job = new QFutureWatcher<Heatmap::HeatmapCells>(q);
        auto *watcher = job;
        QObject::connect(watcher, &QFutureWatcherBase::finished, watcher, &QObject::deleteLater);
        QObject::connect(watcher, &QFutureWatcherBase::finished, q, [this, watcher, jobGeneration] {
            jobFinished(watcher, jobGeneration);
        });
        const struct stat jobStat = st;
        const Heatmap::Window jobWindow = window;
        const int jobCells = cells;
        const ResidencyOptions jobOptions = options;
        const std::shared_ptr<const std::vector<PageRange>> jobBefore = comparison;
        watcher->setFuture(QtConcurrent::run([jobFd, jobStat, jobWindow, jobCells, jobOptions, jobBefore] {
            return computeCells(jobFd->get(), jobStat, jobWindow, jobCells, jobOptions, jobBefore);
        }));
        q->update(); // the "updating" note
    }

    void jobFinished(QFutureWatcher<Heatmap::HeatmapCells> *watcher, uint64_t jobGeneration)
    {
        if (watcher != job) {
            return;
        }
        job = nullptr;
        if (jobGeneration == generation) {
            apply(watcher->result());
        }
        if (pending) {
            pending = false;
            startJob();
        }
    }

    void apply(Heatmap::HeatmapCells fresh)
    {
        // A privileged view stays until we may see the residency ourselves.
        if (haveCells && shown.privileged && fresh.status.hidden) {
            return;
        }
        if (fresh.status.error != 0) {
            showMessage(i18nc("@info %1 a path, %2 the reason",
                              "Cannot read the residency of “%1”: %2",
                              shownPath(),
                              QString::fromLocal8Bit(fresh.status.errorText.c_str())));
            return;
        }
        message.clear();
        if (fresh.status.known() && fresh.cells.empty()) {
            message = i18nc("@info", "“%1” is empty: it has no pages to cache.", displayName());
        }
        if (!haveCells || shown.cells.size() != fresh.cells.size()) {
            layoutValid = false;
        }
        // Other cells (a zoom, a pan, another file) or only new counts in the same ones.
        const bool otherCells =
            !showsCells() || shown.cells.size() != fresh.cells.size() || shown.windowFirst != fresh.windowFirst || shown.windowPages != fresh.windowPages;
        const int currentBefore = currentCell();
        shown = std::move(fresh);
        haveCells = true;
        if (hovered >= int(shown.cells.size())) {
            hovered = -1;
        }
        if (!hasCurrent && q->hasFocus() && showsCells()) {
            // Focused before there were cells: the first is the current one.
            hasCurrent = true;
            currentPage = shown.cells.front().firstPage;
        }
        updateButton();
        q->update();
        AccessibleItems::itemsChanged(q, otherCells);
        if (otherCells || currentCell() != currentBefore) {
            AccessibleItems::currentItemChanged(q);
        }
        Q_EMIT q->updated();
    }

    void setViewWindow(Heatmap::Window wanted)
    {
        wanted = Heatmap::clamped(wanted, filePages(), minimumWindow());
        if (wanted == window) {
            return;
        }
        window = wanted;
        wholeFileView = window.first == 0 && window.pages == filePages();
        requestCompute();
    }

    // The window after the file changed size: the whole file stays the
    // whole file, a zoomed window stays where it was.
    void fitWindowToFile()
    {
        window = wholeFileView ? Heatmap::Window{0, filePages()} : Heatmap::clamped(window, filePages(), minimumWindow());
    }

    // --- Layout --------------------------------------------------------------

    [[nodiscard]] int spacing() const
    {
        return std::max(4, q->style()->pixelMetric(QStyle::PM_LayoutVerticalSpacing));
    }

    [[nodiscard]] int headerHeight() const
    {
        const QFontMetrics metrics(q->font());
        return metrics.height() * 2 + spacing() / 2;
    }

    // One line, or two where the widget is too narrow for the legend on one.
    [[nodiscard]] int legendHeight() const
    {
        const QFontMetrics metrics(q->font());
        const int lines = q->width() >= HeatmapPainter::legendWidth(metrics, shownMeaning()) ? 1 : 2;
        return metrics.height() * lines;
    }

    [[nodiscard]] const HeatmapGrid &gridLayout(qreal dpr) const
    {
        const int cellTotal = showsCells() ? int(shown.cells.size()) : 0;
        if (layoutValid && layout.dpr == dpr && layout.widgetSize == q->size() && layout.cells == cellTotal) {
            return layout;
        }
        HeatmapGrid l;
        l.dpr = dpr;
        l.widgetSize = q->size();
        l.cells = cellTotal;
        l.fontHeight = QFontMetrics(q->font()).height();
        const int gap = spacing();
        const int top = headerHeight() + gap;
        const int legendTop = std::max(top, q->height() - legendHeight());
        l.legend = QRect(0, legendTop, q->width(), legendHeight());
        l.panel = QRect(0, top, q->width(), std::max(0, legendTop - gap - top));
        l.placeCells();
        layout = l;
        layoutValid = true;
        return layout;
    }

    [[nodiscard]] const HeatmapGrid &widgetLayout() const
    {
        return gridLayout(q->devicePixelRatioF());
    }

    void updateButton()
    {
        const bool show = showsHidden() && !path.empty();
        privilegedButton->setVisible(show);
        if (!show) {
            return;
        }
        const HeatmapGrid &l = widgetLayout();
        const QSize hint = privilegedButton->sizeHint();
        const QRect text = hiddenTextRect(l);
        privilegedButton->setGeometry(QRect(QPoint(l.panel.center().x() - hint.width() / 2, text.bottom() + spacing() * 2), hint));
    }

    // Where "Hidden" and the reason go: the middle of the panel, room for the button below.
    [[nodiscard]] QRect hiddenTextRect(const HeatmapGrid &l) const
    {
        const int lines = 3;
        const int height = l.fontHeight * (lines + 1);
        const int buttonHeight = privilegedButton->sizeHint().height() + spacing() * 2;
        const int top = l.panel.top() + std::max(0, (l.panel.height() - height - buttonHeight) / 2);
        return QRect(l.panel.left() + 12, top, std::max(0, l.panel.width() - 24), height);
    }

    // --- Texts ---------------------------------------------------------------

    [[nodiscard]] HeatmapTexts texts() const
    {
        HeatmapTexts t;
        if (path.empty()) {
            t.overlayText = i18nc("@info placeholder", "Select a file to see which of its pages are in the page cache.");
            return t;
        }
        t.name = displayName();
        if (!message.isEmpty()) {
            t.overlayText = message;
            if (fd.isValid()) {
                t.details = HeatmapTexts::size(fileSize());
            }
            return t;
        }
        if (!haveCells) {
            t.details = HeatmapTexts::size(fileSize());
            t.window = i18nc("@info", "Reading the residency…");
            return t;
        }
        HeatmapTexts cellsTexts = HeatmapTexts::forCells(t.name, shown, showsHidden(), job != nullptr, shownMeaning());
        if (showsHidden() && !privilegedViewGone.isEmpty()) {
            cellsTexts.overlayText += QLatin1Char(' ') + privilegedViewGone;
        }
        if (shown.compared) {
            cellsTexts.addComparison(shown, comparisonInSnapshot, comparisonName);
        }
        return cellsTexts;
    }

    [[nodiscard]] QString toolTip(int index) const
    {
        const Heatmap::Cell *c = cell(index);
        return c ? HeatmapTexts::toolTip(shown, *c, shownMeaning()) : QString();
    }

    [[nodiscard]] QString zoomHint() const
    {
        return HeatmapTexts::zoomHint(wholeFileView);
    }
};

} // namespace Cachescope::App
