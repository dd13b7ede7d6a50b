/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Determinism check of a target's engine entry (make stable ->
 * out/stable/<target>, make kfuzz-stable -> out/kernel/stable/<target>):
 *
 *   stable/<target> [-v] [--afl] FILE|DIR...
 *
 * A program's outcome must depend on its bytes alone: nothing may carry
 * over from one input to the next in a process that runs many (AFL++'s
 * persistent mode, libFuzzer). Everything but this file is built with edge
 * coverage (-fsanitize-coverage=trace-pc-guard); the callbacks here count
 * the hits of each edge, one run at a time.
 *
 * For each input, a fresh process (fork, after LLVMFuzzerInitialize) runs
 * the input first, then the 64 inputs before it in the list (OTHERS,
 * wrapping round; all of them in a shorter list), then the input twice
 * more. Its three runs must hit every edge as many times. No
 * AddressSanitizer quarantine (below), so the runs' objects lie where what
 * ran before left room. AFL++ calls an input whose
 * runs differ "variable", and its stability is the share of edges never
 * seen to vary; --afl compares as AFL++ does, which is weaker: a 4-byte
 * warm-up input first (as its libFuzzer driver runs in each new process),
 * and hit counts as its map holds them (an 8-bit counter that skips zero
 * when it wraps) in its buckets (1, 2, 3, 4-7, 8-15, 16-31, 32-127, 128+).
 *
 * Prints each edge that differs (function, file and line, the three
 * counts) and ends with "N inputs, M vary"; exits 0 when none varies, 1
 * when one does (or an input crashed), 2 on a bad command line.
 */
#include <dirent.h>
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv) __attribute__((weak));
void __sanitizer_symbolize_pc(void *pc, const char *fmt, char *out, size_t size)
    __attribute__((weak));

/*
 * AddressSanitizer's defaults for this driver: no quarantine, so that freed
 * memory is handed out again at once. Then where malloc puts an object
 * depends on what ran before, as in a long fuzzing process (whose
 * quarantine has filled), and code whose path follows the order of
 * addresses (a sort of pointers) shows here. ASAN_OPTIONS still win.
 */
const char *__asan_default_options(void);

const char *__asan_default_options(void)
{
	return "quarantine_size_mb=0:thread_local_quarantine_size_kb=0";
}

/* ---- the coverage callbacks (this file has no coverage itself) ---------- */

static uint32_t nguards;
static uint32_t *hits; /* [guard]: hits in the current run */
static void **edge_pc; /* [guard]: where the edge is, when it was first hit */

/* (called from the sanitizers' own start-up too, before their shadow
 * memory exists: not instrumented by them) */
#define UNCHECKED __attribute__((no_sanitize("address", "undefined")))

void __sanitizer_cov_trace_pc_guard_init(uint32_t *start, uint32_t *stop);
void __sanitizer_cov_trace_pc_guard(uint32_t *guard);

UNCHECKED void __sanitizer_cov_trace_pc_guard_init(uint32_t *start, uint32_t *stop)
{
	if (start == stop || *start)
		return; /* every object's constructor passes the same section */
	for (uint32_t *g = start; g < stop; g++)
		*g = ++nguards;
	hits = calloc(nguards + 1, sizeof(*hits));
	edge_pc = calloc(nguards + 1, sizeof(*edge_pc));
	if (!hits || !edge_pc)
		abort();
}

UNCHECKED void __sanitizer_cov_trace_pc_guard(uint32_t *guard)
{
	uint32_t g = *guard;

	if (!g)
		return; /* before the guards are numbered (sanitizers' start-up) */
	if (!edge_pc[g])
		edge_pc[g] = __builtin_return_address(0);
	hits[g]++;
}

/* ---- inputs --------------------------------------------------------------- */

struct input {
	char *path;
	uint8_t *data;
	size_t size;
};

static struct input *inputs;
static size_t ninputs, cap_inputs;

static bool add_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	struct input in = {NULL, NULL, 0};
	size_t cap = 0, got;

	if (!f) {
		fprintf(stderr, "stable: cannot open %s: %s\n", path, strerror(errno));
		return false;
	}
	in.path = strdup(path);
	do {
		if (in.size == cap) {
			cap = cap ? 2 * cap : 4096;
			in.data = realloc(in.data, cap);
			if (!in.data)
				abort();
		}
		got = fread(in.data + in.size, 1, cap - in.size, f);
		in.size += got;
	} while (got);
	fclose(f);
	if (ninputs == cap_inputs) {
		cap_inputs = cap_inputs ? 2 * cap_inputs : 64;
		inputs = realloc(inputs, cap_inputs * sizeof(*inputs));
		if (!inputs)
			abort();
	}
	inputs[ninputs++] = in;
	return true;
}

/* A file, or every regular file of a directory (sorted; not dotfiles nor
 * AFL++'s README.txt). */
static bool add_path(const char *path)
{
	struct dirent **names;
	struct stat st;
	int n;
	bool ok = true;

	if (stat(path, &st) || !S_ISDIR(st.st_mode))
		return add_file(path);
	n = scandir(path, &names, NULL, alphasort);
	if (n < 0) {
		fprintf(stderr, "stable: cannot read %s: %s\n", path, strerror(errno));
		return false;
	}
	for (int i = 0; i < n; i++) {
		char *p;

		if (names[i]->d_name[0] != '.' && strcmp(names[i]->d_name, "README.txt") &&
		    asprintf(&p, "%s/%s", path, names[i]->d_name) >= 0) {
			if (!stat(p, &st) && S_ISREG(st.st_mode))
				ok = add_file(p) && ok;
			free(p);
		}
		free(names[i]);
	}
	free(names);
	return ok;
}

/* ---- runs and their comparison ------------------------------------------ */

static bool afl_view; /* --afl */

/* The count AFL++'s map holds after @n hits (8 bits, never zero once hit),
 * in its bucket (afl-fuzz's classify_counts). */
static unsigned afl_bucket(uint32_t n)
{
	unsigned c = n ? (n - 1) % 255 + 1 : 0;

	if (c <= 2)
		return c;
	if (c == 3)
		return 4;
	if (c <= 7)
		return 8;
	if (c <= 15)
		return 16;
	if (c <= 31)
		return 32;
	return c <= 127 ? 64 : 128;
}

static bool same(uint32_t a, uint32_t b)
{
	return afl_view ? afl_bucket(a) == afl_bucket(b) : a == b;
}

/* Run @in once; its hits are left in @out. */
static void run(const struct input *in, uint32_t *out)
{
	memset(hits, 0, (nguards + 1) * sizeof(*hits));
	LLVMFuzzerTestOneInput(in->data, in->size);
	if (out)
		memcpy(out, hits, (nguards + 1) * sizeof(*hits));
}

static void print_edge(uint32_t g)
{
	char where[512] = "?";

	if (__sanitizer_symbolize_pc && edge_pc[g])
		__sanitizer_symbolize_pc((char *)edge_pc[g] - 1, "%f %S", where, sizeof(where));
	else if (edge_pc[g])
		snprintf(where, sizeof(where), "pc %p", edge_pc[g]);
	printf("    edge %u in %s\n", g, where);
}

/* Compare the three runs of @in; print the edges that differ. */
static unsigned compare(const struct input *in, uint32_t *const r[3])
{
	unsigned ndiff = 0;

	for (uint32_t g = 1; g <= nguards; g++) {
		if (same(r[0][g], r[1][g]) && same(r[1][g], r[2][g]))
			continue;
		if (!ndiff++)
			printf("%s: its runs differ (hits: first, after others, again)\n",
			       in->path);
		if (ndiff <= 20) {
			print_edge(g);
			printf("      hits %u, %u, %u\n", r[0][g], r[1][g], r[2][g]);
		}
	}
	if (ndiff > 20)
		printf("    ... %u edges in all\n", ndiff);
	return ndiff;
}

#define OTHERS 64

/* In a fresh process: input @i, the OTHERS before it, @i twice; 0 if its
 * runs agree. */
static int check_one(size_t i, bool verbose)
{
	static const uint8_t warmup[4] = "##SI"; /* AFL++'s driver: "##SIG_AFL_PERSISTENT##" */
	size_t others = ninputs < OTHERS ? ninputs : OTHERS;
	uint32_t *r[3];
	unsigned ndiff, edges = 0;

	for (int k = 0; k < 3; k++) {
		r[k] = malloc((nguards + 1) * sizeof(uint32_t));
		if (!r[k])
			abort();
	}
	if (afl_view)
		run(&(struct input){"warm-up", (uint8_t *)warmup, sizeof(warmup)}, NULL);
	run(&inputs[i], r[0]);
	for (size_t k = others; k > 0; k--)
		run(&inputs[(i + ninputs - k) % ninputs], NULL);
	run(&inputs[i], r[1]);
	run(&inputs[i], r[2]);
	ndiff = compare(&inputs[i], r);
	for (uint32_t g = 1; g <= nguards; g++)
		edges += r[0][g] != 0;
	if (verbose)
		printf("%s: %u edges, %s\n", inputs[i].path, edges, ndiff ? "varies" : "stable");
	return ndiff ? 1 : 0;
}

static int usage(FILE *out, const char *argv0)
{
	fprintf(out,
		"usage: %s [-v] [--afl] FILE|DIR...\n"
		"Runs each input in a fresh process, then after up to %d others, then\n"
		"again, and compares how often the runs hit each edge (--afl: as AFL++\n"
		"compares, after a warm-up input, in its buckets of hit counts).\n"
		"Exit 0: every input's runs agree; 1: one's differ or it crashed.\n",
		argv0, OTHERS);
	return out == stdout ? 0 : 2;
}

int main(int argc, char **argv)
{
	bool verbose = false;
	unsigned vary = 0;
	int a = 1;

	for (; a < argc && argv[a][0] == '-'; a++) {
		if (!strcmp(argv[a], "-h") || !strcmp(argv[a], "--help"))
			return usage(stdout, argv[0]);
		else if (!strcmp(argv[a], "-v"))
			verbose = true;
		else if (!strcmp(argv[a], "--afl"))
			afl_view = true;
		else {
			fprintf(stderr, "stable: unknown option '%s'\n", argv[a]);
			return usage(stderr, argv[0]);
		}
	}
	if (a == argc)
		return usage(stderr, argv[0]);
	for (; a < argc; a++)
		if (!add_path(argv[a]))
			return 2;
	if (!ninputs) {
		fprintf(stderr, "stable: no inputs\n");
		return 2;
	}
	if (LLVMFuzzerInitialize)
		LLVMFuzzerInitialize(&argc, &argv);
	fflush(stdout);
	for (size_t i = 0; i < ninputs; i++) {
		pid_t pid = fork();
		int status;

		if (pid < 0) {
			perror("stable: fork");
			return 2;
		}
		if (pid == 0) {
			int rc = check_one(i, verbose);

			fflush(stdout);
			_exit(rc);
		}
		waitpid(pid, &status, 0);
		if (WIFSIGNALED(status) || (WIFEXITED(status) && WEXITSTATUS(status) > 1))
			printf("%s: crashed (status %#x)\n", inputs[i].path, status);
		vary += status != 0;
	}
	printf("%zu inputs, %u vary%s\n", ninputs, vary, afl_view ? " (as AFL++ sees them)" : "");
	return vary ? 1 : 0;
}
