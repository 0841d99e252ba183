// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers
#pragma once

// The timeline of a trace: time since the command started across, the files
// down (in the order their first page came in), one mark per extent spanning
// the time its pages came in, coloured by what brought them: the program's
// own reads, only readahead, or the file system's metadata. Hovering a mark
// tells its file, offset, length and time.
//
// A trace without time (the residency difference, without the privileged
// helper) gets no made-up timeline: the plot says why there is none.

#include "trace/tracereport.h"
#include "traceextentsmodel.h"

#include <QObject>
#include <QPoint>
#include <QString>

#include <optional>

class QCPItemText;
class QCustomPlot;

namespace Cachescope::App
{

class ExtentMarks;

class TraceTimeline : public QObject
{
    Q_OBJECT

public:
    explicit TraceTimeline(QCustomPlot *plot);
    ~TraceTimeline() override;

    void showReport(const std::optional<Trace::Report> &report);

    // What is on show (tests, accessibility): marks drawn, one per extent;
    // the text over the plot when it draws none.
    [[nodiscard]] int markCount() const;
    [[nodiscard]] int markCount(ExtentKind kind) const;
    [[nodiscard]] QString message() const;
    // The extent whose mark is at pos (plot coordinates), -1 for none, and
    // what its tooltip says.
    [[nodiscard]] int extentAt(const QPoint &pos) const;
    [[nodiscard]] QString toolTipFor(int extent) const;
    // The centre of an extent's mark in plot coordinates (tests hover there).
    [[nodiscard]] QPoint markCentre(int extent) const;

Q_SIGNALS:
    // A mark was clicked.
    void extentClicked(int extent);

protected:
    bool eventFilter(QObject *watched, QEvent *event) override;

private:
    void showMessage(const QString &text);
    void labelFiles();

    QCustomPlot *m_plot;
    QCPItemText *m_messageItem = nullptr;
    QString m_message;
    std::optional<Trace::Report> m_report;
    QList<ExtentMarks *> m_marks;
    QList<int> m_rowOfFile; // -1: the file has no extent
    QStringList m_rowNames;
    double m_timeScale = 1; // seconds to the axis's unit
};

} // namespace Cachescope::App
