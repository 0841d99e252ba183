// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers

#include "pathcodec.h"

#include <array>
#include <cstdint>

namespace Cachescope
{

namespace
{
// Length of the valid UTF-8 sequence at s[i], or 0 when the bytes there are
// not one (overlong forms, surrogates and values past U+10FFFF included).
size_t validSequenceLength(std::string_view s, size_t i)
{
    const auto byte = [&](size_t k) {
        return uint8_t(s[k]);
    };
    const uint8_t lead = byte(i);
    if (lead < 0x80) {
        return 1;
    }
    size_t length = 0;
    uint32_t min = 0;
    uint32_t codepoint = 0;
    if ((lead & 0xE0) == 0xC0) {
        length = 2;
        min = 0x80;
        codepoint = lead & 0x1F;
    } else if ((lead & 0xF0) == 0xE0) {
        length = 3;
        min = 0x800;
        codepoint = lead & 0x0F;
    } else if ((lead & 0xF8) == 0xF0) {
        length = 4;
        min = 0x10000;
        codepoint = lead & 0x07;
    } else {
        return 0;
    }
    if (i + length > s.size()) {
        return 0;
    }
    for (size_t k = 1; k < length; ++k) {
        if ((byte(i + k) & 0xC0) != 0x80) {
            return 0;
        }
        codepoint = (codepoint << 6) | (byte(i + k) & 0x3F);
    }
    if (codepoint < min || codepoint > 0x10FFFF || (codepoint >= 0xD800 && codepoint <= 0xDFFF)) {
        return 0;
    }
    return length;
}

constexpr char base64Alphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
} // namespace

bool isValidUtf8(std::string_view bytes)
{
    for (size_t i = 0; i < bytes.size();) {
        const size_t length = validSequenceLength(bytes, i);
        if (length == 0) {
            return false;
        }
        i += length;
    }
    return true;
}

std::string toDisplayUtf8(std::string_view bytes)
{
    std::string out;
    out.reserve(bytes.size());
    for (size_t i = 0; i < bytes.size();) {
        const size_t length = validSequenceLength(bytes, i);
        if (length == 0) {
            out += "\xEF\xBF\xBD"; // U+FFFD REPLACEMENT CHARACTER
            ++i;
        } else {
            out.append(bytes.substr(i, length));
            i += length;
        }
    }
    return out;
}

std::string base64Encode(std::string_view bytes)
{
    std::string out;
    out.reserve((bytes.size() + 2) / 3 * 4);
    size_t i = 0;
    for (; i + 2 < bytes.size(); i += 3) {
        const uint32_t n = uint32_t(uint8_t(bytes[i])) << 16 | uint32_t(uint8_t(bytes[i + 1])) << 8 | uint8_t(bytes[i + 2]);
        out += base64Alphabet[(n >> 18) & 63];
        out += base64Alphabet[(n >> 12) & 63];
        out += base64Alphabet[(n >> 6) & 63];
        out += base64Alphabet[n & 63];
    }
    if (i < bytes.size()) {
        uint32_t n = uint32_t(uint8_t(bytes[i])) << 16;
        if (i + 1 < bytes.size()) {
            n |= uint32_t(uint8_t(bytes[i + 1])) << 8;
        }
        out += base64Alphabet[(n >> 18) & 63];
        out += base64Alphabet[(n >> 12) & 63];
        out += i + 1 < bytes.size() ? base64Alphabet[(n >> 6) & 63] : '=';
        out += '=';
    }
    return out;
}

std::optional<std::string> base64Decode(std::string_view text)
{
    std::array<int8_t, 256> value;
    value.fill(-1);
    for (int k = 0; k < 64; ++k) {
        value[uint8_t(base64Alphabet[k])] = int8_t(k);
    }
    if (text.size() % 4 != 0) {
        return std::nullopt;
    }
    std::string out;
    out.reserve(text.size() / 4 * 3);
    for (size_t i = 0; i < text.size(); i += 4) {
        const bool last = i + 4 == text.size();
        uint32_t n = 0;
        int padding = 0;
        for (size_t k = 0; k < 4; ++k) {
            const char c = text[i + k];
            if (c == '=' && last && k >= 2) {
                ++padding;
                n <<= 6;
                continue;
            }
            if (padding > 0 || value[uint8_t(c)] < 0) {
                return std::nullopt;
            }
            n = (n << 6) | uint32_t(value[uint8_t(c)]);
        }
        out += char((n >> 16) & 0xFF);
        if (padding < 2) {
            out += char((n >> 8) & 0xFF);
        }
        if (padding < 1) {
            out += char(n & 0xFF);
        }
    }
    return out;
}

void appendJsonString(std::string &out, std::string_view text)
{
    static constexpr char hex[] = "0123456789abcdef";
    out += '"';
    for (const char c : text) {
        switch (c) {
        case '"':
            out += "\\\"";
            break;
        case '\\':
            out += "\\\\";
            break;
        case '\n':
            out += "\\n";
            break;
        case '\t':
            out += "\\t";
            break;
        case '\r':
            out += "\\r";
            break;
        default:
            if (uint8_t(c) < 0x20) {
                out += "\\u00";
                out += hex[uint8_t(c) >> 4];
                out += hex[uint8_t(c) & 15];
            } else {
                out += c;
            }
        }
    }
    out += '"';
}

void appendJsonPath(std::string &out, std::string_view path, std::string_view key)
{
    appendJsonString(out, key);
    out += ':';
    if (isValidUtf8(path)) {
        appendJsonString(out, path);
        return;
    }
    appendJsonString(out, toDisplayUtf8(path));
    out += ',';
    appendJsonString(out, std::string(key) + "_base64");
    out += ':';
    appendJsonString(out, base64Encode(path));
}

} // namespace Cachescope
