/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Programs: what a fuzz input decodes to and what a person reads in a crash
 * report.
 *
 * Binary layout (format PROG_FORMAT_VERSION):
 *
 *   byte 0        config: program-wide variant bits (named per target)
 *   byte 1        n: length of the schedule region
 *   bytes 2 ..    operations, PROG_RECORD bytes each; a partial record at
 *                 the end of the region is ignored
 *   last n bytes  schedule choices (read by the scheduler, not by operations)
 *
 * Every operation record is
 *
 *   [code] [fiber] [fail_at] [arg0 .. arg8]
 *
 * where code selects the operation (modulo the target's count, so every
 * byte is an operation), fiber names the thread it runs on (modulo the
 * target's fibers), fail_at makes the Nth allocation inside the operation
 * fail (0: none), and the arguments are fields described by the target's
 * operation table. Decoding is total: every byte string is a program. A
 * mutation of one record changes that operation only, and the schedule sits
 * apart so a change to the operations does not reshuffle it.
 *
 * The text form (prog_text.c) prints and parses the same programs; bytes
 * the decoder ignores are not printed, so text -> bytes -> text is the
 * identity and bytes -> text -> bytes yields the canonical bytes.
 */
#ifndef VMAFUZZ_PROG_H
#define VMAFUZZ_PROG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define PROG_FORMAT_VERSION 1
#define PROG_HEADER 2
#define PROG_RECORD 12
#define PROG_ARGS (PROG_RECORD - 3)
#define PROG_MAX_OPS 128
#define PROG_MAX_SCHED 255
#define PROG_MAX_FIBERS 5
/* Threads of a program in most targets (fuzz_rollup has PROG_MAX_FIBERS:
 * two readers and three writers). */
#define PROG_FIBERS 4
#define PROG_MAX_FIELDS 6

/* How a field of an operation reads its argument bytes. */
enum field_kind {
	FK_SEL,	   /* 1 byte, modulo `max`; text: <prefix><n> */
	FK_U8,	   /* 1 byte; text: <prefix><n> */
	FK_RANGE,  /* 4 bytes, a range spec (struct range_spec); text below */
	FK_CHOICE, /* 1 byte, modulo the number of names; text: the name */
	FK_FLAGS,  /* 1 byte, bits named by `names`; text: name,name or - */
};

struct prog_field {
	enum field_kind kind;
	const char *prefix;	  /* FK_SEL, FK_U8: text before the number */
	uint8_t max;		  /* FK_SEL: number of choices */
	const char *const *names; /* FK_CHOICE, FK_FLAGS: NULL-terminated */
	const char *name;	  /* the argument's name (vmafuzz ops, messages) */
	/* Where prog_decode_args puts the argument in the target's argument
	 * struct: a struct range_spec for FK_RANGE, a uint8_t otherwise. */
	uint16_t off;
};

struct prog_opdesc {
	const char *name;
	const char *help; /* one line: what the operation does */
	unsigned nfields;
	struct prog_field fields[PROG_MAX_FIELDS];
};

/* What a target's programs are made of. */
struct prog_desc {
	const char *target;
	unsigned nops;
	const struct prog_opdesc *ops;
	const char *const *config_names; /* names of config bits 0..7, NULL-terminated */
	unsigned nfibers;		 /* 1..PROG_MAX_FIBERS */
	size_t args_size;		 /* the struct prog_decode_args fills */
};

struct prog_op {
	uint8_t code;
	uint8_t fiber;
	uint8_t fail_at;
	uint8_t arg[PROG_ARGS];
};

struct prog {
	uint8_t config;
	unsigned nops;
	struct prog_op ops[PROG_MAX_OPS];
	unsigned nsched;
	uint8_t sched[PROG_MAX_SCHED];
};

/*
 * A range spec, the FK_RANGE field: where an operation applies, resolved
 * against live state so that most operations hit something.
 *
 *   mode   text          start
 *   ENTRY  e<k>+<d>      first index of the k-th entry (mod count) + d
 *   GAP    g<k>+<d>      first index of the k-th empty range (mod count) + d
 *   RAW    @<v>          v (0 .. 65535), in the target's unit
 *   TOP    top-<v>       the highest index - v
 *
 * followed by :<len> (len 1..255 units) or :end (to the end of the entry or
 * empty range that holds start). d is -128..127.
 */
enum range_mode { RS_ENTRY, RS_GAP, RS_RAW, RS_TOP };

struct range_spec {
	enum range_mode mode;
	uint8_t k;   /* ENTRY, GAP */
	int8_t d;    /* ENTRY, GAP */
	uint16_t v;  /* RAW, TOP */
	uint8_t len; /* 0: to the end */
};

void range_spec_decode(const uint8_t b[4], struct range_spec *rs);
void range_spec_encode(const struct range_spec *rs, uint8_t b[4]);

/* Bytes -> program (total). Canonicalizes: codes, fibers and selectors are
 * reduced modulo their counts, ignored bits cleared. */
void prog_decode(const struct prog_desc *d, const uint8_t *data, size_t size, struct prog *p);
/* Program -> bytes; returns the size written (buffer: prog_encoded_size). */
size_t prog_encode(const struct prog *p, uint8_t *out);
size_t prog_encoded_size(const struct prog *p);

/* Number of argument bytes a field takes. */
unsigned field_width(const struct prog_field *f);

/*
 * The one decoder of an operation's arguments: every field of @op's entry
 * in the table, by its kind, into the target's argument struct @args
 * (d->args_size bytes, cleared first) at the field's offset. Executors,
 * conform and the tests read arguments by name from that struct, never by
 * byte index.
 */
void prog_decode_args(const struct prog_desc *d, const struct prog_op *op, void *args);
/* Its mirror, for generators and tests: @op's code is set, its argument
 * bytes are written from @args, field by field. */
void prog_encode_args(const struct prog_desc *d, unsigned code, const void *args,
		      struct prog_op *op);

/* Text form. Print one operation (no newline), a whole program, or with a
 * marker "=>" at step @mark (-1: none). */
void prog_print_op(FILE *out, const struct prog_desc *d, const struct prog_op *op);
/* Where targets print each operation's result as they run it (replay -v);
 * NULL, the default and always under a fuzzing engine: nowhere. */
extern FILE *prog_trace;
void prog_print(FILE *out, const struct prog_desc *d, const struct prog *p, int mark);

/*
 * Parse the text form. On error returns false and writes
 * "<name>:<line>:<col>: <message>" to @err (size @errlen).
 * The optional line `target <name>` must match d->target.
 */
bool prog_parse(const struct prog_desc *d, const char *text, const char *name, struct prog *p,
		char *err, size_t errlen);

/* prog_parse for text that starts at line @first_line of the file @name
 * (a program inside a log): errors name the file's lines. */
bool prog_parse_at(const struct prog_desc *d, const char *text, const char *name,
		   unsigned first_line, struct prog *p, char *err, size_t errlen);

/*
 * A program inside a log (text, no NUL byte): the lines after a marker line
 * that starts with PROG_LOG_UNSAVED (vmafuzz fuzz prints a crash it could
 * not save so) or PROG_LOG_REPORT (a failure report, exec.h), up to the next
 * line that starts with "--- ". The @nth such program of the @size bytes at
 * @text (from 0): where its text starts, its length into *@len and the
 * number of its first line into *@line. NULL when there is none, or when
 * @text holds a NUL byte (a fuzz input's bytes, not a log): then *@line is
 * 0, or the first line of the @nth program when it is cut short (no line
 * after it starts with "--- ").
 */
#define PROG_LOG_UNSAVED "--- vmafuzz: unsaved crash "
#define PROG_LOG_REPORT "--- program ("
const char *prog_log_program(const char *text, size_t size, unsigned nth, size_t *len,
			     unsigned *line);

/* Parse @text (as prog_parse, errors on stderr) and encode it into a
 * malloc'd *@bytes of *@size bytes: false after a parse error. */
bool prog_text_bytes(const struct prog_desc *d, const char *text, uint8_t **bytes, size_t *size);

/* Which target a text program names in its `target` line (NULL if none);
 * copies at most len-1 bytes into buf. */
const char *prog_text_target(const char *text, char *buf, size_t len);

#endif
