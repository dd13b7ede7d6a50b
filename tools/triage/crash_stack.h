/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Stack frames in sanitizer reports ("  #3 0x4f5d3a in func /path/src/x.c:12:5"),
 * which of them a bucket names (those in the model, else those in the
 * harness), and which one is where it failed (crash_result.h's site).
 *
 * A file is in the model when its path has a component "src" one or two
 * levels above it (src/x.c, src/tree/x.c), in the harness likewise with
 * "fuzz"; the nearer component decides. The reporting code of the model's
 * checks, a file check.c under src/ (src/check.c, src/runtime/check.c), is
 * skipped: a bucket names where a check failed, not the code that reports
 * it. Paths are kept from that component on, so they do not depend on
 * where the tree was built.
 */
#ifndef VMAFUZZ_CRASH_STACK_H
#define VMAFUZZ_CRASH_STACK_H

#include "crash_result.h"

#include <stdbool.h>

/* SOURCE_KERNEL: a kernel tree's file, lib/x.c or mm/x.c (the kernel
 * targets compile them from the tree): a bucket names those first. */
enum source_part { SOURCE_OTHER, SOURCE_MODEL, SOURCE_HARNESS, SOURCE_KERNEL };

/* Which part of the tree @file is in; for the model and the harness, *@rel
 * (if non-NULL) points into @file at "src/..." or "fuzz/...". */
enum source_part crash_source_part(const char *file, const char **rel);

/* Parse one frame line; false when @line is not a frame. A frame without a
 * function name or location has those fields empty. */
bool crash_parse_frame(const char *line, struct crash_frame *f);

/* Up to CRASH_FRAMES frames of the first stack in @text, in the model, else
 * in the harness, into r->frames and r->nframes. */
void crash_pick_frames(const char *text, struct crash_result *r);

/* r->site from the first stack in @text: its topmost frame with a file of
 * this tree (the model, the harness, live/, the kernel backends'
 * kernel/maple/ and kernel/vma/) or of a kernel tree, the model's check
 * reporting (check.c) aside; r->site as it was when there is none. */
void crash_pick_site(const char *text, struct crash_result *r);

/* A site in this tree at @file (a path from src/, fuzz/, ... on, or a
 * longer one that holds such a part) and @line into @s; false when
 * @file is in no part of it. */
bool crash_site_ours(const char *file, unsigned line, struct crash_site *s);

#endif
