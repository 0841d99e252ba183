// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers
#pragma once

// Replies readable only by their caller (docs/helper-security.md rules 9
// and 16): residency and trace. KAuth sends each reply twice: as the
// method's return to the caller and as a signal that any local user on the
// system bus may receive. So the helper puts the results (device, inode,
// size, histogram, ...; the traced events) into one byte string, and seals
// it with the 32-byte random key the caller sent in its (unicast) method
// call, under a label of the reply's kind ("residency", "trace"), so that a
// reply of one kind never opens as another:
//
//   encKey = HMAC-SHA256(key, "cachescope <kind> v1 encrypt")
//   macKey = HMAC-SHA256(key, "cachescope <kind> v1 mac")
//   block i of the keystream = SHA-256(encKey || nonce || i as 8 bytes big-endian)
//   ciphertext = plaintext XOR keystream
//   tag = HMAC-SHA256(macKey, nonce || ciphertext)   (nonce: 16 random bytes a reply)
//
// Encrypt-then-MAC with keys derived apart; SHA-256 in counter mode is a
// PRF-based stream cipher. Qt has SHA-256 and HMAC but no cipher, and the
// project takes no crypto library for these replies. Used by the helper
// (seal) and its client (open); both link only this folder.

#include <QByteArray>
#include <QCryptographicHash>
#include <QDataStream>
#include <QIODevice>
#include <QList>
#include <QMessageAuthenticationCode>
#include <QString>

#include <cstdint>
#include <optional>

namespace Cachescope::HelperProtocol
{

inline constexpr int sealKeyBytes = 32;
inline constexpr int sealNonceBytes = 16;
inline constexpr int sealTagBytes = 32;

// What a sealed reply answers; each kind has its own derived keys.
enum class SealedKind {
    Residency,
    Trace,
};

namespace SealDetail
{
// "cachescope residency v1 encrypt", "cachescope trace v1 mac", ...
[[nodiscard]] inline QByteArray derivedKey(SealedKind kind, const QByteArray &key, const char *purpose)
{
    const QByteArray label = QByteArray("cachescope ") + (kind == SealedKind::Trace ? "trace" : "residency") + " v1 " + purpose;
    return QMessageAuthenticationCode::hash(label, key, QCryptographicHash::Sha256);
}

[[nodiscard]] inline QByteArray xorKeystream(const QByteArray &encKey, const QByteArray &nonce, const QByteArray &data)
{
    QByteArray out = data;
    QCryptographicHash hash(QCryptographicHash::Sha256);
    const qsizetype blockBytes = 32;
    for (qsizetype offset = 0, block = 0; offset < out.size(); offset += blockBytes, ++block) {
        char counter[8];
        for (int i = 0; i < 8; ++i) {
            counter[i] = char((uint64_t(block) >> (56 - 8 * i)) & 0xff);
        }
        hash.reset();
        hash.addData(encKey);
        hash.addData(nonce);
        hash.addData(QByteArrayView(counter, 8));
        const QByteArray stream = hash.result();
        for (qsizetype i = 0; i < blockBytes && offset + i < out.size(); ++i) {
            out[offset + i] = char(out[offset + i] ^ stream[i]);
        }
    }
    return out;
}

[[nodiscard]] inline QByteArray tagOf(SealedKind kind, const QByteArray &key, const QByteArray &nonce, const QByteArray &ciphertext)
{
    QMessageAuthenticationCode mac(QCryptographicHash::Sha256, derivedKey(kind, key, "mac"));
    mac.addData(nonce);
    mac.addData(ciphertext);
    return mac.result();
}
} // namespace SealDetail

struct Sealed {
    QByteArray nonce;
    QByteArray ciphertext;
    QByteArray tag;
};

// nonce: sealNonceBytes fresh random bytes (the helper takes them from
// QRandomGenerator::system()).
[[nodiscard]] inline Sealed seal(SealedKind kind, const QByteArray &key, const QByteArray &nonce, const QByteArray &plaintext)
{
    Sealed sealed;
    sealed.nonce = nonce;
    sealed.ciphertext = SealDetail::xorKeystream(SealDetail::derivedKey(kind, key, "encrypt"), nonce, plaintext);
    sealed.tag = SealDetail::tagOf(kind, key, nonce, sealed.ciphertext);
    return sealed;
}

// The plaintext, or nothing when the tag does not match (another key, a
// changed byte, a reply to another request, a reply of another kind).
[[nodiscard]] inline std::optional<QByteArray> unseal(SealedKind kind, const QByteArray &key, const Sealed &sealed)
{
    if (key.size() != sealKeyBytes || sealed.nonce.size() != sealNonceBytes || sealed.tag.size() != sealTagBytes) {
        return std::nullopt;
    }
    const QByteArray expected = SealDetail::tagOf(kind, key, sealed.nonce, sealed.ciphertext);
    unsigned char difference = 0; // compared in constant time
    for (int i = 0; i < sealTagBytes; ++i) {
        difference |= static_cast<unsigned char>(expected[i] ^ sealed.tag[i]);
    }
    if (difference != 0) {
        return std::nullopt;
    }
    return SealDetail::xorKeystream(SealDetail::derivedKey(kind, key, "encrypt"), sealed.nonce, sealed.ciphertext);
}

// One file's answer inside the sealed reply, in the order of the paths.
// error empty: the numbers hold; else error says why (for people, never the path).
struct SealedFileResult {
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

inline constexpr quint32 sealedFormatVersion = 1;

[[nodiscard]] inline QByteArray serializeFileResults(const QList<SealedFileResult> &files)
{
    QByteArray bytes;
    QDataStream out(&bytes, QIODevice::WriteOnly);
    out.setVersion(QDataStream::Qt_6_0);
    out << sealedFormatVersion << qint32(files.size());
    for (const SealedFileResult &file : files) {
        out << file.error << file.device << file.inode << file.sizeBytes << file.pages << file.resident << file.method << file.detail << file.hidden
            << file.dirty << file.writeback << file.histogram;
    }
    return bytes;
}

// The files, or nothing when the bytes are not exactly what
// serializeFileResults() writes for at most maxFiles files.
[[nodiscard]] inline std::optional<QList<SealedFileResult>> parseFileResults(const QByteArray &bytes, int maxFiles, int maxBucketCount)
{
    QDataStream in(bytes);
    in.setVersion(QDataStream::Qt_6_0);
    quint32 version = 0;
    qint32 count = -1;
    in >> version >> count;
    if (in.status() != QDataStream::Ok || version != sealedFormatVersion || count < 0 || count > maxFiles) {
        return std::nullopt;
    }
    QList<SealedFileResult> files;
    for (qint32 i = 0; i < count; ++i) {
        SealedFileResult file;
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
