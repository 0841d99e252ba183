// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers

// The helper's method arguments as it decodes them (helperlogic: the keys
// allowed and required, integers in a range, true flags, paths as bytes),
// over an a{sv} built from the input: any key, any of the types a D-Bus
// message can carry.

#include "fuzzinput.h"

#include "helperlogic.h"

#include <QByteArray>
#include <QStringList>
#include <QVariantMap>

#include <limits>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    Cachescope::Fuzz::Input input(data, size);
    static const QString keys[] = {QStringLiteral("paths"),
                                   QStringLiteral("limit_bytes"),
                                   QStringLiteral("pid"),
                                   QStringLiteral("force"),
                                   QStringLiteral("level"),
                                   QStringLiteral("buckets"),
                                   QStringLiteral("path"),
                                   QStringLiteral("")};
    QVariantMap args;
    for (int entries = input.byte() % 8; entries > 0 && !input.empty(); --entries) {
        const uint8_t pick = input.byte();
        const QString key = pick < 200 ? keys[pick % 8] : QString::fromUtf8(input.shortString());
        const std::string text = input.shortString();
        QVariant value;
        switch (input.byte() % 9) {
        case 0:
            value = qlonglong(input.number());
            break;
        case 1:
            value = qulonglong(input.number());
            break;
        case 2:
            value = int(input.number());
            break;
        case 3:
            value = uint(input.number());
            break;
        case 4:
            value = (input.byte() & 1) != 0;
            break;
        case 5:
            value = QString::fromUtf8(text);
            break;
        case 6:
            value = QByteArray(text.data(), qsizetype(text.size()));
            break;
        case 7:
            value = QStringList{QString::fromUtf8(text)};
            break;
        default:
            value = double(int64_t(input.number())) / 7.0;
            break;
        }
        args.insert(key, value);
    }
    (void)Cachescope::Helper::checkKeys(args, {keys[0], keys[1], keys[3]}, {keys[1]});
    (void)Cachescope::Helper::integerArgument(args, keys[1], 16LL << 20, std::numeric_limits<long long>::max());
    (void)Cachescope::Helper::integerArgument(args, keys[2], 1, 4194304);
    (void)Cachescope::Helper::checkTrueFlag(args, keys[3]);
    QString error;
    (void)Cachescope::Helper::pathArgument(args, keys[6], &error);
    (void)Cachescope::Helper::quoteForMessage(QString::fromUtf8(input.shortString()));
    return 0;
}
