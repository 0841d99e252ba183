// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers

#include "memorysampler.h"

#include "cachescope_app_debug.h"

#include <KLocalizedString>

#include <QDateTime>

namespace Cachescope::App
{

namespace
{

// Counters only grow; a smaller value means the counter was reset (or the
// fields belong to another kernel), and no activity is the honest answer.
double perSecond(uint64_t earlier, uint64_t later, double seconds)
{
    return later >= earlier ? static_cast<double>(later - earlier) / seconds : 0.0;
}

} // namespace

double monotonicSeconds()
{
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

std::optional<VmStatRates> vmStatRates(const Cachescope::VmStat &earlier, const Cachescope::VmStat &later, double seconds)
{
    if (!(seconds > 0)) {
        return std::nullopt;
    }
    VmStatRates rates;
    rates.readKiBPerSecond = perSecond(earlier.value("pgpgin"), later.value("pgpgin"), seconds);
    rates.writtenKiBPerSecond = perSecond(earlier.value("pgpgout"), later.value("pgpgout"), seconds);
    const auto minorFaults = [](const Cachescope::VmStat &vmStat) {
        const uint64_t all = vmStat.value("pgfault");
        const uint64_t major = vmStat.value("pgmajfault");
        return all >= major ? all - major : 0;
    };
    rates.minorFaultsPerSecond = perSecond(minorFaults(earlier), minorFaults(later), seconds);
    rates.majorFaultsPerSecond = perSecond(earlier.value("pgmajfault"), later.value("pgmajfault"), seconds);
    const auto refaultsBefore = Cachescope::fileRefaults(earlier);
    const auto refaultsAfter = Cachescope::fileRefaults(later);
    if (refaultsBefore && refaultsAfter) {
        rates.refaultsPerSecond = perSecond(*refaultsBefore, *refaultsAfter, seconds);
    }
    return rates;
}

MemorySampler::MemorySampler(const QString &procRoot, QObject *parent)
    : QObject(parent)
    , m_procRoot(procRoot)
    , m_applications(procRoot.toStdString())
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
    // Rates across a pause would average over it; start again afresh.
    m_previousVmStat.reset();
}

bool MemorySampler::isRunning() const
{
    return m_timer.isActive();
}

void MemorySampler::setInterval(std::chrono::milliseconds interval)
{
    m_timer.setInterval(interval);
}

std::chrono::milliseconds MemorySampler::interval() const
{
    return m_timer.intervalAsDuration();
}

QString MemorySampler::procRoot() const
{
    return m_procRoot;
}

void MemorySampler::setRatesEnabled(bool enabled)
{
    if (enabled == m_ratesEnabled) {
        return;
    }
    m_ratesEnabled = enabled;
    m_previousVmStat.reset();
    if (enabled && m_timer.isActive()) {
        // The reading the first rate is measured from, without waiting a period.
        m_previousVmStat = Cachescope::readVmStat(m_procRoot.toStdString());
        m_previousVmStatTime = monotonicSeconds();
    }
}

bool MemorySampler::ratesEnabled() const
{
    return m_ratesEnabled;
}

void MemorySampler::setApplicationsEnabled(bool enabled)
{
    if (enabled == m_applicationsEnabled) {
        return;
    }
    m_applicationsEnabled = enabled;
    // Refault rates across a time nobody looked would average over it.
    m_applications.reset();
    if (enabled && m_timer.isActive()) {
        // The list fills at once, not a period later.
        Q_EMIT applicationsSampled(m_applications.sample(monotonicSeconds()));
    }
}

bool MemorySampler::applicationsEnabled() const
{
    return m_applicationsEnabled;
}

void MemorySampler::setCgroupRoot(const QString &cgroupRoot)
{
    m_applications = Cachescope::Cgroups::ApplicationsSampler(m_procRoot.toStdString(), cgroupRoot.toStdString());
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
    sample.time = monotonicSeconds();
    sample.wallClockMSecs = QDateTime::currentMSecsSinceEpoch();
    sample.figures = Cachescope::freeFigures(*memInfo);
    sample.dirty = memInfo->value("Dirty");
    sample.writeback = memInfo->value("Writeback");
    if (m_ratesEnabled) {
        readRates(sample);
    }
    Q_EMIT sampled(sample);
    if (m_applicationsEnabled) {
        Q_EMIT applicationsSampled(m_applications.sample(sample.time));
    }
    return sample;
}

void MemorySampler::readRates(MemorySample &sample)
{
    std::string error;
    auto vmStat = Cachescope::readVmStat(m_procRoot.toStdString(), &error);
    if (!vmStat) {
        // The memory figures still come; the activity plot shows a gap. Said
        // once, in the log: the plot's emptiness speaks for itself.
        if (!m_vmStatWarned) {
            m_vmStatWarned = true;
            qCWarning(CACHESCOPE_APP) << QString::fromStdString(error);
        }
        m_previousVmStat.reset();
        return;
    }
    if (m_previousVmStat) {
        sample.rates = vmStatRates(*m_previousVmStat, *vmStat, sample.time - m_previousVmStatTime);
    }
    m_previousVmStat = std::move(vmStat);
    m_previousVmStatTime = sample.time;
}

} // namespace Cachescope::App
