/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The kernel's known findings (bugs/kernel/README.md) and their sidesteps.
 *
 * A finding is a misbehaviour of the kernel's own code that a kernel target
 * met and that has a reproducer in bugs/kernel/. While it stays unfixed in
 * the tree under test, every campaign would meet it again within seconds
 * and find nothing else; so the adapter (kernel/maple/kmt_unit.c) sidesteps each
 * one: at the one place the finding shows, it does what a fixed kernel
 * would let a caller see (a walk that starts again, a search that answers
 * as the empty tree would). Each sidestep is narrow, named here, described
 * in docs/kernel.md ("Known findings") and tested both ways by
 * tests/kernel.sh: the reproducer fails with its sidestep off and runs
 * clean with it on.
 *
 * Every sidestep is on by default. VMAFUZZ_SHOW_FINDINGS turns some off,
 * read once per process (a fixed setting, like a build flag, so a program's
 * outcome still depends on its bytes alone):
 *   VMAFUZZ_SHOW_FINDINGS=all                  none sidestepped
 *   VMAFUZZ_SHOW_FINDINGS=gap_whole_null,...   these shown, the rest not
 * An unknown name is an error (exit status 2, the names listed).
 */
#ifndef VMAFUZZ_KMT_KNOWN_H
#define VMAFUZZ_KMT_KNOWN_H

#include <stdbool.h>
#include <stddef.h>

enum kmt_known {
	/* bugs/kernel/maple_find_rewalk_empty.txt */
	KMT_KNOWN_FIND_REWALK_EMPTY,
	/* bugs/kernel/maple_gap_rev_empty_leaf.txt */
	KMT_KNOWN_GAP_WHOLE_NULL,
	/* bugs/kernel/maple_gap_rev_top_wrap.txt */
	KMT_KNOWN_GAP_REV_TOP_WRAP,
	/* bugs/kernel/maple_store_root_restart.txt */
	KMT_KNOWN_STORE_ROOT_RESTART,
	/* bugs/kernel/older/maple_find_rev_root.txt (6.1) */
	KMT_KNOWN_FIND_REV_ROOT,
	/* bugs/kernel/maple_prev_root_min.txt */
	KMT_KNOWN_PREV_ROOT_MIN,
	/* bugs/kernel/older/maple_gap_limits.txt (6.1) */
	KMT_KNOWN_GAP_LIMITS,
	/* bugs/kernel/older/maple_paused_rev_top.txt (6.1) */
	KMT_KNOWN_PAUSED_REV_TOP,
	/* bugs/kernel/older/maple_paused_rev_wrap.txt (6.1) */
	KMT_KNOWN_PAUSED_REV_WRAP,
	KMT_KNOWN_NR
};

struct kmt_known_finding {
	const char *name;	/* for VMAFUZZ_SHOW_FINDINGS */
	const char *reproducer; /* bugs/kernel/<file> */
	const char *sidestep;	/* what the adapter does instead, one line */
};

extern const struct kmt_known_finding kmt_known_findings[KMT_KNOWN_NR];

/* Is finding @f sidestepped in this process? */
bool kmt_known_sidestep(enum kmt_known f);

/* Parse a VMAFUZZ_SHOW_FINDINGS value into @shown (one flag per finding):
 * 0, or -1 with the unknown name copied into @bad (@badsz bytes). */
int kmt_known_parse(const char *spec, bool shown[KMT_KNOWN_NR], char *bad, size_t badsz);

#endif
