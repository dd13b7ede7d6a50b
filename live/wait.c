/* SPDX-License-Identifier: GPL-2.0 */
/* How long conform waits for a real process (wait.h). */
#include "wait.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#define LIVE_TIMEOUT_DEFAULT_MS 20000

int live_timeout_ms(void)
{
	static int ms;
	const char *s;

	if (ms)
		return ms;
	ms = LIVE_TIMEOUT_DEFAULT_MS;
	s = getenv("VMAFUZZ_CONFORM_TIMEOUT_MS");
	if (s && *s) {
		char *end;
		long v;

		errno = 0;
		v = strtol(s, &end, 10);
		if (errno || *end || v < 1 || v > 3600000)
			fprintf(stderr,
				"vmafuzz: VMAFUZZ_CONFORM_TIMEOUT_MS=%s is not 1..3600000 "
				"milliseconds; waiting %d\n",
				s, ms);
		else
			ms = (int)v;
	}
	return ms;
}
