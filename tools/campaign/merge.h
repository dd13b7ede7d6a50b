/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The corpus merge at the end of a libFuzzer run: the corpus keeps only
 * the inputs that add coverage. libFuzzer's -merge=1 copies them into a
 * fresh folder beside WORK/corpus, run by the target's build without
 * planted bugs: the corpus is shared between builds, and an input that a
 * --bug build crashes on is a good input for the others. The fresh folder
 * replaces the corpus only when the merge succeeded completely: libFuzzer
 * ended with 0, wrote as many files as it said ("MERGE-OUTER: N new
 * files"), each a whole copy of an input, and kept something of a corpus
 * that had something; the files are flushed to the disk, and the folders
 * swapped in one step (renameat2 RENAME_EXCHANGE). Otherwise (a failure, a
 * full disk) the corpus stays as it was, and the result says why.
 * libFuzzer's output goes to WORK/merge.log; an input that crashes the
 * merge's build is saved among the run's crashes.
 */
#ifndef VMAFUZZ_CAMPAIGN_MERGE_H
#define VMAFUZZ_CAMPAIGN_MERGE_H

#include "plan.h"

#include <stdbool.h>
#include <stddef.h>

struct merge_result {
	long before, after; /* inputs before and after */
	bool ok;
	bool skipped;  /* not tried (a full disk) */
	char why[256]; /* when not ok */
};

/* Merge @c's corpus; false (with r->why) when it was kept as it was. */
bool corpus_merge(const struct campaign *c, struct merge_result *r);

/* libFuzzer's count of the files it wrote, from its merge output @text;
 * -1 if it did not say. */
long merge_outer_count(const char *text, size_t len);

#endif
