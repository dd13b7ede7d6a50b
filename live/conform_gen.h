/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Random fuzz_mm programs for vmafuzz conform --random: what users of the
 * mm do, on t0. p0 maps (now and then populated, locked or as a stack),
 * protects, advises (every advice), touches, remaps, locks and unlocks, and
 * unmaps anonymous memory (private and shared) and the model's files
 * (private and shared); forks (up to three per program) whose children act
 * as much as their parents and may exit; userfaultfds created (half of them
 * with the fork event, half with the remap event), registered in every
 * mode, unregistered and closed; now and then
 * a map_limit close to the VMA count, so that splits and maps fail; ranges
 * that hit VMAs, gaps and holes, so that many calls fail. The generator is
 * seeded (fuzz/prog/prng.h): the same seed makes the same programs.
 */
#ifndef VMAFUZZ_CONFORM_GEN_H
#define VMAFUZZ_CONFORM_GEN_H

#include "fuzz/prog/prng.h"
#include "fuzz/prog/prog.h"

#include <stdint.h>

#define CONFORM_GEN_MAX_FORKS 3

struct conform_gen {
	struct prng g;
	const struct prog_desc *d;
	unsigned spread; /* @ ranges start in the first @spread pages */
	unsigned alive;	 /* the processes as the program goes (mask) */
	unsigned forks;	 /* forks so far */
	uint8_t uffd[8]; /* each process's fd slots in use (mask), as far as known */
};

void conform_gen_init(struct conform_gen *g, const struct prog_desc *d, uint64_t seed);
/* A program of @nops operations. */
void conform_gen_prog(struct conform_gen *g, unsigned nops, struct prog *p);
/* Another operation of the same process in place of @op (conform_regen's
 * fn): one that changes no process or fd. */
void conform_gen_again(void *g, struct prog_op *op);

#endif
