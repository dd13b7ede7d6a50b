/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What a run of the replay driver on one crash file says: its bucket, the
 * failure line, the stack frames the bucket names and where it failed.
 * Filled by crash_classify (crash_classify.h) with frames picked by
 * crash_stack.h.
 */
#ifndef VMAFUZZ_CRASH_RESULT_H
#define VMAFUZZ_CRASH_RESULT_H

#include <stdbool.h>

#define CRASH_BUCKET_NO_FAIL "no longer fails"
#define CRASH_BUCKET_TIMEOUT "timeout"
#define CRASH_FRAMES 3

struct crash_frame {
	char func[128];
	char file[256]; /* from src/ or fuzz/ on; "" when unknown */
	unsigned line;	/* 0 when unknown */
};

/* Which tree a site's file is in. */
enum crash_site_tree {
	SITE_NONE,   /* no site: nothing says where */
	SITE_OURS,   /* this source tree: src/, fuzz/, live/, kernel/<backend>/ */
	SITE_KERNEL, /* a kernel tree's lib/ or mm/ (the kernel targets, a guest) */
};

/*
 * Where it failed: the check that fired (the caller of the model's check
 * reporting, the assertion's line, the kernel's report) or the access a
 * sanitizer caught, whichever part of the tree it is in; not the frames a
 * bucket names, which prefer the model's.
 */
struct crash_site {
	enum crash_site_tree tree;
	struct crash_frame at; /* its file relative to its tree's root */
	char kernel_root[256]; /* SITE_KERNEL: the tree's root (ends in '/'), "" unknown */
};

/* What a run of the driver on one input says. */
struct crash_result {
	char bucket[512];  /* the bucket identifier */
	char summary[256]; /* the failure line, trimmed */
	bool failed;	   /* false: the input no longer fails */
	unsigned nframes;  /* frames found (named in the bucket for sanitizer reports) */
	struct crash_frame frames[CRASH_FRAMES];
	struct crash_site site;
};

#endif
