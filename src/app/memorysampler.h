// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers
#pragma once

#include "procfs.h"

#include <QMetaType>
#include <QObject>
#include <QString>
#include <QTimer>

#include <chrono>
#include <cstdint>
#include <optional>

// One reading of /proc/meminfo, in the figures the window shows.
struct MemorySample {
    // Seconds on a monotonic clock, so that the plot's time axis does not
    // jump when someone changes the wall clock.
    double time = 0;
    Cachescope::FreeFigures figures;
    uint64_t dirty = 0;
    uint64_t writeback = 0;
};
Q_DECLARE_METATYPE(MemorySample)

// Reads <procRoot>/meminfo once a second and hands out samples. Reading
// meminfo takes microseconds, so this runs on the UI thread.
class MemorySampler : public QObject
{
    Q_OBJECT

public:
    static constexpr std::chrono::milliseconds defaultInterval{1000};

    explicit MemorySampler(const QString &procRoot = QStringLiteral("/proc"), QObject *parent = nullptr);

    void start();
    void stop();
    [[nodiscard]] bool isRunning() const;

    void setInterval(std::chrono::milliseconds interval);
    [[nodiscard]] QString procRoot() const;

    // Reads once, emits sampled() or failed(), and returns the sample.
    std::optional<MemorySample> sampleNow();

Q_SIGNALS:
    void sampled(const MemorySample &sample);
    // Only when the reason changes, not once a second: the message names the
    // file and the reason.
    void failed(const QString &message);
    // The first good sample after a failure.
    void recovered();

private:
    const QString m_procRoot;
    QTimer m_timer;
    QString m_lastError;
};
