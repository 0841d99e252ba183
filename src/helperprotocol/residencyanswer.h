// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers
#pragma once

// The residency action's answer for each path, and the compact bytes the
// action keeps them in until the service turns them into the
// ResidencyCompleted signal's typed array (or the client, as root, reads
// them in-process). Used by the helper (serialize) and the client (parse).

#include <QByteArray>
#include <QDataStream>
#include <QIODevice>
#include <QList>
#include <QString>

#include <cstdint>
#include <optional>

namespace Cachescope::HelperProtocol
{

// One file's answer, in the order of the paths.
// error empty: the numbers hold; else error says why (for people, never the path).
struct FileResidencyAnswer {
    QString error;
    quint64 device = 0;
    quint64 inode = 0;
    quint64 sizeBytes = 0;
    quint64 pages = 0;
    quint64 resident = 0;
    QString method; // "cachestat" or "mincore"
    bool detail = false;
    bool hidden = false; // the kernel would not tell (only where the helper is not root: tests)
    quint64 dirty = 0;
    quint64 writeback = 0;
    QList<quint64> histogram; // resident pages per bucket
};

inline constexpr quint32 residencyFormatVersion = 1;

[[nodiscard]] inline QByteArray serializeFileResults(const QList<FileResidencyAnswer> &files)
{
    QByteArray bytes;
    QDataStream out(&bytes, QIODevice::WriteOnly);
    out.setVersion(QDataStream::Qt_6_0);
    out << residencyFormatVersion << qint32(files.size());
    for (const FileResidencyAnswer &file : files) {
        out << file.error << file.device << file.inode << file.sizeBytes << file.pages << file.resident << file.method << file.detail << file.hidden
            << file.dirty << file.writeback << file.histogram;
    }
    return bytes;
}

// The files, or nothing when the bytes are not exactly what
// serializeFileResults() writes for at most maxFiles files.
[[nodiscard]] inline std::optional<QList<FileResidencyAnswer>> parseFileResults(const QByteArray &bytes, int maxFiles, int maxBucketCount)
{
    QDataStream in(bytes);
    in.setVersion(QDataStream::Qt_6_0);
    quint32 version = 0;
    qint32 count = -1;
    in >> version >> count;
    if (in.status() != QDataStream::Ok || version != residencyFormatVersion || count < 0 || count > maxFiles) {
        return std::nullopt;
    }
    QList<FileResidencyAnswer> files;
    for (qint32 i = 0; i < count; ++i) {
        FileResidencyAnswer file;
        in >> file.error >> file.device >> file.inode >> file.sizeBytes >> file.pages >> file.resident >> file.method >> file.detail >> file.hidden
            >> file.dirty >> file.writeback >> file.histogram;
        if (in.status() != QDataStream::Ok || file.histogram.size() > maxBucketCount) {
            return std::nullopt;
        }
        files.append(std::move(file));
    }
    if (!in.atEnd()) {
        return std::nullopt;
    }
    return files;
}

} // namespace Cachescope::HelperProtocol
