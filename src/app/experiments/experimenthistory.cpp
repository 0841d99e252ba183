// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers

#include "experimenthistory.h"

#include <KLocalizedString>

#include <QDateTime>
#include <QDir>
#include <QFile>
#include <QJsonDocument>
#include <QSaveFile>
#include <QStandardPaths>

#include <algorithm>

namespace Cachescope::App
{

ExperimentHistory::ExperimentHistory(const QString &experimentName)
    : m_experimentName(experimentName)
{
}

QString ExperimentHistory::folder()
{
    return QDir(QStandardPaths::writableLocation(QStandardPaths::AppDataLocation)).filePath(QStringLiteral("experiments"));
}

QList<ExperimentHistory::Entry> ExperimentHistory::entries() const
{
    QList<Entry> found;
    const QDir directory(folder());
    QStringList names = directory.entryList({m_experimentName + QStringLiteral("-*.json")}, QDir::Files, QDir::Name);
    // The names carry the time: newest first.
    std::reverse(names.begin(), names.end());
    for (const QString &name : std::as_const(names)) {
        const QString path = directory.filePath(name);
        QFile file(path);
        if (!file.open(QIODevice::ReadOnly)) {
            continue;
        }
        auto result = Experiments::resultFromJson(QJsonDocument::fromJson(file.readAll()).object());
        if (!result || result->experiment != m_experimentName.toStdString()) {
            continue; // not ours, or damaged: nothing to compare with
        }
        found.append({path, std::move(*result)});
    }
    return found;
}

QString ExperimentHistory::store(const Experiments::Result &result, QString *error) const
{
    const QString target = folder();
    if (!QDir().mkpath(target)) {
        *error = i18nc("@info %1 is a folder", "Could not keep the result: cannot make the folder %1.", target);
        return {};
    }
    const QString stamp = QDateTime::currentDateTimeUtc().toString(QStringLiteral("yyyyMMdd-HHmmss-zzz"));
    QString path = QDir(target).filePath(m_experimentName + QLatin1Char('-') + stamp + QStringLiteral(".json"));
    QSaveFile file(path);
    if (file.open(QIODevice::WriteOnly)) {
        file.write(QJsonDocument(Experiments::resultToJson(result)).toJson(QJsonDocument::Indented));
        if (file.commit()) {
            return path;
        }
    }
    *error = i18nc("@info %1 path, %2 reason", "Could not keep the result in %1: %2", path, file.errorString());
    return {};
}

std::optional<Experiments::Result> ExperimentHistory::load(const QString &path, QString *error)
{
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly)) {
        *error = i18nc("@info %1 path, %2 reason", "Cannot read %1: %2", path, file.errorString());
        return std::nullopt;
    }
    std::string reason;
    auto result = Experiments::resultFromJson(QJsonDocument::fromJson(file.readAll()).object(), &reason);
    if (!result) {
        *error = i18nc("@info %1 path, %2 reason", "Cannot read %1: %2", path, QString::fromStdString(reason));
    }
    return result;
}

} // namespace Cachescope::App
