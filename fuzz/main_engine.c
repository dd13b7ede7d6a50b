/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Engine entry for one target (libFuzzer, or AFL++ through its libFuzzer
 * driver): built once per target with -DVMAFUZZ_TARGET=fuzz_<name>_target.
 *
 * Unless built with -DVMAFUZZ_NO_CUSTOM_MUTATOR, libFuzzer mutates inputs
 * as programs (mutator.h) through LLVMFuzzerCustomMutator and
 * LLVMFuzzerCustomCrossOver, and one time in four hands the input to its
 * own byte-level mutations (LLVMFuzzerMutate, which also uses -dict), so
 * nothing the plain engine can reach is lost. AFL++'s driver ignores these
 * hooks; AFL++ gets the same mutator as a library (main_afl_mutator.c).
 */
#include "exec.h"
#include "target.h"

#ifndef VMAFUZZ_NO_CUSTOM_MUTATOR
#include "mutator.h"
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

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	exec_under_engine = true; /* keep libFuzzer's death callback */
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
