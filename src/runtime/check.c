/* SPDX-License-Identifier: GPL-2.0 */
/* Invariant reporting: one line per failure, context, abort (see check.h). */
#include "runtime/check.h"

#include "runtime/check_ids.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

static const char *const names[CK_NR] = {
#define CHECK_NAME(id, what) [CK_##id] = #id,
    CHECK_IDS(CHECK_NAME)
#undef CHECK_NAME
};

static const char *const meanings[CK_NR] = {
#define CHECK_MEANING(id, what) [CK_##id] = what,
    CHECK_IDS(CHECK_MEANING)
#undef CHECK_MEANING
};

static enum check_mode mode = CHECK_ABORT;
static check_context_fn context_fn;
static void *context_arg;
static unsigned counts[CK_NR];
static bool in_context; /* a failure while printing context must not recurse */

const char *check_name(enum check_id id)
{
	return (unsigned)id < CK_NR ? names[id] : "UNKNOWN";
}

const char *check_meaning(enum check_id id)
{
	return (unsigned)id < CK_NR ? meanings[id] : "";
}

enum check_id check_by_name(const char *name)
{
	for (unsigned i = 0; i < CK_NR; i++)
		if (!strcmp(names[i], name))
			return (enum check_id)i;
	return CK_NR;
}

void check_set_mode(enum check_mode m)
{
	mode = m;
}

void check_set_context(check_context_fn fn, void *arg)
{
	context_fn = fn;
	context_arg = arg;
}

/* the message of the last failure collected (unit tests read it) */
static char last_message[512];

const char *check_last_message(void)
{
	return last_message;
}

bool check_fail(enum check_id id, const char *fmt, ...)
{
	va_list ap;

	if (mode == CHECK_COLLECT) {
		counts[id]++;
		va_start(ap, fmt);
		vsnprintf(last_message, sizeof(last_message), fmt, ap);
		va_end(ap);
		return false;
	}
	fflush(stdout);
	fprintf(stderr, "vmafuzz: invariant %s failed: ", check_name(id));
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\n  (%s)\n", check_meaning(id));
	if (context_fn && !in_context) {
		in_context = true;
		context_fn(stderr, context_arg);
	}
	fflush(stderr);
	abort();
}

unsigned check_count(enum check_id id)
{
	return counts[id];
}

unsigned check_total(void)
{
	unsigned n = 0;

	for (unsigned i = 0; i < CK_NR; i++)
		n += counts[i];
	return n;
}

void check_clear(void)
{
	memset(counts, 0, sizeof(counts));
	last_message[0] = 0;
}

void model_assert_fail(const char *file, int line, const char *func, const char *expr)
{
	fflush(stdout);
	fprintf(stderr, "vmafuzz: model assertion failed at %s:%d in %s(): %s\n", file, line, func,
		expr);
	if (context_fn && !in_context) {
		in_context = true;
		context_fn(stderr, context_arg);
	}
	fflush(stderr);
	abort();
}
