/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A run on a disk that fills up. The run stops once the disk is full: when
 * a write of its own fails for want of room (the engine's log:
 * file_error_full), or when the disk has no room left and the engine has
 * left an empty file among the new inputs of the corpus, the mark of a
 * write that found none (libFuzzer does not check its writes). Then what
 * the engine may have cut short is taken out of the corpus: the new inputs
 * that are empty, and those longer than one of the disk's blocks written
 * since the disk was last seen with room (a shorter file is written in one
 * go, whole or not at all). The inputs the corpus held at the start are
 * never touched.
 */
#ifndef VMAFUZZ_CAMPAIGN_DISK_H
#define VMAFUZZ_CAMPAIGN_DISK_H

#include "records.h"

#include <stdbool.h>
#include <time.h>

/* The status of a run stopped by a full disk (sysexits.h's EX_IOERR). */
#define DISK_FULL_EXIT 74

struct disk_watch {
	const char *corpus;		/* the corpus folder */
	const struct crash_set *before; /* its files at the start */
	struct timespec room_at;	/* when the disk last had room (file times' clock) */
	bool full;
	int why; /* errno, once full */
};

/* Watch the disk of @corpus, whose files at the start are @before. */
void disk_watch_start(struct disk_watch *w, const char *corpus, const struct crash_set *before);

/* Whether the disk is full (and stays so once it was): @write_errno is a
 * failed write of the run's own (0: none). */
bool disk_watch_full(struct disk_watch *w, int write_errno);

/* Remove from the corpus the new inputs the engine may have cut short;
 * their number. */
long disk_drop_cut(const struct disk_watch *w);

#endif
