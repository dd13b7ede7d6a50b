/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The structure-aware mutator (fuzz/prog/mutator.h): mutations of many random
 * inputs always give canonical programs within the size limit and change
 * something nearly every time; each mutation kind is exercised and does
 * what it claims; the same seed gives the same output. Runs against every
 * target's description and a synthetic one with every field kind, config
 * bits and two fibers.
 */
#include "fuzz/prog/mutator.h"
#include "fuzz/prog/prng.h"
#include "fuzz/prog/prog.h"
#include "fuzz/targets/target.h"
#include "test.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

static const char *const colors[] = {"red", "green", "blue", NULL};
static const char *const bits[] = {"a", "b", "c", NULL};
static const char *const cfg_names[] = {"x", "y", "z", NULL};

struct t_args {
	uint8_t s, v, color, bits;
	struct range_spec r;
};

#define T_ARG(kind, prefix, max, names, field)                                                     \
	{                                                                                          \
		kind, prefix, max, names, #field, offsetof(struct t_args, field)                   \
	}

static const struct prog_opdesc t_ops[] = {
    {"nop", "no arguments", 0, {T_ARG(FK_SEL, NULL, 0, NULL, s)}},
    {"sel",
     "selector and range",
     2,
     {T_ARG(FK_SEL, "s", 5, NULL, s), T_ARG(FK_RANGE, NULL, 0, NULL, r)}},
    {"mix",
     "every other kind",
     4,
     {T_ARG(FK_U8, "v", 0, NULL, v), T_ARG(FK_CHOICE, NULL, 0, colors, color),
      T_ARG(FK_FLAGS, NULL, 0, bits, bits), T_ARG(FK_RANGE, NULL, 0, NULL, r)}},
};

static const struct prog_desc t_desc = {
    .target = "synthetic",
    .nops = 3,
    .ops = t_ops,
    .config_names = cfg_names,
    .nfibers = 2,
    .args_size = sizeof(struct t_args),
};

/* One fiber, no config: fiber moves and config flips do not apply. */
static const struct prog_desc t_desc1 = {
    .target = "synthetic1",
    .nops = 3,
    .ops = t_ops,
    .config_names = NULL,
    .nfibers = 1,
    .args_size = sizeof(struct t_args),
};

static struct prog p0, p1, other;
static uint8_t buf[8192], out[8192], out2[8192];

/* A program from random bytes: @nops records and up to 40 schedule bytes. */
static void random_prog(const struct prog_desc *d, struct prog *p, unsigned nops, struct prng *r)
{
	unsigned ns = (unsigned)prng_below(r, 41);
	size_t size = PROG_HEADER + (size_t)nops * PROG_RECORD + ns;

	for (size_t i = 0; i < size; i++)
		buf[i] = (uint8_t)prng_next(r);
	buf[1] = (uint8_t)ns;
	prog_decode(d, buf, size, p);
}

static bool same_op(const struct prog_op *a, const struct prog_op *b)
{
	return !memcmp(a, b, sizeof(*a));
}

static bool same_prog(const struct prog *a, const struct prog *b)
{
	if (a->config != b->config || a->nops != b->nops || a->nsched != b->nsched)
		return false;
	for (unsigned i = 0; i < a->nops; i++)
		if (!same_op(&a->ops[i], &b->ops[i]))
			return false;
	return !memcmp(a->sched, b->sched, a->nsched);
}

/* Encoding @p and decoding it again gives @p: it is canonical. */
static bool canonical(const struct prog_desc *d, const struct prog *p)
{
	static struct prog q;
	size_t n = prog_encode(p, buf);

	prog_decode(d, buf, n, &q);
	return same_prog(p, &q);
}

/* @big is @small with one operation inserted; its index, or -1. */
static int one_inserted(const struct prog *small, const struct prog *big)
{
	unsigned i = 0;

	if (big->nops != small->nops + 1)
		return -1;
	while (i < small->nops && same_op(&small->ops[i], &big->ops[i]))
		i++;
	for (unsigned j = i; j < small->nops; j++)
		if (!same_op(&small->ops[j], &big->ops[j + 1]))
			return -1;
	return (int)i;
}

/* Indices of the operations that differ (same nops); returns their count. */
static unsigned diff_ops(const struct prog *a, const struct prog *b, unsigned *first,
			 unsigned *second)
{
	unsigned n = 0;

	for (unsigned i = 0; i < a->nops; i++)
		if (!same_op(&a->ops[i], &b->ops[i])) {
			if (n == 0)
				*first = i;
			else if (n == 1)
				*second = i;
			n++;
		}
	return n;
}

static const struct prog_desc *descs[8];
static unsigned ndescs;

static void collect_descs(void)
{
	ndescs = 0;
	descs[ndescs++] = &t_desc;
	descs[ndescs++] = &t_desc1;
	for (unsigned i = 0; fuzz_targets[i] && ndescs < 8; i++)
		descs[ndescs++] = fuzz_targets[i]->desc;
}

/* Many random inputs (random bytes, not programs): output decodes to a
 * canonical program, fits, and differs from the input's program. */
static bool test_random_inputs(void)
{
	struct prng r = {1};

	for (unsigned di = 0; di < ndescs; di++) {
		const struct prog_desc *d = descs[di];
		unsigned changed = 0, total = 2000;

		for (unsigned i = 0; i < total; i++) {
			size_t size = (size_t)prng_below(&r, 700), max, n;
			struct prng mr = {i};

			for (size_t k = 0; k < size; k++)
				buf[k] = (uint8_t)prng_next(&r);
			max = prng_below(&r, 4) ? 4096 : 1 + (size_t)prng_below(&r, 300);
			memcpy(out, buf, size);
			n = mutate_bytes(d, out, size, out, max, NULL, 0, &mr, NULL);
			ASSERT(n <= max);
			ASSERT(n >= (max < PROG_HEADER ? max : PROG_HEADER));
			prog_decode(d, buf, size, &p0);
			prog_decode(d, out, n, &p1);
			if (max >= PROG_HEADER) {
				ASSERT(canonical(d, &p1));
				ASSERT_EQ(prog_encoded_size(&p1), n);
			}
			ASSERT(p1.nops <= PROG_MAX_OPS && p1.nsched <= PROG_MAX_SCHED);
			for (unsigned k = 0; k < p1.nops; k++) {
				ASSERT(p1.ops[k].code < d->nops);
				ASSERT(p1.ops[k].fiber < d->nfibers);
			}
			if (!same_prog(&p0, &p1))
				changed++;
		}
		/* nearly always: only tiny size limits can force no change */
		if (changed * 100 < total * 95) {
			fprintf(stderr, "%s: only %u of %u mutations changed the program\n",
				d->target, changed, total);
			return false;
		}
	}
	return true;
}

static bool test_same_seed_same_output(void)
{
	struct prng r = {7};

	for (unsigned i = 0; i < 500; i++) {
		const struct prog_desc *d = descs[i % ndescs];
		size_t size = 2 + (size_t)prng_below(&r, 400), n1, n2;
		struct prng a = {1000 + i}, b = {1000 + i};

		for (size_t k = 0; k < size; k++)
			buf[k] = (uint8_t)prng_next(&r);
		n1 = mutate_bytes(d, buf, size, out, 4096, buf, size / 2, &a, NULL);
		n2 = mutate_bytes(d, buf, size, out2, 4096, buf, size / 2, &b, NULL);
		ASSERT_EQ(n1, n2);
		ASSERT(!memcmp(out, out2, n1));
		ASSERT_EQ(a.s, b.s);
		n1 = crossover_bytes(d, buf, size, buf + size / 3, size - size / 3, out, 4096, &a,
				     NULL);
		n2 = crossover_bytes(d, buf, size, buf + size / 3, size - size / 3, out2, 4096, &b,
				     NULL);
		ASSERT_EQ(n1, n2);
		ASSERT(!memcmp(out, out2, n1));
	}
	return true;
}

/* Every kind that applies shows up in mutate_bytes's log. */
static bool test_every_kind_exercised(void)
{
	unsigned seen[MUT_NR] = {0};
	struct prng r = {3};
	struct mut_log log;

	for (unsigned i = 0; i < 4000; i++) {
		struct prng mr = {i};
		size_t n;

		random_prog(&t_desc, &p0, (unsigned)prng_below(&r, 20), &r);
		n = prog_encode(&p0, buf);
		mutate_bytes(&t_desc, buf, n, out, 4096, i % 2 ? buf : NULL, n, &mr, &log);
		ASSERT(log.n >= 1);
		for (unsigned k = 0; k < log.n; k++)
			seen[log.kind[k]]++;
	}
	for (unsigned k = 0; k < MUT_NR; k++) {
		if (!seen[k])
			fprintf(stderr, "mutation %s never applied\n",
				mut_kind_name((enum mut_kind)k));
		ASSERT(seen[k] > 0);
	}
	return true;
}

/* Apply @k to a copy of @p0 into @p1; false if it does not apply. */
static bool apply(const struct prog_desc *d, enum mut_kind k, const struct prog *src,
		  struct prng *r)
{
	p1 = p0;
	return mutate_prog(d, &p1, k, src, r);
}

static bool test_insert_delete_duplicate(void)
{
	struct prng r = {11};

	for (unsigned i = 0; i < 3000; i++) {
		const struct prog_desc *d = descs[i % ndescs];
		int at;

		random_prog(d, &p0, (unsigned)prng_below(&r, 30), &r);
		ASSERT(apply(d, MUT_INSERT, NULL, &r));
		ASSERT(one_inserted(&p0, &p1) >= 0);
		ASSERT(canonical(d, &p1));

		if (p0.nops) {
			ASSERT(apply(d, MUT_DELETE, NULL, &r));
			ASSERT(one_inserted(&p1, &p0) >= 0);

			ASSERT(apply(d, MUT_DUPLICATE, NULL, &r));
			at = one_inserted(&p0, &p1);
			ASSERT(at >= 0);
			{
				bool found = false;

				for (unsigned k = 0; k < p0.nops; k++)
					found |= same_op(&p0.ops[k], &p1.ops[at]);
				ASSERT(found);
			}
		} else {
			ASSERT(!apply(d, MUT_DELETE, NULL, &r));
			ASSERT(!apply(d, MUT_DUPLICATE, NULL, &r));
		}
	}
	/* a full program does not grow */
	random_prog(&t_desc, &p0, PROG_MAX_OPS, &r);
	ASSERT_EQ(p0.nops, PROG_MAX_OPS);
	ASSERT(!apply(&t_desc, MUT_INSERT, NULL, &r));
	ASSERT(!apply(&t_desc, MUT_DUPLICATE, NULL, &r));
	return true;
}

static bool test_swap(void)
{
	struct prng r = {12};

	for (unsigned i = 0; i < 2000; i++) {
		const struct prog_desc *d = descs[i % ndescs];
		unsigned a = 0, b = 0;

		random_prog(d, &p0, 2 + (unsigned)prng_below(&r, 20), &r);
		ASSERT(apply(d, MUT_SWAP, NULL, &r));
		ASSERT_EQ(p1.nops, p0.nops);
		ASSERT_EQ(diff_ops(&p0, &p1, &a, &b), 2);
		ASSERT(same_op(&p0.ops[a], &p1.ops[b]) && same_op(&p0.ops[b], &p1.ops[a]));
	}
	random_prog(&t_desc, &p0, 1, &r);
	ASSERT(!apply(&t_desc, MUT_SWAP, NULL, &r));
	return true;
}

/* Splicing from another program: the other's operations (marked by
 * fail_at=77 there, never here) arrive as one run, and this program's own
 * operations keep their order with at most one run of them overwritten. */
static bool test_splice(void)
{
	struct prng r = {13};

	for (unsigned i = 0; i < 2000; i++) {
		const struct prog_desc *d = descs[i % ndescs];
		unsigned first = ~0u, last = 0, n77 = 0, kept = 0, k;

		random_prog(d, &p0, (unsigned)prng_below(&r, 30), &r);
		for (k = 0; k < p0.nops; k++)
			p0.ops[k].fail_at = 0;
		random_prog(d, &other, 1 + (unsigned)prng_below(&r, 30), &r);
		for (k = 0; k < other.nops; k++)
			other.ops[k].fail_at = 77;
		ASSERT(apply(d, MUT_SPLICE, &other, &r));
		ASSERT(canonical(d, &p1));
		for (k = 0; k < p1.nops; k++)
			if (p1.ops[k].fail_at == 77) {
				if (first == ~0u)
					first = k;
				last = k;
				n77++;
			}
		ASSERT(n77 >= 1);
		ASSERT_EQ(last - first + 1, n77); /* one run */
		/* the run is a run of the other program */
		{
			bool found = false;

			for (unsigned s = 0; s + n77 <= other.nops && !found; s++)
				found =
				    !memcmp(&other.ops[s], &p1.ops[first], n77 * sizeof(p1.ops[0]));
			ASSERT(found);
		}
		/* before the run: p0's head; after it: p0's tail */
		for (k = 0; k < first; k++)
			ASSERT(same_op(&p0.ops[k], &p1.ops[k]));
		kept = p1.nops - n77;
		ASSERT(kept <= p0.nops);
		for (k = 0; k < kept - first; k++)
			ASSERT(same_op(&p0.ops[p0.nops - 1 - k], &p1.ops[p1.nops - 1 - k]));
	}
	/* without another program, a run of its own */
	random_prog(&t_desc, &p0, 5, &r);
	ASSERT(apply(&t_desc, MUT_SPLICE, NULL, &r));
	ASSERT(p1.nops >= 1);
	memset(&p0, 0, sizeof(p0));
	ASSERT(!apply(&t_desc, MUT_SPLICE, NULL, &r));
	return true;
}

static unsigned count_names(const char *const *names)
{
	unsigned n = 0;

	while (names && names[n])
		n++;
	return n;
}

/* One argument of one operation changes, within its field's meaning. */
static bool test_arg(void)
{
	struct prng r = {14};
	unsigned kinds_seen[5] = {0};

	for (unsigned i = 0; i < 4000; i++) {
		const struct prog_desc *d = descs[i % ndescs];
		const struct prog_opdesc *od;
		const struct prog_op *a, *b;
		unsigned x = 0, y = 0, off = 0, f, changed_field = ~0u, nchanged = 0;

		random_prog(d, &p0, 1 + (unsigned)prng_below(&r, 10), &r);
		if (!apply(d, MUT_ARG, NULL, &r))
			continue; /* only argument-less operations */
		ASSERT(canonical(d, &p1));
		ASSERT_EQ(diff_ops(&p0, &p1, &x, &y), 1);
		a = &p0.ops[x];
		b = &p1.ops[x];
		ASSERT(a->code == b->code && a->fiber == b->fiber && a->fail_at == b->fail_at);
		od = &d->ops[a->code];
		for (f = 0; f < od->nfields; f++) {
			unsigned w = field_width(&od->fields[f]);

			if (memcmp(&a->arg[off], &b->arg[off], w)) {
				changed_field = f;
				nchanged++;
			}
			if (nchanged == 1 && changed_field == f) {
				const struct prog_field *fd = &od->fields[f];
				uint8_t va = a->arg[off], vb = b->arg[off];

				kinds_seen[fd->kind]++;
				switch (fd->kind) {
				case FK_SEL:
					ASSERT(vb < fd->max && vb != va);
					break;
				case FK_CHOICE:
					ASSERT(vb < count_names(fd->names) && vb != va);
					break;
				case FK_FLAGS:
					ASSERT(__builtin_popcount(va ^ vb) == 1);
					ASSERT((va ^ vb) < (1u << count_names(fd->names)));
					break;
				case FK_U8:
					ASSERT(vb != va);
					break;
				case FK_RANGE:
					break; /* differs and is canonical: checked above */
				}
			}
			off += w;
		}
		ASSERT_EQ(nchanged, 1);
	}
	for (unsigned k = 0; k < 5; k++)
		ASSERT(kinds_seen[k] > 0);
	return true;
}

static bool test_fail_at_fiber_config(void)
{
	struct prng r = {15};
	unsigned small = 0, set = 0;

	for (unsigned i = 0; i < 4000; i++) {
		const struct prog_desc *d = descs[i % ndescs];
		unsigned x = 0, y = 0;

		random_prog(d, &p0, 1 + (unsigned)prng_below(&r, 10), &r);
		for (unsigned k = 0; k < p0.nops; k++)
			p0.ops[k].fail_at = 0;
		ASSERT(apply(d, MUT_FAIL_AT, NULL, &r));
		ASSERT_EQ(diff_ops(&p0, &p1, &x, &y), 1);
		ASSERT(p1.ops[x].fail_at != 0);
		p1.ops[x].fail_at <= 4 ? small++ : set++;
		p1.ops[x].fail_at = 0;
		ASSERT(same_prog(&p0, &p1));

		if (d->nfibers > 1) {
			ASSERT(apply(d, MUT_FIBER, NULL, &r));
			ASSERT_EQ(p1.nops, p0.nops);
			ASSERT_EQ(diff_ops(&p0, &p1, &x, &y), 1);
			ASSERT(p1.ops[x].fiber < d->nfibers && p1.ops[x].fiber != p0.ops[x].fiber);
			p1.ops[x].fiber = p0.ops[x].fiber;
			ASSERT(same_prog(&p0, &p1));
		} else {
			ASSERT(!apply(d, MUT_FIBER, NULL, &r));
		}

		if (count_names(d->config_names)) {
			unsigned n = count_names(d->config_names);

			ASSERT(apply(d, MUT_CONFIG, NULL, &r));
			ASSERT(__builtin_popcount(p0.config ^ p1.config) == 1);
			ASSERT((p1.config >> n) == 0);
			p1.config = p0.config;
			ASSERT(same_prog(&p0, &p1));
		} else {
			ASSERT(!apply(d, MUT_CONFIG, NULL, &r));
		}
	}
	/* small values more often: half of them 1..4 */
	ASSERT(small * 10 > (small + set) * 4);
	return true;
}

static bool test_sched(void)
{
	struct prng r = {16};

	for (unsigned i = 0; i < 3000; i++) {
		const struct prog_desc *d = descs[i % ndescs];

		random_prog(d, &p0, (unsigned)prng_below(&r, 10), &r);
		if (i % 50 == 0)
			p0.nsched = 0;
		if (i % 50 == 1) {
			p0.nsched = PROG_MAX_SCHED;
			memset(p0.sched, 1, PROG_MAX_SCHED);
		}
		ASSERT(apply(d, MUT_SCHED, NULL, &r));
		ASSERT(canonical(d, &p1));
		ASSERT(p1.nsched <= PROG_MAX_SCHED);
		ASSERT(p1.nsched != p0.nsched || memcmp(p0.sched, p1.sched, p0.nsched));
		/* the operations are untouched */
		ASSERT_EQ(p1.nops, p0.nops);
		ASSERT(!memcmp(p0.ops, p1.ops, p0.nops * sizeof(p0.ops[0])));
		ASSERT_EQ(p1.config, p0.config);
		if (p0.nsched == 0)
			ASSERT(p1.nsched > 0);
	}
	return true;
}

/* Some schedule mutations are runs: one fiber for 16 or more points, then
 * another (a walk that starts deep inside a fork needs one). */
static bool test_sched_runs(void)
{
	struct prng r = {17};
	unsigned long_runs = 0, tries = 2000;

	for (unsigned i = 0; i < tries; i++) {
		const struct prog_desc *d = descs[i % ndescs];
		unsigned run = 1;

		if (d->nfibers < 2)
			continue;
		random_prog(d, &p0, 4, &r);
		p0.nsched = 0;
		ASSERT(apply(d, MUT_SCHED, NULL, &r));
		for (unsigned j = 1; j < p1.nsched; j++) {
			run = p1.sched[j] == p1.sched[j - 1] ? run + 1 : 1;
			if (run == 16 && j + 1 < p1.nsched) {
				long_runs++;
				break;
			}
		}
	}
	/* a quarter of the empty-schedule cases insert a run, about half of
	 * them 16 or longer */
	ASSERT(long_runs * 20 > tries);
	return true;
}

/* Outputs respect the size limit however small; prog_fit drops schedule
 * bytes first, then operations from the end. */
static bool test_max_size(void)
{
	struct prng r = {17};

	for (unsigned i = 0; i < 3000; i++) {
		const struct prog_desc *d = descs[i % ndescs];
		size_t n, max = (size_t)prng_below(&r, 200);

		random_prog(d, &p0, (unsigned)prng_below(&r, 40), &r);
		n = prog_encode(&p0, buf);
		n = (i % 2 ? mutate_bytes(d, buf, n, out, max, buf, n, &r, NULL)
			   : crossover_bytes(d, buf, n, buf + 5, n > 5 ? n - 5 : 0, out, max, &r,
					     NULL));
		ASSERT(n <= max);
	}
	random_prog(&t_desc, &p0, 10, &r);
	p0.nsched = 30;
	p1 = p0;
	prog_fit(&p1, PROG_HEADER + 10 * PROG_RECORD + 5);
	ASSERT_EQ(p1.nops, 10);
	ASSERT_EQ(p1.nsched, 5);
	prog_fit(&p1, PROG_HEADER + 3 * PROG_RECORD + 7);
	ASSERT_EQ(p1.nops, 3);
	ASSERT_EQ(p1.nsched, 0);
	ASSERT(!memcmp(p0.ops, p1.ops, 3 * sizeof(p0.ops[0])));
	return true;
}

/* Crossover: a's head, a run of b's operations, then a's tail or nothing
 * (a's operations are marked fail_at=1, b's fail_at=2); canonical. When the
 * result would be a itself it is mutated instead (the log says so). */
static bool test_crossover(void)
{
	struct prng r = {18};
	unsigned changed = 0, checked = 0;
	struct mut_log log;

	for (unsigned i = 0; i < 2000; i++) {
		const struct prog_desc *d = descs[i % ndescs];
		unsigned k = 0, j, cut, run;
		size_t na, nb, n;
		bool found = false;

		random_prog(d, &p0, (unsigned)prng_below(&r, 20), &r);
		for (k = 0; k < p0.nops; k++)
			p0.ops[k].fail_at = 1;
		random_prog(d, &other, (unsigned)prng_below(&r, 20), &r);
		for (k = 0; k < other.nops; k++)
			other.ops[k].fail_at = 2;
		na = prog_encode(&p0, buf);
		nb = prog_encode(&other, buf + 4096);
		n = crossover_bytes(d, buf, na, buf + 4096, nb, out, 4096, &r, &log);
		ASSERT(log.crossover);
		prog_decode(d, out, n, &p1);
		ASSERT(canonical(d, &p1));
		if (!same_prog(&p0, &p1))
			changed++;
		if (log.n)
			continue; /* fell back to mutations */
		checked++;
		for (k = 0; k < p1.nops && p1.ops[k].fail_at == 1; k++)
			ASSERT(same_op(&p1.ops[k], &p0.ops[k]));
		cut = k;
		while (k < p1.nops && p1.ops[k].fail_at == 2)
			k++;
		run = k - cut;
		for (unsigned s = 0; s + run <= other.nops && !found; s++)
			found = !memcmp(&other.ops[s], &p1.ops[cut], run * sizeof(p1.ops[0]));
		ASSERT(found);
		for (j = cut; k < p1.nops; k++, j++) {
			ASSERT(j < p0.nops);
			ASSERT(same_op(&p1.ops[k], &p0.ops[j]));
		}
	}
	ASSERT(changed * 100 >= 2000 * 95);
	ASSERT(checked > 1000);
	return true;
}

int main(void)
{
	collect_descs();
	TEST(test_random_inputs);
	TEST(test_same_seed_same_output);
	TEST(test_every_kind_exercised);
	TEST(test_insert_delete_duplicate);
	TEST(test_swap);
	TEST(test_splice);
	TEST(test_arg);
	TEST(test_fail_at_fiber_config);
	TEST(test_sched);
	TEST(test_sched_runs);
	TEST(test_max_size);
	TEST(test_crossover);
	return test_summary();
}
