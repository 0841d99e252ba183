// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers
#pragma once

// The account action's answer (the account of Cached made as root), and the
// compact bytes it travels in from the helper's account child to the
// helper, which turns it into the AccountCompleted signal's typed values.
// Used by the helper (serialize, parse) only; the client reads the signal.

#include "account.h"

#include <QByteArray>
#include <QDataStream>
#include <QIODevice>

#include <algorithm>
#include <optional>
#include <string>
#include <vector>

namespace Cachescope::HelperProtocol
{

inline constexpr quint32 accountFormatVersion = 1;
// At most this many parts (a desktop has a few hundred memfds) and block
// devices, and texts of at most these lengths, so that the answer stays far
// below what a bus carries (dbus-daemon: 32 MiB a message): boundAccount()
// folds the smallest parts into one a kind and cuts long texts before the
// answer leaves the account's child; parseAccount() refuses more.
inline constexpr qint32 maxAccountParts = 2048;
inline constexpr qint32 maxAccountDevices = 1024;
inline constexpr qsizetype maxAccountPathBytes = 4096;
inline constexpr qsizetype maxAccountTextBytes = 512;

// Makes the account fit the limits above: parts that hold nothing and hide
// nothing go; past maxAccountParts, the smallest are added up into one part
// of their kind ("N more"); texts are cut (a path longer than a path can be
// is cut with "..." at its end).
inline void boundAccount(CacheAccount &account)
{
    std::vector<AccountPart> kept;
    for (AccountPart &part : account.parts) {
        if (part.bytes > 0 || part.hidden) {
            kept.push_back(std::move(part));
        }
    }
    std::stable_sort(kept.begin(), kept.end(), [](const AccountPart &a, const AccountPart &b) {
        if (a.hidden != b.hidden) {
            return !a.hidden;
        }
        return a.bytes > b.bytes;
    });
    if (kept.size() > size_t(maxAccountParts)) {
        // One slot a kind (hidden or not) for what is folded.
        const size_t keep = size_t(maxAccountParts) - 2 * (size_t(AccountKind::CoveredFolder) + 1);
        std::vector<AccountPart> folded(2 * (size_t(AccountKind::CoveredFolder) + 1));
        std::vector<uint64_t> counts(folded.size(), 0);
        for (size_t i = keep; i < kept.size(); ++i) {
            const size_t slot = size_t(kept[i].kind) * 2 + (kept[i].hidden ? 1 : 0);
            folded[slot].kind = kept[i].kind;
            folded[slot].hidden = kept[i].hidden;
            folded[slot].bytes += kept[i].bytes;
            folded[slot].sizeBytes += kept[i].sizeBytes;
            folded[slot].files += kept[i].files;
            ++counts[slot];
        }
        kept.resize(keep);
        for (size_t slot = 0; slot < folded.size(); ++slot) {
            if (counts[slot] > 0) {
                folded[slot].name = std::to_string(counts[slot]) + " more, each smaller than those listed";
                if (folded[slot].hidden) {
                    folded[slot].hiddenReason = "hidden, as the parts listed";
                }
                kept.push_back(std::move(folded[slot]));
            }
        }
    }
    const auto cut = [](std::string &text, size_t limit) {
        if (text.size() > limit) {
            text.resize(limit - 3);
            text += "...";
        }
    };
    for (AccountPart &part : kept) {
        cut(part.path, size_t(maxAccountPathBytes));
        cut(part.name, size_t(maxAccountTextBytes));
        cut(part.fileSystem, 64);
        cut(part.hiddenReason, size_t(maxAccountTextBytes));
        for (AccountProcess &process : part.processes) {
            cut(process.command, 64);
        }
    }
    account.parts = std::move(kept);
    if (account.buffersByDevice.size() > size_t(maxAccountDevices)) {
        account.buffersByDevice.resize(size_t(maxAccountDevices));
    }
    for (BlockDeviceBuffers &device : account.buffersByDevice) {
        cut(device.name, 64);
        cut(device.hiddenReason, size_t(maxAccountTextBytes));
    }
}

namespace AccountAnswerDetail
{
inline void put(QDataStream &out, const std::string &text)
{
    out << QByteArray(text.data(), qsizetype(text.size()));
}
inline bool get(QDataStream &in, std::string &text, qsizetype limit = maxAccountTextBytes)
{
    QByteArray bytes;
    in >> bytes;
    text.assign(bytes.constData(), size_t(bytes.size()));
    return in.status() == QDataStream::Ok && bytes.size() <= limit;
}
} // namespace AccountAnswerDetail

[[nodiscard]] inline QByteArray serializeAccount(const CacheAccount &account)
{
    using AccountAnswerDetail::put;
    QByteArray bytes;
    QDataStream out(&bytes, QIODevice::WriteOnly);
    out.setVersion(QDataStream::Qt_6_0);
    out << accountFormatVersion << quint64(account.memInfoBefore.value("Cached")) << quint64(account.cached) << quint64(account.buffers)
        << quint64(account.shmem) << quint64(account.mountsNotWalked) << account.ownIpcNamespace << account.complete << account.inChroot << account.seconds
        << quint64(account.hidden.processes) << quint64(account.hidden.files) << quint64(account.hidden.fileBytes) << quint64(account.hidden.coveredMountPoints)
        << qint32(account.parts.size());
    for (const AccountPart &part : account.parts) {
        out << quint8(part.kind);
        put(out, part.path);
        put(out, part.name);
        out << quint64(part.bytes) << quint64(part.sizeBytes) << quint64(part.files) << quint64(part.device) << quint64(part.inode);
        put(out, part.fileSystem);
        out << part.hidden;
        put(out, part.hiddenReason);
        out << quint64(part.processCount) << qint32(part.processes.size());
        for (const AccountProcess &process : part.processes) {
            out << qint32(process.pid);
            put(out, process.command);
        }
    }
    out << qint32(account.buffersByDevice.size());
    for (const BlockDeviceBuffers &device : account.buffersByDevice) {
        put(out, device.name);
        out << quint64(device.device) << quint64(device.bytes) << device.hidden;
        put(out, device.hiddenReason);
    }
    return bytes;
}

// The account, or nothing when the bytes are not exactly what
// serializeAccount() writes within the limits above. unexplained is
// computed again from the parts.
[[nodiscard]] inline std::optional<CacheAccount> parseAccount(const QByteArray &bytes)
{
    using AccountAnswerDetail::get;
    QDataStream in(bytes);
    in.setVersion(QDataStream::Qt_6_0);
    quint32 version = 0;
    quint64 cachedAtStart = 0, cached = 0, buffers = 0, shmem = 0, fuse = 0, processes = 0, files = 0, fileBytes = 0, covered = 0;
    CacheAccount account;
    qint32 count = -1;
    in >> version >> cachedAtStart >> cached >> buffers >> shmem >> fuse >> account.ownIpcNamespace >> account.complete >> account.inChroot >> account.seconds
        >> processes >> files >> fileBytes >> covered >> count;
    if (in.status() != QDataStream::Ok || version != accountFormatVersion || count < 0 || count > maxAccountParts) {
        return std::nullopt;
    }
    account.memInfoBefore.fields.emplace_back("Cached", cachedAtStart);
    account.cached = cached;
    account.buffers = buffers;
    account.shmem = shmem;
    account.mountsNotWalked = fuse;
    account.hidden = {processes, files, fileBytes, covered};
    for (qint32 i = 0; i < count; ++i) {
        AccountPart part;
        quint8 kind = 0;
        quint64 numbers[5] = {};
        quint64 processCount = 0;
        qint32 named = -1;
        in >> kind;
        if (!get(in, part.path, maxAccountPathBytes) || !get(in, part.name)) {
            return std::nullopt;
        }
        in >> numbers[0] >> numbers[1] >> numbers[2] >> numbers[3] >> numbers[4];
        if (!get(in, part.fileSystem)) {
            return std::nullopt;
        }
        in >> part.hidden;
        if (!get(in, part.hiddenReason)) {
            return std::nullopt;
        }
        in >> processCount >> named;
        if (in.status() != QDataStream::Ok || kind > quint8(AccountKind::CoveredFolder) || named < 0 || size_t(named) > AccountPart::maxProcessesNamed) {
            return std::nullopt;
        }
        part.kind = AccountKind(kind);
        part.bytes = numbers[0];
        part.sizeBytes = numbers[1];
        part.files = numbers[2];
        part.device = numbers[3];
        part.inode = numbers[4];
        part.processCount = processCount;
        for (qint32 j = 0; j < named; ++j) {
            AccountProcess process;
            qint32 pid = 0;
            in >> pid;
            if (!get(in, process.command)) {
                return std::nullopt;
            }
            process.pid = pid;
            part.processes.push_back(std::move(process));
        }
        account.parts.push_back(std::move(part));
    }
    in >> count;
    if (in.status() != QDataStream::Ok || count < 0 || count > maxAccountDevices) {
        return std::nullopt;
    }
    for (qint32 i = 0; i < count; ++i) {
        BlockDeviceBuffers device;
        quint64 number = 0, deviceBytes = 0;
        if (!get(in, device.name)) {
            return std::nullopt;
        }
        in >> number >> deviceBytes >> device.hidden;
        if (!get(in, device.hiddenReason)) {
            return std::nullopt;
        }
        device.device = number;
        device.bytes = deviceBytes;
        account.buffersByDevice.push_back(std::move(device));
    }
    if (in.status() != QDataStream::Ok || !in.atEnd()) {
        return std::nullopt;
    }
    account.unexplained = int64_t(account.cached) - int64_t(account.partsBytes());
    return account;
}

} // namespace Cachescope::HelperProtocol
