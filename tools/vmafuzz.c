/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The vmafuzz command: one front end for programs, replays and benchmarks.
 *
 *   vmafuzz list                          targets                  (cmd_list.c)
 *   vmafuzz ops TARGET                    a target's operations    (cmd_ops.c)
 *   vmafuzz print [--target T] FILE       a program as text        (cmd_print.c)
 *   vmafuzz compile [--target T] FILE.txt -o OUT                   (cmd_compile.c)
 *   vmafuzz replay [--in-process] [--replay DIR] TARGET FILE|DIR... (cmd_replay.c)
 *   vmafuzz bench [NAME [ARGS]]                                    (cmd_bench.c)
 *   vmafuzz triage [--target T] [--json|--sarif] DIR|FILE...       (cmd_triage.c)
 *   vmafuzz minimize [--target T] [-o OUT] FILE                    (cmd_minimize.c)
 *   vmafuzz regress [--target T] [--why TEXT] FILE                 (cmd_regress.c)
 *   vmafuzz plot [-o PNG] LOG|PLOT_DATA... | --bench CSV           (cmd_plot.c)
 *   vmafuzz conform [-v] [--keep-going] FILE... | --random N [--seed S] [--ops K]
 *                                                                  (cmd_conform.c)
 *   vmafuzz corpus merge|min [--afl] [--tmin] TARGET DIR [MORE...] (cmd_corpus.c)
 *   vmafuzz repro --c FILE [-o OUT.c] [--kselftest]                (cmd_repro.c)
 *   vmafuzz repro --ktest FILE [-o OUT.c] [--kernel DIR]           (tools/ktest/)
 *   vmafuzz race [--rounds N] [--mark] FILE...                     (cmd_race.c)
 *   vmafuzz statsd [--port-file F] [--stats FILE] [--map-size N] [--parent PID] OUT
 *                                                                  (cmd_statsd.c)
 *   vmafuzz fuzz [--bug NAME]... [--afl|--plain] [--jobs N] [--seeds DIR] [TARGET]
 *                [SECONDS] [-- FLAGS...]           (cmd_fuzz.c, tools/campaign/)
 *
 * This file only dispatches: the table of commands (name, usage, help) and
 * main(). Each command's body is in tools/cmd_<name>.c (cmd.h); what they
 * share in cmd_util.c. Each subcommand answers --help (before a "--",
 * after which words are another program's). Errors go to stderr with exit
 * status 2.
 */
#include "cmd.h"

#include <stdio.h>
#include <string.h>

static const struct command commands[] = {
    {"list", "list", "List the fuzz targets.", cmd_list},
    {"ops", "ops TARGET", "Describe the operations of TARGET's programs and their arguments.",
     cmd_ops},
    {"print", "print [--target T] FILE",
     "Decode FILE (a fuzz input, crash or seed) and print it as a text program.\n"
     "The target is taken from --target or from a path component naming one.",
     cmd_print},
    {"compile", "compile [--target T] FILE.txt -o OUT",
     "Compile a text program into the bytes a fuzz target reads ('-o -': stdout).\n"
     "The target is taken from --target, the program's 'target' line, or the path.\n"
     "Errors name the file, line and column.",
     cmd_compile},
    {"replay", "replay [--in-process] [--replay DIR] [-v] TARGET FILE|DIR...",
     "Run inputs through TARGET without a fuzzing engine (.txt files are compiled\n"
     "first). Uses a sanitized driver when there is one: DIR/TARGET with --replay,\n"
     "else the replay build of the build that found the files (their folder's\n"
     ".builds), else replay/TARGET beside this binary; without one, or with\n"
     "--in-process, runs in this process. A failing input aborts with its report.",
     cmd_replay},
    {"bench", "bench [NAME [--csv]]", "Run a benchmark; without NAME, list them.", cmd_bench},
    {"triage",
     "triage [--target T] [--replay DIR] [--timeout S] [--json|--sarif [--category C]]\n"
     "       DIR|FILE...",
     "Replay every crash file in the sanitized driver (the replay build of the build\n"
     "that found it, as its folder's .builds says; else replay/TARGET beside this\n"
     "binary; DIR/TARGET with --replay), each in a subprocess killed after S\n"
     "seconds (default 20), and group them in buckets: the invariant that failed\n"
     "(MT_GAP, ...), 'MODEL_ASSERT file:line', else the sanitizer's kind of error\n"
     "and the top three stack frames in the model (function names), 'timeout',\n"
     "or 'no longer fails'. A DIR is a libFuzzer artifact folder (crash-*, leak-*,\n"
     "timeout-*, oom-*; else every file) or an AFL++ output folder\n"
     "(<out>/*/crashes/id:*). Prints bucket, count, smallest reproducer and the\n"
     "failure line; --json: every bucket with all its files; --sarif: SARIF 2.1.0\n"
     "for code scanning, one result per bucket (short rule ids with help, a\n"
     "fingerprint of the bucket, no addresses; --category C names the analysis,\n"
     "default vmafuzz-triage). Exit status 0 when it ran, crashes or not.",
     cmd_triage},
    {"minimize", "minimize [--target T] [--replay DIR] [--max-runs N] [-o OUT] FILE",
     "Shrink a crash as a program, keeping its bucket (as triage computes it):\n"
     "drop chunks of operations, a thread's operations or move them to t0, drop\n"
     "or zero schedule bytes, then simplify arguments (fail_at, range lengths,\n"
     "other bytes towards 0, config bits), repeated to a fixed point or N runs of\n"
     "the driver (default 2000). Prints the program as text, writes its bytes to\n"
     "OUT ('-': stdout; OUT.txt: the text, which names its target), and reports\n"
     "runs and sizes on stderr. OUT.txt names the build that found the crash (a\n"
     "'# build:' line, from the crash's folder's .builds), for triage, replay and\n"
     "regress; bytes cannot (give those --replay). Nothing but OUT is written.",
     cmd_minimize},
    {"regress", "regress [--target T] [--replay DIR] [--why TEXT] [--root DIR] FILE",
     "Store a crash (minimize it first) as a text program in\n"
     "corpus/regress/TARGET/<bucket>-<hash>.txt of the source tree (--root, else\n"
     "the current directory or the tree this binary was built in), with its\n"
     "bucket, the date and its cause (--why, else the failure line) as comments.\n"
     "'./build.sh test' replays these files: each must pass once its bug is fixed.\n"
     "The input must still fail with the driver used (see --replay).",
     cmd_regress},
    {"plot",
     "plot [-o OUT.png] [--time|--execs] [--title T] [--script] LOG|PLOT_DATA...\n"
     "       vmafuzz plot --bench FILE.csv [-o OUT.png] [--title T] [--script]",
     "Draw coverage (edges; libFuzzer's features dashed, right axis) and corpus size\n"
     "of fuzzing runs as a PNG with gnuplot, one line per input file: libFuzzer logs\n"
     "(lines '#N ... cov: C ft: F corp: K ...'; ./build.sh fuzz writes\n"
     "out/work/TARGET/fuzz.log) or AFL++ plot_data files. libFuzzer logs have no\n"
     "clock: their x axis is executions; --time estimates seconds as N / exec/s\n"
     "(libFuzzer's exec/s is executions over whole seconds since start). AFL++ and\n"
     "libFuzzer -fork logs carry time and use it; mixing them with plain libFuzzer\n"
     "logs plots executions (AFL++'s total_execs) unless --time is given.\n"
     "--bench: a CSV of 'vmafuzz bench NAME --csv', first column on a log x axis,\n"
     "*ns* columns on the left axis, *_over_* / ratio columns on the right.\n"
     "OUT defaults to the first input with its extension replaced by .png;\n"
     "--script prints the gnuplot script instead of running gnuplot.",
     cmd_plot},
    {"conform",
     "conform [-v] [--keep-going] [--no-rollup] [--mark] [--model-zero-page yes|no]\n"
     "             [--model-version V] FILE...\n"
     "       vmafuzz conform [-v] [--keep-going] [--no-rollup] [--mark] [--model-version V]\n"
     "             --random N [--seed S] [--ops K] [--print-random I]",
     "Run fuzz_mm programs (text or bytes) in the model and, for real, on this\n"
     "machine's kernel: every process of the model is a real process (p0 forked by\n"
     "the tool; a fork's child serves the model's new process and acts; exit ends\n"
     "it), the model's files are memfds, userfaultfds are real ones, map_limit\n"
     "fills the real process up to vm.max_map_count outside the window. After every\n"
     "operation, for every process: the result (address or errno), the VMAs of the\n"
     "window as /proc/PID/smaps shows them (start, end, rwx and p/s, offset, VmFlags\n"
     "rd wr ex sh mr mw me ms um uw ui dc ac wf, Rss, Anonymous, Pss, Pss_Dirty,\n"
     "Shared/Private Clean/Dirty), the window's part of smaps_rollup (not with\n"
     "--no-rollup) and what every page holds (a write stores a value naming the\n"
     "process and the step, a read returns it). Programs with other threads,\n"
     "fail_at or uprobes are reported\n"
     "as 'skipped: <why>'. The first difference prints both views side by side and\n"
     "the status is 1 (--keep-going: every differing operation, and the other files\n"
     "or programs). --random N: N generated programs of K operations (default 40)\n"
     "from seed S (default 1), with forks whose children act, files, shared memory,\n"
     "userfaultfds, map limits and failing calls; the distribution at the end; a\n"
     "differing one is printed as a program to save as a seed. -v: every operation\n"
     "and all views. Whether this kernel maps the zero page on a read fault of\n"
     "private anonymous memory is probed first, and the model does the same\n"
     "(--model-zero-page yes|no: the model maps it or not, whatever the probe says).\n"
     "The model follows the rules of this kernel's version (uname; docs/fidelity.md\n"
     "lists where versions differ; --model-version V: those of V, 6.1 to the newest\n"
     "it knows), whatever version a program's config names.\n"
     "--mark: 'vmafuzz: program ID' on stderr before each program (a file's path;\n"
     "random program I of seed S: rS.I), which a guest's console reader takes.\n"
     "--print-random I: print random program I of those --random N would run (I < N)\n"
     "as a program, and run nothing.",
     cmd_conform},
    {"corpus", "corpus merge|min [--afl] [--tmin] [--build DIR] TARGET DIR [MORE...]",
     "merge: add to DIR the inputs of MORE... that add coverage (libFuzzer -merge=1).\n"
     "min: replace DIR by the fewest inputs of DIR and MORE... that cover what they\n"
     "all cover (libFuzzer -merge=1 into a fresh folder; --afl: afl-cmin, --tmin:\n"
     "then afl-tmin on each input). DIR is replaced only when that worked.\n"
     "The engine build is TARGET's beside vmafuzz (libfuzzer/, afl/, kernel/...) or\n"
     "--build DIR. Inputs that crash are saved in crashes/ beside DIR (named in its\n"
     ".builds); the engine's log is DIR's sibling corpus-merge.log or corpus-min.log.",
     cmd_corpus},
    {"repro", "repro --c FILE [-o OUT.c] [--kselftest] | --ktest FILE [-o OUT.c] [--kernel DIR]",
     "Write a fuzz_mm program (text or bytes) as a standalone C program for a real\n"
     "kernel: no vmafuzz headers or libraries ('cc -o r r.c && ./r' on a test\n"
     "machine). It makes the program's system calls (anonymous mmap, munmap,\n"
     "mprotect, madvise, touch and fork on p0 and t0, without fail_at) and after\n"
     "each step checks that /proc/self/smaps shows what the model showed (start,\n"
     "end, rwx and p/s, offset, VmFlags, Rss, Anonymous, Pss, Shared/Private\n"
     "Clean/Dirty; a fork's child checks its own), computed here by running the\n"
     "program in the model, for a kernel that maps the zero page on anonymous read\n"
     "faults and for one that does not (it probes which). It prints one line per\n"
     "step and exits 0; on a difference it prints both views and exits 1; 4 when\n"
     "it cannot run (the address window is taken).\n"
     "--kselftest: the kernel selftests' TAP form (TAP version 13, 1..N, ok N /\n"
     "not ok N, exit 0 pass, 1 fail, 4 skip), still self-contained. Output to OUT.c\n"
     "(default stdout). A program the kernel cannot run: the step and why, exit 2.\n"
     "--ktest: a kfuzz_mtree program (fuzz_mtree's) as a regression test for the\n"
     "kernel tree's own userland maple tree tests (tools/testing/radix-tree/maple.c):\n"
     "one function making the kernel target's calls in the order they ran, each\n"
     "answer held by an MT_BUG_ON to what the model answered, each tree written to\n"
     "validated and compared whole. --kernel DIR: the kernel build whose calls it\n"
     "uses (default out/kernel/current, the tree in use). A program that cannot be\n"
     "such a test (interleaved threads, a fired fail_at, a fork): the step and why,\n"
     "exit 2. scripts/ktest-run.sh builds one into a tree's test program and runs it.",
     cmd_repro},
    {"race", "race [--rounds N] [--mark] FILE...",
     "Run the threads of fuzz_mm programs (text or bytes) in parallel on this\n"
     "machine's kernel. Each operation is resolved on the model, as repro resolves it,\n"
     "into its system call or a read of smaps_rollup, for p0 (operations of other\n"
     "processes, files, userfaultfds and others without a real counterpart here are\n"
     "left out, counted by reason). Each of N rounds (default 10) forks a process\n"
     "that runs thread t0's operations (the setup), then one thread per other thread,\n"
     "released together, each running its operations in order; a fork's child exits\n"
     "at once. A round fails when the process is killed by a signal or exits non-zero,\n"
     "which it does when a racing smaps_rollup read shows an Rss below the pages of\n"
     "the setup's VMAs no racing range touches, or above the rest of the process\n"
     "plus every page the race can reach. Per file: rounds, operations per thread,\n"
     "rollup reads checked, failures. Exit 0 clean, 1 after a failure (the round and\n"
     "the program on stderr), 2 on bad arguments or a malformed program.\n"
     "--mark: 'vmafuzz: program FILE' and each operation on stderr before its rounds,\n"
     "which a guest's console reader takes.",
     cmd_race},
    {"statsd", "statsd [--port-file F] [--stats FILE] [--map-size N] [--parent PID] OUT",
     "Receive AFL++'s statsd figures (afl-fuzz with AFL_STATSD=1 and AFL_STATSD_PORT)\n"
     "on a UDP port of 127.0.0.1, written to F (else stdout), and append to OUT a row\n"
     "in AFL++'s plot_data format for each second they change: afl-fuzz itself\n"
     "writes plot_data rows only after its first minute. FILE: the instance's\n"
     "fuzzer_stats, whose start_time makes the time column afl-fuzz's own (else:\n"
     "seconds since this started); N: the map size, for the map density column\n"
     "(AFL_DUMP_MAP_SIZE=1 TARGET prints it). Ends on SIGTERM or when process PID\n"
     "has ended; ignores SIGINT. ./build.sh fuzz --afl runs it and merges OUT into\n"
     "plot_data when afl-fuzz ends.",
     cmd_statsd},
    {"vm",
     "vm initramfs -o OUT --init BIN [--bin GUEST=HOST]... [--file GUEST=HOST]...\n"
     "             [--arg A]... [--then --arg A...]... [--env K=V]... [--sysctl PATH=V]...\n"
     "             [--job-timeout S]\n"
     "       vmafuzz vm run --kernel BZIMAGE --initramfs FILE [--mem MB] [--cpus N]\n"
     "             [--timeout S] [--accel kvm|tcg] [--log FILE] [--reports DIR] [--echo]\n"
     "             [--stop-at TEXT]",
     "The pieces of a run in a virtual machine (./build.sh vm puts them together).\n"
     "initramfs: the guest's root file system: /init (out/vm/guest-init), each --bin\n"
     "with the libraries it links, each --file, and the job /init runs (--arg: its\n"
     "command line, --then: the next command's follows, --env, --sysctl: /proc/sys\n"
     "settings, --job-timeout: for the whole job).\n"
     "run: boot BZIMAGE with it under qemu-system-x86_64 (KVM when it takes the\n"
     "guest, else TCG; no network, no disk), read the console as it comes: every\n"
     "BUG, WARNING, KASAN report, lockdep splat, maple tree check and panic is a\n"
     "report (its title, the function blamed, the program the guest marked last),\n"
     "and so is a difference conform found and a read vmafuzz race found out of\n"
     "bounds; each is written to DIR. --stop-at: stop the guest at the first report\n"
     "whose title has TEXT in it (\"\": any).\n"
     "Exit status: the job's; 1 when the guest stopped without ending it or at\n"
     "such a report, 124 when --timeout was up, 2 when qemu could not start it.",
     cmd_vm},
    {"fuzz",
     "fuzz [--bug NAME]... [--afl|--plain] [--jobs N] [--seeds DIR] [TARGET] [SECONDS]\n"
     "       [-- ENGINE FLAGS...]",
     "Build TARGET (default fuzz_mm; kernel targets such as kfuzz_mtree, and\n"
     "fuzz_conform, which runs fuzz_mm's programs on this machine's kernel too, start\n"
     "from their model twin's seeds) with make and fuzz it for SECONDS (whole seconds,\n"
     "default 600) from out/corpus/<target>, the corpus growing in out/work/<target>/\n"
     "(VMAFUZZ_WORK_ROOT: another folder for out/work). ./build.sh fuzz ARGS builds\n"
     "this tool and runs it with ARGS.\n"
     "  --bug NAME  the build with planted bug NAME (make list-bugs; again for more\n"
     "              than one): out/bugs/NAME/, its replay build too\n"
     "  --seeds DIR start from DIR's inputs, not out/corpus/<target>\n"
     "  --afl       under afl-fuzz (CmpLog, the structure-aware mutator)\n"
     "  --plain     libFuzzer without the structure-aware mutator\n"
     "  --jobs N    N workers on one corpus (libFuzzer -fork=N -ignore_crashes=1,\n"
     "              AFL++ one -M and N-1 -S)\n"
     "  -- FLAGS    passed to the engine as they are (libFuzzer: -runs=1000, -seed=7\n"
     "              ...; afl-fuzz: -p explore ...), after ours; and ours:\n"
     "              -return_to_seeds=K, one libFuzzer mutation in K starts from a\n"
     "              seed (default 16, 0: never)\n"
     "A status line within the first seconds, then every 5 s on a terminal and every\n"
     "30 s otherwise (VMAFUZZ_STATUS_EVERY=S: every S s); with --afl on a terminal,\n"
     "afl-fuzz's status screen instead. The engine's whole log, one per run, in\n"
     "out/work/<target>/logs/ (fuzz.log: libFuzzer's last). With --afl, plot_data has\n"
     "a row a second (vmafuzz plot draws it) and afl-whatsup out/work/<target>/afl\n"
     "works. Crashes go to out/work/<target>/crashes/ (AFL++: afl/default/crashes/,\n"
     "with --jobs afl/main/crashes/, afl/s1/crashes/...); each folder's .builds says\n"
     "which build found each crash, from before the engine starts, and vmafuzz\n"
     "triage, minimize, regress and replay use that build's replay driver. After a\n"
     "libFuzzer run the corpus keeps what adds coverage (-merge=1, by the target's\n"
     "build without planted bugs; the corpus is replaced only when the merge\n"
     "succeeded completely). The summary says what the exit status means, exec/s,\n"
     "the corpus, the crashes new this run and in all. SIGINT, SIGTERM and SIGHUP\n"
     "are passed on to the engine, and all the run started ends with it, even when\n"
     "it is killed. A full disk stops a libFuzzer run: the crashes libFuzzer left\n"
     "empty are written again, or printed on stderr between '--- vmafuzz: unsaved\n"
     "crash' lines (vmafuzz triage, print, minimize read them back from there); the\n"
     "inputs it left empty are taken out of the corpus, which is not merged.\n"
     "Exit status: the engine's; 2 for a bad command line or a failed build; 74\n"
     "when the disk is full (the run stopped, or did not start). ASAN_OPTIONS\n"
     "defaults to quarantine_size_mb=64; JOBS is make's -j.",
     cmd_fuzz},
    {NULL, NULL, NULL, NULL},
};

static bool wants_help(int argc, char **argv)
{
	for (int i = 1; i < argc && strcmp(argv[i], "--"); i++)
		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h"))
			return true;
	return false;
}

static void usage(FILE *out)
{
	fprintf(out, "usage: vmafuzz COMMAND [ARGS]   (vmafuzz COMMAND --help for more)\n\n");
	for (const struct command *c = commands; c->name; c++)
		fprintf(out, "  vmafuzz %s\n", c->usage);
}

int main(int argc, char **argv)
{
	const struct command *c;

	cmd_set_table(commands);
	if (argc < 2) {
		usage(stderr);
		return 2;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
		usage(stdout);
		return 0;
	}
	c = cmd_find(argv[1]);
	if (!c) {
		fprintf(stderr, "vmafuzz: unknown command '%s'\n", argv[1]);
		usage(stderr);
		return 2;
	}
	/* bench NAME --help is the benchmark's own business */
	if (wants_help(strcmp(c->name, "bench") ? argc - 1 : (argc > 2 ? 1 : argc - 1), argv + 1)) {
		printf("usage: vmafuzz %s\n\n%s\n", c->usage, c->help);
		return 0;
	}
	return c->run(argc - 1, argv + 1);
}
