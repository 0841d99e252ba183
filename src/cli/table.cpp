// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers

#include "table.h"

#include "pathcodec.h"
#include "residency.h"

namespace Cachescope::Cli
{

Cell countCell(uint64_t number)
{
    Cell cell;
    cell.number = number;
    return cell;
}

Cell percentCell(uint64_t part, uint64_t whole)
{
    Cell cell;
    cell.number = part;
    cell.whole = whole;
    return cell;
}

Cell textCell(std::string text)
{
    Cell cell;
    cell.text = std::move(text);
    return cell;
}

Cell boolCell(bool flag)
{
    Cell cell;
    cell.flag = flag;
    return cell;
}

std::string formatCellText(Format format, const Cell &cell, bool raw)
{
    switch (format) {
    case Format::Count:
        return std::to_string(cell.number);
    case Format::Bytes:
        return sizeText(cell.number, raw);
    case Format::Pages:
        return sizeText(cell.number * pageSize(), raw);
    case Format::Percent:
        return percentText(cell.number, cell.whole);
    case Format::Bool:
        return cell.flag ? "true" : "false";
    case Format::Text:
    case Format::Path:
    case Format::Json:
        break;
    }
    return cell.text;
}

void appendJsonCell(std::string &json, const char *key, Format format, const Cell &cell)
{
    switch (format) {
    case Format::Count:
    case Format::Bytes:
    case Format::Pages:
        appendJsonNumber(json, key, cell.number);
        return;
    case Format::Percent:
        json += '"';
        json += key;
        json += "\":";
        appendJsonPercent(json, cell.number, cell.whole);
        return;
    case Format::Text:
        appendJsonText(json, key, cell.text);
        return;
    case Format::Path:
        appendJsonPath(json, cell.text, key);
        return;
    case Format::Bool:
        appendJsonBool(json, key, cell.flag);
        return;
    case Format::Json:
        json += '"';
        json += key;
        json += "\":";
        json += cell.text;
        return;
    }
}

} // namespace Cachescope::Cli
