// SPDX-License-Identifier: GPL-2.0
/* The list of known kernel findings and the switch that shows them (kmt_known.h). */
#include "kmt_known.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

const struct kmt_known_finding kmt_known_findings[KMT_KNOWN_NR] = {
    [KMT_KNOWN_FIND_REWALK_EMPTY] =
	{"find_rewalk_empty", "bugs/kernel/maple_find_rewalk_empty.txt",
	 "an RCU walk whose tree a writer left without a node starts again "
	 "after its last entry"},
    [KMT_KNOWN_GAP_WHOLE_NULL] =
	{"gap_whole_null", "bugs/kernel/maple_gap_rev_empty_leaf.txt",
	 "a gap search on one leaf holding NULL over [0, ULONG_MAX] searches "
	 "an empty tree"},
    [KMT_KNOWN_GAP_REV_TOP_WRAP] =
	{"gap_rev_top_wrap", "bugs/kernel/maple_gap_rev_top_wrap.txt",
	 "a reverse gap search up to ULONG_MAX that finds no room searches "
	 "again up to ULONG_MAX - 1"},
    [KMT_KNOWN_STORE_ROOT_RESTART] =
	{"store_root_restart", "bugs/kernel/maple_store_root_restart.txt",
	 "fork's iterator goes on from index 1 after replacing an entry the "
	 "root holds"},
    [KMT_KNOWN_FIND_REV_ROOT] =
	{"find_rev_root", "bugs/kernel/older/maple_find_rev_root.txt",
	 "a reverse find down to 0 that finds nothing on a tree whose root holds "
	 "[0, 0] gives that entry"},
    [KMT_KNOWN_PREV_ROOT_MIN] =
	{"prev_root_min", "bugs/kernel/maple_prev_root_min.txt",
	 "mas_prev, mt_prev and mas_find_rev on a tree whose root holds [0, 0] "
	 "give nothing when their min is above 0"},
    [KMT_KNOWN_GAP_LIMITS] =
	{"gap_limits", "bugs/kernel/older/maple_gap_limits.txt",
	 "a gap search for size 0, or for more indices than its window holds, is "
	 "answered -EINVAL whatever the kernel's search found"},
    [KMT_KNOWN_PAUSED_REV_TOP] =
	{"paused_rev_top", "bugs/kernel/older/maple_paused_rev_top.txt",
	 "a paused reverse walk whose last entry ended at ULONG_MAX goes on "
	 "from below that entry"},
    [KMT_KNOWN_PAUSED_REV_WRAP] = {"paused_rev_wrap", "bugs/kernel/older/maple_paused_rev_wrap.txt",
				   "a paused reverse walk whose last entry began at 0 ends"},
};

int kmt_known_parse(const char *spec, bool shown[KMT_KNOWN_NR], char *bad, size_t badsz)
{
	const char *p = spec;

	memset(shown, 0, KMT_KNOWN_NR * sizeof(shown[0]));
	if (!strcmp(spec, "all")) {
		for (int i = 0; i < KMT_KNOWN_NR; i++)
			shown[i] = true;
		return 0;
	}
	while (*p) {
		size_t n = strcspn(p, ",");
		int i;

		for (i = 0; i < KMT_KNOWN_NR; i++)
			if (strlen(kmt_known_findings[i].name) == n &&
			    !strncmp(kmt_known_findings[i].name, p, n))
				break;
		if (i == KMT_KNOWN_NR) {
			snprintf(bad, badsz, "%.*s", (int)n, p);
			return -1;
		}
		shown[i] = true;
		p += n;
		if (*p == ',')
			p++;
	}
	return 0;
}

static bool kmt_shown[KMT_KNOWN_NR];

/* Read once, before main: a bad name stops the process before any input. */
__attribute__((constructor)) static void kmt_known_init(void)
{
	const char *spec = getenv("VMAFUZZ_SHOW_FINDINGS");
	char bad[64];

	if (!spec || !kmt_known_parse(spec, kmt_shown, bad, sizeof(bad)))
		return;
	fprintf(stderr, "VMAFUZZ_SHOW_FINDINGS: unknown finding '%s'; known: all", bad);
	for (int i = 0; i < KMT_KNOWN_NR; i++)
		fprintf(stderr, ", %s", kmt_known_findings[i].name);
	fprintf(stderr, "\n");
	_exit(2);
}

bool kmt_known_sidestep(enum kmt_known f)
{
	return !kmt_shown[f];
}
