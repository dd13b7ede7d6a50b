/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Writing JSON by hand (triage --json and --sarif): string literals with
 * the escapes JSON requires. Input is taken as UTF-8 and passed through.
 */
#ifndef VMAFUZZ_JSON_H
#define VMAFUZZ_JSON_H

#include <stdio.h>

/* @s as a JSON string literal, quotes included. */
void json_string(FILE *out, const char *s);

#endif
