/* SPDX-License-Identifier: GPL-2.0 */
/* Typed allocation with per-kind accounting and failure injection (alloc.h). */
#include "runtime/alloc.h"

#include "runtime/check.h"
#include "runtime/sched.h"

#include <stdlib.h>
#include <string.h>

/* Header in front of every object; 16-byte aligned so objects stay aligned. */
struct alloc_hdr {
	struct alloc_hdr *prev, *next;
	uint32_t kind;
	uint32_t magic;
} __attribute__((aligned(16)));

#define ALLOC_MAGIC 0x564d4146u /* "VMAF" */

static const char *const kind_names[AK_NR] = {
#define ALLOC_NAME(k, name) [AK_##k] = name,
    ALLOC_KINDS(ALLOC_NAME)
#undef ALLOC_NAME
};

static struct alloc_stats stats;
static struct alloc_hdr *live_head[AK_NR];
static struct alloc_hdr *live_tail[AK_NR];

const char *alloc_kind_name(enum alloc_kind kind)
{
	return (unsigned)kind < AK_NR ? kind_names[kind] : "?";
}

bool alloc_fail_next(enum alloc_kind kind)
{
	struct fiber *f = sched_self();

	MODEL_ASSERT((unsigned)kind < AK_NR);
	f->since_arm++;
	if (f->fail_countdown) {
		if (--f->fail_countdown)
			return false;
		f->fail_fired = true;
		stats.failed[kind]++;
		return true;
	}
	if (f->fail_fired && f->fail_then) { /* the chosen ones after it */
		bool fail = f->fail_then & 1;

		f->fail_then >>= 1;
		stats.failed[kind] += fail;
		return fail;
	}
	return false;
}

void *model_alloc(enum alloc_kind kind, size_t size)
{
	struct alloc_hdr *h;

	if (alloc_fail_next(kind))
		return NULL;
	h = calloc(1, sizeof(*h) + size);
	MODEL_ASSERT(h != NULL);
	h->kind = kind;
	h->magic = ALLOC_MAGIC;
	h->prev = live_tail[kind];
	if (h->prev)
		h->prev->next = h;
	else
		live_head[kind] = h;
	live_tail[kind] = h;
	stats.allocs[kind]++;
	stats.live[kind]++;
	return h + 1;
}

void model_free(enum alloc_kind kind, void *obj)
{
	struct alloc_hdr *h;

	if (!obj)
		return;
	h = (struct alloc_hdr *)obj - 1;
	MODEL_ASSERT(h->magic == ALLOC_MAGIC);
	MODEL_ASSERT(h->kind == (uint32_t)kind);
	if (h->prev)
		h->prev->next = h->next;
	else
		live_head[kind] = h->next;
	if (h->next)
		h->next->prev = h->prev;
	else
		live_tail[kind] = h->prev;
	h->magic = 0;
	stats.frees[kind]++;
	stats.live[kind]--;
	free(h);
}

void alloc_fail_arm_then(uint64_t n, uint8_t then)
{
	struct fiber *f = sched_self();

	f->fail_countdown = n;
	f->fail_then = n ? then : 0;
	f->since_arm = 0;
	f->fail_fired = false;
}

void alloc_fail_arm(uint64_t n)
{
	alloc_fail_arm_then(n, 0);
}

void alloc_fail_disarm(void)
{
	sched_self()->fail_countdown = 0;
	sched_self()->fail_then = 0;
}

void alloc_fail_pause(struct alloc_fail_pause *p)
{
	struct fiber *f = sched_self();

	p->countdown = f->fail_countdown;
	p->then = f->fail_then;
	p->since_arm = f->since_arm;
	p->fired = f->fail_fired;
	f->fail_countdown = 0;
	f->fail_then = 0;
}

void alloc_fail_resume(const struct alloc_fail_pause *p)
{
	struct fiber *f = sched_self();

	f->fail_countdown = p->countdown;
	f->fail_then = p->then;
	f->since_arm = p->since_arm;
	f->fail_fired = p->fired;
}

bool alloc_fail_fired(void)
{
	return sched_self()->fail_fired;
}

uint64_t alloc_since_arm(void)
{
	return sched_self()->since_arm;
}

const struct alloc_stats *alloc_stats(void)
{
	return &stats;
}

uint64_t alloc_live(enum alloc_kind kind)
{
	return stats.live[kind];
}

uint64_t alloc_live_total(void)
{
	uint64_t n = 0;

	for (unsigned k = 0; k < AK_NR; k++)
		n += stats.live[k];
	return n;
}

bool alloc_is_live(enum alloc_kind kind, const void *obj)
{
	if ((unsigned)kind >= AK_NR || !obj)
		return false;
	for (const struct alloc_hdr *h = live_head[kind]; h; h = h->next)
		if ((const void *)(h + 1) == obj)
			return true;
	return false;
}

void alloc_for_each_live(enum alloc_kind kind, void (*fn)(void *obj, void *arg), void *arg)
{
	struct alloc_hdr *h, *next;

	for (h = live_head[kind]; h; h = next) {
		next = h->next;
		fn(h + 1, arg);
	}
}

void alloc_reset(void)
{
	for (unsigned k = 0; k < AK_NR; k++) {
		while (live_head[k])
			model_free((enum alloc_kind)k, live_head[k] + 1);
	}
	memset(&stats, 0, sizeof(stats));
	alloc_fail_arm(0);
}
