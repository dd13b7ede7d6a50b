/* SPDX-License-Identifier: GPL-2.0 */
/*
 * vmafuzz compile [--target T] FILE.txt -o OUT: a text program into the
 * bytes its target reads. The target comes from --target, else the
 * program's `target` line, else the path.
 */
#include "cmd.h"
#include "file_util.h"
#include "fuzz/run/replay.h"
#include "tools/triage/crash_target.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* -o OUT and one input file, in any order. */
static int parse_args(int argc, char **argv, const char **in, const char **out)
{
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-o")) {
			if (i + 1 >= argc)
				return cmd_usage_error("compile", "%s needs a file name", "-o");
			*out = argv[++i];
		} else if (argv[i][0] == '-' && argv[i][1]) {
			return cmd_usage_error("compile", "unknown option '%s'", argv[i]);
		} else if (*in) {
			return cmd_usage_error("compile", "takes one input, got also '%s'",
					       argv[i]);
		} else {
			*in = argv[i];
		}
	}
	if (!*in || !*out)
		return cmd_usage_error("compile", "%s",
				       !*in ? "needs an input file" : "needs -o OUT");
	return 0;
}

/* The target of program @text read from @in, when --target gave none. */
static const struct fuzz_target *target_of(const char *text, const char *in)
{
	const struct fuzz_target *t = NULL;
	char name[64];

	if (prog_text_target(text, name, sizeof(name)))
		return cmd_target("compile", name); /* an unknown one is reported there */
	t = target_from_path(in);
	if (!t)
		fprintf(stderr,
			"vmafuzz compile: %s names no target; add a line "
			"'target NAME' or use --target\n",
			in);
	return t;
}

/* The bytes to @out ("-": stdout), a file whole or not at all: seeds and
 * regression inputs are compiled so. */
static int write_out(const char *out, const uint8_t *bin, size_t size)
{
	if (strcmp(out, "-"))
		return file_write_atomic(out, bin, size) ? 0 : 2;
	if (fwrite(bin, 1, size, stdout) != size || fflush(stdout)) {
		fprintf(stderr, "vmafuzz compile: cannot write to stdout: %s\n", strerror(errno));
		return 2;
	}
	return 0;
}

int cmd_compile(int argc, char **argv)
{
	const struct fuzz_target *t;
	const char *in = NULL, *out = NULL;
	uint8_t *text, *bin;
	size_t size;
	bool bad;
	int rc;

	t = cmd_take_target("compile", &argc, argv, &bad);
	if (bad)
		return 2;
	rc = parse_args(argc, argv, &in, &out);
	if (rc)
		return rc;
	text = read_file(in, &size, stderr);
	if (!text)
		return 2;
	if (!t)
		t = target_of((const char *)text, in);
	if (!t) {
		free(text);
		return 2;
	}
	bin = compile_text(t, (const char *)text, in, &size, stderr);
	free(text);
	if (!bin)
		return 2;
	rc = write_out(out, bin, size);
	free(bin);
	return rc;
}
