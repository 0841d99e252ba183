// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers
#pragma once

// The results of past runs of one experiment, kept as one JSON file a run in
// <AppDataLocation>/experiments, named <experiment>-<UTC time>.json, so that
// a new run can be compared with any earlier one.

#include "experiments/experiment.h"

#include <QList>
#include <QString>

#include <optional>

namespace Cachescope::App
{

class ExperimentHistory
{
public:
    explicit ExperimentHistory(const QString &experimentName);

    // <AppDataLocation>/experiments, for every experiment.
    [[nodiscard]] static QString folder();

    struct Entry {
        QString path;
        Experiments::Result result;
    };
    // This experiment's readable results, newest first. Damaged files and
    // other experiments' results are left out.
    [[nodiscard]] QList<Entry> entries() const;

    // Keeps result; returns its path, or an empty string and *error (a
    // sentence naming the path and the reason).
    [[nodiscard]] QString store(const Experiments::Result &result, QString *error) const;

    // Reads one stored result back; nullopt and *error when it cannot.
    [[nodiscard]] static std::optional<Experiments::Result> load(const QString &path, QString *error);

private:
    QString m_experimentName;
};

} // namespace Cachescope::App
