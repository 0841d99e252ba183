// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers

#include "walker.h"

namespace Cachescope
{
} // namespace Cachescope
