// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers
#pragma once

// The trace action's capture as compact bytes, until the service turns it
// into the TraceCompleted signal's typed array: a Trace::Capture. Filemap events
// carry no block fields and block requests no page fields; at most
// maxTraceEvents events. Used by the helper (serialize) and its client
// (parse); both link the core, which defines the Capture.

#include "helperprotocol.h"
#include "trace/tracereport.h"

#include <QByteArray>
#include <QDataStream>
#include <QIODevice>
#include <QString>

#include <optional>

namespace Cachescope::HelperProtocol
{

inline constexpr quint32 traceCaptureFormatVersion = 1;
inline constexpr int maxEndReasonBytes = 64;
inline constexpr int maxRwbsBytes = 16;

[[nodiscard]] inline QByteArray serializeCapture(const Trace::Capture &capture)
{
    QByteArray bytes;
    QDataStream out(&bytes, QIODevice::WriteOnly);
    out.setVersion(QDataStream::Qt_6_0);
    out << traceCaptureFormatVersion << quint64(capture.lostEvents) << capture.usageEvents << capture.blockEvents
        << QByteArray::fromStdString(capture.endReason) << quint32(capture.events.size());
    for (const Trace::RawEvent &event : capture.events) {
        out << quint8(event.kind) << quint64(event.timeNs) << qint32(event.pid) << quint32(event.major) << quint32(event.minor);
        if (event.kind == Trace::EventKind::BlockIssue) {
            out << quint64(event.sector) << quint32(event.bytes) << QByteArray::fromStdString(event.rwbs);
        } else {
            out << quint64(event.inode) << quint64(event.firstPage) << quint64(event.pageCount);
        }
    }
    return bytes;
}

// The capture, or nothing when the bytes are not exactly what
// serializeCapture() writes within the limits.
[[nodiscard]] inline std::optional<Trace::Capture> parseCapture(const QByteArray &bytes)
{
    QDataStream in(bytes);
    in.setVersion(QDataStream::Qt_6_0);
    quint32 version = 0;
    quint64 lost = 0;
    QByteArray endReason;
    quint32 count = 0;
    Trace::Capture capture;
    in >> version >> lost >> capture.usageEvents >> capture.blockEvents >> endReason >> count;
    if (in.status() != QDataStream::Ok || version != traceCaptureFormatVersion || endReason.size() > maxEndReasonBytes || count > quint32(maxTraceEvents)) {
        return std::nullopt;
    }
    capture.lostEvents = lost;
    capture.endReason = endReason.toStdString();
    capture.events.reserve(count);
    for (quint32 i = 0; i < count; ++i) {
        quint8 kind = 0;
        quint64 timeNs = 0;
        qint32 pid = 0;
        quint32 major = 0;
        quint32 minor = 0;
        in >> kind >> timeNs >> pid >> major >> minor;
        if (kind > quint8(Trace::EventKind::BlockIssue)) {
            return std::nullopt;
        }
        Trace::RawEvent event;
        event.kind = Trace::EventKind(kind);
        event.timeNs = timeNs;
        event.pid = pid;
        event.major = major;
        event.minor = minor;
        if (event.kind == Trace::EventKind::BlockIssue) {
            quint64 sector = 0;
            quint32 requestBytes = 0;
            QByteArray rwbs;
            in >> sector >> requestBytes >> rwbs;
            if (rwbs.size() > maxRwbsBytes) {
                return std::nullopt;
            }
            event.sector = sector;
            event.bytes = requestBytes;
            event.rwbs = rwbs.toStdString();
        } else {
            quint64 inode = 0;
            quint64 firstPage = 0;
            quint64 pageCount = 0;
            in >> inode >> firstPage >> pageCount;
            event.inode = inode;
            event.firstPage = firstPage;
            event.pageCount = pageCount;
        }
        if (in.status() != QDataStream::Ok) {
            return std::nullopt;
        }
        capture.events.push_back(std::move(event));
    }
    if (!in.atEnd()) {
        return std::nullopt;
    }
    return capture;
}

} // namespace Cachescope::HelperProtocol
