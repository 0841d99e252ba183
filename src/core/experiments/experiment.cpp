// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers

#include "experiment.h"

#include <QFile>
#include <QJsonValue>
#include <QString>

#include <algorithm>
#include <cmath>
#include <numeric>

namespace Cachescope::Experiments
{

double studentT95(int degreesOfFreedom)
{
    // t(0.975, df) for df = 1..29; a normal quantile beyond, as the brief of
    // the experiments says (the t value for 30 is 2.042, close enough to 1.96
    // for a teaching tool, and the table stays short).
    static constexpr double table[] = {12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.160, 2.145, 2.131,
                                       2.120,  2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045};
    if (degreesOfFreedom < 1) {
        return 0;
    }
    if (degreesOfFreedom <= int(std::size(table))) {
        return table[degreesOfFreedom - 1];
    }
    return 1.96;
}

Statistics computeStatistics(const std::vector<double> &values)
{
    Statistics s;
    s.count = int(values.size());
    if (values.empty()) {
        return s;
    }
    s.mean = std::accumulate(values.begin(), values.end(), 0.0) / double(values.size());
    std::vector<double> sorted = values;
    std::sort(sorted.begin(), sorted.end());
    s.minimum = sorted.front();
    s.maximum = sorted.back();
    const size_t middle = sorted.size() / 2;
    s.median = sorted.size() % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
    if (values.size() < 2) {
        return s;
    }
    double squares = 0;
    for (double value : values) {
        squares += (value - s.mean) * (value - s.mean);
    }
    s.standardDeviation = std::sqrt(squares / double(values.size() - 1));
    s.confidenceHalfWidth = studentT95(s.count - 1) * s.standardDeviation / std::sqrt(double(values.size()));
    return s;
}

void VariantResult::add(const std::string &measurementName, const std::string &unit, double value)
{
    for (Measurement &measurement : measurements) {
        if (measurement.name == measurementName) {
            measurement.values.push_back(value);
            return;
        }
    }
    measurements.push_back({measurementName, unit, {value}, {}});
}

const Measurement *VariantResult::find(const std::string &measurementName) const
{
    for (const Measurement &measurement : measurements) {
        if (measurement.name == measurementName) {
            return &measurement;
        }
    }
    return nullptr;
}

void VariantResult::computeStatistics()
{
    for (Measurement &measurement : measurements) {
        measurement.statistics = Experiments::computeStatistics(measurement.values);
    }
}

const VariantResult *Result::variant(const std::string &variantName) const
{
    for (const VariantResult &v : variants) {
        if (v.name == variantName) {
            return &v;
        }
    }
    return nullptr;
}

namespace
{
QString text(const std::string &s)
{
    return QString::fromStdString(s);
}

std::string text(const QJsonValue &value)
{
    return value.toString().toStdString();
}

void putOptional(QJsonObject &object, const char *key, const std::optional<uint64_t> &value)
{
    if (value) {
        object.insert(QLatin1String(key), double(*value));
    }
}

std::optional<uint64_t> getOptional(const QJsonObject &object, const char *key)
{
    const QJsonValue value = object.value(QLatin1String(key));
    if (!value.isDouble()) {
        return std::nullopt;
    }
    return uint64_t(std::max(0.0, value.toDouble()));
}

// The sample fields, in one place for both directions.
struct SampleField {
    const char *key;
    std::optional<uint64_t> Sample::*member;
};
constexpr SampleField sampleFields[] = {
    {"mem_free", &Sample::memFree},
    {"mem_available", &Sample::memAvailable},
    {"cached", &Sample::cached},
    {"dirty", &Sample::dirty},
    {"writeback", &Sample::writeback},
    {"swap_free", &Sample::swapFree},
    {"swap_total", &Sample::swapTotal},
    {"file_resident", &Sample::fileResident},
    {"file_dirty", &Sample::fileDirty},
    {"file_writeback", &Sample::fileWriteback},
    {"file_pages", &Sample::filePages},
    {"file_reclaimed", &Sample::fileReclaimed},
    {"allocated", &Sample::allocated},
    {"written", &Sample::written},
    {"group_cached", &Sample::groupCached},
    {"group_usage", &Sample::groupUsage},
    {"desktop_resident", &Sample::desktopResident},
    {"desktop_pages", &Sample::desktopPages},
    {"shmem", &Sample::shmem},
};
} // namespace

namespace
{
QJsonObject programFilesToJson(const std::vector<ProgramFile> &files, QJsonObject details)
{
    QJsonArray array;
    uint64_t totalBytes = 0;
    for (const ProgramFile &file : files) {
        totalBytes += file.size;
        const auto pagesOrUnknown = [&file](const std::optional<uint64_t> &pages) {
            return file.residencyHidden || !pages ? QJsonValue(QJsonValue::Null) : QJsonValue(double(*pages));
        };
        QJsonObject object{{QStringLiteral("path"), QFile::decodeName(file.path.c_str())},
                           {QStringLiteral("size"), double(file.size)},
                           {QStringLiteral("pages"), double(file.pages)},
                           {QStringLiteral("resident_warm"), pagesOrUnknown(file.residentWarm)},
                           {QStringLiteral("resident_after_evict"), pagesOrUnknown(file.residentAfterEvict)}};
        if (file.residencyHidden) {
            object.insert(QStringLiteral("residency_hidden"), true);
            object.insert(QStringLiteral("hidden_reason"), text(file.hiddenReason));
        }
        if (!file.remainReason.empty()) {
            object.insert(QStringLiteral("remain_reason"), text(file.remainReason));
        }
        array.append(object);
    }
    details.insert(QStringLiteral("files"), array);
    details.insert(QStringLiteral("files_bytes"), double(totalBytes));
    return details;
}

std::vector<ProgramFile> programFilesFromJson(const QJsonArray &array)
{
    std::vector<ProgramFile> files;
    for (const auto &value : array) {
        const QJsonObject object = value.toObject();
        ProgramFile file;
        file.path = QFile::encodeName(object.value(QStringLiteral("path")).toString()).toStdString();
        file.size = uint64_t(std::max(0.0, object.value(QStringLiteral("size")).toDouble()));
        file.pages = uint64_t(std::max(0.0, object.value(QStringLiteral("pages")).toDouble()));
        file.residentWarm = getOptional(object, "resident_warm");
        file.residentAfterEvict = getOptional(object, "resident_after_evict");
        file.residencyHidden = object.value(QStringLiteral("residency_hidden")).toBool();
        file.hiddenReason = text(object.value(QStringLiteral("hidden_reason")));
        file.remainReason = text(object.value(QStringLiteral("remain_reason")));
        files.push_back(std::move(file));
    }
    return files;
}
} // namespace

QJsonObject statisticsToJson(const Statistics &s)
{
    QJsonObject object;
    object.insert(QStringLiteral("n"), s.count);
    object.insert(QStringLiteral("mean"), s.mean);
    object.insert(QStringLiteral("stddev"), s.standardDeviation);
    object.insert(QStringLiteral("median"), s.median);
    object.insert(QStringLiteral("min"), s.minimum);
    object.insert(QStringLiteral("max"), s.maximum);
    object.insert(QStringLiteral("ci95_low"), s.confidenceLow());
    object.insert(QStringLiteral("ci95_high"), s.confidenceHigh());
    object.insert(QStringLiteral("ci95_half_width"), s.confidenceHalfWidth);
    return object;
}

QJsonObject sampleToJson(const Sample &sample)
{
    QJsonObject object;
    object.insert(QStringLiteral("t"), sample.seconds);
    if (!sample.phase.empty()) {
        object.insert(QStringLiteral("phase"), text(sample.phase));
    }
    for (const SampleField &field : sampleFields) {
        putOptional(object, field.key, sample.*field.member);
    }
    if (sample.fsyncSeconds) {
        object.insert(QStringLiteral("fsync_seconds"), *sample.fsyncSeconds);
    }
    if (sample.syncSeconds) {
        object.insert(QStringLiteral("sync_seconds"), *sample.syncSeconds);
    }
    return object;
}

QJsonObject resultToJson(const Result &result)
{
    QJsonObject object;
    object.insert(QStringLiteral("experiment"), text(result.experiment));
    object.insert(QStringLiteral("started"), text(result.started));
    object.insert(QStringLiteral("seconds"), result.seconds);
    object.insert(QStringLiteral("cancelled"), result.cancelled);
    if (!result.error.empty()) {
        object.insert(QStringLiteral("error"), text(result.error));
    }
    object.insert(QStringLiteral("parameters"), result.parameters);
    QJsonArray variants;
    for (const VariantResult &v : result.variants) {
        QJsonObject variant;
        variant.insert(QStringLiteral("name"), text(v.name));
        variant.insert(QStringLiteral("skipped"), v.skipped);
        if (v.skipped) {
            variant.insert(QStringLiteral("skip_reason"), text(v.skipReason));
        }
        QJsonArray measurements;
        for (const Measurement &m : v.measurements) {
            QJsonObject measurement;
            measurement.insert(QStringLiteral("name"), text(m.name));
            measurement.insert(QStringLiteral("unit"), text(m.unit));
            QJsonArray values;
            for (double value : m.values) {
                values.append(value);
            }
            measurement.insert(QStringLiteral("values"), values);
            measurement.insert(QStringLiteral("statistics"), statisticsToJson(m.statistics));
            measurements.append(measurement);
        }
        variant.insert(QStringLiteral("measurements"), measurements);
        variant.insert(QStringLiteral("runs"), v.runs);
        if (!v.details.isEmpty()) {
            variant.insert(QStringLiteral("details"), v.details);
        }
        variants.append(variant);
    }
    object.insert(QStringLiteral("variants"), variants);
    QJsonObject details = result.programFiles ? programFilesToJson(*result.programFiles, result.details) : result.details;
    if (result.trace) {
        details.insert(QStringLiteral("trace"), Trace::reportToJson(*result.trace));
    }
    if (!details.isEmpty()) {
        object.insert(QStringLiteral("details"), details);
    }
    QJsonArray notes;
    for (const std::string &note : result.notes) {
        notes.append(text(note));
    }
    object.insert(QStringLiteral("notes"), notes);
    QJsonArray events;
    for (const Event &event : result.events) {
        events.append(QJsonObject{{QStringLiteral("t"), event.seconds}, {QStringLiteral("text"), text(event.text)}});
    }
    object.insert(QStringLiteral("events"), events);
    QJsonArray samples;
    for (const Sample &sample : result.samples) {
        samples.append(sampleToJson(sample));
    }
    object.insert(QStringLiteral("samples"), samples);
    return object;
}

std::optional<Result> resultFromJson(const QJsonObject &object, std::string *error)
{
    if (!object.value(QStringLiteral("experiment")).isString() || !object.value(QStringLiteral("variants")).isArray()) {
        if (error) {
            *error = "not an experiment result: \"experiment\" (a string) and \"variants\" (an array) are required";
        }
        return std::nullopt;
    }
    Result result;
    result.experiment = text(object.value(QStringLiteral("experiment")));
    result.started = text(object.value(QStringLiteral("started")));
    result.seconds = object.value(QStringLiteral("seconds")).toDouble();
    result.cancelled = object.value(QStringLiteral("cancelled")).toBool();
    result.error = text(object.value(QStringLiteral("error")));
    result.parameters = object.value(QStringLiteral("parameters")).toObject();
    result.details = object.value(QStringLiteral("details")).toObject();
    if (result.details.value(QStringLiteral("files")).isArray()) {
        result.programFiles = programFilesFromJson(result.details.take(QStringLiteral("files")).toArray());
        result.details.remove(QStringLiteral("files_bytes"));
    }
    if (result.details.value(QStringLiteral("trace")).isObject()) {
        std::string traceError;
        result.trace = Trace::reportFromJson(result.details.take(QStringLiteral("trace")).toObject(), &traceError);
        if (!result.trace) {
            result.notes.push_back("the stored trace could not be read: " + traceError);
        }
    }
    const auto variants = object.value(QStringLiteral("variants")).toArray();
    for (const auto &value : variants) {
        const QJsonObject variant = value.toObject();
        VariantResult v;
        v.name = text(variant.value(QStringLiteral("name")));
        v.skipped = variant.value(QStringLiteral("skipped")).toBool();
        v.skipReason = text(variant.value(QStringLiteral("skip_reason")));
        const auto measurements = variant.value(QStringLiteral("measurements")).toArray();
        for (const auto &m : measurements) {
            const QJsonObject measurement = m.toObject();
            Measurement parsed;
            parsed.name = text(measurement.value(QStringLiteral("name")));
            parsed.unit = text(measurement.value(QStringLiteral("unit")));
            const auto numbers = measurement.value(QStringLiteral("values")).toArray();
            for (const auto &number : numbers) {
                parsed.values.push_back(number.toDouble());
            }
            parsed.statistics = computeStatistics(parsed.values);
            v.measurements.push_back(std::move(parsed));
        }
        v.runs = variant.value(QStringLiteral("runs")).toArray();
        v.details = variant.value(QStringLiteral("details")).toObject();
        result.variants.push_back(std::move(v));
    }
    const auto notes = object.value(QStringLiteral("notes")).toArray();
    for (const auto &note : notes) {
        result.notes.push_back(text(note));
    }
    const auto events = object.value(QStringLiteral("events")).toArray();
    for (const auto &value : events) {
        const QJsonObject event = value.toObject();
        result.events.push_back({event.value(QStringLiteral("t")).toDouble(), text(event.value(QStringLiteral("text")))});
    }
    const auto samples = object.value(QStringLiteral("samples")).toArray();
    for (const auto &value : samples) {
        const QJsonObject sampleObject = value.toObject();
        Sample sample;
        sample.seconds = sampleObject.value(QStringLiteral("t")).toDouble();
        sample.phase = text(sampleObject.value(QStringLiteral("phase")));
        for (const SampleField &field : sampleFields) {
            sample.*field.member = getOptional(sampleObject, field.key);
        }
        if (sampleObject.value(QStringLiteral("fsync_seconds")).isDouble()) {
            sample.fsyncSeconds = sampleObject.value(QStringLiteral("fsync_seconds")).toDouble();
        }
        if (sampleObject.value(QStringLiteral("sync_seconds")).isDouble()) {
            sample.syncSeconds = sampleObject.value(QStringLiteral("sync_seconds")).toDouble();
        }
        result.samples.push_back(std::move(sample));
    }
    return result;
}

} // namespace Cachescope::Experiments
