// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers

#include "tracetimeline.h"

#include "figuretext.h"
#include "format.h"
#include "plotstyle.h"
#include "residency.h"

#include <KLocalizedString>

#include <QHelpEvent>
#include <QMouseEvent>
#include <QToolTip>

#include <qcustomplot.h>

#include <algorithm>
#include <cmath>

namespace Cachescope::App
{

using namespace Trace;

namespace
{
// A mark is never thinner than this, so that an extent that came in within a
// microsecond is still seen and can be hovered.
constexpr double minimumMarkWidth = 4;
// Nor taller, with few files: bars, not blocks.
constexpr double maximumMarkHeight = 22;
// File names on the axis are cut in the middle beyond this many characters.
constexpr int fileLabelCharacters = 28;

QColor kindColor(ExtentKind kind)
{
    switch (kind) {
    case ExtentKind::Asked:
        return PlotColors::plasmaBlue;
    case ExtentKind::Readahead:
        return PlotColors::cache;
    case ExtentKind::Metadata:
        return PlotColors::purple;
    case ExtentKind::Unknown:
        break;
    }
    return PlotColors::grey;
}

// Breaks text into lines no wider than width pixels.
QString wrapped(const QString &text, const QFontMetrics &metrics, int width)
{
    QStringList lines;
    QString line;
    const auto words = text.split(QLatin1Char(' '), Qt::SkipEmptyParts);
    for (const QString &word : words) {
        const QString longer = line.isEmpty() ? word : line + QLatin1Char(' ') + word;
        if (!line.isEmpty() && metrics.horizontalAdvance(longer) > width) {
            lines << line;
            line = word;
        } else {
            line = longer;
        }
    }
    if (!line.isEmpty()) {
        lines << line;
    }
    return lines.join(QLatin1Char('\n'));
}
} // namespace

// The marks of one kind of extent: a rectangle per extent, from the time its
// first page came in to the time its last one did, on its file's row.
class ExtentMarks : public QCPAbstractPlottable
{
public:
    struct Mark {
        double start = 0; // in the key axis's unit
        double end = 0;
        double row = 0;
        int extent = 0;
    };

    ExtentMarks(QCPAxis *keyAxis, QCPAxis *valueAxis, ExtentKind kind)
        : QCPAbstractPlottable(keyAxis, valueAxis)
        , m_kind(kind)
    {
        setSelectable(QCP::stNone);
        const QColor color = kindColor(kind);
        setBrush(color);
        setPen(QPen(color.darker(140), 1));
        setName(extentKindText(kind));
    }

    [[nodiscard]] ExtentKind kind() const
    {
        return m_kind;
    }
    [[nodiscard]] const std::vector<Mark> &marks() const
    {
        return m_marks;
    }
    void add(const Mark &mark)
    {
        m_marks.push_back(mark);
    }

    [[nodiscard]] QRectF markRect(const Mark &mark) const
    {
        double left = mKeyAxis->coordToPixel(mark.start);
        double right = mKeyAxis->coordToPixel(mark.end);
        if (left > right) {
            std::swap(left, right);
        }
        if (right - left < minimumMarkWidth) {
            const double centre = (left + right) / 2;
            left = centre - minimumMarkWidth / 2;
            right = centre + minimumMarkWidth / 2;
        }
        double top = mValueAxis->coordToPixel(mark.row - 0.35);
        double bottom = mValueAxis->coordToPixel(mark.row + 0.35);
        if (top > bottom) {
            std::swap(top, bottom);
        }
        const double centre = (top + bottom) / 2;
        const double half = std::clamp((bottom - top) / 2, 1.0, maximumMarkHeight / 2);
        return QRectF(QPointF(left, centre - half), QPointF(right, centre + half));
    }

    double selectTest(const QPointF &, bool, QVariant * = nullptr) const override
    {
        return -1; // marks are hovered, not selected
    }

    QCPRange getKeyRange(bool &foundRange, QCP::SignDomain = QCP::sdBoth) const override
    {
        foundRange = !m_marks.empty();
        QCPRange range(0, 0);
        for (const Mark &mark : m_marks) {
            range.expand(QCPRange(mark.start, mark.end));
        }
        return range;
    }

    QCPRange getValueRange(bool &foundRange, QCP::SignDomain = QCP::sdBoth, const QCPRange & = QCPRange()) const override
    {
        foundRange = !m_marks.empty();
        QCPRange range(0, 0);
        for (const Mark &mark : m_marks) {
            range.expand(QCPRange(mark.row - 0.5, mark.row + 0.5));
        }
        return range;
    }

protected:
    void draw(QCPPainter *painter) override
    {
        applyDefaultAntialiasingHint(painter);
        painter->setPen(mPen);
        painter->setBrush(mBrush);
        const QRect clip = clipRect();
        for (const Mark &mark : m_marks) {
            const QRectF rect = markRect(mark);
            if (rect.intersects(clip)) {
                painter->drawRect(rect);
            }
        }
    }

    void drawLegendIcon(QCPPainter *painter, const QRectF &rect) const override
    {
        painter->setPen(mPen);
        painter->setBrush(mBrush);
        const double height = std::min(rect.height(), 10.0);
        painter->drawRect(QRectF(rect.left(), rect.center().y() - height / 2, rect.width(), height));
    }

private:
    ExtentKind m_kind;
    std::vector<Mark> m_marks;
};

TraceTimeline::TraceTimeline(QCustomPlot *plot)
    : QObject(plot)
    , m_plot(plot)
{
    plot->plotLayout()->insertRow(0);
    plot->plotLayout()->addElement(0, 0, new QCPTextElement(plot, i18nc("@title plot", "When the pages came in")));
    plot->setAccessibleName(i18nc("@title plot", "When the pages came in"));
    PlotStyle::placeLegendBelow(plot, plot->axisRect(), 2);
    plot->legend->setColumnSpacing(12);
    plot->yAxis->setRangeReversed(true); // the first file on top
    plot->yAxis->setTicker(QSharedPointer<QCPAxisTickerText>(new QCPAxisTickerText));
    plot->yAxis->grid()->setVisible(false);
    plot->yAxis->setTickLength(0, 3);
    plot->yAxis->setSubTicks(false);
    plot->setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
    plot->axisRect()->setRangeDrag(Qt::Horizontal);
    plot->axisRect()->setRangeZoom(Qt::Horizontal);
    plot->setWhatsThis(i18nc("@info:whatsthis",
                             "Each mark is an extent: pages of one file that came into the page cache one after another, from the time "
                             "the first came in to the time the last did. Blue marks hold pages the program read or mapped; green ones "
                             "only readahead brought in. Scroll to zoom in time, drag to move; hover a mark for its file, offset and "
                             "length."));

    m_messageItem = new QCPItemText(plot);
    m_messageItem->position->setType(QCPItemPosition::ptAxisRectRatio);
    m_messageItem->position->setCoords(0.5, 0.5);
    m_messageItem->setPositionAlignment(Qt::AlignCenter);
    m_messageItem->setTextAlignment(Qt::AlignCenter);
    m_messageItem->setClipToAxisRect(false);
    const auto restyle = [this] {
        m_messageItem->setColor(m_plot->palette().color(QPalette::WindowText));
        m_messageItem->setFont(m_plot->font());
        labelFiles();
        if (!m_message.isEmpty()) {
            showMessage(m_message);
        }
    };
    PlotStyle::follow(plot, restyle);
    restyle();
    plot->installEventFilter(this);
    showReport(std::nullopt);
}

TraceTimeline::~TraceTimeline() = default;

void TraceTimeline::showReport(const std::optional<Report> &report)
{
    m_report = report;
    m_plot->clearPlottables();
    m_marks.clear();
    m_rowOfFile.clear();
    m_rowNames.clear();
    if (!report) {
        showMessage(i18nc("@info on the plot", "Trace a program to see when each of its pages came into the cache."));
        return;
    }
    if (report->method != Method::Tracefs) {
        // The residency difference knows which pages, not when nor in which order.
        showMessage(i18nc("@info on the plot",
                          "No timeline: this run compared the files' residency before and after it (the kernel's events need the "
                          "privileged helper). That tells which pages were read, not when nor in which order. The extents and the "
                          "heatmap below show the pages."));
        return;
    }
    if (report->extents.empty()) {
        showMessage(i18nc("@info on the plot", "The program read no page from the disk: everything it needed was in the cache already."));
        return;
    }

    // A row for each file that has an extent, in the report's order.
    m_rowOfFile = QList<int>(int(report->files.size()), -1);
    for (const Extent &extent : report->extents) {
        if (extent.file >= 0 && extent.file < m_rowOfFile.size()) {
            m_rowOfFile[extent.file] = 0;
        }
    }
    for (int file = 0; file < m_rowOfFile.size(); ++file) {
        if (m_rowOfFile[file] < 0) {
            continue;
        }
        m_rowOfFile[file] = int(m_rowNames.size());
        m_rowNames << traceFileShortName(*report, file);
    }

    // To the last extent: the command may run on long after its last read
    // (the totals say how long); dragging and the wheel show the rest.
    double end = 0;
    for (const Extent &extent : report->extents) {
        end = std::max(end, extent.endSeconds);
    }
    m_timeScale = end < 2 ? 1000 : 1;
    m_plot->xAxis->setLabel(m_timeScale > 1 ? i18nc("@label:axis", "Time since the command started (ms)")
                                            : i18nc("@label:axis", "Time since the command started (s)"));

    // One plottable per kind, in the legend's order, only for kinds that occur.
    for (const ExtentKind kind : {ExtentKind::Asked, ExtentKind::Readahead, ExtentKind::Unknown, ExtentKind::Metadata}) {
        auto *marks = new ExtentMarks(m_plot->xAxis, m_plot->yAxis, kind);
        for (size_t i = 0; i < report->extents.size(); ++i) {
            const Extent &extent = report->extents[i];
            if (extentKind(*report, extent) != kind || extent.file < 0 || extent.file >= m_rowOfFile.size()) {
                continue;
            }
            marks->add({extent.startSeconds * m_timeScale, extent.endSeconds * m_timeScale, double(m_rowOfFile[extent.file]), int(i)});
        }
        if (marks->marks().empty()) {
            m_plot->removePlottable(marks);
        } else {
            m_marks << marks;
        }
    }

    m_message.clear();
    m_messageItem->setVisible(false);
    m_plot->xAxis->setVisible(true);
    m_plot->yAxis->setVisible(true);
    if (qobject_cast<QCPLayoutInset *>(m_plot->legend->layout())) {
        PlotStyle::placeLegendBelow(m_plot, m_plot->axisRect(), 2);
        PlotStyle::apply(m_plot); // the legend's ground under the plot, not over data
    }
    m_plot->xAxis->setRange(0, std::max(end * m_timeScale * 1.05, 1e-3));
    m_plot->yAxis->setRange(-0.6, double(m_rowNames.size()) - 0.4);
    labelFiles();
    // For a screen reader: what the marks add up to (the extents table below has each).
    QStringList kinds;
    for (const ExtentMarks *marks : std::as_const(m_marks)) {
        kinds << i18ncp("@info accessible description of the trace timeline, %2 a kind of read",
                        "%2: %1 extent",
                        "%2: %1 extents",
                        int(marks->marks().size()),
                        marks->name());
    }
    m_plot->setAccessibleDescription(i18ncp("@info accessible description of the trace timeline, %2 a duration, %3 extents by kind",
                                            "Pages of %1 file came into the cache within %2. %3",
                                            "Pages of %1 files came into the cache within %2. %3",
                                            int(m_rowNames.size()),
                                            formatDuration(end),
                                            kinds.join(i18nc("@info list separator", ", "))));
    m_plot->replot(QCustomPlot::rpQueuedReplot);
}

void TraceTimeline::labelFiles()
{
    auto ticker = qSharedPointerCast<QCPAxisTickerText>(m_plot->yAxis->ticker());
    ticker->clear();
    if (m_rowNames.isEmpty()) {
        return;
    }
    // As many names as fit one above the other; every step-th row otherwise.
    const QFontMetrics metrics(m_plot->font());
    const int height = m_plot->axisRect()->height() > 20 ? m_plot->axisRect()->height() : std::max(100, m_plot->height() - 120);
    const int fitting = std::max(1, height / (metrics.height() + 2));
    const int step = int(std::ceil(double(m_rowNames.size()) / double(fitting)));
    for (int row = 0; row < m_rowNames.size(); row += step) {
        QString name = m_rowNames[row];
        if (name.size() > fileLabelCharacters) {
            name = name.left(fileLabelCharacters / 2 - 1) + QStringLiteral("…") + name.right(fileLabelCharacters / 2);
        }
        ticker->addTick(row, name);
    }
}

void TraceTimeline::showMessage(const QString &text)
{
    m_message = text;
    m_plot->xAxis->setVisible(false);
    m_plot->yAxis->setVisible(false);
    // Back into the axis rectangle's inset, hidden: an empty legend under
    // the plot, even hidden, narrows the plot to its own width.
    if (!qobject_cast<QCPLayoutInset *>(m_plot->legend->layout())) {
        m_plot->plotLayout()->take(m_plot->legend);
        m_plot->plotLayout()->simplify();
        m_plot->axisRect()->insetLayout()->addElement(m_plot->legend, Qt::AlignTop | Qt::AlignRight);
    }
    m_plot->legend->setVisible(false);
    qSharedPointerCast<QCPAxisTickerText>(m_plot->yAxis->ticker())->clear();
    const int width = std::max(200, (m_plot->width() > 100 ? m_plot->width() : 600) - 60);
    m_messageItem->setText(wrapped(text, QFontMetrics(m_plot->font()), width));
    m_plot->setAccessibleDescription(text);
    m_messageItem->setVisible(true);
    m_plot->replot(QCustomPlot::rpQueuedReplot);
}

int TraceTimeline::markCount() const
{
    int count = 0;
    for (const ExtentMarks *marks : m_marks) {
        count += int(marks->marks().size());
    }
    return count;
}

int TraceTimeline::markCount(ExtentKind kind) const
{
    for (const ExtentMarks *marks : m_marks) {
        if (marks->kind() == kind) {
            return int(marks->marks().size());
        }
    }
    return 0;
}

QString TraceTimeline::message() const
{
    return m_message;
}

int TraceTimeline::extentAt(const QPoint &pos) const
{
    // The last drawn wins, as it is on top; a pixel around a mark counts.
    int found = -1;
    for (const ExtentMarks *marks : m_marks) {
        for (const ExtentMarks::Mark &mark : marks->marks()) {
            if (marks->markRect(mark).adjusted(-1, -1, 1, 1).contains(pos)) {
                found = mark.extent;
            }
        }
    }
    return found;
}

QPoint TraceTimeline::markCentre(int extent) const
{
    for (const ExtentMarks *marks : m_marks) {
        for (const ExtentMarks::Mark &mark : marks->marks()) {
            if (mark.extent == extent) {
                return marks->markRect(mark).center().toPoint();
            }
        }
    }
    return {-1, -1};
}

QString TraceTimeline::toolTipFor(int extent) const
{
    if (!m_report || extent < 0 || size_t(extent) >= m_report->extents.size()) {
        return {};
    }
    const Extent &e = m_report->extents[size_t(extent)];
    const uint64_t page = pageSize();
    QStringList lines;
    lines << QStringLiteral("<b>%1</b>").arg(traceFileName(*m_report, e.file).toHtmlEscaped());
    lines << i18nc("@info:tooltip %1 bytes, %2 page number",
                   "Offset: %1 (page %2)",
                   formatBytes(e.firstPage * page, ByteStyle::Exact, QLocale()),
                   QLocale().toString(qulonglong(e.firstPage)));
    lines << i18ncp("@info:tooltip %2 bytes, %1 pages",
                    "Length: %2 (%1 page)",
                    "Length: %2 (%1 pages)",
                    qulonglong(e.pageCount),
                    formatBytes(e.pageCount * page, ByteStyle::Exact, QLocale()));
    lines << i18nc("@info:tooltip %1 and %2 milliseconds since the start",
                   "Time: %1 to %2 ms",
                   QLocale().toString(e.startSeconds * 1000, 'f', 3),
                   QLocale().toString(e.endSeconds * 1000, 'f', 3));
    const ExtentKind kind = extentKind(*m_report, e);
    if (m_report->usageKnown && kind != ExtentKind::Metadata) {
        lines << i18nc("@info:tooltip %1 pages of %2",
                       "Asked for by the program: %1 of %2 pages",
                       QLocale().toString(qulonglong(e.askedPages)),
                       QLocale().toString(qulonglong(e.pageCount)));
    } else {
        lines << extentKindText(kind);
    }
    return lines.join(QStringLiteral("<br/>"));
}

bool TraceTimeline::eventFilter(QObject *watched, QEvent *event)
{
    if (watched == m_plot) {
        if (event->type() == QEvent::ToolTip) {
            auto *help = static_cast<QHelpEvent *>(event);
            const int extent = extentAt(help->pos());
            if (extent >= 0) {
                QToolTip::showText(help->globalPos(), toolTipFor(extent), m_plot);
            } else {
                QToolTip::hideText();
            }
            return true;
        }
        if (event->type() == QEvent::MouseButtonPress) {
            const int extent = extentAt(static_cast<QMouseEvent *>(event)->position().toPoint());
            if (extent >= 0) {
                Q_EMIT extentClicked(extent);
            }
        }
        if (event->type() == QEvent::Resize) {
            if (!m_message.isEmpty()) {
                showMessage(m_message);
            } else {
                labelFiles();
            }
        }
    }
    return QObject::eventFilter(watched, event);
}

} // namespace Cachescope::App
