/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Text the written tests share (ktest_mtree.c, ktest_vma.c).
 */
#ifndef VMAFUZZ_KTEST_TEXT_H
#define VMAFUZZ_KTEST_TEXT_H

#include "fuzz/prog/prog.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

/* Why a program cannot be written as a test: the first reason given. */
struct ktest_refusal {
	bool refused;
	char why[512];
};

/* Refuse with the reason @fmt..., unless @r was refused already. */
void ktest_refuse(struct ktest_refusal *r, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* The start of a recording run: *@body a stream into *@buf (*@len bytes),
 * checks collected, not aborting. False with @why set when out of memory. */
bool ktest_begin_recording(FILE **body, char **buf, size_t *len, char *why, size_t whylen);

/*
 * The end of a recording run (under check_set_mode(CHECK_COLLECT)): a check
 * that fired is the model failing the program, refused as "a crash of the
 * harness or the model, not of @code"; checks go back to aborting and
 * @body is closed. True; false with @why set and *@buf (the recording)
 * freed.
 */
bool ktest_end_recording(struct ktest_refusal *no, FILE *body, char **buf, const char *code,
			 char *why, size_t whylen);

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
