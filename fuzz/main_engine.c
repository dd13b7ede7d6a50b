/*
 * Engine entry for one target (libFuzzer, or AFL++ through its libFuzzer
 * driver): built once per target with -DVMAFUZZ_TARGET=fuzz_<name>_target.
 */
#include "target.h"

#ifndef VMAFUZZ_TARGET
#error "build with -DVMAFUZZ_TARGET=fuzz_<name>_target"
#endif

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	return VMAFUZZ_TARGET.run(data, size);
}
