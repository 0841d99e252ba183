// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers

#include "memorysampler.h"

#include "cachescope_app_debug.h"

#include <KLocalizedString>

MemorySampler::MemorySampler(const QString &procRoot, QObject *parent)
    : QObject(parent)
    , m_procRoot(procRoot)
{
    qRegisterMetaType<MemorySample>();
    m_timer.setInterval(defaultInterval);
    // A sample a little late is fine; waking the CPU precisely each second is not.
    m_timer.setTimerType(Qt::CoarseTimer);
    connect(&m_timer, &QTimer::timeout, this, &MemorySampler::sampleNow);
}

void MemorySampler::start()
{
    if (m_timer.isActive()) {
        return;
    }
    // A first point at once, so that the plot is not empty for a second.
    sampleNow();
    m_timer.start();
}

void MemorySampler::stop()
{
    m_timer.stop();
}

bool MemorySampler::isRunning() const
{
    return m_timer.isActive();
}

void MemorySampler::setInterval(std::chrono::milliseconds interval)
{
    m_timer.setInterval(interval);
}

QString MemorySampler::procRoot() const
{
    return m_procRoot;
}

std::optional<MemorySample> MemorySampler::sampleNow()
{
    std::string error;
    const auto memInfo = Cachescope::readMemInfo(m_procRoot.toStdString(), &error);
    if (!memInfo) {
        QString message = QString::fromStdString(error);
        if (message.isEmpty()) {
            message = i18nc("@info", "Could not read %1/meminfo.", m_procRoot);
        }
        if (message != m_lastError) {
            m_lastError = message;
            qCWarning(CACHESCOPE_APP) << message;
            Q_EMIT failed(message);
        }
        return std::nullopt;
    }
    if (!m_lastError.isEmpty()) {
        m_lastError.clear();
        Q_EMIT recovered();
    }

    MemorySample sample;
    sample.time = std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
    sample.figures = Cachescope::freeFigures(*memInfo);
    sample.dirty = memInfo->value("Dirty");
    sample.writeback = memInfo->value("Writeback");
    Q_EMIT sampled(sample);
    return sample;
}
