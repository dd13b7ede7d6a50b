/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Text the written tests share (ktest_mtree.c, ktest_vma.c).
 */
#ifndef VMAFUZZ_KTEST_TEXT_H
#define VMAFUZZ_KTEST_TEXT_H

#include <stdio.h>

/* @text's lines as lines of a C block comment (" *" then @lead before
 * each non-empty one), with any "*" "/" that would end it broken up. */
void ktest_put_comment(FILE *out, const char *text, const char *lead);

#endif
