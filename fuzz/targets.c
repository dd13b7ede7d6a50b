/* The table of all targets (target.h). */
#include "target.h"

#include <string.h>

/* clang-format off: one target a line */
const struct fuzz_target *const fuzz_targets[] = {
    &fuzz_mm_target, &fuzz_fork_target, &fuzz_rollup_target, &fuzz_mtree_target, NULL,
};
/* clang-format on */

const struct fuzz_target *fuzz_target_find(const char *name)
{
	for (unsigned i = 0; fuzz_targets[i]; i++)
		if (!strcmp(fuzz_targets[i]->name, name))
			return fuzz_targets[i];
	return NULL;
}
