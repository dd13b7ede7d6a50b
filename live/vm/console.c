/* SPDX-License-Identifier: GPL-2.0 */
/* A guest kernel's console into reports (console.h). */
#include "console.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A panic this soon after a report is the report's end (oops=panic), not a
 * report of its own. */
#define PANIC_FOLLOWS 60

void console_init(struct console *c)
{
	memset(c, 0, sizeof(*c));
	c->since = PANIC_FOLLOWS;
}

void console_free(struct console *c)
{
	free(c->cur.text);
	free(c->ops);
	for (unsigned i = 0; i < c->ndone; i++) {
		free(c->done[i].text);
		free(c->done[i].prog);
	}
	free(c->done);
	memset(c, 0, sizeof(*c));
}

static bool starts(const char *s, const char *prefix)
{
	return !strncmp(s, prefix, strlen(prefix));
}

const char *console_strip(const char *line)
{
	const char *s = line;

	/* printk's "<6>" level, when the console shows it */
	if (s[0] == '<' && isdigit((unsigned char)s[1]) && s[2] == '>')
		s += 3;
	for (int k = 0; k < 2 && *s == '['; k++) {
		const char *e = strchr(s, ']');

		/* "[   12.345678]" then maybe "[    T1]" or "[  C0]" */
		if (!e || e - s > 20)
			break;
		s = e + 1;
		if (*s == ' ')
			s++;
	}
	return s;
}

static void put_text(struct console *c, const char *s)
{
	size_t n = strlen(s);

	if (c->cur.len + n + 2 > c->cap) {
		c->cap = (c->cur.len + n + 2) * 2;
		c->cur.text = realloc(c->cur.text, c->cap);
		if (!c->cur.text)
			abort();
	}
	memcpy(c->cur.text + c->cur.len, s, n);
	c->cur.len += n;
	c->cur.text[c->cur.len++] = '\n';
	c->cur.text[c->cur.len] = 0;
}

/* The function of "func+0x12/0x40" (a frame or a RIP), into @out. */
static bool frame_of(const char *s, char *out, size_t len)
{
	size_t n = strcspn(s, "+ \t");

	if (!n || s[n] != '+' || n >= len)
		return false;
	for (size_t i = 0; i < n; i++)
		if (!isalnum((unsigned char)s[i]) && s[i] != '_' && s[i] != '.')
			return false;
	memcpy(out, s, n);
	out[n] = 0;
	return true;
}

/* The reporting machinery's own frames, never to blame. */
static bool helper(const char *fn)
{
	static const char *const prefixes[] = {
	    "dump_stack",
	    "__warn",
	    "warn_slowpath",
	    "report_bug",
	    "handle_bug",
	    "exc_",
	    "asm_exc_",
	    "__might_",
	    "lock_acquire",
	    "lock_release",
	    "__lock_",
	    "lockdep_",
	    "print_",
	    "check_",
	    "validate_chain",
	    "kasan_",
	    "__kasan_",
	    "__asan_",
	    "show_stack",
	    "panic",
	    "die",
	    "oops_",
	    "do_error_trap",
	    "do_trap",
	    "fixup_exception",
	    "page_fault_oops",
	    "kernelmode_fixup",
	    "__bad_area",
	    "bad_area",
	    "do_user_addr_fault",
	    "debug_",
	    "rcu_lockdep_",
	    "down_",
	    "up_",
	    "_down_",
	    "__down",
	    "__up",
	    "mutex_",
	    "__mutex",
	    "_raw_",
	    "__raw_",
	    "rt_mutex",
	    "mt_dump",
	    "mas_dump",
	    "rwsem_assert",
	    "lockdep_assert",
	    "mmap_assert",
	    "vma_assert",
	    "vma_start_",
	};

	for (unsigned i = 0; i < sizeof(prefixes) / sizeof(prefixes[0]); i++)
		if (starts(fn, prefixes[i]))
			return true;
	return false;
}

/* The first frame of the call trace not a helper, not uncertain ("? f"). */
static void blame_trace(const char *text, char *out, size_t len)
{
	bool in = false;

	for (const char *l = text; *l;) {
		const char *e = strchr(l, '\n');
		size_t n = e ? (size_t)(e - l) : strlen(l);
		char line[CONSOLE_LINE_MAX], fn[96];

		snprintf(line, sizeof(line), "%.*s", (int)n, l);
		if (strstr(line, "Call Trace:") || strstr(line, "stack backtrace:"))
			in = true;
		else if (in) {
			const char *s = line;

			while (*s == ' ' || *s == '\t')
				s++;
			if (*s != '?' && *s != '<' && frame_of(s, fn, sizeof(fn)) && !helper(fn)) {
				snprintf(out, len, "%s", fn);
				return;
			}
		}
		l = e ? e + 1 : l + n;
	}
}

/* "RIP: 0010:func+0x.." of the report, when it has one. */
static void blame_rip(const char *text, char *out, size_t len)
{
	const char *r = strstr(text, "RIP: ");

	while (r) {
		const char *s = strchr(r, ':');

		if (s && s - r < 12 && (s = strchr(s + 1, ':')) && frame_of(s + 1, out, len))
			return;
		if (r[5] && frame_of(r + 5, out, len))
			return;
		r = strstr(r + 5, "RIP: ");
	}
}

/* Copy @s up to the first of @stops, trimmed. */
static void cut(char *out, size_t len, const char *s, const char *const *stops)
{
	size_t n = strlen(s);

	for (unsigned i = 0; stops[i]; i++) {
		const char *p = strstr(s, stops[i]);

		if (p && (size_t)(p - s) < n)
			n = (size_t)(p - s);
	}
	while (n && (s[n - 1] == ' ' || s[n - 1] == '!' || s[n - 1] == ':'))
		n--;
	snprintf(out, len, "%.*s", (int)n, s);
}

/* Kind, title, frame and place from the report's first line and text. */
static void describe(struct console_report *r, const char *first)
{
	static const char *const detail[] = {" at ", ", address", " in ", ": ", NULL};
	char msg[128] = "", fn[96] = "";
	const char *s;

	if (starts(first, "conform: ")) {
		/* "conform: 3: operation 5 differs: mremap p0 ..." */
		snprintf(r->kind, sizeof(r->kind), "model");
		s = strstr(first, " differs: ");
		if (s)
			cut(fn, sizeof(fn), s + 10, (const char *const[]){" ", NULL});
		snprintf(r->frame, sizeof(r->frame), "%s", fn);
		snprintf(r->title, sizeof(r->title), "the kernel differs from the model in %s",
			 fn[0] ? fn : "an operation");
		return;
	}
	if (starts(first, "vmafuzz race: ")) {
		/* "vmafuzz race: FILE: round 1: operation 82 (t1 rollup): Rss ... below ..." */
		snprintf(r->kind, sizeof(r->kind), "race");
		s = strstr(first, "): ");
		if (s) {
			const char *op = s;

			while (op > first && op[-1] != ' ')
				op--;
			snprintf(fn, sizeof(fn), "%.*s", (int)(s - op), op);
		}
		snprintf(r->frame, sizeof(r->frame), "%s", fn);
		if (strstr(first, " below the "))
			snprintf(msg, sizeof(msg), "smaps_rollup's Rss below its bound");
		else if (strstr(first, " above the "))
			snprintf(msg, sizeof(msg), "smaps_rollup's Rss above its bound");
		else if (strstr(first, "killed by signal"))
			snprintf(msg, sizeof(msg), "the threads' process killed");
		else
			snprintf(msg, sizeof(msg), "the threads' process failed");
		snprintf(r->title, sizeof(r->title), "race: %s%s%s", msg, fn[0] ? " in " : "", fn);
		return;
	}
	if (starts(first, "WARNING: CPU:")) {
		/* "WARNING: CPU: 0 PID: 1 at kernel/fork.c:712 dup_mmap+0x5a/0x60" */
		snprintf(r->kind, sizeof(r->kind), "WARNING");
		s = strstr(first, " at ");
		if (s) {
			const char *sp = strchr(s + 4, ' ');

			snprintf(r->where, sizeof(r->where), "%.*s",
				 sp ? (int)(sp - s - 4) : (int)strlen(s + 4), s + 4);
			if (sp)
				frame_of(sp + 1, fn, sizeof(fn));
		}
		snprintf(msg, sizeof(msg), "WARNING");
	} else if (starts(first, "WARNING: ")) {
		/* lockdep and RCU-lockdep: "possible circular locking ..." */
		snprintf(r->kind, sizeof(r->kind), "lockdep");
		cut(msg, sizeof(msg), first + 9, (const char *const[]){" detected", NULL});
		if (strstr(msg, "circular locking") || strstr(msg, "recursive locking"))
			snprintf(msg, sizeof(msg), "possible deadlock");
	} else if (starts(first, "BUG: KASAN: ")) {
		snprintf(r->kind, sizeof(r->kind), "KASAN");
		s = strstr(first, " in ");
		snprintf(msg, sizeof(msg), "KASAN: %.*s",
			 s ? (int)(s - first - 12) : (int)strlen(first + 12), first + 12);
		if (s)
			frame_of(s + 4, fn, sizeof(fn));
	} else if (starts(first, "kernel BUG at ")) {
		snprintf(r->kind, sizeof(r->kind), "BUG");
		cut(r->where, sizeof(r->where), first + 14, (const char *const[]){"!", NULL});
		snprintf(msg, sizeof(msg), "kernel BUG");
	} else if (starts(first, "BUG at ") || starts(first, "WARN at ")) {
		/* the maple tree's checks under CONFIG_DEBUG_MAPLE_TREE (MT_BUG_ON,
		 * MAS_WARN_ON ...): "BUG at mas_validate_gaps:7012 (1)" */
		bool bug = first[0] == 'B';
		const char *name = first + (bug ? 7 : 8), *colon = strchr(name, ':');

		snprintf(r->kind, sizeof(r->kind), "maple");
		if (colon) {
			snprintf(fn, sizeof(fn), "%.*s", (int)(colon - name), name);
			snprintf(r->where, sizeof(r->where), "lib/maple_tree.c:%d",
				 atoi(colon + 1));
		}
		snprintf(msg, sizeof(msg), "maple tree %s", bug ? "BUG" : "WARN");
	} else if (starts(first, "BUG: ")) {
		char what[120];

		snprintf(r->kind, sizeof(r->kind), "BUG");
		cut(what, sizeof(what), first + 5, detail + 1);
		snprintf(msg, sizeof(msg), "BUG: %.110s", what);
		if ((s = strstr(first, "invalid context at ")))
			cut(r->where, sizeof(r->where), s + 19, (const char *const[]){" ", NULL});
	} else if (starts(first, "Kernel panic - not syncing: ")) {
		snprintf(r->kind, sizeof(r->kind), "panic");
		snprintf(msg, sizeof(msg), "kernel panic: %.100s", first + 28);
	} else {
		/* "Oops: general protection fault, ...", "general protection fault..." */
		snprintf(r->kind, sizeof(r->kind), "Oops");
		s = starts(first, "Oops: ") ? first + 6 : first;
		cut(msg, sizeof(msg), s, (const char *const[]){",", " [#", ": ", NULL});
		if (!msg[0] || isdigit((unsigned char)msg[0]))
			snprintf(msg, sizeof(msg), "Oops");
	}
	if (!fn[0])
		blame_rip(r->text, fn, sizeof(fn));
	if (!fn[0] || helper(fn))
		blame_trace(r->text, fn, sizeof(fn));
	snprintf(r->frame, sizeof(r->frame), "%s", fn);
	if (fn[0] && strcmp(r->kind, "panic"))
		snprintf(r->title, sizeof(r->title), "%s in %s", msg, fn);
	else
		snprintf(r->title, sizeof(r->title), "%s", msg);
}

/* A finding of the guest's job rather than of the kernel: conform's
 * difference from the model, vmafuzz race's read out of bounds. */
static bool harness(const char *s)
{
	return (starts(s, "conform: ") && strstr(s, ": operation ") && strstr(s, " differs: ")) ||
	       (starts(s, "vmafuzz race: ") && strstr(s, ": round "));
}

static void finish(struct console *c)
{
	char first[CONSOLE_LINE_MAX] = "";
	struct console_report *r = &c->cur;

	if (!c->in_report)
		return;
	c->in_report = false;
	/* the first line that says what happened (not "cut here", not "===") */
	for (const char *l = r->text; l && *l;) {
		const char *e = strchr(l, '\n');
		size_t n = e ? (size_t)(e - l) : strlen(l);

		if (n && l[0] != '-' && l[0] != '=' && l[0] != ' ' &&
		    (harness(l) || starts(l, "WARNING: ") || starts(l, "BUG") ||
		     starts(l, "WARN at ") || starts(l, "kernel BUG at ") || starts(l, "Oops: ") ||
		     starts(l, "general protection") || starts(l, "Kernel panic"))) {
			snprintf(first, sizeof(first), "%.*s", (int)n, l);
			break;
		}
		l = e ? e + 1 : NULL;
	}
	if (!first[0]) { /* a cut-here line and nothing after it */
		free(r->text);
		memset(r, 0, sizeof(*r));
		c->cap = 0;
		return;
	}
	describe(r, first);
	snprintf(r->program, sizeof(r->program), "%s", c->program);
	if (c->nops_len) {
		r->prog = malloc(c->nops_len + 16);
		if (!r->prog)
			abort();
		snprintf(r->prog, c->nops_len + 16, "target fuzz_mm\n%s", c->ops);
	}
	c->since = 0;
	if (c->ndone == c->capdone) {
		c->capdone = c->capdone ? 2 * c->capdone : 4;
		c->done = realloc(c->done, c->capdone * sizeof(*c->done));
		if (!c->done)
			abort();
	}
	c->done[c->ndone++] = *r;
	memset(r, 0, sizeof(*r));
	c->cap = 0;
}

static bool primary(const char *s)
{
	return harness(s) || starts(s, "WARNING: ") || starts(s, "BUG: ") ||
	       starts(s, "kernel BUG at ") || starts(s, "BUG at ") || starts(s, "WARN at ") ||
	       starts(s, "general protection fault") || starts(s, "Oops: ");
}

static void start(struct console *c, const char *s)
{
	c->in_report = true;
	c->in_trace = false;
	c->nlines = 0;
	for (unsigned i = 0; i < c->nbefore; i++)
		put_text(c, c->before[i]);
	c->nbefore = 0;
	put_text(c, s);
}

static void one_line(struct console *c, const char *line)
{
	const char *s = console_strip(line);
	bool cut_here = starts(s, "------------[ cut here ]") || starts(s, "=================");

	if (starts(s, "vmafuzz: program ")) {
		finish(c);
		c->job_found = false;
		cut(c->program, sizeof(c->program), s + 17, (const char *const[]){" ", NULL});
		c->nbefore = 0;
		c->nops_len = 0;
		return;
	}
	if (starts(s, "vmafuzz: op ")) {
		size_t n = strlen(s + 12);

		if (c->nops_len + n + 2 > c->ops_cap) {
			c->ops_cap = (c->nops_len + n + 2) * 2;
			c->ops = realloc(c->ops, c->ops_cap);
			if (!c->ops)
				abort();
		}
		memcpy(c->ops + c->nops_len, s + 12, n);
		c->nops_len += n;
		c->ops[c->nops_len++] = '\n';
		c->ops[c->nops_len] = 0;
		return;
	}
	if (c->since < PANIC_FOLLOWS)
		c->since++;
	if (starts(s, "Kernel panic - not syncing: ") && !c->in_report && c->since < PANIC_FOLLOWS)
		return; /* the end of the report just read (oops=panic) */
	if (c->in_report && starts(s, "vmafuzz-vm: ")) {
		finish(c); /* the guest's /init speaks: no report goes on past it */
		return;
	}
	if (c->in_report) {
		bool has_kind =
		    c->nlines > 0 || !(starts(c->cur.text, "---") || starts(c->cur.text, "==="));

		if ((primary(s) && has_kind && !starts(s, "Oops: ") && !c->in_trace &&
		     (c->nlines > 2 || harness(s))) ||
		    (cut_here && has_kind && c->nlines > 2 && starts(s, "---"))) {
			finish(c);
		} else {
			put_text(c, s);
			c->nlines++;
			if (strstr(s, "Call Trace:") || strstr(s, "stack backtrace:"))
				c->in_trace = true;
			if (starts(s, "---[ end trace") || starts(s, "</TASK>") ||
			    (starts(s, "=================") && c->nlines > 2) ||
			    c->nlines >= CONSOLE_REPORT_LINES)
				finish(c);
			return;
		}
	}
	if (harness(s) && c->job_found) {
		/* a later difference of the same program: not a report */
	} else if (cut_here || primary(s) || starts(s, "Kernel panic - not syncing: ")) {
		c->job_found |= harness(s);
		start(c, s);
		return;
	}
	/* kept for a report that may follow */
	if (c->nbefore == CONSOLE_BEFORE_LINES) {
		memmove(c->before[0], c->before[1],
			sizeof(c->before[0]) * (CONSOLE_BEFORE_LINES - 1));
		c->nbefore--;
	}
	snprintf(c->before[c->nbefore++], sizeof(c->before[0]), "%s", s);
}

/* Where printk's time stamp "[   12.345678]" begins inside @line, past its
 * start, or NULL. */
static const char *inner_stamp(const char *line)
{
	for (const char *s = strchr(line + 1, '['); s; s = strchr(s + 1, '[')) {
		const char *d = s + 1;

		while (*d == ' ')
			d++;
		if (!isdigit((unsigned char)*d))
			continue;
		while (isdigit((unsigned char)*d))
			d++;
		if (*d != '.')
			continue;
		d++;
		for (int k = 0; k < 6 && isdigit((unsigned char)d[k]); k++)
			if (k == 5 && d[6] == ']')
				return s;
	}
	return NULL;
}

static void pend(struct console *c, const char *s, size_t n)
{
	size_t room = sizeof(c->pending) - 1 - c->pending_len;

	if (n > room)
		n = room;
	memcpy(c->pending + c->pending_len, s, n);
	c->pending_len += n;
	c->pending[c->pending_len] = 0;
}

/*
 * A kernel message may land inside a line of the job's: "conform: /host/w"
 * then "[    2.438399] tsc: ..." on the same console line, the job's line
 * going on at the start of the next. The pieces are put back together, and
 * the kernel's line is read as its own.
 */
void console_line(struct console *c, const char *line)
{
	const char *k = line[0] == '[' ? NULL : inner_stamp(line);

	if (c->pending_len && line[0] == '[' && console_strip(line) != line) {
		one_line(c, line); /* a whole kernel line between the pieces */
		return;
	}
	if (k) {
		pend(c, line, (size_t)(k - line));
		one_line(c, k);
		return;
	}
	if (c->pending_len) {
		pend(c, line, strlen(line));
		c->pending_len = 0;
		one_line(c, c->pending);
		return;
	}
	one_line(c, line);
}

void console_end(struct console *c)
{
	if (c->pending_len) {
		c->pending_len = 0;
		one_line(c, c->pending);
	}
	finish(c);
}

bool console_take(struct console *c, struct console_report *r)
{
	if (!c->ndone)
		return false;
	*r = c->done[0];
	memmove(c->done, c->done + 1, (c->ndone - 1) * sizeof(*c->done));
	c->ndone--;
	return true;
}
