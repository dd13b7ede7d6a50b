/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Engine entry for one target (libFuzzer, or AFL++ through its libFuzzer
 * driver): built once per target with -DVMAFUZZ_TARGET=fuzz_<name>_target.
 *
 * Unless built with -DVMAFUZZ_NO_CUSTOM_MUTATOR, libFuzzer mutates inputs
 * as programs (mutator.h) through LLVMFuzzerCustomMutator and
 * LLVMFuzzerCustomCrossOver, and one time in four hands the input to its
 * own byte-level mutations (LLVMFuzzerMutate, which also uses -dict), so
 * nothing the plain engine can reach is lost. One mutation in
 * -return_to_seeds=K (default 16; 0: never) starts from a seed of the
 * corpus directories on the command line rather than from the engine's
 * pick (seed_pool.h). AFL++'s driver ignores these hooks; AFL++ gets the
 * same mutator as a library (main_afl_mutator.c).
 */
#include "fuzz/targets/exec.h"
#include "fuzz/targets/target.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#ifndef VMAFUZZ_NO_CUSTOM_MUTATOR
#include "fuzz/prog/mutator.h"
#include "seed_pool.h"

#include <string.h>
#endif

#ifndef VMAFUZZ_TARGET
#error "build with -DVMAFUZZ_TARGET=fuzz_<name>_target"
#endif

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/*
 * UndefinedBehaviorSanitizer's defaults for this binary: OSS-Fuzz's UBSan
 * builds check unsigned-integer-overflow too, and ClusterFuzz silences it
 * at run time, since unsigned wrap-around is defined and intended (the
 * model's hashes, masks and "last + 1" of a range ending at the top). A
 * local run of such a build does the same; UBSAN_OPTIONS in the
 * environment still come after these and win.
 */
const char *__ubsan_default_options(void);

const char *__ubsan_default_options(void)
{
	return "silence_unsigned_overflow=1:print_stacktrace=1";
}

int LLVMFuzzerInitialize(int *argc, char ***argv);
/* Defined by libFuzzer only (not by AFL++'s driver or main_stable.c). */
void __libfuzzer_is_present(void) __attribute__((weak));

/*
 * libFuzzer's defaults for these targets, ahead of the command line's own
 * flags (a later flag wins, so -entropic_scale_per_exec_time=0 turns it
 * off). libFuzzer calls this before it reads its flags.
 *
 * -entropic_scale_per_exec_time=1: an input's energy (how often it is
 * mutated) is scaled down as it runs longer. A program's cost grows with
 * its trees and processes, and without this libFuzzer spent most of its
 * time on the largest ones, for no more edges (docs/benchmarks.md; the
 * figures in docs/results/benchmarks.md). A target whose costly programs
 * are the point (flat_energy) says =0.
 */
static const char *engine_defaults[] = {"-entropic_scale_per_exec_time=1"};
static char **engine_argv; /* what libFuzzer reads from now on */

#ifndef VMAFUZZ_NO_CUSTOM_MUTATOR
#define RETURN_FLAG "-return_to_seeds="
static unsigned return_one_in = 16; /* 0: never */

/*
 * Our own flag, taken out of what libFuzzer reads: true if @arg was it. Its
 * value goes to VMAFUZZ_RETURN_TO_SEEDS too, for a -fork=N engine's workers,
 * whose command lines are made from what libFuzzer read.
 */
static bool take_return_flag(const char *arg)
{
	const char *v = arg + strlen(RETURN_FLAG);
	char *end;
	unsigned long k;

	if (strncmp(arg, RETURN_FLAG, strlen(RETURN_FLAG)))
		return false;
	k = strtoul(v, &end, 10);
	if (!*v || *end || k > 1000000) {
		fprintf(stderr, "vmafuzz: %s: expected %sK, K a number (0: never)\n", arg,
			RETURN_FLAG);
		exit(2);
	}
	return_one_in = (unsigned)k;
	setenv("VMAFUZZ_RETURN_TO_SEEDS", v, 1);
	return true;
}

/* What a -fork=N engine's worker inherits (take_return_flag). */
static void inherit_return_flag(void)
{
	const char *v = getenv("VMAFUZZ_RETURN_TO_SEEDS");
	char flag[64];

	if (v && strlen(v) < sizeof(flag) - sizeof(RETURN_FLAG)) {
		snprintf(flag, sizeof(flag), "%s%s", RETURN_FLAG, v);
		take_return_flag(flag);
	}
}

/*
 * The seeds: named files of the directories on the command line and of
 * those VMAFUZZ_SEED_DIRS lists (colon-separated), which is then set to all
 * of them. A -fork=N engine's workers inherit it: their command line gives
 * them a list of the corpus's hashed copies (-seed_inputs), no named file.
 */
static void load_seeds(int argc, char **argv)
{
	const char *env = getenv("VMAFUZZ_SEED_DIRS");
	size_t room = (env ? strlen(env) : 0) + 2;
	char *dirs, *tok, *save = NULL;

	for (int i = 1; i < argc; i++)
		room += strlen(argv[i]) + 1;
	dirs = calloc(1, room);
	if (!dirs)
		return;
	if (env)
		strcpy(dirs, env);
	for (int i = 1; i < argc; i++)
		if (argv[i][0] != '-') {
			if (*dirs)
				strcat(dirs, ":");
			strcat(dirs, argv[i]);
		}
	if (*dirs)
		setenv("VMAFUZZ_SEED_DIRS", dirs, 1);
	for (tok = strtok_r(dirs, ":", &save); tok; tok = strtok_r(NULL, ":", &save))
		seed_pool_add_dir(tok);
	free(dirs);
	if (seed_pool_count() && return_one_in)
		fprintf(stderr,
			"INFO: vmafuzz: %u seeds; one mutation in %u starts from one of them "
			"(%sK, 0: never)\n",
			seed_pool_count(), return_one_in, RETURN_FLAG);
}
#else
static bool take_return_flag(const char *arg)
{
	(void)arg;
	return false;
}

static void inherit_return_flag(void)
{
}

static void load_seeds(int argc, char **argv)
{
	(void)argc;
	(void)argv;
}
#endif

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	enum { N = sizeof(engine_defaults) / sizeof(engine_defaults[0]) };
	char **args;
	int n = 1 + N;

	exec_under_engine = true; /* keep libFuzzer's death callback */
	if (!__libfuzzer_is_present || *argc < 1)
		return 0;
	if (VMAFUZZ_TARGET.flat_energy)
		engine_defaults[0] = "-entropic_scale_per_exec_time=0";
	args = calloc((size_t)*argc + N + 1, sizeof(*args));
	if (!args)
		return 0;
	args[0] = (*argv)[0];
	for (int i = 0; i < N; i++)
		args[1 + i] = (char *)engine_defaults[i];
	inherit_return_flag();
	for (int i = 1; i < *argc; i++)
		if (!take_return_flag((*argv)[i]))
			args[n++] = (*argv)[i];
	*argc = n;
	*argv = engine_argv = args;
	load_seeds(n, args);
	fputs("INFO: vmafuzz: libFuzzer defaults", stderr);
	for (int i = 0; i < N; i++)
		fprintf(stderr, " %s", engine_defaults[i]);
	fputs(" (the command line's own flags come after and win)\n", stderr);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	return VMAFUZZ_TARGET.run(data, size);
}

#ifndef VMAFUZZ_NO_CUSTOM_MUTATOR
/* libFuzzer's byte-level mutator; weak, so that drivers without it link. */
size_t LLVMFuzzerMutate(uint8_t *data, size_t size, size_t max_size) __attribute__((weak));
size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size, unsigned int seed);
size_t LLVMFuzzerCustomCrossOver(const uint8_t *data1, size_t size1, const uint8_t *data2,
				 size_t size2, uint8_t *out, size_t max_out_size,
				 unsigned int seed);

size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size, unsigned int seed)
{
	struct prng r = {seed};

	if (return_one_in && prng_below(&r, return_one_in) == 0) {
		size_t n = 0;
		const uint8_t *s = seed_pool_pick(&r, &n);

		if (s && n <= max_size) {
			memcpy(data, s, n);
			size = n;
		}
	}
	if (LLVMFuzzerMutate && prng_below(&r, 4) == 0)
		return LLVMFuzzerMutate(data, size, max_size);
	return mutate_bytes(VMAFUZZ_TARGET.desc, data, size, data, max_size, NULL, 0, &r, NULL);
}

size_t LLVMFuzzerCustomCrossOver(const uint8_t *data1, size_t size1, const uint8_t *data2,
				 size_t size2, uint8_t *out, size_t max_out_size, unsigned int seed)
{
	struct prng r = {seed};

	return crossover_bytes(VMAFUZZ_TARGET.desc, data1, size1, data2, size2, out, max_out_size,
			       &r, NULL);
}
#endif
