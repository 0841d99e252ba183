// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers

#include "heatmapwidget.h"

#include "heatmappainter.h"
#include "heatmapwidget_p.h"

#include <KLocalizedString>

#include <QApplication>
#include <QHelpEvent>
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
    d->layoutValid = false;
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
    d->layoutValid = false;
    d->updateButton();
    update();
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
    return {metrics.averageCharWidth() * 40, d->headerHeight() + d->legendHeight() + metrics.height() * 5};
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
    case Qt::Key_Left:
        d->setViewWindow(Heatmap::panned(d->window, d->filePages(), -int64_t(std::max<uint64_t>(1, pages / 4))));
        break;
    case Qt::Key_Right:
        d->setViewWindow(Heatmap::panned(d->window, d->filePages(), int64_t(std::max<uint64_t>(1, pages / 4))));
        break;
    case Qt::Key_PageUp:
        d->setViewWindow(Heatmap::panned(d->window, d->filePages(), -int64_t(pages)));
        break;
    case Qt::Key_PageDown:
        d->setViewWindow(Heatmap::panned(d->window, d->filePages(), int64_t(pages)));
        break;
    case Qt::Key_Home:
        d->setViewWindow({0, pages});
        break;
    case Qt::Key_End:
        d->setViewWindow({d->filePages() - std::min(pages, d->filePages()), pages});
        break;
    default:
        QWidget::keyPressEvent(event);
        return;
    }
    event->accept();
}

void HeatmapWidget::leaveEvent(QEvent *event)
{
    if (d->hovered >= 0) {
        d->hovered = -1;
        update();
    }
    QWidget::leaveEvent(event);
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
