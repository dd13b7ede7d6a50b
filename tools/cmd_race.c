/* SPDX-License-Identifier: GPL-2.0 */
/*
 * vmafuzz race [--rounds N] FILE...: the threads of fuzz_mm programs run in
 * parallel on this machine's kernel, with its own checks (a splat under
 * ./build.sh vm) and smaps_rollup's tearing rules as the oracle.
 *
 * Each program is planned on the model (live/race_plan.h), probed first for
 * whether this kernel maps the zero page on a read fault; each round forks
 * a subject that runs the setup and then the other threads at once
 * (live/race_run.h). Per file: rounds run, operations per thread, rollup
 * reads checked, failures, and the operations left out by reason. A failure
 * (a subject killed by a signal, or one exiting non-zero, a torn read out
 * of bounds among the reasons) prints the round and the program, and ends
 * that file's rounds. Exit 0 clean, 1 after a failure, 2 on bad arguments,
 * an unreadable or malformed program (file:line) or a subject that could
 * not start. --mark: as conform's, the program ("vmafuzz: program FILE"
 * and each operation) on stderr before its rounds, so that a guest
 * kernel's report names it. --selftest-fail sets a lower bound no read can meet, for the
 * tests to see a failure reported.
 */
#include "cmd.h"
#include "crash_input.h"
#include "live/conform_ops.h"
#include "live/conform_probe.h"
#include "live/race_plan.h"
#include "live/race_run.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define RACE_DEFAULT_ROUNDS 10

struct race_opts {
	unsigned rounds;
	bool mark;	    /* --mark: the program on stderr, for a guest's console reader */
	bool selftest_fail; /* a lower bound no read meets, for the tests */
};

static int parse(int argc, char **argv, struct race_opts *o, char **files)
{
	int n = 0;

	o->rounds = RACE_DEFAULT_ROUNDS;
	o->selftest_fail = false;
	o->mark = false;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];

		if (!strcmp(a, "--rounds")) {
			char *end;
			unsigned long v;

			if (i + 1 >= argc)
				return cmd_usage_error("race", "%s needs a number", a);
			errno = 0;
			v = strtoul(argv[++i], &end, 10);
			if (errno || *end || !*argv[i] || argv[i][0] == '-' || v == 0 ||
			    v > 1000000)
				return cmd_usage_error(
				    "race", "--rounds takes 1 to 1000000, not '%s'", argv[i]);
			o->rounds = (unsigned)v;
		} else if (!strcmp(a, "--mark")) {
			o->mark = true;
		} else if (!strcmp(a, "--selftest-fail")) {
			o->selftest_fail = true;
		} else if (a[0] == '-' && a[1]) {
			return cmd_usage_error("race", "unknown option '%s'", a);
		} else {
			files[n++] = argv[i];
		}
	}
	if (!n)
		return cmd_usage_error("race", "%s", "needs a program file");
	files[n] = NULL;
	return 0;
}

static void print_plan(const char *file, const struct race_plan *plan, unsigned rounds,
		       unsigned checked, unsigned failures)
{
	printf("%s: %u rounds, ops", file, rounds);
	for (unsigned t = 0; t < plan->nthreads; t++)
		printf(" t%u %u", t, plan->per_thread[t]);
	printf(", %u rollup reads checked, %u failures\n", checked, failures);
	for (unsigned i = 0; i < plan->nreasons; i++)
		printf("  left out %u: %s\n", plan->skipped[i].count, plan->skipped[i].why);
}

/* One file: 0 clean or skipped, 1 a failure, 2 a bad program. */
static int race_file(const char *file, const struct race_opts *o, bool no_zero_page)
{
	const struct fuzz_target *t = &fuzz_mm_target;
	static struct prog p;
	static struct race_plan plan;
	unsigned rounds = 0, checked = 0, failures = 0;
	char why[1024];
	size_t size;
	uint8_t *data = crash_input_load("race", t, file, &size, NULL);
	int status = 0;

	if (!data)
		return 2;
	prog_decode(t->desc, data, size, &p);
	free(data);
	if (!race_plan_make(t->desc, &p, no_zero_page, &plan, why, sizeof(why))) {
		printf("%s: skipped: %s\n", file, why);
		return 0;
	}
	if (o->mark) {
		/* as conform --mark: a report during the rounds is this program's */
		fprintf(stderr, "vmafuzz: program %s\n", file);
		for (unsigned i = 0; i < p.nops; i++)
			fprintf(stderr, "vmafuzz: op %s\n",
				conform_op_text(t->desc, &p.ops[i], why, sizeof(why)));
	}
	if (o->selftest_fail)
		plan.stable_pages = 1ull << 40; /* 4 PiB resident: every checked read is short */
	while (rounds < o->rounds && !status) {
		struct race_round r;

		status = race_round_run(&plan, &r, why, sizeof(why));
		rounds++;
		checked += r.checked;
		if (status) {
			failures++;
			fprintf(stderr, "vmafuzz race: %s: round %u: %s\n", file, rounds, why);
			fprintf(stderr, "--- program (fuzz_mm, under vmafuzz race) ---\n");
			prog_print(stderr, t->desc, &p, -1);
		}
	}
	print_plan(file, &plan, rounds, checked, failures);
	return status;
}

int cmd_race(int argc, char **argv)
{
	struct race_opts o;
	char **files = calloc((size_t)argc + 1, sizeof(*files));
	int status, zero;

	if (!files) {
		fprintf(stderr, "vmafuzz race: out of memory\n");
		return 2;
	}
	status = parse(argc, argv, &o, files);
	if (status) {
		free(files);
		return status;
	}
	zero = conform_probe_zero_page();
	if (zero < 0) {
		free(files);
		return 2;
	}
	for (char **f = files; *f; f++) {
		int s = race_file(*f, &o, !zero);

		if (s > status)
			status = s;
	}
	free(files);
	return status;
}
