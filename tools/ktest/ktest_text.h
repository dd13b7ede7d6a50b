/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Text the written tests share (ktest_mtree.c, ktest_vma.c).
 */
#ifndef VMAFUZZ_KTEST_TEXT_H
#define VMAFUZZ_KTEST_TEXT_H

#include "fuzz/prog/prog.h"

#include <stdint.h>
#include <stdio.h>

/* @text's lines as lines of a C block comment (" *" then @lead before
 * each non-empty one), with any "*" "/" that would end it broken up. */
void ktest_put_comment(FILE *out, const char *text, const char *lead);

/* The program @data of @d as text (prog_print), or NULL when out of
 * memory; the caller frees it. */
char *ktest_program_text(const struct prog_desc *d, const uint8_t *data, size_t size);

/*
 * The test's opening comment up to its program: the licence line, "@name():
 * a @kind regression test written by vmafuzz (vmafuzz repro --ktest) from a
 * @target program" for @tree_name (or NULL), the program's own @comment (or
 * NULL), then "The program (@ops; docs/kernel.md):" and @program's lines.
 * The caller goes on with the comment and closes it.
 */
void ktest_put_head(FILE *out, const char *name, const char *kind, const char *target,
		    const char *tree_name, const char *comment, const char *ops,
		    const char *program);

#endif
