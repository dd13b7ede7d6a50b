/* SPDX-License-Identifier: GPL-2.0 */
/* How often one mutation of an input fails (mutant_odds.h). */
#include "mutant_odds.h"

#include "fuzz/prog/mutator.h"
#include "fuzz/targets/exec.h"
#include "replay.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* Run one input in a child with its output silenced: true if it failed. */
static bool fails(const struct fuzz_target *t, const uint8_t *data, size_t size)
{
	int status;
	pid_t pid;

	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		perror("fork");
		exit(2);
	}
	if (pid == 0) {
		int null = open("/dev/null", O_WRONLY);

		if (null >= 0) {
			dup2(null, 1);
			dup2(null, 2);
		}
		exec_under_engine = true; /* the engine's rules: refused programs */
		t->run(data, size);
		_exit(0);
	}
	if (waitpid(pid, &status, 0) < 0) {
		perror("waitpid");
		exit(2);
	}
	return !(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

static void keep(const uint8_t *data, size_t size)
{
	FILE *f = fopen("first-failing-mutant", "wb");

	if (f) {
		fwrite(data, 1, size, f);
		fclose(f);
	}
}

int mutant_odds(const struct fuzz_target *t, const char *path, unsigned n, uint64_t seed)
{
	static uint8_t out[MUT_MAX_SIZE];
	unsigned failed = 0;
	uint8_t *in;
	size_t size;

	in = load_input(t, path, &size, stderr);
	if (!in)
		return 2;
	for (unsigned i = 0; i < n; i++) {
		struct prng r = {seed + i};
		size_t m = mutate_bytes(t->desc, in, size, out, sizeof(out), NULL, 0, &r, NULL);

		if (fails(t, out, m) && failed++ == 0)
			keep(out, m);
	}
	free(in);
	printf("%s: %u of %u mutants fail", path, failed, n);
	if (failed)
		printf(" (one in %.0f; the first in ./first-failing-mutant)", (double)n / failed);
	printf("\n");
	return 0;
}
