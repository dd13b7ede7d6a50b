/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A guest kernel's console, read line by line as it comes, turned into
 * reports: each BUG, WARNING, KASAN report, lockdep splat, maple tree
 * validation failure, Oops and panic the kernel prints becomes one report
 * with a kind, a title ("WARNING in dup_mmap"), the function to blame (the
 * faulting RIP's, else the first frame of the call trace that is not one
 * of the reporting machinery's own helpers), the source line the kernel
 * named when it named one, the program the guest said was running, and the
 * report's text.
 *
 * The guest marks each program before it runs it with a line
 * "vmafuzz: program <id>", and each of its operations with "vmafuzz: op
 * <operation>" as it starts (vmafuzz conform --mark); a report belongs to
 * the last program marked before it, and carries that program's
 * operations up to the one under way: a fuzz_mm program that runs again.
 * Of the job's own findings (conform's differences, vmafuzz race's reads
 * out of bounds) only a program's first is a report: the later ones of a
 * conform --keep-going run follow from it. Lines may carry printk's
 * "[  12.345678]" time stamp and a caller id ("[T123]"), which are read past.
 */
#ifndef VMAFUZZ_CONSOLE_H
#define VMAFUZZ_CONSOLE_H

#include <stdbool.h>
#include <stddef.h>

#define CONSOLE_LINE_MAX 512
#define CONSOLE_REPORT_LINES 160

struct console_report {
	char kind[24];	   /* WARNING, BUG, KASAN, lockdep, maple, Oops, panic */
	char title[192];   /* "WARNING in dup_mmap", "KASAN: slab-use-after-free in ..." */
	char frame[96];	   /* the function blamed, or "" */
	char where[160];   /* "kernel/fork.c:712" when the kernel named it, else "" */
	char program[256]; /* the program marked last before it, or "" */
	char *text;	   /* the report's lines, time stamps removed (malloc'd) */
	size_t len;
	char *prog;  /* "target fuzz_mm" and the operations marked, or NULL (malloc'd) */
	double at_s; /* when it came, for the one reading the console (0 here) */
};

/* Lines kept from before a report's first line (a VMA's dump precedes
 * VM_BUG_ON_VMA's "kernel BUG at"). */
#define CONSOLE_BEFORE_LINES 6

struct console {
	char program[256];
	bool in_report, in_trace;
	bool job_found; /* the current program has a report of the job's (its first difference) */
	unsigned nlines;
	unsigned since; /* lines since the last report ended */
	char before[CONSOLE_BEFORE_LINES][CONSOLE_LINE_MAX];
	unsigned nbefore;
	char *ops; /* the current program's operations marked so far */
	size_t nops_len, ops_cap;
	struct console_report cur;
	size_t cap;
	/* reports complete, waiting to be taken */
	struct console_report *done;
	unsigned ndone, capdone;
	/* the start of a line of the guest's programs that a kernel message
	 * cut into (printk writes whole lines, the job's output goes on
	 * after it, on the console's next line) */
	char pending[CONSOLE_LINE_MAX];
	size_t pending_len;
};

void console_init(struct console *c);
void console_free(struct console *c);
/* One line of the console, without its newline. */
void console_line(struct console *c, const char *line);
/* The console ended (the guest stopped): a report under way is complete. */
void console_end(struct console *c);
/* The next complete report, or false; the caller owns r->text and r->prog
 * (free). */
bool console_take(struct console *c, struct console_report *r);

/* The part of @line after printk's time stamp and caller id. */
const char *console_strip(const char *line);

#endif
