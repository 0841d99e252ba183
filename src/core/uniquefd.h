// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers
//
// The one owner of a file descriptor in Cachescope: closes it whatever way a
// function ends. Used by the core, the CLI, the window and the helper alike,
// so that no path forgets a close() (or closes twice).

#pragma once

#include <unistd.h>

#include <utility>

namespace Cachescope
{

class UniqueFd
{
public:
    UniqueFd() noexcept = default;
    explicit UniqueFd(int fd) noexcept
        : m_fd(fd)
    {
    }
    ~UniqueFd()
    {
        reset();
    }
    UniqueFd(const UniqueFd &) = delete;
    UniqueFd &operator=(const UniqueFd &) = delete;
    UniqueFd(UniqueFd &&other) noexcept
        : m_fd(other.release())
    {
    }
    UniqueFd &operator=(UniqueFd &&other) noexcept
    {
        if (this != &other) {
            reset(other.release());
        }
        return *this;
    }

    [[nodiscard]] int get() const noexcept
    {
        return m_fd;
    }
    [[nodiscard]] bool isValid() const noexcept
    {
        return m_fd >= 0;
    }
    explicit operator bool() const noexcept
    {
        return isValid();
    }
    // Gives up ownership: the caller closes the returned descriptor.
    [[nodiscard]] int release() noexcept
    {
        return std::exchange(m_fd, -1);
    }
    // Closes what it holds (close() errors on a read-only descriptor carry no
    // information) and takes fd.
    void reset(int fd = -1) noexcept
    {
        const int old = std::exchange(m_fd, fd);
        if (old >= 0) {
            ::close(old);
        }
    }

private:
    int m_fd = -1;
};

} // namespace Cachescope
