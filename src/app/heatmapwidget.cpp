// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers

#include "heatmapwidget.h"

#include "heatmapmodel.h"
#include "residency.h"

#include <KColorScheme>
#include <KFormat>
#include <KLocalizedString>

#include <QApplication>
#include <QFile>
#include <QFileInfo>
#include <QFutureWatcher>
#include <QHelpEvent>
#include <QLocale>
#include <QMouseEvent>
#include <QPainter>
#include <QPushButton>
#include <QStyle>
#include <QToolTip>
#include <QWheelEvent>
#include <QtConcurrentRun>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cmath>
#include <cstring>

namespace
{

constexpr int defaultCells = 1024;
// Cells never grow beyond this (logical pixels): a three-page file is three
// cells, not three tiles filling the panel.
constexpr int largestCell = 24;
constexpr int wheelNotch = 120;

QColor mixed(const QColor &from, const QColor &to, qreal amount)
{
    const auto channel = [amount](qreal a, qreal b) {
        return a + (b - a) * amount;
    };
    return QColor::fromRgbF(float(channel(from.redF(), to.redF())),
                            float(channel(from.greenF(), to.greenF())),
                            float(channel(from.blueF(), to.blueF())),
                            float(channel(from.alphaF(), to.alphaF())));
}

QString formatCount(uint64_t value)
{
    return QLocale().toString(qulonglong(value));
}

QString formatBytes(uint64_t bytes)
{
    // "320 KiB", not "320.0 KiB", where the unit divides the size.
    uint64_t unit = 1;
    while (unit < (uint64_t(1) << 60) && bytes >= unit * 1024) {
        unit *= 1024;
    }
    return KFormat().formatByteSize(double(bytes), bytes % unit == 0 ? 0 : 1);
}

QString formatPercent(uint64_t part, uint64_t whole)
{
    const double percent = whole == 0 ? 0.0 : 100.0 * double(part) / double(whole);
    // One decimal, but never "100.0 %" for a file that misses a page, nor
    // "0.0 %" for one that has one.
    double shown = std::round(percent * 10.0) / 10.0;
    if (part > 0 && shown == 0.0) {
        shown = 0.1;
    }
    if (part < whole && shown == 100.0) {
        shown = 99.9;
    }
    return i18nc("@item percentage", "%1%", QLocale().toString(shown, 'f', 1));
}

// The grid, in device pixels, so that cell edges fall on pixels at any scale.
struct GridLayout {
    qreal dpr = 1;
    QRect panel; // logical: the framed area the cells live in
    QRect legend; // logical
    int headerLines = 2;
    int cells = 0;
    int cellSize = 0; // device pixels
    int stride = 0; // device pixels, cell plus gap
    int columns = 1;
    QPoint origin; // device pixels
    QSize widgetSize;
    int fontHeight = 0;

    [[nodiscard]] QRect deviceRect(int cell) const
    {
        return {origin.x() + (cell % columns) * stride, origin.y() + (cell / columns) * stride, cellSize, cellSize};
    }
    [[nodiscard]] QRect logicalRect(int cell) const
    {
        const QRect r = deviceRect(cell);
        const int left = int(std::floor(r.left() / dpr));
        const int top = int(std::floor(r.top() / dpr));
        return QRect(QPoint(left, top), QPoint(int(std::ceil((r.right() + 1) / dpr)) - 1, int(std::ceil((r.bottom() + 1) / dpr)) - 1));
    }
    [[nodiscard]] int cellAt(QPointF logical) const
    {
        if (cells <= 0 || stride <= 0) {
            return -1;
        }
        const QPointF device = logical * dpr - QPointF(origin);
        if (device.x() < 0 || device.y() < 0) {
            return -1;
        }
        const int column = int(device.x()) / stride;
        const int row = int(device.y()) / stride;
        if (column >= columns || int(device.x()) % stride >= cellSize || int(device.y()) % stride >= cellSize) {
            return -1;
        }
        const int cell = row * columns + column;
        return cell < cells ? cell : -1;
    }
};

} // namespace

class HeatmapWidgetPrivate
{
public:
    explicit HeatmapWidgetPrivate(HeatmapWidget *widget)
        : q(widget)
    {
    }
    ~HeatmapWidgetPrivate()
    {
        closeFile();
    }

    HeatmapWidget *const q;

    std::string path;
    // A recorded histogram on show (showRecorded): no file is open.
    bool recorded = false;
    QString recordedName;
    int fd = -1;
    struct stat st = {};
    Cachescope::ResidencyOptions options;
    int cells = defaultCells;

    // What the person asked to see; the snapshot says what is on show.
    Heatmap::Window window;
    bool wholeFileView = true;
    Heatmap::Snapshot snapshot;
    bool haveSnapshot = false;
    QString message; // no file, cannot open, vanished, empty, error

    // Work off the UI thread: at most one worker per file; a request that
    // comes while it runs waits for it (pending), and a result whose
    // generation is not the latest is dropped.
    uint64_t generation = 0;
    QFutureWatcher<Heatmap::Snapshot> *job = nullptr;
    bool pending = false;

    QColor customResident;
    QColor customDirty;
    QColor customEmpty;
    QColor resident;
    QColor dirty;
    QColor empty;
    QColor writeback;
    QColor panelBackground;
    QColor panelFrame;
    std::array<QColor, 256> scale;

    QPushButton *privilegedButton = nullptr;

    mutable GridLayout layout;
    mutable bool layoutValid = false;

    int hovered = -1;
    int wheelRemainder = 0;
    bool dragging = false;
    bool pressed = false;
    QPoint pressPosition;
    Heatmap::Window pressWindow;

    void closeFile()
    {
        if (fd >= 0) {
            ::close(fd);
            fd = -1;
        }
    }

    [[nodiscard]] QString displayName() const
    {
        if (recorded) {
            return recordedName;
        }
        return QFileInfo(QFile::decodeName(QByteArray::fromStdString(path))).fileName();
    }

    [[nodiscard]] uint64_t filePages() const
    {
        return Cachescope::pagesFor(uint64_t(std::max<off_t>(st.st_size, 0)));
    }

    [[nodiscard]] uint64_t minimumWindow() const
    {
        return std::max<uint64_t>(1, std::min<uint64_t>(uint64_t(cells), filePages()));
    }

    [[nodiscard]] bool showsCells() const
    {
        return haveSnapshot && message.isEmpty() && snapshot.status.known() && !snapshot.cells.empty();
    }

    [[nodiscard]] bool showsHidden() const
    {
        return haveSnapshot && message.isEmpty() && snapshot.status.hidden && !snapshot.privileged;
    }

    [[nodiscard]] bool zoomable() const
    {
        return fd >= 0 && showsCells() && !snapshot.privileged && filePages() > minimumWindow();
    }

    [[nodiscard]] const Heatmap::Cell *cell(int index) const
    {
        if (!showsCells() || index < 0 || size_t(index) >= snapshot.cells.size()) {
            return nullptr;
        }
        return &snapshot.cells[size_t(index)];
    }

    void updateColors()
    {
        const QPalette palette = q->palette();
        const KColorScheme scheme(QPalette::Active, KColorScheme::View);
        panelBackground = palette.color(QPalette::Base);
        panelFrame = mixed(palette.color(QPalette::Window), palette.color(QPalette::WindowText), 0.2);
        resident = customResident.isValid() ? customResident : palette.color(QPalette::Highlight);
        dirty = customDirty.isValid() ? customDirty : scheme.foreground(KColorScheme::NeutralText).color();
        writeback = scheme.foreground(KColorScheme::NegativeText).color();
        empty = customEmpty.isValid() ? customEmpty : mixed(panelBackground, palette.color(QPalette::Text), 0.1);
        // Index 0 is "not cached" only; any resident page at all starts a
        // quarter of the way, so that one page in a bucket of thousands shows.
        scale[0] = empty;
        for (size_t i = 1; i < scale.size(); ++i) {
            const qreal fraction = qreal(i - 1) / qreal(scale.size() - 2);
            scale[i] = mixed(empty, resident, 0.25 + 0.75 * fraction);
        }
    }

    [[nodiscard]] const QColor &colorFor(const Heatmap::Cell &c) const
    {
        if (c.resident == 0 || c.pages == 0) {
            return scale[0];
        }
        const size_t index = 1 + size_t(double(std::min(c.resident, c.pages)) / double(c.pages) * double(scale.size() - 2));
        return scale[std::min(index, scale.size() - 1)];
    }

    // --- Files ---------------------------------------------------------------

    void openFile(bool keepWindow)
    {
        closeFile();
        int error = 0;
        std::string errorText;
        fd = Cachescope::openRegularFile(AT_FDCWD, path.c_str(), false, st, error, errorText).release();
        if (fd < 0) {
            st = {};
            const QString shownPath = QFile::decodeName(QByteArray::fromStdString(path));
            if (error == ENOENT) {
                showMessage(i18nc("@info", "“%1” does not exist.", shownPath));
            } else {
                showMessage(i18nc("@info %1 a path, %2 the reason", "Cannot open “%1”: %2", shownPath, QString::fromLocal8Bit(errorText.c_str())));
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
        snapshot = {};
        haveSnapshot = false;
        hovered = -1;
        layoutValid = false;
        updateButton();
        q->update();
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

    void requestCompute()
    {
        if (fd < 0) {
            return;
        }
        ++generation;
        if (!Heatmap::mayBeSlow(cells, options)) {
            apply(Heatmap::compute(fd, st, window, cells, options));
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
        const int jobFd = fcntl(fd, F_DUPFD_CLOEXEC, 0);
        if (jobFd < 0) {
            const int error = errno;
            showMessage(i18nc("@info %1 the reason", "Cannot read the residency: %1", QString::fromLocal8Bit(strerror(error))));
            return;
        }
        const uint64_t jobGeneration = generation;
        job = new QFutureWatcher<Heatmap::Snapshot>(q);
        auto *watcher = job;
        QObject::connect(watcher, &QFutureWatcherBase::finished, watcher, &QObject::deleteLater);
        QObject::connect(watcher, &QFutureWatcherBase::finished, q, [this, watcher, jobGeneration] {
            jobFinished(watcher, jobGeneration);
        });
        const struct stat jobStat = st;
        const Heatmap::Window jobWindow = window;
        const int jobCells = cells;
        const Cachescope::ResidencyOptions jobOptions = options;
        watcher->setFuture(QtConcurrent::run([jobFd, jobStat, jobWindow, jobCells, jobOptions] {
            Heatmap::Snapshot result = Heatmap::compute(jobFd, jobStat, jobWindow, jobCells, jobOptions);
            ::close(jobFd);
            return result;
        }));
        q->update(); // the "updating" note
    }

    void jobFinished(QFutureWatcher<Heatmap::Snapshot> *watcher, uint64_t jobGeneration)
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

    void apply(Heatmap::Snapshot fresh)
    {
        // A privileged view stays until we may see the residency ourselves.
        if (haveSnapshot && snapshot.privileged && fresh.status.hidden) {
            return;
        }
        if (fresh.status.error != 0) {
            showMessage(i18nc("@info %1 a path, %2 the reason",
                              "Cannot read the residency of “%1”: %2",
                              QFile::decodeName(QByteArray::fromStdString(path)),
                              QString::fromLocal8Bit(fresh.status.errorText.c_str())));
            return;
        }
        message.clear();
        if (fresh.status.known() && fresh.cells.empty()) {
            message = i18nc("@info", "“%1” is empty: it has no pages to cache.", displayName());
        }
        if (!haveSnapshot || snapshot.cells.size() != fresh.cells.size()) {
            layoutValid = false;
        }
        snapshot = std::move(fresh);
        haveSnapshot = true;
        if (hovered >= int(snapshot.cells.size())) {
            hovered = -1;
        }
        updateButton();
        q->update();
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

    [[nodiscard]] int legendHeight() const
    {
        return QFontMetrics(q->font()).height();
    }

    [[nodiscard]] const GridLayout &gridLayout(qreal dpr) const
    {
        const int cellTotal = showsCells() ? int(snapshot.cells.size()) : 0;
        if (layoutValid && layout.dpr == dpr && layout.widgetSize == q->size() && layout.cells == cellTotal) {
            return layout;
        }
        GridLayout l;
        l.dpr = dpr;
        l.widgetSize = q->size();
        l.cells = cellTotal;
        l.fontHeight = QFontMetrics(q->font()).height();
        const int gap = spacing();
        const int top = headerHeight() + gap;
        const int legendTop = std::max(top, q->height() - legendHeight());
        l.legend = QRect(0, legendTop, q->width(), legendHeight());
        l.panel = QRect(0, top, q->width(), std::max(0, legendTop - gap - top));

        const int padding = 6;
        const QRect inner = l.panel.adjusted(padding, padding, -padding, -padding);
        const int width = int(std::floor(inner.width() * dpr));
        const int height = int(std::floor(inner.height() * dpr));
        const int gapPixels = std::max(1, int(std::floor(dpr)));
        l.cellSize = 1;
        l.stride = 1;
        l.columns = std::max(1, width);
        if (cellTotal > 0 && width > 0 && height > 0) {
            // The largest cell for which all cells fit; a gap only where a
            // cell is big enough to spare one.
            for (int size = int(largestCell * dpr); size >= 1; --size) {
                const int cellGap = size >= int(4 * dpr) ? gapPixels : 0;
                const int stride = size + cellGap;
                const int columns = std::max(1, (width + cellGap) / stride);
                const int rows = (cellTotal + columns - 1) / columns;
                l.cellSize = size;
                l.stride = stride;
                l.columns = columns;
                if (int64_t(rows) * stride - cellGap <= height) {
                    break;
                }
            }
        }
        // Centred across: the space left over by whole cells goes to both sides.
        const int usedWidth = cellTotal > 0 ? std::min(cellTotal, l.columns) * l.stride - (l.stride - l.cellSize) : 0;
        const int spare = std::max(0, width - usedWidth) / 2;
        l.origin = QPoint(int(std::ceil(inner.left() * dpr)) + spare, int(std::ceil(inner.top() * dpr)));
        layout = l;
        layoutValid = true;
        return layout;
    }

    [[nodiscard]] const GridLayout &widgetLayout() const
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
        const GridLayout &l = widgetLayout();
        const QSize hint = privilegedButton->sizeHint();
        const QRect text = hiddenTextRect(l);
        privilegedButton->setGeometry(QRect(QPoint(l.panel.center().x() - hint.width() / 2, text.bottom() + spacing() * 2), hint));
    }

    // Where "Hidden" and the reason go: the middle of the panel, room for the button below.
    [[nodiscard]] QRect hiddenTextRect(const GridLayout &l) const
    {
        const int lines = 3;
        const int height = l.fontHeight * (lines + 1);
        const int buttonHeight = privilegedButton->sizeHint().height() + spacing() * 2;
        const int top = l.panel.top() + std::max(0, (l.panel.height() - height - buttonHeight) / 2);
        return QRect(l.panel.left() + 12, top, std::max(0, l.panel.width() - 24), height);
    }

    // --- Texts ---------------------------------------------------------------

    struct Texts {
        QString name;
        QString details;
        QString window;
        QString overlayTitle;
        QString overlayText;
    };

    [[nodiscard]] QString pagesPerCellText() const
    {
        if (snapshot.perPage) {
            return i18nc("@info zoom scale", "1 cell = 1 page (%1)", formatBytes(Cachescope::pageSize()));
        }
        const uint64_t count = snapshot.cells.size();
        if (count == 0) {
            return {};
        }
        const double pages = double(snapshot.windowPages) / double(count);
        if (snapshot.windowPages % count == 0) {
            return i18ncp("@info zoom scale",
                          "1 cell = %1 page (%2)",
                          "1 cell = %1 pages (%2)",
                          snapshot.windowPages / count,
                          formatBytes(snapshot.windowPages / count * Cachescope::pageSize()));
        }
        return i18nc("@info zoom scale",
                     "1 cell ≈ %1 pages (%2)",
                     QLocale().toString(pages, 'f', pages < 10 ? 1 : 0),
                     formatBytes(uint64_t(pages * double(Cachescope::pageSize()))));
    }

    [[nodiscard]] Texts texts() const
    {
        Texts t;
        if (path.empty()) {
            t.overlayText = i18nc("@info placeholder", "Select a file to see which of its pages are in the page cache.");
            return t;
        }
        t.name = displayName();
        if (!message.isEmpty()) {
            t.overlayText = message;
            if (fd >= 0) {
                t.details = formatBytes(uint64_t(std::max<off_t>(st.st_size, 0)));
            }
            return t;
        }
        if (!haveSnapshot) {
            t.details = formatBytes(uint64_t(std::max<off_t>(st.st_size, 0)));
            t.window = i18nc("@info", "Reading the residency…");
            return t;
        }
        const QString size = formatBytes(snapshot.sizeBytes);
        if (showsHidden()) {
            // Never a number about residency here: the kernel did not tell us one.
            t.details = i18nc("@info header %1 file size", "%1 · residency hidden", size);
            t.overlayTitle = i18nc("@info residency not visible to this user", "Hidden");
            // The core's reason is a sentence fragment ("the kernel shows ...").
            QString reason = QString::fromLocal8Bit(snapshot.status.hiddenReason.c_str()).trimmed();
            if (reason.isEmpty()) {
                t.overlayText = i18nc("@info", "The kernel does not tell this user which pages of this file are cached.");
            } else {
                reason[0] = reason[0].toUpper();
                if (!reason.endsWith(QLatin1Char('.'))) {
                    reason += QLatin1Char('.');
                }
                t.overlayText = reason;
            }
            return t;
        }
        if (snapshot.totalsKnown) {
            t.details = i18ncp("@info header: %2 file size, %3 cached pages, %1 all pages, %4 percent",
                               "%2 · %3 of %1 page cached (%4)",
                               "%2 · %3 of %1 pages cached (%4)",
                               snapshot.filePages,
                               size,
                               formatCount(snapshot.resident),
                               formatPercent(snapshot.resident, snapshot.filePages));
            if (snapshot.detail && snapshot.dirty > 0) {
                t.details += i18nc("@info header, appended", " · %1 dirty", formatCount(snapshot.dirty));
            }
            if (snapshot.detail && snapshot.writeback > 0) {
                t.details += i18nc("@info header, appended", " · %1 under writeback", formatCount(snapshot.writeback));
            }
        } else {
            t.details = size;
        }
        if (snapshot.windowPages > 0) {
            const bool whole = snapshot.windowFirst == 0 && snapshot.windowPages == snapshot.filePages;
            if (whole) {
                t.window = i18ncp("@info zoom window: %1 pages, %2 scale",
                                  "Whole file, %1 page · %2",
                                  "Whole file, %1 pages · %2",
                                  snapshot.filePages,
                                  pagesPerCellText());
            } else {
                t.window = i18nc("@info zoom window: %1–%2 page range, %3 pages in the file, %4 scale",
                                 "Pages %1–%2 of %3 · %4",
                                 formatCount(snapshot.windowFirst),
                                 formatCount(snapshot.windowFirst + snapshot.windowPages - 1),
                                 formatCount(snapshot.filePages),
                                 pagesPerCellText());
            }
        }
        if (snapshot.privileged) {
            t.window += i18nc("@info appended to the zoom line", " · shown with administrator rights");
        } else if (!snapshot.detail) {
            t.window += i18nc("@info appended to the zoom line", " · dirty pages unknown (mincore)");
        }
        if (job) {
            t.window += i18nc("@info appended to the zoom line", " · updating…");
        }
        return t;
    }

    [[nodiscard]] QStringList legendLabels() const
    {
        return {i18nc("@label legend", "Not cached"),
                i18nc("@label legend", "Cached"),
                i18nc("@label legend", "Dirty"),
                i18nc("@label legend", "Writeback"),
                i18nc("@label legend", "Hidden")};
    }

    [[nodiscard]] QString toolTip(int index) const
    {
        const Heatmap::Cell *c = cell(index);
        if (!c) {
            return {};
        }
        const uint64_t page = Cachescope::pageSize();
        const uint64_t lastPage = c->firstPage + c->pages - 1;
        const uint64_t endByte = std::min((c->firstPage + c->pages) * page, std::max<uint64_t>(snapshot.sizeBytes, c->firstPage * page + 1));
        QStringList lines;
        if (c->pages == 1) {
            lines << i18nc("@info:tooltip", "Page %1", formatCount(c->firstPage));
        } else {
            lines << i18ncp("@info:tooltip %2–%3 page range, %1 pages",
                            "Pages %2–%3 (%1 page)",
                            "Pages %2–%3 (%1 pages)",
                            c->pages,
                            formatCount(c->firstPage),
                            formatCount(lastPage));
        }
        lines << i18nc("@info:tooltip byte range",
                       "Bytes %1 to %2 (offset %3)",
                       formatBytes(c->firstPage * page),
                       formatBytes(endByte),
                       formatCount(c->firstPage * page));
        lines << i18ncp("@info:tooltip %2 cached pages, %1 pages, %3 percent",
                        "Cached: %2 of %1 page (%3)",
                        "Cached: %2 of %1 pages (%3)",
                        c->pages,
                        formatCount(c->resident),
                        formatPercent(c->resident, c->pages));
        if (snapshot.detail) {
            lines << i18ncp("@info:tooltip", "Dirty: %1 page", "Dirty: %1 pages", c->dirty);
            lines << i18ncp("@info:tooltip", "Under writeback: %1 page", "Under writeback: %1 pages", c->writeback);
        } else {
            lines << i18nc("@info:tooltip", "Dirty and writeback pages: unknown (mincore)");
        }
        return lines.join(QLatin1Char('\n'));
    }

    // --- Painting ------------------------------------------------------------

    void paintCells(QPainter &painter, const GridLayout &l) const
    {
        painter.save();
        // Device pixels from here: cell edges on whole pixels at any scale.
        painter.scale(1.0 / l.dpr, 1.0 / l.dpr);
        painter.setRenderHint(QPainter::Antialiasing, false);
        const int marker = std::max(1, l.cellSize / 5);
        const int outline = std::max(1, l.cellSize / 6);
        for (int i = 0; i < l.cells; ++i) {
            const Heatmap::Cell &c = snapshot.cells[size_t(i)];
            const QRect r = l.deviceRect(i);
            painter.fillRect(r, colorFor(c));
            if (c.dirty > 0 && c.pages > 0) {
                // From the bottom, as much of the cell as is dirty, at least a visible stripe.
                const int height = std::clamp(int(std::ceil(double(c.dirty) / double(c.pages) * l.cellSize)), marker, l.cellSize);
                painter.fillRect(QRect(r.left(), r.bottom() + 1 - height, r.width(), height), dirty);
            }
            if (c.writeback > 0) {
                painter.fillRect(QRect(r.left(), r.top(), r.width(), outline), writeback);
                painter.fillRect(QRect(r.left(), r.bottom() + 1 - outline, r.width(), outline), writeback);
                painter.fillRect(QRect(r.left(), r.top(), outline, r.height()), writeback);
                painter.fillRect(QRect(r.right() + 1 - outline, r.top(), outline, r.height()), writeback);
            }
        }
        if (hovered >= 0 && hovered < l.cells) {
            const QRect r = l.deviceRect(hovered).adjusted(-1, -1, 1, 1);
            painter.setPen(QPen(q->palette().color(QPalette::Text), std::max(1.0, std::floor(l.dpr))));
            painter.setBrush(Qt::NoBrush);
            painter.drawRect(r);
        }
        painter.restore();
    }

    void paintHidden(QPainter &painter, const GridLayout &l, const Texts &t) const
    {
        const QPalette palette = q->palette();
        const QRect area = l.panel.adjusted(1, 1, -1, -1);
        painter.fillRect(area, QBrush(mixed(palette.color(QPalette::Base), palette.color(QPalette::Text), 0.3), Qt::BDiagPattern));
        const QRect text = hiddenTextRect(l);
        QFont titleFont = q->font();
        titleFont.setBold(true);
        titleFont.setPointSizeF(titleFont.pointSizeF() * 1.3);
        painter.setFont(titleFont);
        const QFontMetrics titleMetrics(titleFont);
        const QRect titleRect(text.left(), text.top(), text.width(), titleMetrics.height());
        // The words sit on a plain patch: hatching behind letters is hard to read.
        const int titleWidth = titleMetrics.horizontalAdvance(t.overlayTitle) + 16;
        painter.setFont(q->font());
        const QRect reasonRect(text.left(), titleRect.bottom() + 4, text.width(), text.height() - titleRect.height() - 4);
        const QRect reasonUsed = painter.fontMetrics().boundingRect(reasonRect, Qt::AlignHCenter | Qt::AlignTop | Qt::TextWordWrap, t.overlayText);
        QRect patch = reasonUsed.united(QRect(titleRect.center().x() - titleWidth / 2, titleRect.top(), titleWidth, titleRect.height()));
        patch = patch.adjusted(-8, -4, 8, 4);
        painter.setPen(Qt::NoPen);
        painter.setBrush(palette.color(QPalette::Base));
        painter.setRenderHint(QPainter::Antialiasing, true);
        painter.drawRoundedRect(patch, 4, 4);
        painter.setPen(palette.color(QPalette::Text));
        painter.setFont(titleFont);
        painter.drawText(titleRect, Qt::AlignHCenter | Qt::AlignVCenter, t.overlayTitle);
        painter.setFont(q->font());
        painter.drawText(reasonRect, Qt::AlignHCenter | Qt::AlignTop | Qt::TextWordWrap, t.overlayText);
    }

    void paintLegend(QPainter &painter, const GridLayout &l) const
    {
        const QPalette palette = q->palette();
        const QStringList labels = legendLabels();
        const QFontMetrics metrics(q->font());
        const int swatch = std::max(8, metrics.height() * 2 / 3);
        const int y = l.legend.top() + (l.legend.height() - swatch) / 2;
        int x = l.legend.left();
        const int gap = metrics.horizontalAdvance(QLatin1Char(' '));
        const auto label = [&](const QString &text) {
            painter.setPen(palette.color(QPalette::WindowText));
            painter.drawText(QRect(x, l.legend.top(), metrics.horizontalAdvance(text) + 1, l.legend.height()), Qt::AlignVCenter | Qt::AlignLeft, text);
            x += metrics.horizontalAdvance(text);
        };
        const auto frame = [&](const QRect &r) {
            painter.setPen(panelFrame);
            painter.setBrush(Qt::NoBrush);
            painter.drawRect(r.adjusted(0, 0, -1, -1));
        };

        // Not cached [gradient] Cached
        label(labels[0]);
        x += gap;
        const int scaleWidth = swatch * 6;
        QLinearGradient gradient(x, 0, x + scaleWidth, 0);
        gradient.setColorAt(0, scale[0]);
        gradient.setColorAt(0.12, scale[0]);
        gradient.setColorAt(0.14, scale[1]);
        gradient.setColorAt(1, scale[scale.size() - 1]);
        const QRect scaleRect(x, y, scaleWidth, swatch);
        painter.fillRect(scaleRect, gradient);
        frame(scaleRect);
        x += scaleWidth + gap;
        label(labels[1]);
        x += gap * 4;

        const QRect dirtyRect(x, y, swatch, swatch);
        painter.fillRect(dirtyRect, dirty);
        x += swatch + gap;
        label(labels[2]);
        x += gap * 4;

        const QRect writebackRect(x, y, swatch, swatch);
        painter.fillRect(writebackRect, scale[scale.size() / 2]);
        const int outline = std::max(2, swatch / 5);
        painter.setPen(QPen(writeback, outline, Qt::SolidLine, Qt::SquareCap, Qt::MiterJoin));
        painter.setBrush(Qt::NoBrush);
        painter.drawRect(writebackRect.adjusted(outline / 2, outline / 2, -(outline + 1) / 2, -(outline + 1) / 2));
        x += swatch + gap;
        label(labels[3]);
        x += gap * 4;

        const QRect hiddenRect(x, y, swatch, swatch);
        painter.fillRect(hiddenRect, palette.color(QPalette::Base));
        painter.fillRect(hiddenRect, QBrush(mixed(palette.color(QPalette::Base), palette.color(QPalette::Text), 0.5), Qt::BDiagPattern));
        frame(hiddenRect);
        x += swatch + gap;
        label(labels[4]);

        // How to zoom, where there is room: nothing else tells it.
        if (zoomable()) {
            const QString hint = zoomHint();
            const int hintWidth = metrics.horizontalAdvance(hint);
            if (x + gap * 6 + hintWidth <= l.legend.right()) {
                painter.setPen(palette.color(QPalette::Disabled, QPalette::WindowText));
                painter.drawText(QRect(l.legend.right() - hintWidth, l.legend.top(), hintWidth + 1, l.legend.height()),
                                 Qt::AlignVCenter | Qt::AlignRight,
                                 hint);
            }
        }
    }

    [[nodiscard]] QString zoomHint() const
    {
        if (wholeFileView) {
            return i18nc("@info legend hint", "Scroll to zoom");
        }
        return i18nc("@info legend hint", "Scroll to zoom, drag to move");
    }
};

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
    if (path == d->path && d->fd >= 0) {
        refresh();
        return;
    }
    d->dropJob();
    d->recorded = false;
    d->path = path;
    d->snapshot = {};
    d->haveSnapshot = false;
    d->message.clear();
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
    d->closeFile();
    d->recorded = false;
    d->path.clear();
    d->st = {};
    d->window = {};
    d->wholeFileView = true;
    d->snapshot = {};
    d->haveSnapshot = false;
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
    if (d->fd < 0) {
        // It may exist now.
        d->openFile(true);
        return;
    }
    struct stat now;
    if (::stat(d->path.c_str(), &now) != 0) {
        const int error = errno;
        d->closeFile();
        d->st = {};
        if (error == ENOENT || error == ENOTDIR) {
            d->showMessage(i18nc("@info", "“%1” no longer exists.", QFile::decodeName(QByteArray::fromStdString(d->path))));
        } else {
            d->showMessage(i18nc("@info %1 a path, %2 the reason",
                                 "Cannot open “%1”: %2",
                                 QFile::decodeName(QByteArray::fromStdString(d->path)),
                                 QString::fromLocal8Bit(strerror(error))));
        }
        return;
    }
    if (now.st_dev != d->st.st_dev || now.st_ino != d->st.st_ino) {
        // Replaced (an editor saving by rename): show the file the name means now.
        d->openFile(true);
        return;
    }
    if (fstat(d->fd, &d->st) != 0) {
        d->openFile(true);
        return;
    }
    if (d->wholeFileView) {
        d->window = {0, d->filePages()};
    } else {
        d->window = Heatmap::clamped(d->window, d->filePages(), d->minimumWindow());
    }
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
    if (d->fd >= 0) {
        d->window = d->wholeFileView ? Heatmap::Window{0, d->filePages()} : Heatmap::clamped(d->window, d->filePages(), d->minimumWindow());
        d->requestCompute();
    }
}

int HeatmapWidget::cells() const
{
    return d->cells;
}

void HeatmapWidget::setColors(const QColor &resident, const QColor &dirty, const QColor &empty)
{
    d->customResident = resident;
    d->customDirty = dirty;
    d->customEmpty = empty;
    d->updateColors();
    update();
}

QColor HeatmapWidget::residentColor() const
{
    return d->resident;
}

QColor HeatmapWidget::dirtyColor() const
{
    return d->dirty;
}

QColor HeatmapWidget::emptyColor() const
{
    return d->empty;
}

QColor HeatmapWidget::writebackColor() const
{
    return d->writeback;
}

void HeatmapWidget::setResidencyOptions(const Cachescope::ResidencyOptions &options)
{
    d->options = options;
    d->requestCompute();
}

void HeatmapWidget::setPrivilegedViewAvailable(bool available, const QString &toolTip)
{
    d->privilegedButton->setEnabled(available);
    d->privilegedButton->setToolTip(toolTip);
}

void HeatmapWidget::setExternalHistogram(const Cachescope::Histogram &histogram)
{
    if (d->path.empty()) {
        return;
    }
    d->dropJob();
    Heatmap::Snapshot snapshot = Heatmap::fromHistogram(histogram, uint64_t(std::max<off_t>(d->st.st_size, 0)));
    d->haveSnapshot = false; // let apply() take it even over a privileged one
    d->apply(std::move(snapshot));
}

void HeatmapWidget::showRecorded(const QString &name, const Cachescope::Histogram &histogram, uint64_t sizeBytes)
{
    if (!d->recorded || d->recordedName != name) {
        d->dropJob();
        d->closeFile();
        d->recorded = true;
        d->recordedName = name;
        d->path = QFile::encodeName(name).toStdString();
        d->hovered = -1;
        d->layoutValid = false;
        d->wholeFileView = true;
    }
    d->st = {};
    d->st.st_size = off_t(sizeBytes);
    Heatmap::Snapshot snapshot = Heatmap::fromHistogram(histogram, sizeBytes);
    snapshot.privileged = false; // our own reading, only not made by this widget
    d->window = {snapshot.windowFirst, snapshot.windowPages};
    d->apply(std::move(snapshot));
}

bool HeatmapWidget::showsRecorded() const
{
    return d->recorded;
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
    if (d->fd >= 0) {
        d->setViewWindow({0, d->filePages()});
    }
}

void HeatmapWidget::setWindow(uint64_t firstPage, uint64_t pageCount)
{
    if (d->fd >= 0) {
        d->setViewWindow({firstPage, pageCount});
    }
}

uint64_t HeatmapWidget::filePageCount() const
{
    return d->haveSnapshot ? d->snapshot.filePages : d->filePages();
}

uint64_t HeatmapWidget::windowFirstPage() const
{
    return d->showsCells() ? d->snapshot.windowFirst : 0;
}

uint64_t HeatmapWidget::windowPageCount() const
{
    return d->showsCells() ? d->snapshot.windowPages : 0;
}

int HeatmapWidget::cellCount() const
{
    return d->showsCells() ? int(d->snapshot.cells.size()) : 0;
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

double HeatmapWidget::cellResidentFraction(int cell) const
{
    const Heatmap::Cell *c = d->cell(cell);
    return c && c->pages > 0 ? double(c->resident) / double(c->pages) : 0.0;
}

QRect HeatmapWidget::cellRect(int cell) const
{
    const GridLayout &l = d->widgetLayout();
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
    const HeatmapWidgetPrivate::Texts t = d->texts();
    QStringList result;
    for (const QString &text : {t.name, t.details, t.window, t.overlayTitle, t.overlayText}) {
        if (!text.isEmpty()) {
            result << text;
        }
    }
    result << d->legendLabels();
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
    const qreal dpr = painter.device()->devicePixelRatioF();
    const GridLayout &l = d->gridLayout(dpr);
    const QPalette palette = this->palette();
    const HeatmapWidgetPrivate::Texts t = d->texts();
    const QFontMetrics metrics(font());

    // Header: the name in bold, then the numbers; below it the zoom window.
    int x = 0;
    if (!t.name.isEmpty()) {
        QFont bold = font();
        bold.setBold(true);
        painter.setFont(bold);
        painter.setPen(palette.color(QPalette::WindowText));
        const QFontMetrics boldMetrics(bold);
        const QString name = boldMetrics.elidedText(t.name, Qt::ElideMiddle, width() / 2);
        painter.drawText(QRect(0, 0, width(), metrics.height()), Qt::AlignLeft | Qt::AlignVCenter, name);
        x = boldMetrics.horizontalAdvance(name) + metrics.horizontalAdvance(QStringLiteral("  "));
        painter.setFont(font());
    }
    if (!t.details.isEmpty()) {
        painter.drawText(QRect(x, 0, width() - x, metrics.height()),
                         Qt::AlignLeft | Qt::AlignVCenter,
                         metrics.elidedText(t.details, Qt::ElideRight, width() - x));
    }
    if (!t.window.isEmpty()) {
        painter.setPen(palette.color(QPalette::Disabled, QPalette::WindowText));
        painter.drawText(QRect(0, metrics.height() + d->spacing() / 2, width(), metrics.height()),
                         Qt::AlignLeft | Qt::AlignVCenter,
                         metrics.elidedText(t.window, Qt::ElideRight, width()));
    }

    // The panel the cells live in, framed like a view.
    painter.setPen(d->panelFrame);
    painter.setBrush(d->panelBackground);
    painter.drawRect(l.panel.adjusted(0, 0, -1, -1));

    if (d->showsHidden()) {
        d->paintHidden(painter, l, t);
    } else if (d->showsCells()) {
        d->paintCells(painter, l);
    } else if (!t.overlayText.isEmpty()) {
        painter.setPen(palette.color(QPalette::Disabled, QPalette::Text));
        painter.drawText(l.panel.adjusted(12, 12, -12, -12), Qt::AlignCenter | Qt::TextWordWrap, t.overlayText);
    }

    d->paintLegend(painter, l);
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
            const GridLayout &l = d->widgetLayout();
            const qreal strideLogical = l.stride / l.dpr;
            const QPointF moved = QPointF(position - d->pressPosition) / strideLogical;
            const double cellsMoved = std::round(moved.x()) + std::round(moved.y()) * l.columns;
            const double pagesPerCell = double(d->pressWindow.pages) / double(std::max<size_t>(1, d->snapshot.cells.size()));
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
