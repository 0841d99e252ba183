// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers
#pragma once

// What the fuzz targets share: the input as text, and a reader that takes
// small choices and strings from the front of it (for the targets that
// build structured input, such as the helper's arguments).

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace Cachescope::Fuzz
{

inline std::string_view asText(const uint8_t *data, size_t size)
{
    return {reinterpret_cast<const char *>(data), size};
}

class Input
{
public:
    Input(const uint8_t *data, size_t size)
        : m_data(data)
        , m_size(size)
    {
    }
    [[nodiscard]] bool empty() const
    {
        return m_at >= m_size;
    }
    // A byte, 0 once the input is used up.
    [[nodiscard]] uint8_t byte()
    {
        return m_at < m_size ? m_data[m_at++] : 0;
    }
    [[nodiscard]] uint64_t number()
    {
        uint64_t value = 0;
        for (int i = 0; i < 8; ++i) {
            value = (value << 8) | byte();
        }
        return value;
    }
    // Up to 255 bytes, its length first.
    [[nodiscard]] std::string shortString()
    {
        const size_t length = byte();
        const size_t take = m_at + length <= m_size ? length : m_size - m_at;
        std::string text(reinterpret_cast<const char *>(m_data + m_at), take);
        m_at += take;
        return text;
    }
    // Whatever is left.
    [[nodiscard]] std::string_view rest()
    {
        const std::string_view text(reinterpret_cast<const char *>(m_data + m_at), m_size - m_at);
        m_at = m_size;
        return text;
    }

private:
    const uint8_t *m_data;
    size_t m_size;
    size_t m_at = 0;
};

} // namespace Cachescope::Fuzz
