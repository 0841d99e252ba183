// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers

#include "tracereport.h"

#include "pathcodec.h"
#include "residency.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonValue>
#include <QString>

#include <algorithm>
#include <cmath>
#include <limits>

namespace Cachescope::Trace
{

namespace
{
// The trace file's layout. Bump when a key changes meaning or disappears;
// readers refuse versions they do not know rather than read them wrongly.
constexpr int traceFileVersion = 1;

QString text(const std::string &s)
{
    return QString::fromStdString(s);
}

QString latin(const char *key)
{
    return QString::fromLatin1(key);
}

QJsonValue integer(uint64_t value)
{
    // QJsonValue keeps qint64 exactly (a double would round inodes and
    // nanosecond times beyond 2^53).
    return QJsonValue(qint64(std::min<uint64_t>(value, uint64_t(std::numeric_limits<qint64>::max()))));
}

QJsonObject pathObject(const std::string &path)
{
    // The same "path" (+ "path_base64" when not UTF-8) as every other document.
    std::string json = "{";
    appendJsonPath(json, path);
    json += '}';
    return QJsonDocument::fromJson(QByteArray::fromStdString(json)).object();
}

bool isMetadata(const Report &report, const Extent &extent)
{
    return extent.file >= 0 && size_t(extent.file) < report.files.size() && report.files[size_t(extent.file)].metadata;
}

// Reads one JSON object's members, remembering the first problem as a sentence
// that names where it is ("files[3].inode must be ...").
class Reader
{
public:
    Reader(const QJsonObject &object, std::string where, std::string *error)
        : m_object(object)
        , m_where(std::move(where))
        , m_error(error)
    {
    }

    [[nodiscard]] bool failed() const
    {
        return m_failed;
    }

    void fail(const std::string &sentence)
    {
        if (!m_failed && m_error) {
            *m_error = sentence;
        }
        m_failed = true;
    }

    // A missing key is refused when required, else the fallback is kept.
    bool has(const char *key, bool required)
    {
        if (m_object.contains(latin(key))) {
            return true;
        }
        if (required) {
            fail("missing \"" + name(key) + "\"");
        }
        return false;
    }

    uint64_t unsignedInteger(const char *key, bool required = true, uint64_t fallback = 0)
    {
        if (!has(key, required)) {
            return fallback;
        }
        const QJsonValue value = m_object.value(latin(key));
        const double number = value.toDouble(-1);
        if (!value.isDouble() || number < 0 || std::floor(number) != number) {
            fail("\"" + name(key) + "\" must be a non-negative integer");
            return fallback;
        }
        return uint64_t(value.toInteger());
    }

    int64_t signedInteger(const char *key, bool required = true, int64_t fallback = 0)
    {
        if (!has(key, required)) {
            return fallback;
        }
        const QJsonValue value = m_object.value(latin(key));
        if (!value.isDouble() || std::floor(value.toDouble()) != value.toDouble()) {
            fail("\"" + name(key) + "\" must be an integer");
            return fallback;
        }
        return value.toInteger();
    }

    double number(const char *key, bool required = true)
    {
        if (!has(key, required)) {
            return 0;
        }
        const QJsonValue value = m_object.value(latin(key));
        if (!value.isDouble()) {
            fail("\"" + name(key) + "\" must be a number");
            return 0;
        }
        return value.toDouble();
    }

    bool boolean(const char *key, bool required = true)
    {
        if (!has(key, required)) {
            return false;
        }
        const QJsonValue value = m_object.value(latin(key));
        if (!value.isBool()) {
            fail("\"" + name(key) + "\" must be true or false");
            return false;
        }
        return value.toBool();
    }

    std::string string(const char *key, bool required = true)
    {
        if (!has(key, required)) {
            return {};
        }
        const QJsonValue value = m_object.value(latin(key));
        if (!value.isString()) {
            fail("\"" + name(key) + "\" must be a string");
            return {};
        }
        return value.toString().toStdString();
    }

    QJsonArray array(const char *key, bool required = true)
    {
        if (!has(key, required)) {
            return {};
        }
        const QJsonValue value = m_object.value(latin(key));
        if (!value.isArray()) {
            fail("\"" + name(key) + "\" must be an array");
            return {};
        }
        return value.toArray();
    }

    std::vector<std::string> strings(const char *key, bool required = true)
    {
        std::vector<std::string> result;
        const QJsonArray items = array(key, required);
        for (qsizetype i = 0; i < items.size(); ++i) {
            if (!items.at(i).isString()) {
                fail("\"" + name(key) + "[" + std::to_string(i) + "]\" must be a string");
                return {};
            }
            result.push_back(items.at(i).toString().toStdString());
        }
        return result;
    }

    // "path", preferring the exact bytes of "path_base64".
    std::string path()
    {
        std::string display = string("path");
        if (!m_object.contains(QStringLiteral("path_base64"))) {
            return display;
        }
        const std::optional<std::string> exact = base64Decode(string("path_base64"));
        if (!exact) {
            fail("\"" + name("path_base64") + "\" is not base64");
            return {};
        }
        return *exact;
    }

    // Each member of array key as an object, with a Reader that names it.
    template<typename Function>
    void eachObject(const char *key, Function &&function)
    {
        const QJsonArray items = array(key);
        for (qsizetype i = 0; i < items.size() && !m_failed; ++i) {
            const std::string itemName = name(key) + "[" + std::to_string(i) + "]";
            if (!items.at(i).isObject()) {
                fail("\"" + itemName + "\" must be an object");
                return;
            }
            Reader item(items.at(i).toObject(), itemName, m_error);
            function(item);
            if (item.failed()) {
                m_failed = true;
            }
        }
    }

private:
    std::string name(const char *key) const
    {
        return m_where.empty() ? std::string(key) : m_where + "." + key;
    }

    QJsonObject m_object;
    std::string m_where;
    std::string *m_error;
    bool m_failed = false;
};

std::optional<Method> methodFromName(const std::string &name)
{
    for (Method method : {Method::Tracefs, Method::ResidencyDiff}) {
        if (name == methodName(method)) {
            return method;
        }
    }
    return std::nullopt;
}
} // namespace

std::string File::displayName() const
{
    const std::string device = std::to_string(major) + ":" + std::to_string(minor);
    if (metadata) {
        // The block device's own pages: its name when known ("/dev/vda"),
        // else the device number the inode stands for.
        return "metadata of " + (path.empty() ? "block device " + std::to_string(inode >> 20) + ":" + std::to_string(inode & 0xfffff) : path);
    }
    return path.empty() ? device + ":" + std::to_string(inode) : path;
}

uint64_t Report::pagesRead() const
{
    uint64_t pages = 0;
    for (const Extent &extent : extents) {
        pages += extent.pageCount;
    }
    return pages;
}

uint64_t Report::pagesReadaheadOnly() const
{
    if (!usageKnown) {
        return 0;
    }
    // The file system's metadata is never "asked for" by the program through
    // the page cache: it is not counted as readahead either.
    uint64_t pages = 0;
    for (const Extent &extent : extents) {
        if (!isMetadata(*this, extent)) {
            pages += extent.pageCount - std::min(extent.askedPages, extent.pageCount);
        }
    }
    return pages;
}

const char *methodName(Method method)
{
    switch (method) {
    case Method::Tracefs:
        return "tracefs";
    case Method::ResidencyDiff:
        return "residency-diff";
    }
    return "tracefs";
}

QJsonObject reportToJson(const Report &report)
{
    const uint64_t page = pageSize();
    QJsonObject object;
    object.insert(QStringLiteral("version"), traceFileVersion);
    object.insert(QStringLiteral("method"), latin(methodName(report.method)));
    QJsonArray command;
    for (const std::string &argument : report.command) {
        command.append(text(toDisplayUtf8(argument)));
    }
    object.insert(QStringLiteral("command"), command);
    object.insert(QStringLiteral("page_size"), integer(page));
    object.insert(QStringLiteral("duration_seconds"), report.durationSeconds);
    object.insert(QStringLiteral("exit_status"), report.exitStatus);
    object.insert(QStringLiteral("usage_known"), report.usageKnown);
    object.insert(QStringLiteral("lost_events"), integer(report.lostEvents));
    object.insert(QStringLiteral("end_reason"), text(report.endReason));

    QJsonArray files;
    uint64_t metadataPages = 0;
    for (const File &file : report.files) {
        QJsonObject entry = pathObject(file.path);
        entry.insert(QStringLiteral("name"), text(toDisplayUtf8(file.displayName())));
        entry.insert(QStringLiteral("major"), integer(file.major));
        entry.insert(QStringLiteral("minor"), integer(file.minor));
        entry.insert(QStringLiteral("inode"), integer(file.inode));
        entry.insert(QStringLiteral("metadata"), file.metadata);
        entry.insert(QStringLiteral("size"), integer(file.sizeBytes));
        entry.insert(QStringLiteral("modified_ns"), QJsonValue(qint64(file.modifiedNs)));
        entry.insert(QStringLiteral("pages_added"), integer(file.pagesAdded));
        entry.insert(QStringLiteral("pages_asked"), integer(file.pagesAsked));
        entry.insert(QStringLiteral("pages_deleted"), integer(file.pagesDeleted));
        files.append(entry);
        if (file.metadata) {
            metadataPages += file.pagesAdded;
        }
    }
    object.insert(QStringLiteral("files"), files);

    QJsonArray extents;
    for (const Extent &extent : report.extents) {
        extents.append(QJsonObject{{QStringLiteral("file"), extent.file},
                                   {QStringLiteral("first_page"), integer(extent.firstPage)},
                                   {QStringLiteral("pages"), integer(extent.pageCount)},
                                   {QStringLiteral("offset"), integer(extent.firstPage * page)},
                                   {QStringLiteral("length"), integer(extent.pageCount * page)},
                                   {QStringLiteral("start_seconds"), extent.startSeconds},
                                   {QStringLiteral("end_seconds"), extent.endSeconds},
                                   {QStringLiteral("asked_pages"), integer(extent.askedPages)}});
    }
    object.insert(QStringLiteral("extents"), extents);

    QJsonArray requests;
    for (const BlockRequest &request : report.requests) {
        requests.append(QJsonObject{{QStringLiteral("t"), request.seconds},
                                    {QStringLiteral("major"), integer(request.major)},
                                    {QStringLiteral("minor"), integer(request.minor)},
                                    {QStringLiteral("sector"), integer(request.sector)},
                                    {QStringLiteral("bytes"), integer(request.bytes)},
                                    {QStringLiteral("rwbs"), text(request.rwbs)}});
    }
    object.insert(QStringLiteral("requests"), requests);

    QJsonArray notes;
    for (const std::string &note : report.notes) {
        notes.append(text(toDisplayUtf8(note)));
    }
    object.insert(QStringLiteral("notes"), notes);

    // Derived, for people and plots; readers recompute them.
    const uint64_t pages = report.pagesRead();
    const uint64_t dataPages = pages - std::min(pages, metadataPages);
    QJsonObject totals{{QStringLiteral("files"), qint64(report.files.size())},
                       {QStringLiteral("pages"), integer(pages)},
                       {QStringLiteral("bytes"), integer(pages * page)},
                       {QStringLiteral("metadata_pages"), integer(metadataPages)},
                       {QStringLiteral("extents"), qint64(report.extents.size())},
                       {QStringLiteral("requests"), qint64(report.requests.size())}};
    if (report.usageKnown) {
        const uint64_t readaheadOnly = report.pagesReadaheadOnly();
        totals.insert(QStringLiteral("readahead_only_pages"), integer(readaheadOnly));
        totals.insert(QStringLiteral("readahead_only_share"), dataPages ? double(readaheadOnly) / double(dataPages) : 0.0);
    } else {
        totals.insert(QStringLiteral("readahead_only_pages"), QJsonValue(QJsonValue::Null));
        totals.insert(QStringLiteral("readahead_only_share"), QJsonValue(QJsonValue::Null));
    }
    object.insert(QStringLiteral("totals"), totals);
    return object;
}

std::optional<Report> reportFromJson(const QJsonObject &object, std::string *error)
{
    std::string problem;
    Reader reader(object, {}, &problem);
    const auto refuse = [&]() -> std::optional<Report> {
        if (error) {
            *error = "not a Cachescope trace: " + problem;
        }
        return std::nullopt;
    };

    if (!object.contains(QStringLiteral("version"))) {
        problem = "missing \"version\" (a trace file says which layout it has)";
        return refuse();
    }
    const uint64_t version = reader.unsignedInteger("version");
    if (reader.failed()) {
        return refuse();
    }
    if (version != uint64_t(traceFileVersion)) {
        problem = "unknown version " + std::to_string(version) + " (this Cachescope reads version " + std::to_string(traceFileVersion) + ")";
        return refuse();
    }

    Report report;
    const std::string method = reader.string("method");
    if (!reader.failed()) {
        if (const std::optional<Method> known = methodFromName(method)) {
            report.method = *known;
        } else {
            reader.fail("unknown method \"" + method + "\" (tracefs or residency-diff)");
        }
    }
    const uint64_t page = reader.unsignedInteger("page_size");
    if (!reader.failed() && page != pageSize()) {
        // Page numbers would point at the wrong bytes.
        reader.fail("it was recorded with " + std::to_string(page) + "-byte pages, this machine has " + std::to_string(pageSize()) + "-byte pages");
    }
    report.command = reader.strings("command");
    report.durationSeconds = reader.number("duration_seconds");
    report.exitStatus = int(reader.signedInteger("exit_status"));
    report.usageKnown = reader.boolean("usage_known");
    report.lostEvents = reader.unsignedInteger("lost_events");
    report.endReason = reader.string("end_reason");
    reader.eachObject("files", [&report](Reader &entry) {
        File file;
        file.path = entry.path();
        file.major = uint32_t(entry.unsignedInteger("major"));
        file.minor = uint32_t(entry.unsignedInteger("minor"));
        file.inode = entry.unsignedInteger("inode");
        file.metadata = entry.boolean("metadata");
        file.sizeBytes = entry.unsignedInteger("size");
        file.modifiedNs = entry.signedInteger("modified_ns");
        file.pagesAdded = entry.unsignedInteger("pages_added");
        file.pagesAsked = entry.unsignedInteger("pages_asked");
        file.pagesDeleted = entry.unsignedInteger("pages_deleted");
        report.files.push_back(std::move(file));
    });
    reader.eachObject("extents", [&report](Reader &entry) {
        Extent extent;
        const uint64_t file = entry.unsignedInteger("file");
        if (!entry.failed() && file >= report.files.size()) {
            entry.fail("an extent names file " + std::to_string(file) + ", but there are " + std::to_string(report.files.size()) + " files");
        }
        extent.file = int(file);
        extent.firstPage = entry.unsignedInteger("first_page");
        extent.pageCount = entry.unsignedInteger("pages");
        extent.startSeconds = entry.number("start_seconds");
        extent.endSeconds = entry.number("end_seconds");
        extent.askedPages = entry.unsignedInteger("asked_pages");
        if (!entry.failed() && extent.pageCount == 0) {
            entry.fail("an extent has no pages");
        }
        if (!entry.failed() && extent.firstPage > std::numeric_limits<uint64_t>::max() / pageSize() - extent.pageCount) {
            entry.fail("an extent reaches past the largest file offset");
        }
        report.extents.push_back(extent);
    });
    reader.eachObject("requests", [&report](Reader &entry) {
        BlockRequest request;
        request.seconds = entry.number("t");
        request.major = uint32_t(entry.unsignedInteger("major"));
        request.minor = uint32_t(entry.unsignedInteger("minor"));
        request.sector = entry.unsignedInteger("sector");
        request.bytes = uint32_t(entry.unsignedInteger("bytes"));
        request.rwbs = entry.string("rwbs");
        report.requests.push_back(std::move(request));
    });
    report.notes = reader.strings("notes");
    if (reader.failed()) {
        return refuse();
    }
    return report;
}

std::optional<Report> reportFromJsonBytes(const QByteArray &bytes, std::string *error)
{
    QJsonParseError parseError;
    const QJsonDocument document = QJsonDocument::fromJson(bytes, &parseError);
    if (parseError.error != QJsonParseError::NoError) {
        if (error) {
            *error = "not JSON: " + parseError.errorString().toStdString() + " at byte " + std::to_string(parseError.offset);
        }
        return std::nullopt;
    }
    if (!document.isObject()) {
        if (error) {
            *error = "not a Cachescope trace: the JSON is not an object";
        }
        return std::nullopt;
    }
    return reportFromJson(document.object(), error);
}

} // namespace Cachescope::Trace
