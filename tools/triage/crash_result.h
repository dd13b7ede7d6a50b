/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What a run of the replay driver on one crash file says: its bucket, the
 * failure line and the stack frames the bucket names. Filled by
 * crash_classify (crash_classify.h) with frames picked by crash_stack.h.
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

/* What a run of the driver on one input says. */
struct crash_result {
	char bucket[512];  /* the bucket identifier */
	char summary[256]; /* the failure line, trimmed */
	bool failed;	   /* false: the input no longer fails */
	unsigned nframes;  /* frames found (named in the bucket for sanitizer reports) */
	struct crash_frame frames[CRASH_FRAMES];
};

#endif
