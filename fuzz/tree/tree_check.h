/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What a write through the tree seam (tree_backend.h) must leave, for any
 * backend: run with allocation failure armed, a write whose allocation
 * failed returns -ENOMEM and leaves the tree's picture as it was
 * (MT_FAILED_WRITE_CHANGED), any other returns what it must (MT_OP_RESULT);
 * with a backend that retries, a write whose failure fired may also end
 * as if none had: it is then judged as any write.
 */
#ifndef VMAFUZZ_TREE_CHECK_H
#define VMAFUZZ_TREE_CHECK_H

#include "runtime/check.h"
#include "tree_backend.h"

#include <stdbool.h>

bool tree_check_write(const struct tree_backend *b, void *t, const struct tree_picture *before,
		      int err, bool alloc_failed, int want, const char *what);
/* The tree's picture is @before's; @id names what should have kept it so. */
bool tree_check_unchanged(const struct tree_backend *b, void *t, const struct tree_picture *before,
			  enum check_id id, const char *what);

#endif
