// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers
#pragma once

// The activity action's intervals and totals as compact bytes, from the
// action (its thread, or root's in-process call) to the service, which
// turns them into the ActivityInterval and ActivityCompleted signals' typed
// values, and to root's in-process client. Bounded both ways.

#include "activity/activity.h"
#include "helperprotocol.h"

#include <QByteArray>
#include <QDataStream>
#include <QIODevice>

#include <optional>
#include <string>

namespace Cachescope::HelperProtocol
{

inline constexpr quint32 activityFormatVersion = 1;
inline constexpr qsizetype maxActivityTextBytes = 4096;
inline constexpr qsizetype maxActivityPushedOut = 8;

namespace ActivityDetail
{
inline void write(QDataStream &out, const Activity::Figures &figures)
{
    out << quint64(figures.addedPages) << quint64(figures.reclaimedPages) << quint64(figures.droppedPages) << quint64(figures.dirtiedPages);
}

inline void read(QDataStream &in, Activity::Figures &figures)
{
    quint64 added = 0;
    quint64 reclaimed = 0;
    quint64 dropped = 0;
    quint64 dirtied = 0;
    in >> added >> reclaimed >> dropped >> dirtied;
    figures = {added, reclaimed, dropped, dirtied};
}

inline QByteArray text(const std::string &value)
{
    return QByteArray::fromStdString(value).left(maxActivityTextBytes);
}

inline bool readText(QDataStream &in, std::string &value)
{
    QByteArray bytes;
    in >> bytes;
    if (bytes.size() > maxActivityTextBytes) {
        return false;
    }
    value = bytes.toStdString();
    return true;
}
} // namespace ActivityDetail

[[nodiscard]] inline QByteArray serializeActivity(const Activity::Interval &interval)
{
    using namespace ActivityDetail;
    QByteArray bytes;
    QDataStream out(&bytes, QIODevice::WriteOnly);
    out.setVersion(QDataStream::Qt_6_0);
    const qsizetype processes = std::min<qsizetype>(qsizetype(interval.processes.size()), qsizetype(4) * maxActivityEntries);
    const qsizetype files = std::min<qsizetype>(qsizetype(interval.files.size()), qsizetype(4) * maxActivityEntries);
    out << activityFormatVersion << interval.seconds << quint64(interval.lostEvents) << quint64(interval.undecoded);
    write(out, interval.all);
    write(out, interval.otherProcesses);
    write(out, interval.otherFiles);
    out << quint32(processes);
    for (qsizetype i = 0; i < processes; ++i) {
        const Activity::ProcessActivity &process = interval.processes[size_t(i)];
        out << qint32(process.pid) << text(process.command) << qint64(process.uid) << text(process.cgroup) << text(process.application)
            << process.reclaimThread;
        write(out, process.figures);
        const qsizetype pushed = std::min<qsizetype>(qsizetype(process.pushedOut.size()), maxActivityPushedOut);
        out << quint32(pushed);
        for (qsizetype k = 0; k < pushed; ++k) {
            const auto &[key, pages] = process.pushedOut[size_t(k)];
            out << quint64(key.device) << quint64(key.inode) << quint64(pages);
        }
    }
    out << quint32(files);
    for (qsizetype i = 0; i < files; ++i) {
        const Activity::FileActivity &file = interval.files[size_t(i)];
        out << quint64(file.key.device) << quint64(file.key.inode) << text(file.deviceName) << text(file.path) << qint32(file.topAdder);
        write(out, file.figures);
    }
    return bytes;
}

// The interval, or nothing when the bytes are not what serializeActivity()
// writes within its limits.
[[nodiscard]] inline std::optional<Activity::Interval> parseActivity(const QByteArray &bytes)
{
    using namespace ActivityDetail;
    QDataStream in(bytes);
    in.setVersion(QDataStream::Qt_6_0);
    quint32 version = 0;
    Activity::Interval interval;
    quint64 lost = 0;
    quint64 undecoded = 0;
    in >> version >> interval.seconds >> lost >> undecoded;
    if (in.status() != QDataStream::Ok || version != activityFormatVersion) {
        return std::nullopt;
    }
    interval.lostEvents = lost;
    interval.undecoded = undecoded;
    read(in, interval.all);
    read(in, interval.otherProcesses);
    read(in, interval.otherFiles);
    quint32 processes = 0;
    in >> processes;
    if (in.status() != QDataStream::Ok || processes > quint32(4 * maxActivityEntries)) {
        return std::nullopt;
    }
    for (quint32 i = 0; i < processes; ++i) {
        Activity::ProcessActivity process;
        qint32 pid = 0;
        qint64 uid = -1;
        in >> pid;
        if (!readText(in, process.command)) {
            return std::nullopt;
        }
        in >> uid;
        if (!readText(in, process.cgroup) || !readText(in, process.application)) {
            return std::nullopt;
        }
        in >> process.reclaimThread;
        read(in, process.figures);
        quint32 pushed = 0;
        in >> pushed;
        if (in.status() != QDataStream::Ok || pushed > quint32(maxActivityPushedOut)) {
            return std::nullopt;
        }
        for (quint32 k = 0; k < pushed; ++k) {
            quint64 device = 0;
            quint64 inode = 0;
            quint64 pages = 0;
            in >> device >> inode >> pages;
            process.pushedOut.emplace_back(Activity::FileKey{device, inode}, pages);
        }
        process.pid = pid;
        process.uid = uid;
        interval.processes.push_back(std::move(process));
    }
    quint32 files = 0;
    in >> files;
    if (in.status() != QDataStream::Ok || files > quint32(4 * maxActivityEntries)) {
        return std::nullopt;
    }
    for (quint32 i = 0; i < files; ++i) {
        Activity::FileActivity file;
        quint64 device = 0;
        quint64 inode = 0;
        qint32 adder = 0;
        in >> device >> inode;
        if (!readText(in, file.deviceName) || !readText(in, file.path)) {
            return std::nullopt;
        }
        in >> adder;
        read(in, file.figures);
        file.key = {device, inode};
        file.topAdder = adder;
        interval.files.push_back(std::move(file));
    }
    if (in.status() != QDataStream::Ok || !in.atEnd()) {
        return std::nullopt;
    }
    return interval;
}

} // namespace Cachescope::HelperProtocol
