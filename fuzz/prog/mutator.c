/* SPDX-License-Identifier: GPL-2.0 */
/* The structure-aware mutator (mutator.h). */
#include "mutator.h"

#include <string.h>

static const char *const kind_names[MUT_NR] = {
    [MUT_INSERT] = "insert",   [MUT_DELETE] = "delete", [MUT_DUPLICATE] = "duplicate",
    [MUT_SWAP] = "swap",       [MUT_SPLICE] = "splice", [MUT_ARG] = "arg",
    [MUT_FAIL_AT] = "fail_at", [MUT_FIBER] = "fiber",	[MUT_SCHED] = "sched",
    [MUT_CONFIG] = "config",
};

/* How often each kind is picked (relative), when it applies. */
static const unsigned kind_weight[MUT_NR] = {
    [MUT_INSERT] = 3, [MUT_DELETE] = 2,	 [MUT_DUPLICATE] = 2, [MUT_SWAP] = 1,  [MUT_SPLICE] = 2,
    [MUT_ARG] = 6,    [MUT_FAIL_AT] = 2, [MUT_FIBER] = 2,     [MUT_SCHED] = 2, [MUT_CONFIG] = 1,
};

/* Longest run of operations one splice moves. */
#define SPLICE_MAX 16

const char *mut_kind_name(enum mut_kind k)
{
	return (unsigned)k < MUT_NR ? kind_names[k] : "?";
}

/* ---- random values ------------------------------------------------------ */

static unsigned below(struct prng *r, unsigned n)
{
	return n ? (unsigned)prng_below(r, n) : 0;
}

/* true one time in @n */
static bool one_in(struct prng *r, unsigned n)
{
	return prng_below(r, n) == 0;
}

static unsigned count_names(const char *const *names)
{
	unsigned n = 0;

	while (names && names[n])
		n++;
	return n;
}

/* A byte: small values and boundaries more often than the rest. */
static uint8_t rand_u8(struct prng *r)
{
	static const uint8_t special[] = {0, 1, 2, 0x7f, 0x80, 0xfe, 0xff};

	switch (below(r, 4)) {
	case 0:
		return (uint8_t)below(r, 9);
	case 1:
		return special[below(r, sizeof(special))];
	default:
		return (uint8_t)prng_next(r);
	}
}

static uint16_t rand_u16(struct prng *r)
{
	static const uint16_t special[] = {0, 1, 0xff, 0x100, 0x7fff, 0x8000, 0xfffe, 0xffff};

	switch (below(r, 4)) {
	case 0:
		return (uint16_t)below(r, 256);
	case 1:
		return special[below(r, sizeof(special) / sizeof(special[0]))];
	default:
		return (uint16_t)prng_next(r);
	}
}

/* fail_at (1..255): the first few allocations of an operation are where
 * most of its failure paths are. */
static uint8_t rand_fail_at(struct prng *r)
{
	switch (below(r, 4)) {
	case 0:
	case 1:
		return (uint8_t)(1 + below(r, 4));
	case 2:
		return (uint8_t)(5 + below(r, 12));
	default:
		return (uint8_t)(1 + below(r, 255));
	}
}

/* Entry or gap index k: the first few most of the time. */
static uint8_t rand_k(struct prng *r)
{
	return one_in(r, 4) ? (uint8_t)prng_next(r) : (uint8_t)below(r, 8);
}

/* Offset d from the start of an entry or gap: mostly 0 or a step away. */
static int8_t rand_delta(struct prng *r)
{
	switch (below(r, 4)) {
	case 0:
	case 1:
		return 0;
	case 2:
		return (int8_t)(one_in(r, 2) ? 1 + (int)below(r, 4) : -1 - (int)below(r, 4));
	default:
		return (int8_t)prng_next(r);
	}
}

/* Range length: 0 is "to the end". */
static uint8_t rand_len(struct prng *r)
{
	switch (below(r, 4)) {
	case 0:
		return 0;
	case 1:
	case 2:
		return (uint8_t)(1 + below(r, 16));
	default:
		return (uint8_t)prng_next(r);
	}
}

/* A schedule byte: at a point where k fibers can run it picks (byte mod k),
 * so values below the fiber count cover every choice. */
static uint8_t rand_sched(const struct prog_desc *d, struct prng *r)
{
	return one_in(r, 4) ? (uint8_t)prng_next(r) : (uint8_t)below(r, d->nfibers);
}

/* ---- fields ------------------------------------------------------------- */

static void gen_range_params(struct range_spec *rs, struct prng *r)
{
	if (rs->mode == RS_ENTRY || rs->mode == RS_GAP) {
		rs->k = rand_k(r);
		rs->d = rand_delta(r);
		rs->v = 0;
	} else {
		rs->k = 0;
		rs->d = 0;
		/* top-v: near the top is where the edge cases are */
		rs->v = rs->mode == RS_TOP && one_in(r, 2) ? (uint16_t)below(r, 16) : rand_u16(r);
	}
}

static void gen_field(const struct prog_field *f, uint8_t *b, struct prng *r)
{
	switch (f->kind) {
	case FK_SEL:
		b[0] = (uint8_t)below(r, f->max);
		break;
	case FK_U8:
		b[0] = rand_u8(r);
		break;
	case FK_CHOICE:
		b[0] = (uint8_t)below(r, count_names(f->names));
		break;
	case FK_FLAGS: {
		unsigned n = count_names(f->names);

		b[0] = (uint8_t)(prng_next(r) & (n >= 8 ? 0xff : (1u << n) - 1));
		break;
	}
	case FK_RANGE: {
		struct range_spec rs;

		memset(&rs, 0, sizeof(rs));
		rs.mode = (enum range_mode)below(r, 4);
		gen_range_params(&rs, r);
		rs.len = rand_len(r);
		range_spec_encode(&rs, b);
		break;
	}
	}
}

/* A different small step from @v within 0..255 (never @v itself). */
static uint8_t step_u8(uint8_t v, struct prng *r)
{
	int s = 1 + (int)below(r, 8);

	if (one_in(r, 2))
		s = -s;
	if (v + s < 0 || v + s > 255)
		s = -s;
	return (uint8_t)(v + s);
}

/* Change one part of a range spec; true if its bytes changed. */
static bool mutate_range(uint8_t *b, struct prng *r)
{
	uint8_t old[4];
	struct range_spec rs;

	memcpy(old, b, 4);
	range_spec_decode(b, &rs);
	switch (below(r, 4)) {
	case 0: { /* mode; entry <-> gap and raw <-> top keep their parameters */
		enum range_mode m = (enum range_mode)((rs.mode + 1 + below(r, 3)) % 4);
		bool same_group = (m <= RS_GAP) == (rs.mode <= RS_GAP);

		rs.mode = m;
		if (!same_group)
			gen_range_params(&rs, r);
		break;
	}
	case 1: /* which entry or gap, or the raw value */
		if (rs.mode <= RS_GAP) {
			rs.k = one_in(r, 2) ? step_u8(rs.k, r) : rand_k(r);
		} else if (one_in(r, 2)) {
			int s = 1 + (int)below(r, 16);

			rs.v = (uint16_t)(one_in(r, 2) ? rs.v + s : rs.v - s);
		} else {
			rs.v = rand_u16(r);
		}
		break;
	case 2: /* offset into the entry or gap (raw, top: the value again) */
		if (rs.mode <= RS_GAP)
			rs.d = one_in(r, 2) ? (int8_t)((int)step_u8((uint8_t)(rs.d + 128), r) - 128)
					    : rand_delta(r);
		else
			rs.v = (uint16_t)(rs.v ^ (1u << below(r, 16)));
		break;
	default: /* length, or :end */
		if (rs.len && one_in(r, 3))
			rs.len = 0;
		else if (rs.len && one_in(r, 2))
			rs.len = step_u8(rs.len, r);
		else
			rs.len = rand_len(r);
		break;
	}
	range_spec_encode(&rs, b);
	return memcmp(old, b, 4) != 0;
}

/* Change one field's bytes within the field's meaning; true if changed. */
static bool mutate_field(const struct prog_field *f, uint8_t *b, struct prng *r)
{
	uint8_t old = b[0];

	switch (f->kind) {
	case FK_SEL:
		if (f->max < 2)
			return false;
		b[0] = (uint8_t)((b[0] + 1 + below(r, f->max - 1u)) % f->max);
		return true;
	case FK_CHOICE: {
		unsigned n = count_names(f->names);

		if (n < 2)
			return false;
		b[0] = (uint8_t)((b[0] + 1 + below(r, n - 1)) % n);
		return true;
	}
	case FK_FLAGS: {
		unsigned n = count_names(f->names);

		if (!n)
			return false;
		b[0] ^= (uint8_t)(1u << below(r, n < 8 ? n : 8));
		return true;
	}
	case FK_U8:
		b[0] = one_in(r, 2) ? step_u8(b[0], r) : rand_u8(r);
		if (b[0] == old)
			b[0] = step_u8(old, r);
		return true;
	case FK_RANGE:
		return mutate_range(b, r);
	}
	return false;
}

/* ---- operations --------------------------------------------------------- */

static void gen_op(const struct prog_desc *d, const struct prog *p, unsigned at, struct prog_op *op,
		   struct prng *r)
{
	const struct prog_opdesc *od;
	unsigned off = 0;

	memset(op, 0, sizeof(*op));
	op->code = (uint8_t)below(r, d->nops);
	/* often on the thread of the operation before it, so threads get runs */
	if (d->nfibers > 1 && at > 0 && one_in(r, 2))
		op->fiber = p->ops[at - 1].fiber;
	else
		op->fiber = (uint8_t)below(r, d->nfibers);
	op->fail_at = one_in(r, 4) ? rand_fail_at(r) : 0;
	od = &d->ops[op->code];
	for (unsigned i = 0; i < od->nfields; i++) {
		gen_field(&od->fields[i], &op->arg[off], r);
		off += field_width(&od->fields[i]);
	}
}

/* Make room for @n operations at @at (the caller checks the bound). */
static void open_gap(struct prog *p, unsigned at, unsigned n)
{
	memmove(&p->ops[at + n], &p->ops[at], (p->nops - at) * sizeof(p->ops[0]));
	p->nops += n;
}

static void close_gap(struct prog *p, unsigned at, unsigned n)
{
	memmove(&p->ops[at], &p->ops[at + n], (p->nops - at - n) * sizeof(p->ops[0]));
	p->nops -= n;
	memset(&p->ops[p->nops], 0, n * sizeof(p->ops[0]));
}

static bool mut_insert(const struct prog_desc *d, struct prog *p, struct prng *r)
{
	unsigned at;

	if (p->nops >= PROG_MAX_OPS)
		return false;
	at = below(r, p->nops + 1);
	open_gap(p, at, 1);
	gen_op(d, p, at, &p->ops[at], r);
	return true;
}

static bool mut_delete(struct prog *p, struct prng *r)
{
	if (!p->nops)
		return false;
	close_gap(p, below(r, p->nops), 1);
	return true;
}

static bool mut_duplicate(struct prog *p, struct prng *r)
{
	struct prog_op copy;
	unsigned at;

	if (!p->nops || p->nops >= PROG_MAX_OPS)
		return false;
	copy = p->ops[below(r, p->nops)];
	at = below(r, p->nops + 1);
	open_gap(p, at, 1);
	p->ops[at] = copy;
	return true;
}

static bool same_op(const struct prog_op *a, const struct prog_op *b)
{
	return a->code == b->code && a->fiber == b->fiber && a->fail_at == b->fail_at &&
	       !memcmp(a->arg, b->arg, sizeof(a->arg));
}

static bool mut_swap(struct prog *p, struct prng *r)
{
	if (p->nops < 2)
		return false;
	for (unsigned tries = 0; tries < 8; tries++) {
		unsigned i = below(r, p->nops), j = below(r, p->nops - 1);
		struct prog_op t;

		if (j >= i)
			j++;
		if (same_op(&p->ops[i], &p->ops[j]))
			continue;
		t = p->ops[i];
		p->ops[i] = p->ops[j];
		p->ops[j] = t;
		return true;
	}
	return false;
}

static bool mut_splice(struct prog *p, const struct prog *other, struct prng *r)
{
	const struct prog *src = other ? other : p;
	struct prog_op run[SPLICE_MAX];
	unsigned len, from, at, replace, room;

	if (!src->nops)
		return false;
	len = 1 + below(r, src->nops < SPLICE_MAX ? src->nops : SPLICE_MAX);
	from = below(r, src->nops - len + 1);
	memcpy(run, &src->ops[from], len * sizeof(run[0]));
	at = below(r, p->nops + 1);
	/* half the time insert, else overwrite up to as many operations */
	replace = one_in(r, 2) ? 0 : below(r, (p->nops - at < len ? p->nops - at : len) + 1);
	room = PROG_MAX_OPS - (p->nops - replace);
	if (len > room)
		len = room;
	if (!len)
		return false;
	close_gap(p, at, replace);
	open_gap(p, at, len);
	memcpy(&p->ops[at], run, len * sizeof(run[0]));
	return true;
}

/* Change an argument of some operation, within the meaning of its field. */
static bool mut_arg(const struct prog_desc *d, struct prog *p, struct prng *r)
{
	if (!p->nops)
		return false;
	for (unsigned tries = 0; tries < 8; tries++) {
		struct prog_op *op = &p->ops[below(r, p->nops)];
		const struct prog_opdesc *od = &d->ops[op->code];
		unsigned f, off = 0;

		if (!od->nfields)
			continue;
		f = below(r, od->nfields);
		for (unsigned i = 0; i < f; i++)
			off += field_width(&od->fields[i]);
		if (mutate_field(&od->fields[f], &op->arg[off], r))
			return true;
	}
	return false;
}

static bool mut_fail_at(struct prog *p, struct prng *r)
{
	struct prog_op *op;
	uint8_t v;

	if (!p->nops)
		return false;
	op = &p->ops[below(r, p->nops)];
	/* half the time one that fails already: where a program injects a
	 * failure, the failure point is what matters most (which allocation of
	 * a fork, and so which VMA it is copying, fails) */
	if (one_in(r, 2)) {
		unsigned with = 0, k;

		for (unsigned i = 0; i < p->nops; i++)
			with += p->ops[i].fail_at != 0;
		k = with ? below(r, with) : 0;
		for (unsigned i = 0; with && i < p->nops; i++)
			if (p->ops[i].fail_at && !k--) {
				op = &p->ops[i];
				break;
			}
	}
	if (op->fail_at && one_in(r, 3))
		v = 0;
	else if (op->fail_at && one_in(r, 2))
		v = step_u8(op->fail_at, r);
	else
		v = rand_fail_at(r);
	if (v == op->fail_at)
		v = op->fail_at ? 0 : 1;
	op->fail_at = v;
	return true;
}

static bool mut_fiber(const struct prog_desc *d, struct prog *p, struct prng *r)
{
	struct prog_op *op;

	if (d->nfibers < 2 || !p->nops)
		return false;
	op = &p->ops[below(r, p->nops)];
	op->fiber = (uint8_t)((op->fiber + 1 + below(r, d->nfibers - 1)) % d->nfibers);
	return true;
}

/*
 * Schedule bytes are consumed one per point where two fibers could run, so
 * "let this fiber run on for n points, then switch" is a run of n equal
 * bytes and one other: how a thread's operation comes to start in the
 * middle of a long one of another thread (a walk inside a fork rather than
 * before it), which single random bytes almost never spell. n is spread
 * evenly over powers of two up to 128.
 */
static unsigned insert_run(const struct prog_desc *d, struct prog *p, struct prng *r)
{
	unsigned room = PROG_MAX_SCHED - p->nsched, n = 1u << below(r, 8), at;
	uint8_t stay = (uint8_t)below(r, d->nfibers), go;

	n += below(r, n);
	if (n + 1 > room)
		n = room - 1;
	go = (uint8_t)((stay + 1 + below(r, d->nfibers > 1 ? d->nfibers - 1 : 1)) % d->nfibers);
	at = below(r, p->nsched + 1);
	memmove(&p->sched[at + n + 1], &p->sched[at], p->nsched - at);
	memset(&p->sched[at], stay, n);
	p->sched[at + n] = go;
	p->nsched += n + 1;
	return n + 1;
}

static bool mut_sched(const struct prog_desc *d, struct prog *p, struct prng *r)
{
	unsigned what = below(r, 4), at, n;

	if (!p->nsched)
		what = one_in(r, 2) ? 1 : 3;
	else if (p->nsched >= PROG_MAX_SCHED - 1 && (what == 1 || what == 3))
		what = 0;
	switch (what) {
	case 3: /* a run: one fiber goes on for a while, then another */
		insert_run(d, p, r);
		return true;
	case 0: { /* change one byte */
		uint8_t *b = &p->sched[below(r, p->nsched)], v = rand_sched(d, r);

		*b = v != *b ? v : (uint8_t)(*b ^ 1);
		return true;
	}
	case 1: /* insert a few bytes */
		n = 1 + below(r, 4);
		if (n > PROG_MAX_SCHED - p->nsched)
			n = PROG_MAX_SCHED - p->nsched;
		at = below(r, p->nsched + 1);
		memmove(&p->sched[at + n], &p->sched[at], p->nsched - at);
		for (unsigned i = 0; i < n; i++)
			p->sched[at + i] = rand_sched(d, r);
		p->nsched += n;
		return true;
	default: /* delete a few bytes */
		n = 1 + below(r, p->nsched < 4 ? p->nsched : 4);
		at = below(r, p->nsched - n + 1);
		memmove(&p->sched[at], &p->sched[at + n], p->nsched - at - n);
		p->nsched -= n;
		memset(&p->sched[p->nsched], 0, n);
		return true;
	}
}

static bool mut_config(const struct prog_desc *d, struct prog *p, struct prng *r)
{
	unsigned n = count_names(d->config_names);

	if (!n)
		return false;
	p->config ^= (uint8_t)(1u << below(r, n < 8 ? n : 8));
	return true;
}

bool mutate_prog(const struct prog_desc *d, struct prog *p, enum mut_kind k,
		 const struct prog *other, struct prng *r)
{
	switch (k) {
	case MUT_INSERT:
		return mut_insert(d, p, r);
	case MUT_DELETE:
		return mut_delete(p, r);
	case MUT_DUPLICATE:
		return mut_duplicate(p, r);
	case MUT_SWAP:
		return mut_swap(p, r);
	case MUT_SPLICE:
		return mut_splice(p, other, r);
	case MUT_ARG:
		return mut_arg(d, p, r);
	case MUT_FAIL_AT:
		return mut_fail_at(p, r);
	case MUT_FIBER:
		return mut_fiber(d, p, r);
	case MUT_SCHED:
		return mut_sched(d, p, r);
	case MUT_CONFIG:
		return mut_config(d, p, r);
	case MUT_NR:
		break;
	}
	return false;
}

void prog_fit(struct prog *p, size_t max_size)
{
	size_t size = prog_encoded_size(p), cut;

	if (size <= max_size)
		return;
	cut = size - max_size < p->nsched ? size - max_size : p->nsched;
	p->nsched -= (unsigned)cut;
	size -= cut;
	while (size > max_size && p->nops) {
		memset(&p->ops[--p->nops], 0, sizeof(p->ops[0]));
		size -= PROG_RECORD;
	}
}

/* ---- bytes -------------------------------------------------------------- */

static enum mut_kind pick_kind(const struct prog_desc *d, const struct prog *p, struct prng *r)
{
	unsigned w[MUT_NR], total = 0, x;

	for (unsigned k = 0; k < MUT_NR; k++) {
		w[k] = kind_weight[k];
		/* on an empty program only growing makes sense */
		if (!p->nops && k != MUT_INSERT && k != MUT_SPLICE && k != MUT_SCHED &&
		    k != MUT_CONFIG)
			w[k] = 0;
		if (k == MUT_FIBER && d->nfibers < 2)
			w[k] = 0;
		if (k == MUT_CONFIG && !count_names(d->config_names))
			w[k] = 0;
		total += w[k];
	}
	x = below(r, total);
	for (unsigned k = 0; k < MUT_NR; k++) {
		if (x < w[k])
			return (enum mut_kind)k;
		x -= w[k];
	}
	return MUT_ARG;
}

/* Encode @p into @out (room for @max_size): prog_fit has made it fit unless
 * @max_size is below the header, in which case the header is cut short
 * (such an input decodes to the empty program anyway). */
static size_t emit(const struct prog *p, uint8_t *out, size_t max_size)
{
	uint8_t buf[MUT_MAX_SIZE];
	size_t n = prog_encode(p, buf);

	if (n > max_size)
		n = max_size;
	memcpy(out, buf, n);
	return n;
}

static bool same_prog(const struct prog *a, const struct prog *b)
{
	uint8_t ea[MUT_MAX_SIZE], eb[MUT_MAX_SIZE];
	size_t na = prog_encode(a, ea), nb = prog_encode(b, eb);

	return na == nb && !memcmp(ea, eb, na);
}

static void log_kind(struct mut_log *log, enum mut_kind k)
{
	if (log && log->n < sizeof(log->kind) / sizeof(log->kind[0]))
		log->kind[log->n++] = k;
}

/* Apply 1 (half the time) to 4 mutations to @q. */
static void mutate_some(const struct prog_desc *d, struct prog *q, const struct prog *other,
			struct prng *r, struct mut_log *log)
{
	unsigned n = one_in(r, 2) ? 1 : 2 + below(r, 3);

	for (unsigned i = 0; i < n; i++)
		for (unsigned tries = 0; tries < 16; tries++) {
			enum mut_kind k = pick_kind(d, q, r);

			if (mutate_prog(d, q, k, other, r)) {
				log_kind(log, k);
				break;
			}
		}
}

size_t mutate_bytes(const struct prog_desc *d, const uint8_t *in, size_t size, uint8_t *out,
		    size_t max_size, const uint8_t *other, size_t other_size, struct prng *r,
		    struct mut_log *log)
{
	struct prog p, q, o;
	const struct prog *op = NULL;

	prog_decode(d, in, size, &p);
	if (other && other_size) {
		prog_decode(d, other, other_size, &o);
		op = &o;
	}
	for (unsigned attempt = 0; attempt < 8; attempt++) {
		q = p;
		if (log)
			memset(log, 0, sizeof(*log));
		mutate_some(d, &q, op, r, log);
		prog_fit(&q, max_size);
		if (!same_prog(&p, &q))
			break;
	}
	return emit(&q, out, max_size);
}

size_t crossover_bytes(const struct prog_desc *d, const uint8_t *a, size_t asize, const uint8_t *b,
		       size_t bsize, uint8_t *out, size_t max_size, struct prng *r,
		       struct mut_log *log)
{
	struct prog p, o, q;
	unsigned cut, from, len;

	prog_decode(d, a, asize, &p);
	prog_decode(d, b, bsize, &o);
	if (log) {
		memset(log, 0, sizeof(*log));
		log->crossover = true;
	}
	memset(&q, 0, sizeof(q));
	q.config = one_in(r, 2) ? p.config : o.config;

	/* a's operations up to a cut, a run of b's, then a's rest (or nothing) */
	cut = below(r, p.nops + 1);
	from = below(r, o.nops + 1);
	len = below(r, o.nops - from + 1);
	memcpy(q.ops, p.ops, cut * sizeof(q.ops[0]));
	q.nops = cut;
	if (len > PROG_MAX_OPS - q.nops)
		len = PROG_MAX_OPS - q.nops;
	memcpy(&q.ops[q.nops], &o.ops[from], len * sizeof(q.ops[0]));
	q.nops += len;
	if (one_in(r, 2)) {
		unsigned rest = p.nops - cut;

		if (rest > PROG_MAX_OPS - q.nops)
			rest = PROG_MAX_OPS - q.nops;
		memcpy(&q.ops[q.nops], &p.ops[cut], rest * sizeof(q.ops[0]));
		q.nops += rest;
	}

	/* schedule: a's, b's, or a's head and b's tail */
	switch (below(r, 3)) {
	case 0:
		q.nsched = p.nsched;
		memcpy(q.sched, p.sched, p.nsched);
		break;
	case 1:
		q.nsched = o.nsched;
		memcpy(q.sched, o.sched, o.nsched);
		break;
	default: {
		unsigned h = below(r, p.nsched + 1), t = below(r, o.nsched + 1);

		if (t > PROG_MAX_SCHED - h)
			t = PROG_MAX_SCHED - h;
		memcpy(q.sched, p.sched, h);
		memcpy(&q.sched[h], &o.sched[o.nsched - t], t);
		q.nsched = h + t;
		break;
	}
	}
	prog_fit(&q, max_size);
	/* the same program as a (e.g. a and b alike): mutate it instead */
	for (unsigned tries = 0; tries < 8 && same_prog(&p, &q); tries++) {
		mutate_some(d, &q, &o, r, log);
		prog_fit(&q, max_size);
	}
	return emit(&q, out, max_size);
}
