// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers

#include "pathcodec.h"

#include <QJsonDocument>
#include <QJsonObject>
#include <QTest>

using namespace Cachescope;

class PathCodecTest : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void utf8Validity_data()
    {
        QTest::addColumn<QByteArray>("bytes");
        QTest::addColumn<bool>("valid");
        QTest::addColumn<QByteArray>("display");
        QTest::newRow("empty") << QByteArray() << true << QByteArray();
        QTest::newRow("ascii") << QByteArray("usr/lib") << true << QByteArray("usr/lib");
        QTest::newRow("two-byte") << QByteArray("caf\xc3\xa9") << true << QByteArray("caf\xc3\xa9");
        QTest::newRow("four-byte") << QByteArray("\xf0\x9f\x98\x80") << true << QByteArray("\xf0\x9f\x98\x80");
        QTest::newRow("latin-1 byte") << QByteArray("caf\xe9") << false << QByteArray("caf\xef\xbf\xbd");
        QTest::newRow("lone continuation") << QByteArray("a\x80z") << false << QByteArray("a\xef\xbf\xbdz");
        QTest::newRow("overlong slash") << QByteArray("\xc0\xaf") << false << QByteArray("\xef\xbf\xbd\xef\xbf\xbd");
        QTest::newRow("surrogate") << QByteArray("\xed\xa0\x80") << false << QByteArray("\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd");
        QTest::newRow("truncated") << QByteArray("\xe2\x82") << false << QByteArray("\xef\xbf\xbd\xef\xbf\xbd");
        QTest::newRow("past U+10FFFF") << QByteArray("\xf4\x90\x80\x80") << false << QByteArray("\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd");
        QTest::newRow("0xff 0xfe") << QByteArray("\xff\xfe") << false << QByteArray("\xef\xbf\xbd\xef\xbf\xbd");
    }

    void utf8Validity()
    {
        QFETCH(QByteArray, bytes);
        QFETCH(bool, valid);
        QFETCH(QByteArray, display);
        const std::string_view view(bytes.constData(), size_t(bytes.size()));
        QCOMPARE(isValidUtf8(view), valid);
        const std::string shown = toDisplayUtf8(view);
        QCOMPARE(QByteArray::fromStdString(shown), display);
        QVERIFY(isValidUtf8(shown));
    }

    void base64RoundTrip()
    {
        // Every byte value, at every length modulo 3.
        std::string all;
        for (int c = 0; c < 256; ++c) {
            all += char(c);
        }
        for (size_t length = 0; length <= all.size(); ++length) {
            const std::string bytes = all.substr(0, length);
            const std::string encoded = base64Encode(bytes);
            QCOMPARE(QByteArray::fromStdString(encoded), QByteArray::fromStdString(bytes).toBase64());
            const auto decoded = base64Decode(encoded);
            QVERIFY(decoded.has_value());
            QCOMPARE(*decoded, bytes);
        }
    }

    void base64RejectsGarbage_data()
    {
        QTest::addColumn<QByteArray>("text");
        QTest::newRow("bad length") << QByteArray("abc");
        QTest::newRow("bad character") << QByteArray("ab!d");
        QTest::newRow("padding inside") << QByteArray("a=bcdefg");
        QTest::newRow("padding first") << QByteArray("=abc");
        QTest::newRow("data after padding") << QByteArray("ab=c");
    }

    void base64RejectsGarbage()
    {
        QFETCH(QByteArray, text);
        QVERIFY(!base64Decode(text.toStdString()).has_value());
    }

    void jsonPathRoundTrip_data()
    {
        QTest::addColumn<QByteArray>("path");
        QTest::newRow("plain") << QByteArray("/usr/lib/libc.so.6");
        QTest::newRow("quotes and controls") << QByteArray("/tmp/a\"b\\c\n\t\x01");
        QTest::newRow("not utf-8") << QByteArray("/data/caf\xe9/\xff\xfe");
    }

    // What we write, Qt's JSON parser reads, and the bytes come back exact.
    void jsonPathRoundTrip()
    {
        QFETCH(QByteArray, path);
        std::string json = "{";
        appendJsonPath(json, path.toStdString());
        json += "}";
        QJsonParseError error;
        const QJsonObject object = QJsonDocument::fromJson(QByteArray::fromStdString(json), &error).object();
        QCOMPARE(error.error, QJsonParseError::NoError);
        const bool valid = isValidUtf8(path.toStdString());
        QCOMPARE(object.contains(QStringLiteral("path_base64")), !valid);
        const QByteArray back = valid ? object.value(QStringLiteral("path")).toString().toUtf8()
                                      : QByteArray::fromBase64(object.value(QStringLiteral("path_base64")).toString().toLatin1());
        QCOMPARE(back, path);
    }
};

QTEST_GUILESS_MAIN(PathCodecTest)
#include "pathcodectest.moc"
