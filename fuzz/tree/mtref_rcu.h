/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The oracle for a reader that walks a tree under RCU while writers change
 * it. Writers append what they store to a log; a reader notes the map and
 * the log's length when it starts. Then every index it sees must hold what
 * it held at the start or what a write logged since put there, the ranges
 * it sees must ascend (by their last index), and every range that no logged
 * write touched during the walk must be seen exactly once (MT_RCU_TORN).
 */
#ifndef VMAFUZZ_MTREF_RCU_H
#define VMAFUZZ_MTREF_RCU_H

#include "mtref.h"

struct mtref_log {
	struct mtref_range *v;
	size_t n, cap;
};

void mtref_log_add(struct mtref_log *l, uint64_t first, uint64_t last, void *entry);
void mtref_log_free(struct mtref_log *l);

struct mtref_reader {
	const struct mtref_log *log;
	unsigned tree;	    /* for messages */
	struct mtref start; /* the contents when the walk began */
	size_t log_from;    /* writes from here on happened during the walk */
	struct mtref_range *seen;
	size_t nseen, cap;
};

void mtref_reader_begin(struct mtref_reader *rd, const struct mtref *now,
			const struct mtref_log *log, unsigned tree);
/* The reader saw @r -> @entry; false (and MT_RCU_TORN) if it cannot have. */
bool mtref_reader_saw(struct mtref_reader *rd, const struct tree_range *r, void *entry);
/* The walk over [first, last] ended: did it see every untouched range?
 * Frees the reader's memory either way. */
bool mtref_reader_end(struct mtref_reader *rd, uint64_t first, uint64_t last);

#endif
