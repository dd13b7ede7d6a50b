/* SPDX-License-Identifier: GPL-2.0 */
/* Random programs of what users do, for conform --random (conform_gen.h). */
#include "conform_gen.h"
#include "fuzz/prog/mm_ops.h"

#include <string.h>

void conform_gen_init(struct conform_gen *g, const struct prog_desc *d, uint64_t seed)
{
	memset(g, 0, sizeof(*g));
	g->g.s = seed;
	g->d = d;
	g->spread = 0x40;
}

static unsigned below(struct conform_gen *g, unsigned n)
{
	return (unsigned)prng_below(&g->g, n);
}

/* A range that mostly hits a VMA, a gap or a small area of the window. */
static void gen_range(struct conform_gen *g, struct range_spec *out, bool map)
{
	struct range_spec rs;
	unsigned r = below(g, 100);

	memset(&rs, 0, sizeof(rs));
	if (r < 45) {
		rs.mode = RS_ENTRY;
		rs.k = (uint8_t)below(g, 6);
		rs.d = below(g, 2) ? 0 : (int8_t)((int)below(g, 20) - 4);
	} else if (r < 65) {
		rs.mode = RS_GAP;
		rs.k = (uint8_t)below(g, 6);
		rs.d = below(g, 2) ? 0 : (int8_t)((int)below(g, 12) - 4);
	} else if (r < 95) {
		rs.mode = RS_RAW;
		rs.v = (uint16_t)below(g, g->spread);
	} else {
		rs.mode = RS_TOP;
		rs.v = (uint16_t)below(g, 16);
	}
	/* to the end of a VMA often; of a gap (up to the whole window) rarely */
	if (below(g, 100) < (rs.mode == RS_ENTRY ? 25 : map ? 3 : 10))
		rs.len = 0;
	else
		rs.len = (uint8_t)(1 + below(g, below(g, 5) ? 12 : 80));
	*out = rs;
}

/* The operations, by weight (per mille of those that can be drawn). */
static const struct {
	uint8_t code;
	uint16_t weight;
} weights[] = {
    {MMF_OP_MMAP, 220},		{MMF_OP_MUNMAP, 70},
    {MMF_OP_MPROTECT, 130},	{MMF_OP_MADVISE, 110},
    {MMF_OP_TOUCH, 200},	{MMF_OP_FORK, 45},
    {MMF_OP_EXIT, 20},		{MMF_OP_UFFD_CREATE, 30},
    {MMF_OP_UFFD_REGISTER, 50}, {MMF_OP_UFFD_UNREGISTER, 20},
    {MMF_OP_UFFD_RELEASE, 15},	{MMF_OP_MAP_LIMIT, 2},
    {MMF_OP_ROLLUP, 10},	{MMF_OP_MREMAP, 80},
    {MMF_OP_MLOCK, 30},		{MMF_OP_MUNLOCK, 20},
    {MMF_OP_MLOCKALL, 10},	{MMF_OP_MUNLOCKALL, 5},
};

static bool can_draw(const struct conform_gen *g, unsigned code, unsigned proc)
{
	switch (code) {
	case MMF_OP_FORK:
		return g->forks < CONFORM_GEN_MAX_FORKS && g->alive != 0xff;
	case MMF_OP_EXIT:
		return proc != 0; /* children end; p0 lives on */
	default:
		return true;
	}
}

static unsigned draw_code(struct conform_gen *g, unsigned proc)
{
	unsigned total = 0, x;

	for (unsigned i = 0; i < sizeof(weights) / sizeof(weights[0]); i++)
		total += can_draw(g, weights[i].code, proc) ? weights[i].weight : 0;
	x = below(g, total);
	for (unsigned i = 0;; i++) {
		unsigned w = can_draw(g, weights[i].code, proc) ? weights[i].weight : 0;

		if (x < w)
			return weights[i].code;
		x -= w;
	}
}

/* A process alive: a child half of the time when there are children. */
static unsigned draw_proc(struct conform_gen *g)
{
	unsigned kids = g->alive & ~1u, n = (unsigned)__builtin_popcount(kids), k;

	if (!(g->alive & 1) || (n && below(g, 2))) {
		if (!n)
			return 0;
		k = below(g, n);
		for (unsigned q = 1; q < 8; q++)
			if ((kids & (1u << q)) && k-- == 0)
				return q;
	}
	return 0;
}

/* A handle: one in use mostly, sometimes any. */
static uint8_t draw_handle(struct conform_gen *g, unsigned proc)
{
	unsigned used = g->uffd[proc], n = (unsigned)__builtin_popcount(used), k;

	if (!n || below(g, 8) == 0)
		return (uint8_t)below(g, 4);
	k = below(g, n);
	for (unsigned h = 0; h < 8; h++)
		if ((used & (1u << h)) && k-- == 0)
			return (uint8_t)h;
	return 0;
}

static void args_mmap(struct conform_gen *g, struct mm_args *a)
{
	unsigned x;

	/* mostly readable and writable, every combination sometimes; now and
	 * then populated, locked or a stack */
	a->prot = (uint8_t)(below(g, 2) ? 3 : below(g, 8));
	x = below(g, 100);
	a->prot |= x < 5    ? MMF_MAP_POPULATE
		   : x < 8  ? MMF_MAP_LOCKED
		   : x < 14 ? MMF_MAP_GROWSDOWN
			    : 0;
	x = below(g, 100);
	a->kind = x < 50   ? MMF_PRIVATE_ANON
		  : x < 70 ? MMF_SHARED_ANON
		  : x < 85 ? MMF_PRIVATE_FILE
			   : MMF_SHARED_FILE;
	a->file = (uint8_t)below(g, 2); /* two files, so that mappings meet */
	x = below(g, 100);
	a->place = x < 75 ? MMF_FIXED : x < 95 ? MMF_NOREPLACE : MMF_HINT;
}

/* What the program will look like after @code of @proc (fork and exit
 * change the processes, uffd_create and release the fd slots). */
static void note(struct conform_gen *g, unsigned code, const struct mm_args *a)
{
	unsigned p = a->proc, slot;

	switch (code) {
	case MMF_OP_FORK:
		for (slot = 0; slot < 8 && (g->alive & (1u << slot)); slot++)
			;
		if (slot < 8) {
			g->alive |= 1u << slot;
			g->uffd[slot] = 0;
		}
		g->forks++;
		break;
	case MMF_OP_EXIT:
		g->alive &= ~(1u << p);
		break;
	case MMF_OP_UFFD_CREATE:
		for (slot = 0; slot < 8 && (g->uffd[p] & (1u << slot)); slot++)
			;
		if (slot < 8)
			g->uffd[p] |= (uint8_t)(1u << slot);
		break;
	case MMF_OP_UFFD_RELEASE:
		g->uffd[p] &= (uint8_t) ~(1u << a->handle);
		break;
	}
}

/* mremap's arguments: a new length near the old one, flags mostly valid,
 * a new address near the old range or at a gap or VMA. */
static void args_mremap(struct conform_gen *g, struct mm_args *a)
{
	static const uint8_t flags[] = {0, 1, 1, 3, 3, 3, 5, 7, 7, 2, 4, 6};
	unsigned x = below(g, 100);

	a->remap_flags = flags[below(g, sizeof(flags))];
	a->n = (uint8_t)(x < 10 ? 0 : 1 + below(g, x < 80 ? 16 : 40));
	a->to = (uint8_t)below(g, MMF_NTO);
	a->k = (uint8_t)below(g, a->to < MMF_TO_UP ? 6 : 32);
}

static void gen_args(struct conform_gen *g, unsigned code, struct mm_args *a)
{
	gen_range(g, &a->range, code == MMF_OP_MMAP);
	switch (code) {
	case MMF_OP_MMAP:
		args_mmap(g, a);
		break;
	case MMF_OP_MPROTECT:
		a->prot = (uint8_t)below(g, 8);
		break;
	case MMF_OP_MADVISE:
		a->advice = (uint8_t)below(g, MMF_NADVICE);
		break;
	case MMF_OP_TOUCH:
		a->access = (uint8_t)below(g, 2);
		break;
	case MMF_OP_FORK:
		/* either algorithm, sometimes both compared; the current policy */
		a->algo = (uint8_t)below(g, 2);
		a->diff = (uint8_t)below(g, 2);
		break;
	case MMF_OP_UFFD_CREATE:
		/* the fork event half of the time, the remap event a quarter */
		a->features = (uint8_t)below(g, 4);
		break;
	case MMF_OP_MREMAP:
		args_mremap(g, a);
		break;
	case MMF_OP_MLOCK:
		a->lock = (uint8_t)below(g, 2);
		break;
	case MMF_OP_MLOCKALL:
		a->mcl = (uint8_t)below(g, 8); /* 0 and onfault alone: -EINVAL */
		break;
	case MMF_OP_UFFD_REGISTER:
		/* missing, wp, minor, and now and then two of them */
		a->modes = (uint8_t)(below(g, 4) ? 1u << below(g, 3) : 1 + below(g, 7));
		/* fall through */
	case MMF_OP_UFFD_UNREGISTER:
	case MMF_OP_UFFD_RELEASE:
		a->handle = draw_handle(g, a->proc);
		break;
	case MMF_OP_MAP_LIMIT:
		a->n = (uint8_t)below(g, 6); /* close: the next splits fail */
		break;
	case MMF_OP_ROLLUP:
		a->reader = (uint8_t)below(g, 2);
		break;
	}
}

static void gen_op(struct conform_gen *g, unsigned proc, unsigned code, struct prog_op *op)
{
	struct mm_args a;

	memset(op, 0, sizeof(*op));
	memset(&a, 0, sizeof(a));
	a.proc = (uint8_t)proc;
	gen_args(g, code, &a);
	prog_encode_args(g->d, code, &a, op);
	note(g, code, &a);
}

void conform_gen_again(void *arg, struct prog_op *op)
{
	static const uint8_t codes[] = {MMF_OP_MMAP, MMF_OP_MUNMAP, MMF_OP_MPROTECT, MMF_OP_MADVISE,
					MMF_OP_TOUCH};
	struct conform_gen *g = arg;
	struct mm_args a;

	prog_decode_args(g->d, op, &a);
	gen_op(g, a.proc, codes[below(g, 5)], op);
}

void conform_gen_prog(struct conform_gen *g, unsigned nops, struct prog *p)
{
	static const unsigned spreads[] = {0x10, 0x40, 0x40, 0x100};

	memset(p, 0, sizeof(*p));
	g->spread = spreads[below(g, 4)];
	g->alive = 1;
	g->forks = 0;
	memset(g->uffd, 0, sizeof(g->uffd));
	p->nops = nops;
	for (unsigned i = 0; i < nops; i++) {
		unsigned proc = i ? draw_proc(g) : 0;

		gen_op(g, proc, i ? draw_code(g, proc) : MMF_OP_MMAP, &p->ops[i]);
	}
}
