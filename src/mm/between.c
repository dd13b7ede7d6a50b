/* SPDX-License-Identifier: GPL-2.0 */
/* The mm model between two programs (between.h). */
#include "mm/between.h"

#include "mm/mm.h"
#include "mm/page.h"
#include "mm/validate.h"

#include <string.h>

void mm_between_programs(void)
{
	memset(&mm_ids, 0, sizeof(mm_ids));
	page_map_changes = 0;
	mm_validate_release();
}
