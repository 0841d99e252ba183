// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers
#pragma once

// What an action of the helper answers: success with its data, or one of
// HelperProtocol::HelperError with a sentence for people. The service
// (helperservice.h) turns it into the method's typed return or a D-Bus
// error of that name; the client's in-process path (as root) reads it
// directly. The data's keys are HelperProtocol's reply keys; the map never
// crosses the bus as it is.

#include "helperprotocol.h"

#include <QString>
#include <QVariantMap>

namespace Cachescope::Helper
{

class ActionReply
{
public:
    enum Type {
        SuccessType,
        HelperErrorType,
    };

    [[nodiscard]] static ActionReply SuccessReply()
    {
        return ActionReply();
    }
    [[nodiscard]] static ActionReply HelperErrorReply(int code)
    {
        ActionReply reply;
        reply.m_type = HelperErrorType;
        reply.m_error = code;
        return reply;
    }

    [[nodiscard]] Type type() const
    {
        return m_type;
    }
    [[nodiscard]] bool succeeded() const
    {
        return m_type == SuccessType;
    }
    [[nodiscard]] bool failed() const
    {
        return m_type != SuccessType;
    }
    // A HelperProtocol::HelperError; 0 on success.
    [[nodiscard]] int error() const
    {
        return m_error;
    }
    [[nodiscard]] QString errorDescription() const
    {
        return m_errorDescription;
    }
    void setErrorDescription(const QString &description)
    {
        m_errorDescription = description;
    }
    [[nodiscard]] QVariantMap data() const
    {
        return m_data;
    }
    void addData(const QString &key, const QVariant &value)
    {
        m_data.insert(key, value);
    }
    void setData(const QVariantMap &data)
    {
        m_data = data;
    }

private:
    Type m_type = SuccessType;
    int m_error = 0;
    QString m_errorDescription;
    QVariantMap m_data;
};

} // namespace Cachescope::Helper
