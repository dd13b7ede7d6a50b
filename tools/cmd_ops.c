/* SPDX-License-Identifier: GPL-2.0 */
/*
 * vmafuzz ops TARGET: the operations of a target's programs, each with the
 * text syntax of its arguments, its help line and the arguments' names (as
 * the target's argument struct has them), then the syntax shared by all (ranges, fail_at, config
 * bits, fibers, schedule).
 */
#include "cmd.h"

#include <stdio.h>

static void print_field_syntax(const struct prog_field *f)
{
	switch (f->kind) {
	case FK_SEL:
		printf(" %s<0..%u>", f->prefix, f->max - 1u);
		break;
	case FK_U8:
		printf(" %s<0..255>", f->prefix);
		break;
	case FK_RANGE:
		printf(" RANGE");
		break;
	case FK_CHOICE:
	case FK_FLAGS:
		printf(" ");
		for (unsigned i = 0; f->names[i]; i++)
			printf("%s%s", i ? (f->kind == FK_CHOICE ? "|" : ",") : "", f->names[i]);
		break;
	}
}

static void print_common_syntax(const struct prog_desc *d)
{
	printf("\nRANGE: e<k>+<d> (k-th entry), g<k>+<d> (k-th empty range), @<addr>, top-<n>;\n"
	       "       then :<len> (1..255) or :end (to the end of the range holding the start)\n"
	       "fail_at=N: the Nth allocation inside the operation fails\n");
	if (d->config_names && d->config_names[0]) {
		printf("config:");
		for (unsigned i = 0; d->config_names[i]; i++)
			printf(" %s", d->config_names[i]);
		printf("\n");
	}
	printf("fibers: t0..t%u   schedule: 'sched <byte> ...'\n", d->nfibers - 1);
}

int cmd_ops(int argc, char **argv)
{
	const struct fuzz_target *t;
	const struct prog_desc *d;

	if (argc != 2)
		return cmd_usage_error("ops", "%s",
				       argc < 2 ? "needs a target" : "takes one target");
	t = cmd_target("ops", argv[1]);
	if (!t)
		return 2;
	d = t->desc;
	printf("%s programs: one operation per line, '[t<fiber>:] OP ARGS [fail_at=N]'\n\n",
	       t->name);
	for (unsigned i = 0; i < d->nops; i++) {
		printf("  %s", d->ops[i].name);
		for (unsigned f = 0; f < d->ops[i].nfields; f++)
			print_field_syntax(&d->ops[i].fields[f]);
		printf("\n      %s\n", d->ops[i].help);
		if (d->ops[i].nfields) {
			printf("      arguments:");
			for (unsigned f = 0; f < d->ops[i].nfields; f++)
				printf(" %s", d->ops[i].fields[f].name);
			printf("\n");
		}
	}
	print_common_syntax(d);
	return 0;
}
