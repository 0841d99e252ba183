// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers

#include "load.h"

namespace Cachescope
{
} // namespace Cachescope
