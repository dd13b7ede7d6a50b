/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the mm model keeps from one program to the next, and its reset: the
 * runs of a program in one process must be those of its first run in a
 * fresh one (tests/stable.sh).
 */
#ifndef VMAFUZZ_MM_BETWEEN_H
#define VMAFUZZ_MM_BETWEEN_H

/*
 * Between two programs (fuzz/targets/exec.c), no model object alive: the numbering
 * of objects (mm.h's mm_ids) starts again from 1, so does the count of page
 * mapping changes (page.h; rollup compares it), and the validators free
 * their scratch arrays and start their scan generations again.
 */
void mm_between_programs(void);

#endif
