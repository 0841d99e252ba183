// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers

// The Experiments window on the offscreen platform, with the real engines on
// the real kernel (small sizes): a cold-read run from the Start button to the
// table, the bars, the live plot, the history and the exports; cancel in the
// middle of a run; bad input.

#include "experiments/experimentswindow.h"
#include "cachescopesettings.h"
#include "experiments/coldreadpage.h"
#include "experiments/coldstartpage.h"
#include "experiments/experimentpage.h"
#include "experiments/figuretext.h"
#include "experiments/folderthrashpage.h"
#include "experiments/liveplot.h"
#include "experiments/resultsmodel.h"
#include "experiments/writebackpage.h"
#include "heatmap/heatmapwidget.h"
#include "testutil.h"

#include <KMessageWidget>
#include <KPageWidget>
#include <KPageWidgetModel>

#include <QApplication>
#include <QCheckBox>
#include <QComboBox>
#include <QDir>
#include <QDoubleSpinBox>
#include <QElapsedTimer>
#include <QFile>
#include <QFileInfo>
#include <QHeaderView>
#include <QImage>
#include <QJsonArray>
#include <QJsonObject>
#include <QLabel>
#include <QLineEdit>
#include <QPointer>
#include <QPushButton>
#include <QSignalSpy>
#include <QSpinBox>
#include <QStandardPaths>
#include <QStyleOptionViewItem>
#include <QTabWidget>
#include <QTableView>
#include <QTableWidget>
#include <QTest>

#include <QUrl>

#include <qcustomplot.h>

#include <unistd.h>

#include <functional>
#include <memory>

using namespace Cachescope::App;

namespace
{

QStringList filesIn(const QString &folder)
{
    return QDir(folder).entryList(QDir::Files | QDir::NoDotAndDotDot | QDir::Hidden);
}

// The text a cell of the results table shows.
QString cellText(const QTableView *table, int row, int column)
{
    return table->model()->index(row, column).data().toString();
}

// The number at the start of "27.3 ms" or "8.09×" (in the user's locale).
double leadingNumber(const QString &text, bool *ok)
{
    const QLocale locale;
    qsizetype end = 0;
    while (end < text.size()
           && (text[end].isDigit() || text[end] == locale.decimalPoint() || text[end] == locale.groupSeparator() || text[end] == locale.negativeSign())) {
        ++end;
    }
    return locale.toDouble(text.left(end), ok);
}

// The ticks of the plot's bottom axis whose label it draws, at that width:
// ink just below the tick, where a slanted label ends (or a level one is
// centred). QCustomPlot leaves out a label that would reach past the plot's edge.
QList<double> ticksWithDrawnLabels(QCustomPlot *plot, int width)
{
    // Laid out and drawn at that size; the axis rectangle stays so until the next replot.
    const QImage image = plot->toPixmap(width, plot->height()).toImage();
    const QColor background = image.pixelColor(image.width() - 1, image.height() - 1);
    const bool slanted = plot->xAxis->tickLabelRotation() < 0;
    const int top = plot->axisRect()->bottom() + 5;
    const int bottom = top + QFontMetrics(plot->xAxis->tickLabelFont()).height();
    QList<double> drawn;
    for (const double tick : plot->xAxis->tickVector()) {
        const int x = int(plot->xAxis->coordToPixel(tick));
        int ink = 0;
        for (int px = slanted ? x - 12 : x - 3; px <= x + 1; ++px) {
            for (int py = top; py <= bottom; ++py) {
                const QColor pixel = image.pixelColor(px, py);
                ink +=
                    std::abs(pixel.red() - background.red()) + std::abs(pixel.green() - background.green()) + std::abs(pixel.blue() - background.blue()) > 150;
            }
        }
        if (ink >= 3) {
            drawn << tick;
        }
    }
    return drawn;
}

} // namespace

class ExperimentsWindowTest : public QObject
{
    Q_OBJECT

private:
    QString m_folder;

    // A cold-read page set up for a small file in the scratch folder.
    ExperimentPage *coldReadPage(ExperimentsWindow *window, int sizeMiB, int runs)
    {
        ExperimentPage *page = window->page(QStringLiteral("cold-read"));
        if (!page) {
            return nullptr;
        }
        page->findChild<QLineEdit *>(QStringLiteral("folderEdit"))->setText(m_folder);
        page->findChild<QSpinBox *>(QStringLiteral("sizeSpin"))->setValue(sizeMiB);
        page->findChild<QSpinBox *>(QStringLiteral("runsSpin"))->setValue(runs);
        window->showPage(page);
        return page;
    }

private Q_SLOTS:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
        QDir(ExperimentPage::historyFolder()).removeRecursively();
        m_folder = QString::fromStdString(TestUtil::scratchDir("experimentswindow"));
    }

    void init()
    {
        QVERIFY(filesIn(m_folder).isEmpty());
    }

    void cleanup()
    {
        // Every run removes the file it made, also when cancelled.
        QCOMPARE(filesIn(m_folder), QStringList());
    }

    // The lessons' files go to a folder of their own (not ~/.cache/cachescope
    // itself, where tools/dev keeps its build roots), or to the one chosen
    // in the settings.
    void experimentsHaveAFolderOfTheirOwn()
    {
        const QString cache = QStandardPaths::writableLocation(QStandardPaths::CacheLocation);
        CachescopeSettings::self()->setExperimentsFolder(QUrl());
        {
            auto window = std::make_unique<ExperimentsWindow>();
            const QString shown = window->page(QStringLiteral("cold-read"))->findChild<QLineEdit *>(QStringLiteral("folderEdit"))->text();
            QCOMPARE(shown, QDir(cache).filePath(QStringLiteral("experiments")));
            QVERIFY(QFileInfo(shown).isDir());
        }
        CachescopeSettings::self()->setExperimentsFolder(QUrl::fromLocalFile(m_folder));
        {
            auto window = std::make_unique<ExperimentsWindow>();
            QCOMPARE(window->page(QStringLiteral("cold-read"))->findChild<QLineEdit *>(QStringLiteral("folderEdit"))->text(), m_folder);
        }
        CachescopeSettings::self()->setExperimentsFolder(QUrl());
    }

    // Each figure in the unit that suits it, as `free -h` and KDE write
    // them: 27 ms, not 0.027 s.
    void figuresInTheirUnit()
    {
        const QLocale before;
        QLocale::setDefault(QLocale::c());
        const struct {
            const char *unit;
            double value;
            const char *shown;
        } figures[] = {
            {"s", 0.027, "27.0 ms"},
            {"s", 0.00085, "850 µs"},
            {"s", 0.0000004, "400 ns"},
            {"s", 1.25, "1.25 s"},
            {"s", 90, "90.0 s"},
            {"s", 150, "2.50 min"},
            {"s", 0, "0 s"},
            {"bytes", 1.5 * (1 << 30), "1.50 GiB"},
            {"bytes", 512, "512 B"},
            {"bytes", 20 * 1024, "20.0 KiB"},
            {"MiB/s", 2300, "2.25 GiB/s"},
            {"MiB/s", 180, "180 MiB/s"},
            {"percent", 85.24, "85.2%"},
            {"ratio", 3.2, "3.20×"},
            {"count", 4096, "4096"},
            {"pages", 12, "12 pages"},
        };
        for (const auto &figure : figures) {
            QCOMPARE(formatFigure(figure.unit, figure.value), QString::fromUtf8(figure.shown));
        }
        // A row's interval is written in its mean's unit, to compare by eye.
        const DisplayScale scale = displayScale("s", 0.0273);
        QCOMPARE(formatScaled(0.0273, scale), QStringLiteral("27.3 ms"));
        QCOMPARE(formatScaled(0.00041, scale), QStringLiteral("0.410 ms"));
        QLocale::setDefault(before);
    }

    // The live plot's time axis spans the run and a little more: a 0.13 s
    // run is not drawn on 0-1 s; it is told in ms.
    void livePlotFitsTheRun()
    {
        QCustomPlot plot;
        const LiveSeries series{QStringLiteral("Cached"), Qt::green, false, [](const Cachescope::Experiments::Sample &sample) {
                                    return std::optional<double>(sample.seconds * 10);
                                }};
        LivePlot live(&plot, {series}, QStringLiteral("Memory (MiB)"), QString());
        // Empty: it says what will come, no bare axes.
        QVERIFY(live.placeholder());
        QVERIFY(!live.placeholder()->text().isEmpty());
        for (const double seconds : {0.02, 0.07, 0.13}) {
            Cachescope::Experiments::Sample sample;
            sample.seconds = seconds;
            QVERIFY(live.addSample(sample));
        }
        QVERIFY(!live.placeholder());
        QCOMPARE(plot.itemCount(), 0);
        const QCPRange range = plot.xAxis->range();
        QCOMPARE(range.lower, 0.0);
        QVERIFY2(range.upper >= 0.13 && range.upper <= 0.13 * 1.1, qPrintable(QString::number(range.upper)));
        QVERIFY2(plot.xAxis->label().contains(QLatin1String("ms")), qPrintable(plot.xAxis->label()));
        // The values too: 1.3 at most, not 0-1 nor 0-10.
        QVERIFY2(plot.yAxis->range().upper >= 1.3 && plot.yAxis->range().upper <= 1.3 * 1.2, qPrintable(QString::number(plot.yAxis->range().upper)));
        // A new run starts empty again, with the text.
        live.clear();
        QVERIFY(live.placeholder());
        QCOMPARE(plot.graph(0)->dataCount(), 0);
    }

    void constructsTenPages()
    {
        auto *window = new ExperimentsWindow;
        window->show();
        QCOMPARE(window->pages().size(), 10);
        QCOMPARE(window->pageWidget()->model()->rowCount(), 10);
        QStringList names;
        for (ExperimentPage *page : window->pages()) {
            names << page->experimentName();
            QVERIFY(!page->title().isEmpty());
            QVERIFY(!page->findChild<QLabel *>(QStringLiteral("explanationLabel"))->text().isEmpty());
            QVERIFY(page->startButton()->isEnabled());
            QVERIFY(!page->cancelButton()->isEnabled());
        }
        QCOMPARE(names,
                 QStringList({QStringLiteral("cold-read"),
                              QStringLiteral("pressure"),
                              QStringLiteral("cold-start"),
                              QStringLiteral("writeback"),
                              QStringLiteral("faults"),
                              QStringLiteral("trace"),
                              QStringLiteral("folder-thrash"),
                              QStringLiteral("drop-behind"),
                              QStringLiteral("thrash-cliff"),
                              QStringLiteral("shmem")}));

        // The privileged variants are usable only with the helper; when they
        // are not, the tooltip says why.
        ExperimentPage *page = window->page(QStringLiteral("cold-read"));
        auto *dropCaches = page->findChild<QCheckBox *>(QStringLiteral("dropCachesCheck"));
        QTRY_VERIFY(!dropCaches->toolTip().startsWith(QLatin1String("Checking")));
        if (!dropCaches->isEnabled()) {
            QVERIFY(!dropCaches->toolTip().isEmpty());
        }
        delete window;
    }

    // A colour-scheme change (a new application palette) restyles every
    // experiment plot, as it does the memory panel.
    void plotsFollowColorScheme()
    {
        auto *window = new ExperimentsWindow;
        window->show();
        const QPalette original = QApplication::palette();
        QPalette changed = original;
        const QColor background(0x20, 0x22, 0x26);
        const QColor text(0xfc, 0xfc, 0xfc);
        const QColor base(0x14, 0x16, 0x18);
        for (const auto group : {QPalette::Active, QPalette::Inactive, QPalette::Disabled}) {
            changed.setColor(group, QPalette::Window, background);
            changed.setColor(group, QPalette::WindowText, text);
            changed.setColor(group, QPalette::Base, base);
        }
        for (ExperimentPage *page : window->pages()) {
            for (QCustomPlot *plot : {page->livePlot(), page->barChart()}) {
                QVERIFY(plot->axisRect()->backgroundBrush().color() != base);
                QVERIFY(plot->xAxis->basePen().color() != text);
            }
        }
        QApplication::setPalette(changed);
        for (ExperimentPage *page : window->pages()) {
            for (QCustomPlot *plot : {page->livePlot(), page->barChart()}) {
                QTRY_COMPARE(plot->axisRect()->backgroundBrush().color(), base);
                QCOMPARE(plot->xAxis->basePen().color(), text);
                QCOMPARE(plot->yAxis->tickLabelColor(), text);
                QCOMPARE(plot->legend->textColor(), text);
            }
            // The live plot's legend sits under it, on the window's colour.
            QCOMPARE(page->livePlot()->legend->brush().color(), background);
        }
        QApplication::setPalette(original);
        QTRY_COMPARE(window->pages().constFirst()->livePlot()->axisRect()->backgroundBrush().color(), original.color(QPalette::Base));
        delete window;
    }

    // The folder-eviction lesson from its page: the lesson's table and the
    // plots against the file count, both variants with error bars. Its
    // memory cgroup is made in process, as root.
    void folderThrashRun()
    {
        if (::geteuid() != 0) {
            QSKIP("the lesson's memory cgroup is made in process as root (tools/dev runs the tests as root)");
        }
        auto *window = new ExperimentsWindow;
        window->show();
        auto *page = qobject_cast<FolderThrashPage *>(window->page(QStringLiteral("folder-thrash")));
        QVERIFY(page);
        window->showPage(page);
        page->findChild<QLineEdit *>(QStringLiteral("folderEdit"))->setText(m_folder);
        // Three counts: six bars, whose labels are slanted.
        page->findChild<QLineEdit *>(QStringLiteral("filesEdit"))->setText(QStringLiteral("8, 10, 12"));
        page->findChild<QSpinBox *>(QStringLiteral("fileSizeSpin"))->setValue(256);
        page->findChild<QSpinBox *>(QStringLiteral("runsSpin"))->setValue(2);
        // The helper's check (which gives the pages their privileged steps) is done.
        auto *dropCaches = window->page(QStringLiteral("cold-read"))->findChild<QCheckBox *>(QStringLiteral("dropCachesCheck"));
        QTRY_VERIFY(dropCaches->isEnabled());
        page->startButton()->click();
        QVERIFY(page->isRunning());
        QTRY_VERIFY_WITH_TIMEOUT(!page->isRunning(), 120000);
        QVERIFY(page->currentResult());
        QVERIFY2(page->currentResult()->ok(), page->currentResult()->error.c_str());

        const Cachescope::Experiments::Result &result = *page->currentResult();
        QStringList variants;
        for (const Cachescope::Experiments::VariantResult &variant : result.variants) {
            variants << QString::fromStdString(variant.name);
        }
        QCOMPARE(variants.size(), 6);

        // One row a file count and variant.
        QTableWidget *table = page->lessonTable();
        QCOMPARE(table->rowCount(), 6);
        QCOMPARE(table->item(0, FolderThrashPage::FilesColumn)->text(), QLocale().toString(8));
        QCOMPARE(table->item(5, FolderThrashPage::FilesColumn)->text(), QLocale().toString(12));
        QVERIFY(table->item(1, FolderThrashPage::ReadColumn)->text().contains(QStringLiteral("±"))); // two runs: an interval
        // Each plot: a line a variant with its error bars, a point a count.
        for (QCustomPlot *plot : {page->timePlot(), page->cachedPlot()}) {
            QCOMPARE(plot->graphCount(), 2);
            QCOMPARE(plot->graph(0)->dataCount(), 3);
            QCOMPARE(plot->graph(1)->dataCount(), 3);
            QCOMPARE(plot->plottableCount(), 4);
        }

        // Variants compared: a bar and a drawn label each. The first bar's
        // slanted label reached past the plot's left edge and was left out.
        QCustomPlot *bars = page->barChart();
        QTRY_VERIFY(bars->isVisible() && bars->width() > 100);
        QVERIFY(bars->xAxis->tickLabelRotation() < 0);
        const auto ticker = qSharedPointerCast<QCPAxisTickerText>(bars->xAxis->ticker());
        QCOMPARE(ticker->ticks().size(), variants.size());
        for (const QString &label : ticker->ticks()) {
            QVERIFY(!label.isEmpty());
        }
        for (const int width : {bars->width(), bars->width() - 80, bars->width() + 200}) {
            QCOMPARE(ticksWithDrawnLabels(bars, width), QList<double>(ticker->ticks().keys()));
        }
        bars->replot();

        // While it runs: a line a variant, the mean of its two runs over the
        // time since each began, not every run one after another.
        QCustomPlot *live = page->livePlot();
        QStringList legendNames;
        QList<QCPGraph *> lines;
        for (int i = 0; i < live->legend->itemCount(); ++i) {
            // The legend wraps in two columns: a cell of the grid may be empty.
            auto *item = qobject_cast<QCPPlottableLegendItem *>(live->legend->item(i));
            if (!item) {
                continue;
            }
            legendNames << item->plottable()->name();
            lines << qobject_cast<QCPGraph *>(item->plottable());
        }
        // Each variant at most once, in the order their first samples came
        // (a short run may give its first sample after the next variant's,
        // and a run shorter than the 20 ms between samples none: then its
        // variant has no line yet).
        QVERIFY(!legendNames.isEmpty());
        for (const QString &name : std::as_const(legendNames)) {
            QVERIFY2(variants.contains(name), qPrintable(name));
            QCOMPARE(legendNames.count(name), qsizetype(1));
        }
        // Each line with its band (two edges, filled between).
        QCOMPARE(live->graphCount(), 3 * legendNames.size());
        for (QCPGraph *line : std::as_const(lines)) {
            QVERIFY(line);
            QVERIFY2(line->dataCount() > 0, qPrintable(line->name()));
            QCOMPARE(line->data()->at(0)->key, 0.0);
            // A run, not the experiment: twelve runs took its time.
            QVERIFY2(line->data()->at(line->dataCount() - 1)->key < result.seconds / 4, qPrintable(line->name()));
        }
        for (int i = 0; i < live->graphCount(); ++i) {
            QCPGraph *highest = live->graph(i);
            if (QCPGraph *lowest = highest->channelFillGraph()) {
                QCOMPARE(highest->dataCount(), lowest->dataCount());
                for (int k = 0; k < highest->dataCount(); ++k) {
                    QVERIFY(highest->data()->at(k)->value >= lowest->data()->at(k)->value);
                }
            }
        }
        // Folder 1's share is a percentage.
        QVERIFY(page->cachedPlot()->graph(1)->data()->at(0)->value <= 100);
        QVERIFY(page->cachedPlot()->graph(1)->data()->at(0)->value > 0);
        delete window;
    }

    void coldReadRun()
    {
        auto *window = new ExperimentsWindow;
        window->show();
        ExperimentPage *page = coldReadPage(window, 16, 2);
        QVERIFY(page);
        QSignalSpy finished(page, &ExperimentPage::finished);

        // The file's heatmap: hidden until a run, then filled in as the cold
        // read goes. Record the resident pages at every update.
        auto *coldRead = qobject_cast<ColdReadPage *>(page);
        QVERIFY(coldRead);
        HeatmapWidget *heatmap = coldRead->fileHeatmap();
        QVERIFY(!heatmap->isVisibleTo(page));
        QList<uint64_t> residentSeen;
        connect(heatmap, &HeatmapWidget::updated, this, [heatmap, &residentSeen] {
            uint64_t resident = 0;
            for (int cell = 0; cell < heatmap->cellCount(); ++cell) {
                resident += heatmap->cellResidentPages(cell);
            }
            residentSeen << resident;
        });

        page->startButton()->click();
        QVERIFY(page->isRunning());
        QVERIFY(!page->startButton()->isEnabled());
        QVERIFY(page->cancelButton()->isEnabled());
        QTRY_VERIFY_WITH_TIMEOUT(!page->isRunning(), 120000);
        QCOMPARE(finished.count(), 1);

        QVERIFY(page->currentResult());
        const auto &result = *page->currentResult();
        QVERIFY2(result.ok(), result.error.c_str());
        QVERIFY(page->startButton()->isEnabled());

        // The table: one row a figure of the variant, with numbers in the
        // unit that suits each: a time of 27 ms reads "27.0 ms", its
        // interval in ms too.
        QTableView *table = page->resultsTable();
        QVERIFY(table->model()->rowCount() >= 5);
        bool sawColdTime = false;
        for (int row = 0; row < table->model()->rowCount(); ++row) {
            QCOMPARE(cellText(table, row, ExperimentResultsModel::VariantColumn), QStringLiteral("fadvise"));
            QCOMPARE(cellText(table, row, ExperimentResultsModel::RunsColumn), QStringLiteral("2"));
            const QString meanText = cellText(table, row, ExperimentResultsModel::MeanColumn);
            bool ok = false;
            const double mean = leadingNumber(meanText, &ok);
            QVERIFY2(ok, qPrintable(meanText));
            QVERIFY(mean >= 0);
            const QString confidence = cellText(table, row, ExperimentResultsModel::ConfidenceColumn);
            QVERIFY(!confidence.isEmpty()); // two runs: an interval
            const auto *measurement = &result.variants.front().measurements.at(size_t(row));
            if (measurement->unit == "s") {
                const QString unit = meanText.section(QLatin1Char(' '), 1);
                QVERIFY2(QStringList({QStringLiteral("ns"), QStringLiteral("µs"), QStringLiteral("ms"), QStringLiteral("s")}).contains(unit),
                         qPrintable(meanText));
                QVERIFY2(mean >= 1 && mean < 1000, qPrintable(meanText)); // not 0.027 s
                QVERIFY2(confidence.endsWith(QLatin1Char(' ') + unit), qPrintable(confidence));
                QCOMPARE(meanText, formatFigure("s", measurement->statistics.mean));
            }
            sawColdTime |= cellText(table, row, ExperimentResultsModel::FigureColumn) == QStringLiteral("Cold time");
        }
        QVERIFY(sawColdTime);
        // No column stretches across the table but the figure's name: each
        // number column is as wide as its contents.
        QHeaderView *header = table->horizontalHeader();
        for (int column = 0; column < ExperimentResultsModel::ColumnCount; ++column) {
            QVERIFY(!table->isColumnHidden(column));
            if (column == ExperimentResultsModel::FigureColumn) {
                continue;
            }
            int contents = header->sectionSizeHint(column);
            QStyleOptionViewItem option;
            option.initFrom(table);
            for (int row = 0; row < table->model()->rowCount(); ++row) {
                contents = std::max(contents, table->itemDelegate()->sizeHint(option, table->model()->index(row, column)).width());
            }
            // A few pixels for the grid and the style's margins; a column
            // stretched across the table is hundreds too wide.
            QVERIFY2(header->sectionSize(column) <= contents + 24,
                     qPrintable(QStringLiteral("column %1: %2 wide for %3 of contents").arg(column).arg(header->sectionSize(column)).arg(contents)));
        }
        for (int column = ExperimentResultsModel::ColumnCount; column < ExperimentResultsModel::AllColumnCount; ++column) {
            QVERIFY(table->isColumnHidden(column)); // the CSV's own, the unit among them
        }

        // The bars: cold and warm time of the variant, with error bars.
        QCustomPlot *bars = page->barChart();
        QCOMPARE(bars->plottableCount(), 2); // the bars and their error bars
        auto *barData = qobject_cast<QCPBars *>(bars->plottable(0));
        QVERIFY(barData);
        QCOMPARE(barData->data()->size(), 2);
        QVERIFY(barData->data()->at(0)->value > barData->data()->at(1)->value); // cold slower than warm
        // In the unit that suits the tallest bar, said on the axis.
        const double tallest = barData->data()->at(0)->value;
        QVERIFY2(tallest >= 1 && tallest < 1000, qPrintable(QString::number(tallest)));
        QVERIFY2(bars->yAxis->label().endsWith(QLatin1Char(')')), qPrintable(bars->yAxis->label()));
        QVERIFY(qobject_cast<QCPErrorBars *>(bars->plottable(1)));

        // "Bars show" sits under the bar chart, at no less than its size
        // hint, also in a narrow window: never a cramped field.
        QComboBox *barsShow = page->barMeasurementCombo();
        for (const int width : {1280, 1000}) {
            window->resize(width, 760);
            QApplication::processEvents();
            QVERIFY2(
                barsShow->width() >= barsShow->sizeHint().width(),
                qPrintable(QStringLiteral("%1 wide for %2 at a window %3 wide").arg(barsShow->width()).arg(barsShow->sizeHint().width()).arg(window->width())));
            const QRect chart(bars->mapTo(window, QPoint(0, 0)), bars->size());
            const QPoint comboCentre = barsShow->mapTo(window, barsShow->rect().center());
            QVERIFY(comboCentre.y() > chart.bottom());
            QVERIFY(comboCentre.x() > chart.left() && comboCentre.x() < chart.right());
        }

        // The live plot got the file's residency while it was read.
        QVERIFY(page->liveSampleCount() > 0);
        QVERIFY(page->livePlot()->graph(0)->dataCount() > 0);

        // The heatmap started empty (the evicted file) and ended full, drawn
        // from the engine's samples, not from a file of its own.
        const uint64_t filePages = (16ULL << 20) / uint64_t(sysconf(_SC_PAGESIZE));
        QVERIFY(heatmap->isVisibleTo(page));
        QVERIFY(heatmap->showsRecorded());
        QVERIFY2(residentSeen.size() >= 2, qPrintable(QString::number(residentSeen.size())));
        QCOMPARE(residentSeen.first(), uint64_t(0));
        QCOMPARE(residentSeen.last(), filePages);
        QCOMPARE(heatmap->filePageCount(), filePages);
        QVERIFY(heatmap->visibleTexts().join(QLatin1Char(' ')).contains(QLatin1String("New file")));

        // Kept in the history, and listed there.
        QVERIFY(QFile::exists(page->storedPath()));
        QVERIFY(page->storedPath().startsWith(ExperimentPage::historyFolder()));
        QComboBox *history = page->historyCombo();
        QVERIFY(history->findData(page->storedPath()) > 0);

        // Comparing with it: its rows in the table and its bars beside.
        const int rowsAlone = table->model()->rowCount();
        history->setCurrentIndex(history->findData(page->storedPath()));
        QCOMPARE(table->model()->rowCount(), 2 * rowsAlone);
        QCOMPARE(bars->plottableCount(), 4);

        // Export: the table as CSV and the plots as PNG.
        const QString csvPath = QDir(m_folder).filePath(QStringLiteral("../experimentswindow-results.csv"));
        QString error;
        QVERIFY2(page->exportCsv(csvPath, &error), qPrintable(error));
        QFile csv(csvPath);
        QVERIFY(csv.open(QIODevice::ReadOnly));
        const QStringList lines = QString::fromUtf8(csv.readAll()).split(QLatin1Char('\n'), Qt::SkipEmptyParts);
        QCOMPARE(lines.value(0), QStringLiteral("result,started,variant,figure,unit,runs,mean,ci95_half_width,minimum,maximum,values,note"));
        QCOMPARE(lines.size(), 1 + 2 * rowsAlone);
        QVERIFY(std::any_of(lines.begin(), lines.end(), [](const QString &line) {
            return line.startsWith(QLatin1String("current,")) && line.contains(QLatin1String(",fadvise,cold_seconds,s,2,"));
        }));
        csv.remove();

        // Killed in the middle of writing (RLIMIT_FSIZE raises SIGXFSZ at the
        // write that passes it), an export leaves the file before it whole:
        // the table as CSV and the plots as PNG.
        const auto killedInTheMiddle = [&](const QString &name, const std::function<bool(const QString &, QString *)> &exportTo) {
            const QString keptPath = QDir(m_folder).filePath(QStringLiteral("../") + name);
            {
                QFile before(keptPath);
                if (!before.open(QIODevice::WriteOnly | QIODevice::Truncate) || before.write("the export before\n") != 18) {
                    return QStringLiteral("cannot write %1").arg(keptPath);
                }
            }
            const QString killed = TestUtil::killWhileWriting(256, [&] {
                QString ignored;
                (void)exportTo(keptPath, &ignored);
            });
            if (!killed.isEmpty()) {
                return QString(name + QStringLiteral(": ") + killed);
            }
            QFile kept(keptPath);
            if (!kept.open(QIODevice::ReadOnly) || kept.readAll() != QByteArray("the export before\n")) {
                return QStringLiteral("%1: the file before is not whole").arg(name);
            }
            kept.remove();
            // QSaveFile's temporary file, which the killed writer left.
            for (const QString &left :
                 QDir(QFileInfo(keptPath).absolutePath()).entryList({QFileInfo(keptPath).fileName() + QStringLiteral(".*")}, QDir::Files)) {
                QFile::remove(QFileInfo(keptPath).absoluteDir().filePath(left));
            }
            return QString();
        };
        QString killed = killedInTheMiddle(QStringLiteral("experimentswindow-kept.csv"), [page](const QString &path, QString *why) {
            return page->exportCsv(path, why);
        });
        QVERIFY2(killed.isEmpty(), qPrintable(killed));
        killed = killedInTheMiddle(QStringLiteral("experimentswindow-kept.png"), [page](const QString &path, QString *why) {
            return page->exportPng(path, why);
        });
        QVERIFY2(killed.isEmpty(), qPrintable(killed));

        const QString pngPath = QDir(m_folder).filePath(QStringLiteral("../experimentswindow-plots.png"));
        QVERIFY2(page->exportPng(pngPath, &error), qPrintable(error));
        const QImage image(pngPath);
        QVERIFY(!image.isNull());
        QVERIFY(image.width() > image.height());
        QFile::remove(pngPath);

        // A path that cannot be written: false, and the path in the message.
        const QString badPath = QStringLiteral("/proc/no-such-folder/results.csv");
        QVERIFY(!page->exportCsv(badPath, &error));
        QVERIFY2(error.contains(badPath), qPrintable(error));
        delete window;
    }

    // The cold-start page lists the program's files with size and residency.
    void coldStartFileList()
    {
        auto *window = new ExperimentsWindow;
        window->show();
        auto *page = qobject_cast<ColdStartPage *>(window->page(QStringLiteral("cold-start")));
        QVERIFY(page);
        window->showPage(page);
        const QString program = QStringLiteral("/usr/bin/true");
        page->findChild<QLineEdit *>(QStringLiteral("commandEdit"))->setText(program);
        page->findChild<QSpinBox *>(QStringLiteral("runsSpin"))->setValue(2);
        QCustomPlot *live = page->livePlot();
        QVERIFY(live->itemCount() > 0); // before a run: the text of what will come
        page->startButton()->click();
        QTRY_VERIFY_WITH_TIMEOUT(!page->isRunning(), 120000);
        QVERIFY(page->currentResult());
        QVERIFY2(page->currentResult()->ok(), page->currentResult()->error.c_str());

        // A program that starts in a millisecond still fills the live plot:
        // a point a run, cold and warm, on axes that fit them.
        QVERIFY(live->isVisibleTo(page));
        QCOMPARE(live->graphCount(), 2);
        QCOMPARE(live->itemCount(), 0);
        double slowest = 0;
        for (int graph = 0; graph < 2; ++graph) {
            QCOMPARE(live->graph(graph)->dataCount(), 2);
            for (int point = 0; point < 2; ++point) {
                QVERIFY(live->graph(graph)->data()->at(point)->value > 0);
                slowest = std::max(slowest, live->graph(graph)->data()->at(point)->value);
            }
        }
        QVERIFY2(live->yAxis->range().upper >= slowest && live->yAxis->range().upper <= slowest * 1.3, qPrintable(QString::number(live->yAxis->range().upper)));
        QCOMPARE(live->xAxis->range().upper, 2.5);

        QTableWidget *files = page->filesTable();
        QVERIFY(files->rowCount() >= 2); // the program and at least libc
        // The tab beside the results shows now that there are two.
        auto *tabs = page->findChild<QTabWidget *>(QStringLiteral("resultsTabs"));
        QVERIFY(tabs);
        QCOMPARE(tabs->count(), 2);
        QVERIFY(tabs->indexOf(files) >= 0);
        bool sawProgram = false;
        bool sawLibc = false;
        for (int row = 0; row < files->rowCount(); ++row) {
            const QString path = files->item(row, ColdStartPage::FileColumn)->text();
            sawProgram |= QFileInfo(path).canonicalFilePath() == QFileInfo(program).canonicalFilePath();
            sawLibc |= QFileInfo(path).fileName().startsWith(QLatin1String("libc.so"));
            QVERIFY(files->item(row, ColdStartPage::SizeColumn)->data(Qt::UserRole).toDouble() > 0);
            // "N of M (P%)": residency in words, with the numbers sorted by the fraction.
            QVERIFY2(files->item(row, ColdStartPage::WarmColumn)->text().contains(QLatin1String(" of ")),
                     qPrintable(files->item(row, ColdStartPage::WarmColumn)->text()));
        }
        QVERIFY(sawProgram);
        QVERIFY(sawLibc);
        // Largest first.
        QVERIFY(files->item(0, ColdStartPage::SizeColumn)->data(Qt::UserRole).toDouble()
                >= files->item(files->rowCount() - 1, ColdStartPage::SizeColumn)->data(Qt::UserRole).toDouble());
        delete window;
    }

    // fsync Now and sync Now while the writeback experiment waits: both are
    // done at once, their times are shown beside the buttons and marked on
    // the live plot.
    void writebackButtons()
    {
        auto *window = new ExperimentsWindow;
        window->show();
        auto *page = qobject_cast<WritebackPage *>(window->page(QStringLiteral("writeback")));
        QVERIFY(page);
        window->showPage(page);
        page->findChild<QLineEdit *>(QStringLiteral("folderEdit"))->setText(m_folder);
        page->findChild<QSpinBox *>(QStringLiteral("sizeSpin"))->setValue(16);
        page->findChild<QSpinBox *>(QStringLiteral("stepSpin"))->setValue(4);
        page->findChild<QDoubleSpinBox *>(QStringLiteral("waitSpin"))->setValue(30);
        QVERIFY(!page->fsyncButton()->isEnabled());
        QVERIFY(!page->syncButton()->isEnabled());

        QElapsedTimer timer;
        timer.start();
        page->startButton()->click();
        QVERIFY(page->fsyncButton()->isEnabled());
        QVERIFY(page->syncButton()->isEnabled());
        // Past the writing (four steps and the "written" sample): it waits with dirty pages.
        QTRY_VERIFY_WITH_TIMEOUT(page->liveSampleCount() > 5, 20000);
        page->fsyncButton()->click();
        page->syncButton()->click();
        QTRY_VERIFY_WITH_TIMEOUT(!page->isRunning(), 60000);
        // The wait of 30 s ended when the fsync left the file clean.
        QVERIFY2(timer.elapsed() < 25000, qPrintable(QString::number(timer.elapsed())));
        QVERIFY(page->currentResult() && page->currentResult()->ok());
        QVERIFY2(page->fsyncTimeLabel()->text().startsWith(QLatin1String("Took ")), qPrintable(page->fsyncTimeLabel()->text()));
        QVERIFY2(page->syncTimeLabel()->text().startsWith(QLatin1String("Took ")), qPrintable(page->syncTimeLabel()->text()));
        const QJsonArray asked = page->currentResult()->variants.front().runs.at(0).toObject().value(QStringLiteral("asked")).toArray();
        QCOMPARE(asked.size(), 2);
        // Markers: the asked-for fsync and sync, then the ones at the end (two items each).
        QCOMPARE(page->livePlot()->itemCount(), 8);
        QVERIFY(!page->fsyncButton()->isEnabled());
        delete window;
    }

    void cancelMidRun()
    {
        auto *window = new ExperimentsWindow;
        window->show();
        ExperimentPage *page = coldReadPage(window, 512, 20);
        QVERIFY(page);
        page->startButton()->click();
        // Wait until the engine is reading, so that there is something to stop.
        QTRY_VERIFY_WITH_TIMEOUT(page->liveSampleCount() > 0, 60000);
        QVERIFY(page->isRunning());
        QElapsedTimer timer;
        timer.start();
        page->cancelButton()->click();
        QTRY_VERIFY_WITH_TIMEOUT(!page->isRunning(), 20000);
        qInfo() << "stopped" << timer.elapsed() << "ms after Cancel";
        QVERIFY(!page->currentResult()); // a cancelled run is not shown as a result
        QVERIFY(page->storedPath().isEmpty());
        QVERIFY(page->startButton()->isEnabled());
        delete window; // cleanup() checks that no file is left
    }

    void closingWhileRunning()
    {
        auto *window = new ExperimentsWindow;
        window->show();
        ExperimentPage *page = coldReadPage(window, 256, 20);
        page->startButton()->click();
        QTRY_VERIFY_WITH_TIMEOUT(page->liveSampleCount() > 0, 60000);
        QPointer<ExperimentsWindow> guard(window);
        window->close(); // deletes itself after stopping the engine
        QTRY_VERIFY_WITH_TIMEOUT(guard.isNull(), 20000);
    }

    void badInput_data()
    {
        QTest::addColumn<QString>("folder");
        QTest::addColumn<QString>("expected");
        QTest::newRow("missing folder") << QStringLiteral("/nonexistent/cachescope") << QStringLiteral("/nonexistent/cachescope: no such folder");
        QTest::newRow("empty folder") << QString() << QStringLiteral("Choose a folder");
    }

    void badInput()
    {
        QFETCH(QString, folder);
        QFETCH(QString, expected);
        auto *window = new ExperimentsWindow;
        window->show();
        ExperimentPage *page = coldReadPage(window, 16, 1);
        page->findChild<QLineEdit *>(QStringLiteral("folderEdit"))->setText(folder);
        page->startButton()->click();
        QVERIFY(!page->isRunning());
        auto *message = page->findChild<KMessageWidget *>(QStringLiteral("messageWidget"));
        QVERIFY2(message->text().contains(expected), qPrintable(message->text()));
        QCOMPARE(message->messageType(), KMessageWidget::Error);
        delete window;
    }

    void engineErrorIsShown()
    {
        // A file that does not exist: the engine refuses, the page says why.
        auto *window = new ExperimentsWindow;
        window->show();
        ExperimentPage *page = coldReadPage(window, 16, 1);
        const QString missing = QDir(m_folder).filePath(QStringLiteral("no-such-file"));
        page->findChild<QLineEdit *>(QStringLiteral("fileEdit"))->setText(missing);
        page->startButton()->click();
        QTRY_VERIFY_WITH_TIMEOUT(!page->isRunning(), 30000);
        auto *message = page->findChild<KMessageWidget *>(QStringLiteral("messageWidget"));
        QVERIFY2(message->text().contains(missing), qPrintable(message->text()));
        QVERIFY(!page->currentResult());
        delete window;
    }
};

QTEST_MAIN(ExperimentsWindowTest)

#include "experimentswindowtest.moc"
