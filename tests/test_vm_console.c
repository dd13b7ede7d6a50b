/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A guest kernel's console into reports (live/vm/console.h): each kind of
 * splat the kernel prints, written here in the kernel's format, becomes one
 * report with the kind, title, function, place and program it should have;
 * time stamps, interleaved lines and the panic that follows an Oops do not
 * make reports of their own.
 */
#include "live/vm/console.h"
#include "test.h"

#include <stdlib.h>
#include <string.h>

/* Feed @text (lines) to a fresh console; the reports into @r (up to @max). */
static unsigned feed(const char *text, struct console_report *r, unsigned max)
{
	struct console c;
	unsigned n = 0;
	char line[CONSOLE_LINE_MAX];

	console_init(&c);
	for (const char *l = text; *l;) {
		const char *e = strchr(l, '\n');
		size_t len = e ? (size_t)(e - l) : strlen(l);

		snprintf(line, sizeof(line), "%.*s", (int)len, l);
		console_line(&c, line);
		l = e ? e + 1 : l + len;
	}
	console_end(&c);
	while (n < max && console_take(&c, &r[n]))
		n++;
	console_free(&c);
	return n;
}

/* Report @r is of @kind with @title; what it is instead on stderr. */
static bool report_is(const struct console_report *r, const char *kind, const char *title)
{
	if (!strcmp(r->kind, kind) && !strcmp(r->title, title))
		return true;
	fprintf(stderr, "  the report is %s \"%s\", not %s \"%s\"\n", r->kind, r->title, kind,
		title);
	return false;
}

static void release(struct console_report *r, unsigned n)
{
	for (unsigned i = 0; i < n; i++) {
		free(r[i].text);
		free(r[i].prog);
	}
}

static bool test_warning(void)
{
	struct console_report r[4];
	unsigned n = feed("[    1.000000] Run /init as init process\n"
			  "vmafuzz: program 7\n"
			  "[   12.345678] ------------[ cut here ]------------\n"
			  "[   12.345679] WARNING: CPU: 1 PID: 123 at kernel/fork.c:712 "
			  "dup_mmap+0x5a1/0x6d0\n"
			  "[   12.345680] Modules linked in:\n"
			  "[   12.345681] RIP: 0010:dup_mmap+0x5a1/0x6d0\n"
			  "[   12.345690] Call Trace:\n"
			  "[   12.345691]  <TASK>\n"
			  "[   12.345692]  ? __warn+0x81/0x130\n"
			  "[   12.345693]  ? dup_mmap+0x5a1/0x6d0\n"
			  "[   12.345694]  copy_process+0x1234/0x2000\n"
			  "[   12.345695]  </TASK>\n"
			  "[   12.345696] ---[ end trace 0000000000000000 ]---\n"
			  "[   12.400000] some other line\n",
			  r, 4);

	ASSERT_EQ(n, 1);
	ASSERT(report_is(&r[0], "WARNING", "WARNING in dup_mmap"));
	ASSERT(!strcmp(r[0].frame, "dup_mmap"));
	ASSERT(!strcmp(r[0].where, "kernel/fork.c:712"));
	ASSERT(!strcmp(r[0].program, "7"));
	ASSERT(strstr(r[0].text, "copy_process+0x1234/0x2000"));
	ASSERT(!strstr(r[0].text, "12.345"));
	ASSERT(!strstr(r[0].text, "some other line"));
	release(r, n);
	return true;
}

static bool test_kasan(void)
{
	struct console_report r[4];
	unsigned n = feed("vmafuzz: program 3\n"
			  "==================================================================\n"
			  "BUG: KASAN: slab-use-after-free in mas_walk+0x3c/0x210\n"
			  "Read of size 8 at addr ffff888004a1c100 by task vmafuzz/88\n"
			  "Call Trace:\n"
			  " <TASK>\n"
			  " dump_stack_lvl+0x5d/0x80\n"
			  " print_report+0xc1/0x5e0\n"
			  " kasan_report+0xb4/0xf0\n"
			  " mas_walk+0x3c/0x210\n"
			  " find_vma+0x5c/0x90\n"
			  " </TASK>\n"
			  "==================================================================\n",
			  r, 4);

	ASSERT_EQ(n, 1);
	ASSERT(report_is(&r[0], "KASAN", "KASAN: slab-use-after-free in mas_walk"));
	ASSERT(!strcmp(r[0].program, "3"));
	release(r, n);
	return true;
}

/* VM_BUG_ON_VMA: the VMA's dump before, the Oops after, then the panic */
static bool test_bug_then_panic(void)
{
	struct console_report r[4];
	unsigned n =
	    feed("vmafuzz: program 12\n"
		 "[    5.1] vma ffff888003b2d000 start 0000200000010000 end 0000200000020000\n"
		 "[    5.2] kernel BUG at mm/vma.c:123!\n"
		 "[    5.3] Oops: invalid opcode: 0000 [#1] PREEMPT SMP\n"
		 "[    5.4] RIP: 0010:vma_complete+0x2e1/0x300\n"
		 "[    5.5] Call Trace:\n"
		 "[    5.6]  <TASK>\n"
		 "[    5.7]  ? die+0x36/0x90\n"
		 "[    5.8]  commit_merge+0x1a/0x90\n"
		 "[    5.9]  </TASK>\n"
		 "[    6.0] ---[ end trace 0000000000000000 ]---\n"
		 "[    6.1] RIP: 0010:vma_complete+0x2e1/0x300\n"
		 "[    6.2] Kernel panic - not syncing: Fatal exception\n"
		 "[    6.3] Kernel Offset: disabled\n",
		 r, 4);

	ASSERT_EQ(n, 1);
	ASSERT(report_is(&r[0], "BUG", "kernel BUG in vma_complete"));
	ASSERT(!strcmp(r[0].where, "mm/vma.c:123"));
	ASSERT(strstr(r[0].text, "start 0000200000010000"));
	release(r, n);
	/* a panic of its own is a report */
	n = feed("Kernel panic - not syncing: VFS: Unable to mount root fs\n", r, 4);
	ASSERT_EQ(n, 1);
	ASSERT(report_is(&r[0], "panic", "kernel panic: VFS: Unable to mount root fs"));
	release(r, n);
	return true;
}

static bool test_lockdep(void)
{
	struct console_report r[4];
	unsigned n = feed("\n"
			  "======================================================\n"
			  "WARNING: possible circular locking dependency detected\n"
			  "6.12.118 #1 Not tainted\n"
			  "------------------------------------------------------\n"
			  "vmafuzz/90 is trying to acquire lock:\n"
			  "stack backtrace:\n"
			  "Call Trace:\n"
			  " <TASK>\n"
			  " dump_stack_lvl+0x5d/0x80\n"
			  " check_noncircular+0x12c/0x150\n"
			  " __lock_acquire+0x11d8/0x1e60\n"
			  " lock_acquire+0xc4/0x2e0\n"
			  " down_write+0x2f/0xd0\n"
			  " dup_userfaultfd+0x4a/0x210\n"
			  " </TASK>\n",
			  r, 4);

	ASSERT_EQ(n, 1);
	ASSERT(report_is(&r[0], "lockdep", "possible deadlock in dup_userfaultfd"));
	release(r, n);
	return true;
}

static bool test_maple_and_null(void)
{
	struct console_report r[4];
	unsigned n = feed("vmafuzz: program a\n"
			  "BUG at mas_validate_gaps:7012 (1)\n"
			  "maple_tree(0xffff888003e00040) flags 313, height 2 root 0xffff\n"
			  "Pass: 10 Run:11\n"
			  "Call Trace:\n"
			  " <TASK>\n"
			  " dump_stack_lvl+0x5d/0x80\n"
			  " mas_validate_gaps+0x2b1/0x300\n"
			  " </TASK>\n"
			  "vmafuzz: program b\n"
			  "BUG: kernel NULL pointer dereference, address: 0000000000000008\n"
			  "#PF: supervisor read access in kernel mode\n"
			  "Oops: Oops: 0000 [#1] PREEMPT SMP\n"
			  "RIP: 0010:smaps_rollup_show+0x51/0x2c0\n"
			  "Call Trace:\n"
			  " <TASK>\n"
			  " seq_read_iter+0x11/0x400\n"
			  " </TASK>\n",
			  r, 4);

	ASSERT_EQ(n, 2);
	ASSERT(report_is(&r[0], "maple", "maple tree BUG in mas_validate_gaps"));
	ASSERT(!strcmp(r[0].where, "lib/maple_tree.c:7012"));
	ASSERT(!strcmp(r[0].program, "a"));
	ASSERT(
	    report_is(&r[1], "BUG", "BUG: kernel NULL pointer dereference in smaps_rollup_show"));
	ASSERT(!strcmp(r[1].program, "b"));
	release(r, n);
	return true;
}

/* what is not a report stays none; a report with no end still ends */
static bool test_quiet_and_cut(void)
{
	struct console_report r[4];
	unsigned n = feed("[    0.0] Linux version 6.12.118\n"
			  "[    0.1] BUGS: none here\n"
			  "vmafuzz: program 1\n"
			  "------------[ cut here ]------------\n",
			  r, 4);

	ASSERT_EQ(n, 0);
	n = feed("WARNING: CPU: 0 PID: 1 at mm/mmap.c:10 do_mmap+0x1/0x2\n"
		 "RIP: 0010:do_mmap+0x1/0x2\n",
		 r, 4);
	ASSERT_EQ(n, 1);
	ASSERT(!strcmp(r[0].title, "WARNING in do_mmap"));
	ASSERT(!strcmp(console_strip("[   12.345678] [    T1] x"), "x"));
	ASSERT(!strcmp(console_strip("<4>[    1.5] y"), "y"));
	release(r, n);
	return true;
}

/* the operations marked since the program's mark are the report's program */
static bool test_program_ops(void)
{
	struct console_report r[4];
	unsigned n = feed("vmafuzz: program r1.3\n"
			  "vmafuzz: op mmap p0 @0x10:4 r,w private f0 fixed\n"
			  "vmafuzz: program r1.4\n"
			  "vmafuzz: op mmap p0 @0x20:4 r,w private f0 fixed\n"
			  "vmafuzz: op madvise p0 @0x20:4 wipeonfork\n"
			  "[    9.0] [   T55] vmafuzz: op fork p0 tree current diff\n"
			  "kernel BUG at mm/mmap.c:1283!\n"
			  "RIP: 0010:exit_mmap+0x3c2/0x3d0\n"
			  "---[ end trace 0000000000000000 ]---\n"
			  "WARNING: CPU: 0 PID: 1 at mm/mmap.c:10 do_mmap+0x1/0x2\n",
			  r, 4);

	ASSERT_EQ(n, 2);
	ASSERT(!strcmp(r[0].title, "kernel BUG in exit_mmap"));
	ASSERT(!strcmp(r[0].program, "r1.4"));
	ASSERT(r[0].prog);
	ASSERT(!strcmp(r[0].prog, "target fuzz_mm\n"
				  "mmap p0 @0x20:4 r,w private f0 fixed\n"
				  "madvise p0 @0x20:4 wipeonfork\n"
				  "fork p0 tree current diff\n"));
	ASSERT(!strstr(r[0].text, "vmafuzz: op"));
	/* a report with no operation marked has no program */
	release(r, n);
	n = feed("WARNING: CPU: 0 PID: 1 at mm/mmap.c:10 do_mmap+0x1/0x2\n", r, 4);
	ASSERT_EQ(n, 1);
	ASSERT(!r[0].prog);
	release(r, n);
	return true;
}

/* A kernel message that cut into a line of the job's: the line put back
 * together is still the finding, and the kernel's lines stay its own. */
static bool test_cut_by_kernel(void)
{
	struct console_report r[2];
	unsigned n = feed(
	    "vmafuzz: program /host/w/m.txt\n"
	    "vmafuzz: op mremap p0 @0x20:4 n4 maymove,fixed up k32\n"
	    "conform: /host/w[    2.438399] tsc: Refined TSC clocksource calibration: 2694.831 "
	    "MHz\n"
	    "ork/m[    2.443421] clocksource: tsc: mask: 0xffffffffffffffff\n"
	    "[    2.450000] clocksource: Switched to clocksource tsc\n"
	    ".txt: operation 7 differs: mremap p0 @0x20:4 n4 maymove,fixed up k32\n"
	    "  result: model 0x200000040000, kernel 0x200000040000\n"
	    "vmafuzz-vm: exit 1\n",
	    r, 2);

	ASSERT_EQ(n, 1);
	ASSERT(report_is(&r[0], "model", "the kernel differs from the model in mremap"));
	ASSERT(!strcmp(r[0].program, "/host/w/m.txt"));
	ASSERT(strstr(r[0].text, "conform: /host/work/m.txt: operation 7 differs"));
	ASSERT(!strstr(r[0].text, "conform: /host/w[")); /* no piece of it left alone */
	release(r, n);
	return true;
}

/* the job's own findings: conform's difference from the model and vmafuzz
 * race's read out of bounds are reports of their kinds, with the program;
 * a program's later differences are not; the guest's /init ends them */
static bool test_harness_findings(void)
{
	struct console_report r[4];
	unsigned n =
	    feed("vmafuzz: program r1.9\n"
		 "vmafuzz: op mmap p0 @0x10:4 r,w private f0 fixed\n"
		 "vmafuzz: op mremap p0 @0x10:4 @0x40:8 maymove\n"
		 "conform: r1.9: operation 1 differs: mremap p0 @0x10:4 @0x40:8 maymove\n"
		 "  call: mremap(0x10000, 16384, 32768, 1)\n"
		 "  result: model -14, kernel -12   <== differs\n"
		 "vmafuzz: op munmap p0 @0x10:4\n"
		 "conform: r1.9: operation 2 differs: munmap p0 @0x10:4\n"
		 "  result: model 0, kernel 0\n"
		 "vmafuzz: program /host/w/rollup_writers.txt\n"
		 "vmafuzz: op mmap p0 @0x100:32 r,w private f0 fixed\n"
		 "vmafuzz: op t1: rollup p0 mmap\n"
		 "vmafuzz race: /host/w/rollup_writers.txt: round 1: operation 82 (t1 rollup): "
		 "Rss 10416 kB below the 12160 kB resident outside the race\n"
		 "--- program (fuzz_mm, under vmafuzz race) ---\n"
		 "target fuzz_mm\n"
		 "vmafuzz-vm: exit 1\n"
		 "conform: the words alone are no finding\n",
		 r, 4);

	ASSERT_EQ(n, 2);
	ASSERT(report_is(&r[0], "model", "the kernel differs from the model in mremap"));
	ASSERT(!strcmp(r[0].program, "r1.9"));
	ASSERT(r[0].prog && strstr(r[0].prog, "mremap p0 @0x10:4 @0x40:8 maymove\n"));
	ASSERT(strstr(r[0].text, "<== differs"));
	ASSERT(!strstr(r[0].text, "munmap")); /* the second difference ended it */
	ASSERT(report_is(&r[1], "race", "race: smaps_rollup's Rss below its bound in rollup"));
	ASSERT(!strcmp(r[1].frame, "rollup"));
	ASSERT(r[1].prog && strstr(r[1].prog, "t1: rollup p0 mmap\n"));
	ASSERT(!strstr(r[1].text, "vmafuzz-vm"));
	release(r, n);
	return true;
}

int main(void)
{
	TEST(test_program_ops);
	TEST(test_warning);
	TEST(test_kasan);
	TEST(test_bug_then_panic);
	TEST(test_lockdep);
	TEST(test_maple_and_null);
	TEST(test_quiet_and_cut);
	TEST(test_harness_findings);
	TEST(test_cut_by_kernel);
	return test_summary();
}
