/* SPDX-License-Identifier: GPL-2.0 */
/* The kernel's zero page, probed (conform_probe.h). */
#include "conform_probe.h"
#include "conform_ops.h"
#include "live_backend.h"

#include "mm/kver.h"

#include <stdio.h>
#include <sys/utsname.h>

bool conform_probe_commit_limited(void)
{
	FILE *f = fopen("/proc/sys/vm/overcommit_memory", "r");
	int mode = 0;

	if (!f)
		return false;
	if (fscanf(f, "%d", &mode) != 1)
		mode = 0;
	fclose(f);
	return mode == 2;
}

unsigned conform_probe_kver(void)
{
	struct utsname u;
	unsigned v;

	if (uname(&u) || !kver_parse(u.release, &v))
		return KVER_NEWEST;
	return kver_known(v);
}

int conform_probe_zero_page(void)
{
	struct mm_call c = {.code = MMF_OP_MMAP, .start = CONFORM_LO, .len = KSYS_PAGE};
	struct as_vma v[4];
	char err[256] = "";
	void *live = as_live.open(err, sizeof(err));
	int res = -1;

	if (!live) {
		fprintf(stderr, "vmafuzz conform: %s\n", err);
		return -1;
	}
	c.a.prot = 3;
	c.a.kind = MMF_PRIVATE_ANON;
	c.a.place = MMF_FIXED;
	as_live.call(live, &c);
	if (c.result == (int64_t)CONFORM_LO) {
		c.code = MMF_OP_TOUCH;
		c.a.access = 0;
		as_live.call(live, &c);
		if (c.result == 0 && as_live.vmas(live, 0, CONFORM_LO, CONFORM_HI, true, v, 4, err,
						  sizeof(err)) == 1)
			res = v[0].rss == 0;
	}
	if (res < 0)
		fprintf(stderr, "vmafuzz conform: the zero-page probe failed%s%s\n",
			*err ? ": " : "", err);
	as_live.close(live);
	return res;
}
