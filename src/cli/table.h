// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers
#pragma once

// The tables of cachescope-cli, each declared once: every column says its
// header, its JSON key, its alignment and width, what it means and how its
// value is written. The same declaration renders a row as a line of text and
// as a JSON object (as util-linux's tools do with libsmartcols), so that the
// text and the JSON of a command cannot drift apart.

#include "output.h"

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace Cachescope::Cli
{

enum class Align : uint8_t {
    Left,
    Right,
};

// How a column's value is written, in text and in JSON.
enum class Format : uint8_t {
    Count, // "42"; 42
    Bytes, // "1.5 KiB" ("1536" with --bytes); 1536
    Pages, // the memory the pages take, as Bytes; the page count
    Percent, // "50.0%" ("-" of nothing); 50.00
    Text, // as it is; a JSON string (shown as UTF-8)
    Path, // the exact bytes; "path" (+ "path_base64" when not UTF-8)
    Bool, // "true"/"false"; true/false
    Json, // a JSON value the column writes itself (arrays, objects)
};

// One value. Which members count depends on the column's Format.
struct Cell {
    uint64_t number = 0; // Count, Bytes, Pages; Percent: the part
    uint64_t whole = 0; // Percent: of what
    std::string text; // Text, Path; Json: the JSON value
    bool flag = false; // Bool
};

[[nodiscard]] Cell countCell(uint64_t number);
[[nodiscard]] Cell percentCell(uint64_t part, uint64_t whole);
[[nodiscard]] Cell textCell(std::string text);
[[nodiscard]] Cell boolCell(bool flag);

template<typename Row>
struct Column {
    const char *header = nullptr; // in text; nullptr: JSON only
    const char *key = nullptr; // in JSON; nullptr: text only
    Align align = Align::Right;
    // Text width. 0: as wide as the value, which makes it the last column
    // of the line (nothing after it could line up), wherever it is declared.
    size_t width = 0;
    Format format = Format::Count;
    const char *help = nullptr; // what the column means
    std::function<Cell(const Row &)> value = nullptr;
    // Text written instead of the Format's own (raw: --bytes).
    std::function<std::string(const Row &, bool raw)> text = nullptr;
    // Whether the key is in this row's JSON object (empty: always).
    std::function<bool(const Row &)> inJson = nullptr;
    // Whether this row knows the value; when not, the text cell reads "-" (empty: always).
    std::function<bool(const Row &)> inText = nullptr;
    // Covered, in text, by the table's span for the rows that have one.
    bool spanned = false;
};

template<typename Row>
struct Table {
    std::vector<Column<Row>> columns = {};
    const char *indent = ""; // before the first column
    const char *gap = " "; // before a right-aligned column; a left-aligned one gets two spaces
    // Text only: a row for which this returns text shows it in place of the
    // spanned columns ("hidden (<reason>)" where figures would be lies).
    std::function<std::optional<std::string>(const Row &)> span = nullptr;
    // Text only: written at the end of the line, and on lines of their own under it.
    std::function<std::string(const Row &)> lineEnd = nullptr;
    std::function<void(std::string &out, const Row &)> linesBelow = nullptr;

    void appendHeader(std::string &out) const
    {
        appendLine(out, nullptr, std::string(), [](const Column<Row> &column) {
            return std::string(column.header);
        });
    }

    void appendText(std::string &out, const Row &row, bool raw) const
    {
        const std::optional<std::string> spanText = span ? span(row) : std::nullopt;
        appendLine(out, spanText ? &*spanText : nullptr, lineEnd ? lineEnd(row) : std::string(), [&](const Column<Row> &column) {
            return cellText(column, row, raw);
        });
        if (linesBelow) {
            linesBelow(out, row);
        }
    }

    // {"key":value,...}
    void appendJson(std::string &json, const Row &row) const
    {
        json += '{';
        bool first = true;
        for (const Column<Row> &column : columns) {
            if (!column.key || (column.inJson && !column.inJson(row))) {
                continue;
            }
            if (!first) {
                json += ',';
            }
            first = false;
            appendJsonCell(json, column.key, column.format, column.value(row));
        }
        json += '}';
    }

private:
    // The text columns in declaration order, the one without width last;
    // spanText (when not null) in place of the spanned ones.
    template<typename CellText>
    void appendLine(std::string &out, const std::string *spanText, const std::string &end, const CellText &cell) const
    {
        bool first = true;
        bool spanWritten = false;
        const auto append = [&](const Column<Row> &column) {
            const char *separator = first ? indent : column.align == Align::Left ? "  " : gap;
            first = false;
            if (spanText && column.spanned) {
                if (!spanWritten) {
                    out += separator;
                    out += *spanText;
                    spanWritten = true;
                }
                return;
            }
            out += separator;
            const std::string text = cell(column);
            out += column.align == Align::Left ? padRight(text, column.width) : padLeft(text, column.width);
        };
        for (const Column<Row> &column : columns) {
            if (column.header && column.width > 0) {
                append(column);
            }
        }
        for (const Column<Row> &column : columns) {
            if (column.header && column.width == 0) {
                append(column);
            }
        }
        out += end;
        out += '\n';
    }

    static std::string cellText(const Column<Row> &column, const Row &row, bool raw)
    {
        if (column.inText && !column.inText(row)) {
            return "-";
        }
        if (column.text) {
            return column.text(row, raw);
        }
        return formatCellText(column.format, column.value(row), raw);
    }
};

// The PATH column: the exact bytes in text, at the end of the line;
// "path" (+ "path_base64" when not UTF-8) in JSON.
template<typename Row>
[[nodiscard]] Column<Row> pathColumn(const char *help, std::string (*path)(const Row &))
{
    return {.header = "PATH", .key = "path", .align = Align::Left, .format = Format::Path, .help = help, .value = [path](const Row &row) {
                return textCell(path(row));
            }};
}

// A cell as text and as JSON ("key":value), by Format.
[[nodiscard]] std::string formatCellText(Format format, const Cell &cell, bool raw);
void appendJsonCell(std::string &json, const char *key, Format format, const Cell &cell);

} // namespace Cachescope::Cli
