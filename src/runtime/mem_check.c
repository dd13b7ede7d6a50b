/* SPDX-License-Identifier: GPL-2.0 */
/* Memory invariants (mem_check.h). */
#include "runtime/mem_check.h"

#include "runtime/alloc.h"
#include "runtime/check.h"

#include <inttypes.h>

bool mem_check_live(enum alloc_kind kind, uint64_t reachable)
{
	uint64_t live = alloc_live(kind);

	if (live == reachable)
		return true;
	return check_fail(CK_MEM_LIVE_MISMATCH,
			  "%" PRIu64 " %s objects alive, %" PRIu64 " reachable", live,
			  alloc_kind_name(kind), reachable);
}

bool mem_check_empty(void)
{
	bool ok = true;

	for (unsigned k = 0; k < AK_NR; k++) {
		uint64_t live = alloc_live((enum alloc_kind)k);

		if (live)
			ok = check_fail(CK_MEM_LEAK_AT_END,
					"%" PRIu64 " %s objects alive at the end", live,
					alloc_kind_name((enum alloc_kind)k));
	}
	return ok;
}
