// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers
#pragma once

#include <KXmlGuiWindow>

class MemoryPanel;
class MemorySampler;

// The Cachescope window. For now it shows memory at a glance; the views of
// the page cache itself arrive in later changes.
class MainWindow : public KXmlGuiWindow
{
    Q_OBJECT

public:
    // The size it opens with the first time, before it remembers one. It
    // matters where no window manager places and sizes windows (Xvfb).
    static constexpr QSize defaultSize{1100, 700};

    // procRoot is where meminfo is read; tests point it elsewhere.
    explicit MainWindow(const QString &procRoot = QStringLiteral("/proc"), QWidget *parent = nullptr);
    ~MainWindow() override;

    [[nodiscard]] MemoryPanel *memoryPanel() const;
    [[nodiscard]] MemorySampler *sampler() const;

private:
    void setUpActions();
    void setUpdatesPaused(bool paused);

    MemoryPanel *m_memoryPanel = nullptr;
    MemorySampler *m_sampler = nullptr;
};
