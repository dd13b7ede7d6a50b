/* SPDX-License-Identifier: GPL-2.0 */
/*
 * AFL++ custom mutator library for one target: the structure-aware mutator
 * (mutator.h) behind AFL++'s C API (afl-fuzz docs: custom_mutators.md).
 * Built once per target with -DVMAFUZZ_TARGET=fuzz_<name>_target into
 * out/afl/<target>-mutator.so; afl-fuzz loads it from
 * AFL_CUSTOM_MUTATOR_LIBRARY. AFL++ 4.04c's libFuzzer driver ignores
 * LLVMFuzzerCustomMutator, so this is how AFL++ mutates programs.
 *
 * Hooks: afl_custom_fuzz (a few mutations, splicing from AFL++'s second
 * input), afl_custom_havoc_mutation (one mutation stacked into AFL++'s own
 * havoc stage), afl_custom_describe (names the mutations in queue and crash
 * file names), and trimming by whole operations (afl_custom_init_trim,
 * afl_custom_trim, afl_custom_post_trim: AFL++'s own trimming cuts byte
 * chunks, which would shift every later record). Only the afl_custom_*
 * symbols are exported; everything else is built with -fvisibility=hidden.
 */
#include "fuzz/prog/mutator.h"
#include "fuzz/targets/target.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef VMAFUZZ_TARGET
#error "build with -DVMAFUZZ_TARGET=fuzz_<name>_target"
#endif

#define EXPORT __attribute__((visibility("default")))

struct afl_mutator {
	struct prng rng;
	struct mut_log log;
	char desc[128];
	struct prog prog;    /* scratch: havoc_mutation, trim's candidate */
	struct prog trimmed; /* trim: the smallest program that kept coverage */
	unsigned trim_step, trim_nops, trim_steps;
	uint8_t buf[MUT_MAX_SIZE]; /* returned to afl-fuzz, owned here */
};

EXPORT void *afl_custom_init(void *afl, unsigned int seed);
EXPORT size_t afl_custom_fuzz(void *data, uint8_t *buf, size_t buf_size, uint8_t **out_buf,
			      uint8_t *add_buf, size_t add_buf_size, size_t max_size);
EXPORT size_t afl_custom_havoc_mutation(void *data, uint8_t *buf, size_t buf_size,
					uint8_t **out_buf, size_t max_size);
EXPORT uint8_t afl_custom_havoc_mutation_probability(void *data);
EXPORT const char *afl_custom_describe(void *data, size_t max_description_len);
EXPORT int32_t afl_custom_init_trim(void *data, uint8_t *buf, size_t buf_size);
EXPORT size_t afl_custom_trim(void *data, uint8_t **out_buf);
EXPORT int32_t afl_custom_post_trim(void *data, uint8_t success);
EXPORT void afl_custom_deinit(void *data);

void *afl_custom_init(void *afl, unsigned int seed)
{
	struct afl_mutator *m = calloc(1, sizeof(*m));

	(void)afl;
	if (!m) {
		perror("vmafuzz mutator: calloc");
		return NULL;
	}
	m->rng.s = seed;
	return m;
}

static size_t room(size_t max_size)
{
	return max_size < sizeof(((struct afl_mutator *)0)->buf)
		   ? max_size
		   : sizeof(((struct afl_mutator *)0)->buf);
}

size_t afl_custom_fuzz(void *data, uint8_t *buf, size_t buf_size, uint8_t **out_buf,
		       uint8_t *add_buf, size_t add_buf_size, size_t max_size)
{
	struct afl_mutator *m = data;
	size_t n;

	/* one time in four a crossover with the second input, when there is one */
	if (add_buf && add_buf_size && prng_below(&m->rng, 4) == 0)
		n = crossover_bytes(VMAFUZZ_TARGET.desc, buf, buf_size, add_buf, add_buf_size,
				    m->buf, room(max_size), &m->rng, &m->log);
	else
		n = mutate_bytes(VMAFUZZ_TARGET.desc, buf, buf_size, m->buf, room(max_size),
				 add_buf, add_buf_size, &m->rng, &m->log);
	*out_buf = m->buf;
	return n;
}

size_t afl_custom_havoc_mutation(void *data, uint8_t *buf, size_t buf_size, uint8_t **out_buf,
				 size_t max_size)
{
	struct afl_mutator *m = data;
	struct prog *p = &m->prog;
	size_t n;

	prog_decode(VMAFUZZ_TARGET.desc, buf, buf_size, p);
	memset(&m->log, 0, sizeof(m->log));
	for (unsigned tries = 0; tries < 16; tries++) {
		enum mut_kind k = (enum mut_kind)prng_below(&m->rng, MUT_NR);

		if (mutate_prog(VMAFUZZ_TARGET.desc, p, k, NULL, &m->rng)) {
			m->log.kind[m->log.n++] = k;
			break;
		}
	}
	prog_fit(p, room(max_size));
	n = prog_encode(p, m->buf);
	if (n > max_size)
		n = max_size;
	*out_buf = m->buf;
	return n;
}

uint8_t afl_custom_havoc_mutation_probability(void *data)
{
	(void)data;
	return 6; /* percent, AFL++'s default */
}

const char *afl_custom_describe(void *data, size_t max_description_len)
{
	struct afl_mutator *m = data;
	size_t len = sizeof(m->desc) < max_description_len ? sizeof(m->desc) : max_description_len;
	int at;

	if (!len)
		return NULL;
	at = snprintf(m->desc, len, "vmafuzz%s", m->log.crossover ? "-cross" : "");
	for (unsigned i = 0; i < m->log.n && at > 0 && (size_t)at < len; i++)
		at +=
		    snprintf(m->desc + at, len - (size_t)at, "-%s", mut_kind_name(m->log.kind[i]));
	return m->desc;
}

/*
 * Trimming: step s < n (n: operations at the start) tries the program
 * without operation n-1-s (from the end, so lower indices never shift);
 * the last step tries it with half its schedule. A step that keeps the
 * coverage is kept.
 */
int32_t afl_custom_init_trim(void *data, uint8_t *buf, size_t buf_size)
{
	struct afl_mutator *m = data;

	prog_decode(VMAFUZZ_TARGET.desc, buf, buf_size, &m->trimmed);
	m->trim_step = 0;
	m->trim_nops = m->trimmed.nops;
	m->trim_steps = m->trim_nops + (m->trimmed.nsched ? 1 : 0);
	return (int32_t)m->trim_steps;
}

size_t afl_custom_trim(void *data, uint8_t **out_buf)
{
	struct afl_mutator *m = data;
	struct prog *p = &m->prog;

	*p = m->trimmed;
	if (m->trim_step < m->trim_nops) {
		unsigned at = m->trim_nops - 1 - m->trim_step;

		memmove(&p->ops[at], &p->ops[at + 1], (p->nops - at - 1) * sizeof(p->ops[0]));
		p->nops--;
	} else {
		p->nsched /= 2;
	}
	*out_buf = m->buf;
	return prog_encode(p, m->buf);
}

int32_t afl_custom_post_trim(void *data, uint8_t success)
{
	struct afl_mutator *m = data;

	if (success)
		m->trimmed = m->prog;
	return (int32_t)++m->trim_step;
}

void afl_custom_deinit(void *data)
{
	free(data);
}
