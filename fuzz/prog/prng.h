/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A small deterministic generator (splitmix64) for tests, benchmarks, the
 * mutator and program generators. Always seeded by the caller: nothing in
 * vmafuzz draws randomness from the clock or the address space.
 */
#ifndef VMAFUZZ_PRNG_H
#define VMAFUZZ_PRNG_H

#include <stdint.h>

struct prng {
	uint64_t s;
};

static inline uint64_t prng_next(struct prng *p)
{
	uint64_t z = (p->s += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/* Uniform-enough value in [0, n) (n > 0). */
static inline uint64_t prng_below(struct prng *p, uint64_t n)
{
	return prng_next(p) % n;
}

#endif
