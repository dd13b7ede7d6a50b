/* SPDX-License-Identifier: GPL-2.0 */
/*
 * For trees whose maple tree shim lives in tools/testing/radix-tree (before
 * tools/testing/shared existed; kernel/maple/probe.sh puts this folder on
 * the include path then): what tools/testing/shared/maple-shared.h gives
 * later trees, namely the configuration lib/maple_tree.c is tested with
 * (its debug checks and search API) and the shim's headers, which the
 * radix-tree layout's maple.c sets up in its own first lines.
 */
#ifndef VMAFUZZ_KMT_RADIX_MAPLE_SHARED_H
#define VMAFUZZ_KMT_RADIX_MAPLE_SHARED_H

#define CONFIG_DEBUG_MAPLE_TREE
#define CONFIG_MAPLE_SEARCH
#define MAPLE_32BIT (MAPLE_NODE_SLOTS > 31)
#include "test.h"
#include <stdlib.h>
#include <time.h>
#include "linux/init.h"

#endif
