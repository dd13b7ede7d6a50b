/*
 * The reference map: the oracle for the range tree. A plain sorted array of
 * non-empty ranges, with every operation written the obvious way, so that
 * it is easy to believe and slow to run.
 */
#ifndef VMAFUZZ_MTREF_H
#define VMAFUZZ_MTREF_H

#include "mtree.h"

#include <stddef.h>

struct mtref_range {
	uint64_t first, last;
	void *entry;
};

struct mtref {
	struct mtref_range *v;
	size_t n, cap;
};

void mtref_init(struct mtref *r);
void mtref_free(struct mtref *r);
void mtref_store(struct mtref *r, uint64_t first, uint64_t last, void *entry);
void *mtref_load(const struct mtref *r, uint64_t index);
/* Lowest (highest) empty start in [lo, hi] for @size indices; false if none. */
bool mtref_gap(const struct mtref *r, uint64_t lo, uint64_t hi, uint64_t size, bool highest,
	       uint64_t *start);
void mtref_copy(struct mtref *dst, const struct mtref *src);
/*
 * Compare a tree with the map; on the first difference reports
 * MT_REF_MISMATCH naming it and returns false.
 */
bool mtref_matches(const struct mtref *r, struct mtree *mt);

/* Gap search of the tree against the map's brute force (MT_GAP_SEARCH). */
bool mtref_check_gap(const struct mtref *r, const struct mtree *mt, uint64_t lo, uint64_t hi,
		     uint64_t size, bool highest);
/* mt_find and mt_find_prev from @index against the map (MT_WALK). */
bool mtref_check_find(const struct mtref *r, const struct mtree *mt, uint64_t index);

#endif
