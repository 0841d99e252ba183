// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers

#include "memoryexport.h"

#include "format.h"

#include <KLocalizedString>

#include <QDateTime>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QPdfWriter>
#include <QSaveFile>
#include <QStandardPaths>
#include <QTimeZone>

#include <qcustomplot.h>

namespace Cachescope::App
{

namespace
{

// The size a plot is exported at when it has not been laid out on screen.
constexpr QSize fallbackExportSize{1000, 500};

// A name for the file that sorts by when it was made.
QString stampedName(const QString &suffix)
{
    const QString stamp = QDateTime::currentDateTime().toString(QStringLiteral("yyyy-MM-dd-HHmmss"));
    return QStringLiteral("cachescope-%1.%2").arg(stamp, suffix);
}

} // namespace

bool MemoryExport::writePlot(QCustomPlot *plot, const QString &title, const QString &path, QString *error)
{
    const auto fail = [&](const QString &reason) {
        if (error) {
            *error = i18nc("@info %1 is a file path", "Could not save the plot to %1: %2", path, reason);
        }
        return false;
    };
    // What is on screen, at its size; laid out afresh for a plot never shown.
    const QSize size = plot->width() >= 200 && plot->height() >= 100 ? plot->size() : fallbackExportSize;
    const QString suffix = QFileInfo(path).suffix().toLower();

    QSaveFile file(path);
    if (suffix != QLatin1String("png") && suffix != QLatin1String("pdf")) {
        return fail(i18nc("@info", "the name must end in .png or .pdf"));
    }
    if (!file.open(QIODevice::WriteOnly)) {
        return fail(file.errorString());
    }
    if (suffix == QLatin1String("png")) {
        if (!plot->toPixmap(size.width(), size.height()).save(&file, "PNG")) {
            file.cancelWriting();
            return fail(file.errorString().isEmpty() ? i18nc("@info", "the image could not be encoded") : file.errorString());
        }
    } else {
        // Vector output: one PDF point per pixel on screen.
        QPdfWriter writer(&file);
        writer.setCreator(i18nc("@info PDF creator", "Cachescope"));
        writer.setTitle(title);
        writer.setPageSize(QPageSize(QSizeF(size), QPageSize::Point));
        writer.setPageMargins(QMarginsF(0, 0, 0, 0));
        QCPPainter painter;
        if (!painter.begin(&writer)) {
            file.cancelWriting();
            return fail(i18nc("@info", "the PDF document could not be started"));
        }
        painter.setMode(QCPPainter::pmVectorized);
        painter.setMode(QCPPainter::pmNoCaching);
        painter.setWindow(0, 0, size.width(), size.height());
        plot->toPainter(&painter, size.width(), size.height());
        painter.end();
    }
    if (!file.commit()) {
        return fail(file.errorString());
    }
    return true;
}

bool MemoryExport::writeSamples(const std::deque<MemorySample> &samples, const QString &path, QString *error)
{
    QSaveFile file(path);
    const auto fail = [&](const QString &reason) {
        if (error) {
            *error = i18nc("@info %1 is a file path", "Could not save the samples to %1: %2", path, reason);
        }
        return false;
    };
    if (!file.open(QIODevice::WriteOnly | QIODevice::Text)) {
        return fail(file.errorString());
    }
    // Machine-readable names and plain units (bytes, per second), so that a
    // spreadsheet or a script reads them without guessing.
    QByteArray csv(
        "time,total_bytes,used_bytes,free_bytes,shared_bytes,buffers_bytes,cache_bytes,available_bytes,swap_total_bytes,swap_used_bytes,"
        "dirty_bytes,writeback_bytes,read_kib_per_s,written_kib_per_s,minor_faults_per_s,major_faults_per_s,refaults_per_s\n");
    // Rates with one decimal, a dot whatever the locale.
    const auto rate = [](double value) {
        return csvNumber(value, 1);
    };
    for (const MemorySample &sample : samples) {
        const FreeFigures &f = sample.figures;
        QStringList fields = {
            QDateTime::fromMSecsSinceEpoch(sample.wallClockMSecs, QTimeZone::UTC).toString(Qt::ISODateWithMs),
            QString::number(f.total),
            QString::number(f.used),
            QString::number(f.free),
            QString::number(f.shared),
            QString::number(f.buffers),
            QString::number(f.cache),
            QString::number(f.available),
            QString::number(f.swapTotal),
            QString::number(f.swapUsed),
            QString::number(sample.dirty),
            QString::number(sample.writeback),
        };
        if (sample.rates) {
            const VmStatRates &rates = *sample.rates;
            fields << rate(rates.readKiBPerSecond) << rate(rates.writtenKiBPerSecond) << rate(rates.minorFaultsPerSecond) << rate(rates.majorFaultsPerSecond)
                   << (rates.refaultsPerSecond ? rate(*rates.refaultsPerSecond) : QString());
        } else {
            // Not measured: empty, not zero.
            fields << QString() << QString() << QString() << QString() << QString();
        }
        csv += fields.join(QLatin1Char(',')).toUtf8() + '\n';
    }
    if (file.write(csv) != csv.size()) {
        file.cancelWriting();
        return fail(file.errorString());
    }
    if (!file.commit()) {
        return fail(file.errorString());
    }
    return true;
}

QString MemoryExport::askPlotPath(QWidget *parent)
{
    const QString folder = QStandardPaths::writableLocation(QStandardPaths::PicturesLocation);
    const QString pngFilter = i18nc("@item:inlistbox file type", "PNG image (*.png)");
    const QString pdfFilter = i18nc("@item:inlistbox file type", "PDF document (*.pdf)");
    QString filter = pngFilter;
    QString path = QFileDialog::getSaveFileName(parent,
                                                i18nc("@title:window", "Export Plot"),
                                                QDir(folder).filePath(stampedName(QStringLiteral("png"))),
                                                pngFilter + QStringLiteral(";;") + pdfFilter,
                                                &filter);
    if (!path.isEmpty() && QFileInfo(path).suffix().isEmpty()) {
        path += filter == pdfFilter ? QStringLiteral(".pdf") : QStringLiteral(".png");
    }
    return path;
}

QString MemoryExport::askSamplesPath(QWidget *parent)
{
    const QString folder = QStandardPaths::writableLocation(QStandardPaths::DocumentsLocation);
    QString path = QFileDialog::getSaveFileName(parent,
                                                i18nc("@title:window", "Export Samples"),
                                                QDir(folder).filePath(stampedName(QStringLiteral("csv"))),
                                                i18nc("@item:inlistbox file type", "CSV table (*.csv)"));
    if (!path.isEmpty() && QFileInfo(path).suffix().isEmpty()) {
        path += QStringLiteral(".csv");
    }
    return path;
}

} // namespace Cachescope::App
