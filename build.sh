#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# vmafuzz build driver (the real rules are in the Makefile).
#
#   ./build.sh                      install deps, build every flavor and the corpora
#   ./build.sh test                 build, run tests/test_* and tests/*.sh, gcc check
#   ./build.sh fuzz [ARGS]          build the tool, then out/vmafuzz fuzz ARGS (tools/cmd_fuzz.c):
#                                   libFuzzer on a target (default fuzz_mm) with the
#                                   structure-aware mutator; --plain, --afl, --jobs N,
#                                   --bug NAME, --seeds DIR, -- ENGINE FLAGS; fuzz --help
#   ./build.sh coverage             replay seeds, corpora and AFL++ queues in a source-based
#                                   coverage build: out/coverage/html/, per-file summary
#   ./build.sh replay               build only the replay drivers (out/replay/)
#   ./build.sh kernel               the kernel targets (the kernel's own lib/maple_tree.c
#                                   and mm/vma.c) from the tree in use; KSRC=6.1|6.12|current|
#                                   PATH chooses it from now on (at first Debian's 6.12,
#                                   installed as root); docs/kernel.md
#   ./build.sh kernel-coverage [OPTIONS] [TREE]  which lines of the kernel's files the corpora reach,
#                                   and mm/vma.c's merge decision condition by condition (--help)
#   ./build.sh vm [--kasan] [--bug NAME] [TREE] [-- COMMAND...]
#                                   the tree built, booted under qemu, vmafuzz run inside
#                                   (default: conform on random programs and the seeds;
#                                   scripts/vm.sh); docs/vm.md
#   ./build.sh bugs [NAME...] [--seconds S] [--runs R] [--csv]
#                                   the known-bug suite (bugs/README.md): fuzz each
#                                   planted bug from the seeds, time to detection
#   ./build.sh mutants [--n N] [--seconds S] [--seed K] [--target T] [--files GLOB]
#                                   mutation testing of src/: N faults, each built,
#                                   its seeds replayed and fuzzed S s; killed/survived
#   ./build.sh clean                remove out/
#
# OSS-Fuzz: when LIB_FUZZING_ENGINE and OUT are both set, builds exactly what
# OSS-Fuzz expects into $OUT, whatever the arguments (scripts/oss-fuzz-build.sh).
#
# Environment: CC (replay/tool/test compiler, default clang), JOBS (parallel
# jobs, default nproc), VMAFUZZ_NO_DEPS=1 (skip scripts/install-deps.sh),
# VMAFUZZ_TEST_TIMEOUT (seconds per test, default 900), V=1 (verbose make),
# VMAFUZZ_AFL_BIND=1 (let afl-fuzz pin itself to a core; off by default),
# COV_CC (compiler of the coverage build, default clang), and those of
# vmafuzz fuzz --help (VMAFUZZ_WORK_ROOT, VMAFUZZ_STATUS_EVERY).
set -euo pipefail

cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")"
ROOT=$PWD
. scripts/build-lib.sh

deps() {
	[ "${VMAFUZZ_NO_DEPS:-0}" = 1 ] || scripts/install-deps.sh
}

usage() {
	sed -n '3,/^set -euo/s/^# \{0,1\}//p' "$0"
}

# --------------------------------------------------------------- default build
print_outputs() {
	local t
	echo
	echo "Built (in $ROOT/out):"
	echo "  libFuzzer targets:  out/libfuzzer/{$(targets | paste -sd, -)}"
	echo "    without the structure-aware mutator: out/libfuzzer-plain/<target>"
	if [ -d out/afl ]; then
		echo "  AFL++ targets:      out/afl/{$(targets | paste -sd, -)}"
		echo "    custom mutators:  out/afl/<target>-mutator.so (AFL_CUSTOM_MUTATOR_LIBRARY)"
	fi
	echo "  replay drivers:     out/replay/<target> FILE...   (ASan+UBSan, CC=${CC:-clang})"
	echo "  tool + benchmarks:  out/vmafuzz"
	echo "  unit tests:         out/tests/   (run them all: ./build.sh test)"
	for t in $(targets); do
		echo "  seeds:              out/corpus/$t ($(count_files "out/corpus/$t") files)," \
			"regress: out/regress/$t ($(count_files "out/regress/$t") files)"
	done
	echo "Fuzz with: ./build.sh fuzz [TARGET] [SECONDS]   (add --afl for afl-fuzz)"
}

build_all() {
	deps
	run_make all
	print_outputs
}

# ----------------------------------------------------------------------- test
PASSED=0
FAILED=0

# run_one NAME LOG CMD...: run a test, add its "N passed, N failed" to the
# totals.  A test that prints no such line, or exits non-zero while reporting
# no failure (crash, sanitizer report, timeout), counts as one failure.
run_one() {
	local name=$1 log=$2 rc=0 line p=0 f=0 status t0=$SECONDS
	shift 2
	# The subshell keeps bash's "Aborted"/"Segmentation fault" notice out of
	# the output; the exit status (128+signal, 124 = timeout) is kept.
	(timeout -k 10 "${VMAFUZZ_TEST_TIMEOUT:-900}" "$@" >"$log" 2>&1 </dev/null; exit $?) \
		2>/dev/null || rc=$?
	line=$(grep -Eo '[0-9]+ passed, [0-9]+ failed' "$log" | tail -n 1 || true)
	if [ -n "$line" ]; then
		p=${line%% passed*}
		f=${line#*passed, }
		f=${f%% failed*}
	fi
	if [ -z "$line" ] || { [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; }; then
		f=$((f + 1))
	fi
	PASSED=$((PASSED + p))
	FAILED=$((FAILED + f))
	status=PASS
	[ "$f" -eq 0 ] || status=FAIL
	# its time, so that what makes CI long shows (a figure, not a limit)
	echo "$status $name ($p passed, $f failed; exit $rc; $((SECONDS - t0)) s)"
	if [ "$status" = FAIL ]; then
		tail -n 40 "$log" | sed 's/^/    | /'
		echo "    (full log: $log)"
	fi
}

run_tests() {
	local logs=out/test-logs src name t rc
	deps
	if ! run_make libfuzzer replay tool threads test corpus regress; then
		echo "FAIL build"
		echo "0 passed, 1 failed"
		exit 1
	fi
	rm -rf "$logs"
	mkdir -p "$logs"
	echo
	# Only binaries of tests that still exist (out/tests may hold stale ones).
	for src in tests/test_*.c; do
		[ -e "$src" ] || continue
		name=$(basename "$src" .c)
		run_one "$name" "$logs/$name.log" "out/tests/$name"
	done
	for t in tests/*.sh; do
		[ -e "$t" ] || continue
		name=$(basename "$t")
		run_one "$name" "$logs/$name.log" env OUT="$ROOT/out" ROOT="$ROOT" bash "$t"
	done

	# The whole tree must also compile (and link) with gcc -Werror.
	rc=0
	run_make gcc-check >"$logs/gcc-check.log" 2>&1 || rc=$?
	if [ "$rc" -eq 0 ]; then
		PASSED=$((PASSED + 1))
		echo "PASS gcc-check (gcc -Werror build in out/obj/gcc-check)"
	else
		FAILED=$((FAILED + 1))
		echo "FAIL gcc-check (gcc -Werror build in out/obj/gcc-check)"
		grep -E 'error|Error' "$logs/gcc-check.log" | head -n 40 | sed 's/^/    | /'
		echo "    (full log: $logs/gcc-check.log)"
	fi

	echo "$PASSED passed, $FAILED failed"
	[ "$FAILED" -eq 0 ]
}

# ----------------------------------------------------------------------- main
if [ -n "${LIB_FUZZING_ENGINE:-}" ] && [ -n "${OUT:-}" ]; then
	exec scripts/oss-fuzz-build.sh
fi

action=${1:-all}
[ $# -gt 0 ] && shift
case $action in
all) build_all ;;
test) run_tests ;;
fuzz)
	# the run itself is the tool's, and builds what it needs
	deps
	run_make tool
	exec out/vmafuzz fuzz "$@"
	;;
coverage) deps; exec scripts/coverage.sh ;;
replay) deps; run_make replay ;;
kernel)
	deps
	# make's own words for what a tree cannot give are noise beside the
	# sentence it printed (kernel/targets.mk)
	rc=0
	run_make kernel tool corpus 2> >(grep -v '^make: \*\*\* \[kernel/targets.mk' >&2) || rc=$?
	wait
	[ -f out/kernel/current/tree ] && sed -n 's/^path /Kernel tree in use: /p; s/^version /  Linux /p' \
		out/kernel/current/tree
	echo "Kernel targets: out/kernel/{libfuzzer,replay$([ -d out/kernel/afl ] && echo ,afl)}/" \
		"($(ls out/kernel/replay/ 2>/dev/null | paste -sd' ' -))"
	echo "Fuzz one with: ./build.sh fuzz $(kernel_targets | head -n 1) [SECONDS]"
	exit "$rc"
	;;
kernel-coverage) deps; run_make tool; exec scripts/kernel-coverage.sh "$@" ;;
vm) deps; exec scripts/vm.sh "$@" ;;
bugs) deps; exec scripts/bugs.sh "$@" ;;
mutants) deps; exec scripts/mutants.sh "$@" ;;
clean) run_make clean ;;
-h | --help | help) usage ;;
*)
	usage >&2
	exit 2
	;;
esac
