// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers

#include "heatmapwidget.h"

#include "focusframe.h"
#include "heatmappainter.h"
#include "heatmapwidget_p.h"

#include <KLocalizedString>

#include <QApplication>
#include <QHelpEvent>
#include <QKeyEvent>
#include <QMouseEvent>
#include <QPainter>
#include <QPushButton>
#include <QToolTip>
#include <QWheelEvent>

#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cmath>

namespace Cachescope::App
{

namespace
{

constexpr int wheelNotch = 120;

} // namespace

HeatmapWidget::HeatmapWidget(QWidget *parent)
    : QWidget(parent)
    , d(std::make_unique<HeatmapWidgetPrivate>(this))
{
    // Before anything asks QAccessible about the heatmap (a child widget, setAccessibleName).
    AccessibleItems::installFactory();
    setFocusPolicy(Qt::WheelFocus);
    setMouseTracking(true);
    setAttribute(Qt::WA_OpaquePaintEvent, false);
    d->privilegedButton = new QPushButton(QIcon::fromTheme(QStringLiteral("security-high")), i18nc("@action:button", "Show with Administrator Rights"), this);
    d->privilegedButton->setVisible(false);
    d->privilegedButton->setEnabled(false);
    d->privilegedButton->setToolTip(i18nc("@info:tooltip", "Needs the Cachescope helper, which is not available."));
    connect(d->privilegedButton, &QPushButton::clicked, this, [this] {
        Q_EMIT privilegedViewRequested(d->path);
    });
    d->updateColors();
    setAccessibleName(i18nc("@info:whatsthis", "Page cache heatmap"));
    setAccessibleDescription(i18nc("@info:whatsthis",
                                   "Which pages of the file are in the page cache, each cell a page or a run of pages. Arrow keys move between the "
                                   "cells, Enter zooms in on one, minus zooms out, 0 shows the whole file."));
}

HeatmapWidget::~HeatmapWidget()
{
    d->dropJob();
}

void HeatmapWidget::setFile(const std::string &path)
{
    if (path.empty()) {
        clear();
        return;
    }
    if (path == d->path && d->fd.isValid()) {
        refresh();
        return;
    }
    d->dropJob();
    d->recorded = false;
    d->path = path;
    d->comparison.reset(); // it was of the other file
    d->shown = {};
    d->haveCells = false;
    d->message.clear();
    d->privilegedViewGone.clear();
    d->hovered = -1;
    d->hasCurrent = false;
    d->layoutValid = false;
    setAccessibleName(i18nc("@info:whatsthis %1 a file's name", "Page cache heatmap of %1", d->displayName()));
    d->openFile(false);
    d->updateButton();
    update();
}

std::string HeatmapWidget::file() const
{
    return d->path;
}

void HeatmapWidget::clear()
{
    d->dropJob();
    d->fd.reset();
    d->recorded = false;
    d->path.clear();
    d->comparison.reset();
    d->st = {};
    d->window = {};
    d->wholeFileView = true;
    d->shown = {};
    d->haveCells = false;
    d->message.clear();
    d->hovered = -1;
    d->hasCurrent = false;
    d->layoutValid = false;
    setAccessibleName(i18nc("@info:whatsthis", "Page cache heatmap"));
    d->updateButton();
    update();
    AccessibleItems::itemsChanged(this, true);
    Q_EMIT updated();
}

void HeatmapWidget::refresh()
{
    if (d->path.empty() || d->recorded) {
        return;
    }
    if (!d->fd.isValid()) {
        // It may exist now.
        d->openFile(true);
        return;
    }
    struct stat now;
    if (::stat(d->path.c_str(), &now) != 0) {
        const int error = errno;
        d->fd.reset();
        d->st = {};
        if (error == ENOENT || error == ENOTDIR) {
            d->showMessage(i18nc("@info", "“%1” no longer exists.", d->shownPath()));
        } else {
            d->showMessage(i18nc("@info %1 a path, %2 the reason", "Cannot open “%1”: %2", d->shownPath(), errnoQText(error)));
        }
        return;
    }
    if (now.st_dev != d->st.st_dev || now.st_ino != d->st.st_ino) {
        // Replaced (an editor saving by rename): show the file the name means now.
        d->openFile(true);
        return;
    }
    if (fstat(d->fd.get(), &d->st) != 0) {
        d->openFile(true);
        return;
    }
    d->fitWindowToFile();
    d->requestCompute();
}

void HeatmapWidget::setCells(int cells)
{
    cells = std::clamp(cells, 1, 1 << 20);
    if (cells == d->cells) {
        return;
    }
    d->cells = cells;
    d->layoutValid = false;
    if (d->fd.isValid()) {
        d->fitWindowToFile();
        d->requestCompute();
    }
}

int HeatmapWidget::cells() const
{
    return d->cells;
}

void HeatmapWidget::setColors(const QColor &resident, const QColor &dirty, const QColor &empty)
{
    d->colors.setCustom(resident, dirty, empty);
    d->updateColors();
    update();
}

QColor HeatmapWidget::residentColor() const
{
    return d->colors.resident();
}

QColor HeatmapWidget::dirtyColor() const
{
    return d->colors.dirty();
}

QColor HeatmapWidget::emptyColor() const
{
    return d->colors.empty();
}

QColor HeatmapWidget::writebackColor() const
{
    return d->colors.writeback();
}

void HeatmapWidget::setResidencyOptions(const ResidencyOptions &options)
{
    d->options = options;
    d->requestCompute();
}

void HeatmapWidget::setPrivilegedViewAvailable(bool available, const QString &toolTip)
{
    d->privilegedButton->setEnabled(available);
    d->privilegedButton->setToolTip(toolTip);
}

void HeatmapWidget::setExternalHistogram(const Histogram &histogram)
{
    if (d->path.empty()) {
        return;
    }
    d->dropJob();
    Heatmap::HeatmapCells cells = Heatmap::fromHistogram(histogram, d->fileSize());
    d->haveCells = false; // let apply() take it even over a privileged one
    d->privilegedViewGone.clear();
    d->apply(std::move(cells));
}

bool HeatmapWidget::showsPrivilegedView() const
{
    return d->haveCells && d->shown.privileged;
}

void HeatmapWidget::discardPrivilegedView(const QString &why)
{
    if (!showsPrivilegedView()) {
        return;
    }
    // The helper's answer was one moment's: it would go on saying pages are
    // cached that are gone. Back to "hidden", with why, and the button.
    d->privilegedViewGone = why;
    d->haveCells = false;
    d->shown = {};
    d->layoutValid = false;
    d->requestCompute();
    d->updateButton();
    update();
}

void HeatmapWidget::showRecorded(const QString &name, const Histogram &histogram, uint64_t sizeBytes)
{
    if (!d->recorded || d->recordedName != name) {
        d->dropJob();
        d->fd.reset();
        d->recorded = true;
        d->recordedName = name;
        d->path = QFile::encodeName(name).toStdString();
        d->hovered = -1;
        d->hasCurrent = false;
        setAccessibleName(i18nc("@info:whatsthis %1 a file's name", "Page cache heatmap of %1", name));
        d->layoutValid = false;
        d->wholeFileView = true;
    }
    d->st = {};
    d->st.st_size = off_t(sizeBytes);
    Heatmap::HeatmapCells cells = Heatmap::fromHistogram(histogram, sizeBytes);
    cells.privileged = false; // our own reading, only not made by this widget
    d->window = {cells.windowFirst, cells.windowPages};
    d->apply(std::move(cells));
}

bool HeatmapWidget::showsRecorded() const
{
    return d->recorded;
}

void HeatmapWidget::setComparison(std::vector<PageRange> before, bool inSnapshot, const QString &snapshotName)
{
    if (d->path.empty() || d->recorded) {
        return;
    }
    d->comparison = std::make_shared<const std::vector<PageRange>>(std::move(before));
    d->comparisonInSnapshot = inSnapshot;
    d->comparisonName = snapshotName;
    d->requestCompute();
    update();
}

void HeatmapWidget::clearComparison()
{
    if (!d->comparison) {
        return;
    }
    d->comparison.reset();
    d->requestCompute();
    update();
}

bool HeatmapWidget::showsComparison() const
{
    return d->comparison && d->showsCells() && d->shown.compared;
}

void HeatmapWidget::setMeaning(HeatmapMeaning meaning)
{
    d->meaning = meaning;
    update();
}

HeatmapMeaning HeatmapWidget::meaning() const
{
    return d->meaning;
}

void HeatmapWidget::zoomIn()
{
    if (d->zoomable()) {
        d->setViewWindow(Heatmap::zoomed(d->window, d->filePages(), d->window.first + d->window.pages / 2, 1, d->minimumWindow()));
    }
}

void HeatmapWidget::zoomOut()
{
    if (d->zoomable()) {
        d->setViewWindow(Heatmap::zoomed(d->window, d->filePages(), d->window.first + d->window.pages / 2, -1, d->minimumWindow()));
    }
}

void HeatmapWidget::resetZoom()
{
    if (d->fd.isValid()) {
        d->setViewWindow({0, d->filePages()});
    }
}

void HeatmapWidget::setWindow(uint64_t firstPage, uint64_t pageCount)
{
    if (d->fd.isValid()) {
        d->setViewWindow({firstPage, pageCount});
    }
}

uint64_t HeatmapWidget::filePageCount() const
{
    return d->haveCells ? d->shown.filePages : d->filePages();
}

uint64_t HeatmapWidget::windowFirstPage() const
{
    return d->showsCells() ? d->shown.windowFirst : 0;
}

uint64_t HeatmapWidget::windowPageCount() const
{
    return d->showsCells() ? d->shown.windowPages : 0;
}

int HeatmapWidget::cellCount() const
{
    return d->showsCells() ? int(d->shown.cells.size()) : 0;
}

uint64_t HeatmapWidget::cellFirstPage(int cell) const
{
    const Heatmap::Cell *c = d->cell(cell);
    return c ? c->firstPage : 0;
}

uint64_t HeatmapWidget::cellPageCount(int cell) const
{
    const Heatmap::Cell *c = d->cell(cell);
    return c ? c->pages : 0;
}

uint64_t HeatmapWidget::cellResidentPages(int cell) const
{
    const Heatmap::Cell *c = d->cell(cell);
    return c ? c->resident : 0;
}

uint64_t HeatmapWidget::cellDirtyPages(int cell) const
{
    const Heatmap::Cell *c = d->cell(cell);
    return c ? c->dirty : 0;
}

uint64_t HeatmapWidget::cellWritebackPages(int cell) const
{
    const Heatmap::Cell *c = d->cell(cell);
    return c ? c->writeback : 0;
}

uint64_t HeatmapWidget::cellNewlyCachedPages(int cell) const
{
    const Heatmap::Cell *c = d->cell(cell);
    return c && d->shown.compared ? c->newlyCached() : 0;
}

uint64_t HeatmapWidget::cellEvictedSincePages(int cell) const
{
    const Heatmap::Cell *c = d->cell(cell);
    return c && d->shown.compared ? c->evictedSince() : 0;
}

double HeatmapWidget::cellResidentFraction(int cell) const
{
    const Heatmap::Cell *c = d->cell(cell);
    return c && c->pages > 0 ? double(c->resident) / double(c->pages) : 0.0;
}

QRect HeatmapWidget::cellRect(int cell) const
{
    const HeatmapGrid &l = d->widgetLayout();
    if (cell < 0 || cell >= l.cells) {
        return {};
    }
    return l.logicalRect(cell);
}

int HeatmapWidget::cellAt(const QPoint &position) const
{
    return d->widgetLayout().cellAt(QPointF(position) + QPointF(0.5, 0.5));
}

QString HeatmapWidget::toolTipForCell(int cell) const
{
    return d->toolTip(cell);
}

int HeatmapWidget::currentCell() const
{
    return d->currentCell();
}

void HeatmapWidget::setCurrentCell(int cell)
{
    const Heatmap::Cell *c = d->cell(cell);
    if (!c) {
        return;
    }
    const int before = d->currentCell();
    d->hasCurrent = true;
    d->currentPage = c->firstPage;
    if (cell != before) {
        update();
        AccessibleItems::currentItemChanged(this);
    }
}

int HeatmapWidget::accessibleItemCount() const
{
    return cellCount();
}

HeatmapWidget::Item HeatmapWidget::accessibleItem(int item) const
{
    // The tooltip's lines: the page range names the cell, the rest are its
    // figures, the third its count ("Cached: 3 of 4 pages (75.0%)", "Read from the disk: …").
    const QStringList lines = d->toolTip(item).split(QLatin1Char('\n'));
    return {lines.value(0), lines.mid(1).join(QLatin1Char('\n')), lines.value(2), cellRect(item)};
}

int HeatmapWidget::accessibleItemAt(const QPoint &position) const
{
    return cellAt(position);
}

int HeatmapWidget::accessibleCurrentItem() const
{
    return currentCell();
}

void HeatmapWidget::setAccessibleCurrentItem(int item)
{
    activateWindow();
    setFocus(Qt::OtherFocusReason);
    setCurrentCell(item);
}

bool HeatmapWidget::isResidencyHidden() const
{
    return d->showsHidden();
}

bool HeatmapWidget::isComputing() const
{
    return d->job != nullptr;
}

QString HeatmapWidget::message() const
{
    return d->message;
}

QStringList HeatmapWidget::visibleTexts() const
{
    const HeatmapTexts t = d->texts();
    QStringList result;
    for (const QString &text : {t.name, t.details, t.window, t.overlayTitle, t.overlayText}) {
        if (!text.isEmpty()) {
            result << text;
        }
    }
    result << HeatmapTexts::legendLabels(d->shownMeaning());
    if (d->zoomable()) {
        result << d->zoomHint();
    }
    if (d->privilegedButton->isVisibleTo(this)) {
        result << d->privilegedButton->text();
    }
    return result;
}

QSize HeatmapWidget::sizeHint() const
{
    return {640, 360};
}

QSize HeatmapWidget::minimumSizeHint() const
{
    const QFontMetrics metrics(font());
    return {metrics.averageCharWidth() * 40, d->headerHeight() + d->legendHeight() + metrics.height() * 3};
}

bool HeatmapWidget::event(QEvent *event)
{
    if (event->type() == QEvent::ToolTip) {
        auto *help = static_cast<QHelpEvent *>(event);
        const int index = cellAt(help->pos());
        if (index >= 0) {
            QToolTip::showText(help->globalPos(), d->toolTip(index), this, cellRect(index));
        } else {
            QToolTip::hideText();
            event->ignore();
        }
        return true;
    }
    return QWidget::event(event);
}

void HeatmapWidget::paintEvent(QPaintEvent *)
{
    QPainter painter(this);
    const HeatmapGrid &l = d->gridLayout(painter.device()->devicePixelRatioF());
    const HeatmapTexts t = d->texts();
    HeatmapPainter heatmapPainter(painter, *this, d->colors, l);
    heatmapPainter.paintHeader(t, d->spacing() / 2);
    heatmapPainter.paintPanel();
    if (d->showsHidden()) {
        heatmapPainter.paintHidden(t, d->hiddenTextRect(l));
    } else if (d->showsCells()) {
        heatmapPainter.paintCells(d->shown.cells, d->hovered, d->shown.compared);
        if (hasFocus() && d->currentCell() >= 0) {
            paintFocusFrame(painter, QRectF(cellRect(d->currentCell())).adjusted(-3, -3, 3, 3), palette(), d->colors.forCell(*d->cell(d->currentCell())));
        }
    } else if (!t.overlayText.isEmpty()) {
        heatmapPainter.paintMessage(t.overlayText);
    }
    heatmapPainter.paintLegend(d->zoomable() ? d->zoomHint() : QString(), d->shownMeaning());
}

void HeatmapWidget::resizeEvent(QResizeEvent *event)
{
    QWidget::resizeEvent(event);
    d->layoutValid = false;
    d->updateButton();
}

void HeatmapWidget::wheelEvent(QWheelEvent *event)
{
    if (!d->zoomable()) {
        event->ignore();
        return;
    }
    d->wheelRemainder += event->angleDelta().y();
    const int steps = d->wheelRemainder / wheelNotch;
    d->wheelRemainder -= steps * wheelNotch;
    event->accept();
    if (steps == 0) {
        return;
    }
    // The page under the pointer, to the page inside a bucket (by where in
    // the cell the pointer is), keeps its place on screen.
    const int index = cellAt(event->position().toPoint());
    uint64_t anchor = d->window.first + d->window.pages / 2;
    if (const Heatmap::Cell *c = d->cell(index)) {
        const QRectF r = cellRect(index);
        const qreal across = std::clamp((event->position().x() - r.left()) / std::max<qreal>(1, r.width()), 0.0, 0.999);
        anchor = c->firstPage + std::min(c->pages - 1, uint64_t(across * qreal(c->pages)));
    }
    d->setViewWindow(Heatmap::zoomed(d->window, d->filePages(), anchor, steps, d->minimumWindow()));
}

void HeatmapWidget::mousePressEvent(QMouseEvent *event)
{
    if (event->button() != Qt::LeftButton) {
        QWidget::mousePressEvent(event);
        return;
    }
    d->pressed = true;
    d->dragging = false;
    d->pressPosition = event->position().toPoint();
    d->pressWindow = d->window;
}

void HeatmapWidget::mouseMoveEvent(QMouseEvent *event)
{
    const QPoint position = event->position().toPoint();
    if (d->pressed && (event->buttons() & Qt::LeftButton)) {
        if (!d->dragging && (position - d->pressPosition).manhattanLength() >= QApplication::startDragDistance() && !d->wholeFileView) {
            d->dragging = true;
            setCursor(Qt::ClosedHandCursor);
        }
        if (d->dragging && d->showsCells()) {
            // Dragging moves the pages with the pointer, as text flows: a
            // column is a cell, a row is a row of cells.
            const HeatmapGrid &l = d->widgetLayout();
            const qreal strideLogical = l.stride / l.dpr;
            const QPointF moved = QPointF(position - d->pressPosition) / strideLogical;
            const double cellsMoved = std::round(moved.x()) + std::round(moved.y()) * l.columns;
            const double pagesPerCell = double(d->pressWindow.pages) / double(std::max<size_t>(1, d->shown.cells.size()));
            const auto delta = int64_t(-cellsMoved * pagesPerCell);
            d->setViewWindow(Heatmap::panned(d->pressWindow, d->filePages(), delta));
        }
        return;
    }
    const int index = cellAt(position);
    if (index != d->hovered) {
        d->hovered = index;
        update();
    }
}

void HeatmapWidget::mouseReleaseEvent(QMouseEvent *event)
{
    if (event->button() == Qt::LeftButton) {
        d->pressed = false;
        if (d->dragging) {
            d->dragging = false;
            unsetCursor();
        }
    }
    QWidget::mouseReleaseEvent(event);
}

void HeatmapWidget::keyPressEvent(QKeyEvent *event)
{
    const uint64_t pages = d->window.pages;
    const uint64_t filePages = d->filePages();
    const bool control = event->modifiers() & Qt::ControlModifier;
    const int columns = std::max(1, d->widgetLayout().columns);
    // Moves the window, and the current cell's page with it (the same place on screen).
    const auto pan = [this](int64_t delta) {
        const uint64_t first = d->window.first;
        d->setViewWindow(Heatmap::panned(d->window, d->filePages(), delta));
        if (d->hasCurrent) {
            d->currentPage = uint64_t(std::clamp<int64_t>(int64_t(d->currentPage) + int64_t(d->window.first) - int64_t(first), 0, int64_t(d->filePages()) - 1));
        }
    };
    switch (event->key()) {
    case Qt::Key_Plus:
    case Qt::Key_Equal:
        zoomIn();
        break;
    case Qt::Key_Minus:
        zoomOut();
        break;
    case Qt::Key_0:
        resetZoom();
        break;
    case Qt::Key_Return:
    case Qt::Key_Enter:
        zoomInOnCurrent();
        break;
    case Qt::Key_Left:
    case Qt::Key_Right:
        if (control) {
            const auto quarter = int64_t(std::max<uint64_t>(1, pages / 4));
            pan(event->key() == Qt::Key_Left ? -quarter : quarter);
        } else {
            moveCurrent(event->key() == Qt::Key_Left ? -1 : 1);
        }
        break;
    case Qt::Key_Up:
        moveCurrent(-columns);
        break;
    case Qt::Key_Down:
        moveCurrent(columns);
        break;
    case Qt::Key_PageUp:
        pan(-int64_t(pages));
        break;
    case Qt::Key_PageDown:
        pan(int64_t(pages));
        break;
    case Qt::Key_Home:
        d->setViewWindow({0, pages});
        d->currentPage = 0;
        d->hasCurrent = d->hasCurrent || hasFocus();
        break;
    case Qt::Key_End:
        d->setViewWindow({filePages - std::min(pages, filePages), pages});
        d->currentPage = filePages > 0 ? filePages - 1 : 0;
        d->hasCurrent = d->hasCurrent || hasFocus();
        break;
    default:
        QWidget::keyPressEvent(event);
        return;
    }
    event->accept();
    update();
}

void HeatmapWidget::moveCurrent(int cells)
{
    if (!d->showsCells()) {
        return;
    }
    const int count = int(d->shown.cells.size());
    const int from = d->currentCell();
    if (from < 0) {
        setCurrentCell(0);
        showCurrentToolTip();
        return;
    }
    const int to = from + cells;
    if (to >= 0 && to < count) {
        setCurrentCell(to);
        showCurrentToolTip();
        return;
    }
    // Past the edge of a zoomed window: the window moves by as many cells,
    // and the current cell stays where it is on screen, on the pages that came.
    if (!d->zoomable() || d->wholeFileView) {
        return;
    }
    const Heatmap::Window before = d->window;
    const auto pagesPerCell = int64_t(std::max<uint64_t>(1, d->shown.cells[size_t(from)].pages));
    d->setViewWindow(Heatmap::panned(d->window, d->filePages(), int64_t(cells) * pagesPerCell));
    if (d->window != before) {
        const int64_t moved = int64_t(d->window.first) - int64_t(before.first);
        d->currentPage = uint64_t(std::clamp<int64_t>(int64_t(d->currentPage) + moved, 0, int64_t(d->filePages()) - 1));
        showCurrentToolTip();
    }
}

void HeatmapWidget::zoomInOnCurrent()
{
    const Heatmap::Cell *c = d->cell(d->currentCell());
    if (!c || !d->zoomable()) {
        return;
    }
    // As the wheel over the cell: its middle page keeps its place.
    d->currentPage = c->firstPage + c->pages / 2;
    d->setViewWindow(Heatmap::zoomed(d->window, d->filePages(), d->currentPage, 1, d->minimumWindow()));
}

void HeatmapWidget::showCurrentToolTip()
{
    const int index = d->currentCell();
    if (index < 0 || !isVisible()) {
        return;
    }
    const QRect r = cellRect(index);
    QToolTip::showText(mapToGlobal(QPoint(r.right() + 4, r.bottom() + 4)), d->toolTip(index), this, r);
}

void HeatmapWidget::leaveEvent(QEvent *event)
{
    if (d->hovered >= 0) {
        d->hovered = -1;
        update();
    }
    QWidget::leaveEvent(event);
}

void HeatmapWidget::focusInEvent(QFocusEvent *event)
{
    QWidget::focusInEvent(event);
    if (!d->hasCurrent && d->showsCells()) {
        d->hasCurrent = true;
        d->currentPage = d->shown.cells.front().firstPage;
    }
    AccessibleItems::focusChanged(this);
}

void HeatmapWidget::focusOutEvent(QFocusEvent *event)
{
    QWidget::focusOutEvent(event);
    AccessibleItems::focusChanged(this);
}

void HeatmapWidget::changeEvent(QEvent *event)
{
    if (event->type() == QEvent::PaletteChange || event->type() == QEvent::StyleChange) {
        d->updateColors();
        d->layoutValid = false;
        update();
    } else if (event->type() == QEvent::FontChange) {
        d->layoutValid = false;
        d->updateButton();
        update();
    }
    QWidget::changeEvent(event);
}

} // namespace Cachescope::App
