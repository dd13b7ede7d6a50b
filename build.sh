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
#   ./build.sh kernel               the kernel targets (kfuzz_mtree: the kernel's own
#                                   lib/maple_tree.c) in out/kernel/, from $KSRC or Debian's
#                                   linux-source-6.12 (installed as root); docs/kernel.md
#   ./build.sh bugs [NAME...] [--seconds S] [--runs R] [--csv]
#                                   the known-bug suite (bugs/README.md): fuzz each
#                                   planted bug from the seeds, time to detection
#   ./build.sh mutants [--n N] [--seconds S] [--seed K] [--target T] [--files GLOB]
#                                   mutation testing of src/: N faults, each built,
#                                   its seeds replayed and fuzzed S s; killed/survived
#   ./build.sh clean                remove out/
#
# OSS-Fuzz: when LIB_FUZZING_ENGINE and OUT are both set, builds exactly what
# OSS-Fuzz expects into $OUT, whatever the arguments; objects go to
# $WORK/vmafuzz when WORK is set (OSS-Fuzz sets it), else out/obj/oss-fuzz.
# With KSRC=<kernel tree> set too, the kernel targets are built there as well.
#
# Environment: CC (replay/tool/test compiler, default clang), JOBS (parallel
# jobs, default nproc), VMAFUZZ_NO_DEPS=1 (skip scripts/install-deps.sh),
# VMAFUZZ_TEST_TIMEOUT (seconds per test, default 900), V=1 (verbose make),
# VMAFUZZ_AFL_BIND=1 (let afl-fuzz pin itself to a core; off by default),
# COV_CC (compiler of the coverage build, default clang).
set -euo pipefail

cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")"
ROOT=$PWD
JOBS=${JOBS:-$(nproc 2>/dev/null || echo 2)}

run_make() {
	# -s: no "Nothing to be done" chatter; the Makefile prints its own short
	# progress lines (full commands with V=1).
	if [ "${V:-0}" = 1 ]; then
		make -j"$JOBS" --no-print-directory "$@"
	else
		make -j"$JOBS" --no-print-directory -s "$@"
	fi
}

deps() {
	[ "${VMAFUZZ_NO_DEPS:-0}" = 1 ] || scripts/install-deps.sh
}

targets() {
	local f
	for f in fuzz/targets/fuzz_*.c; do
		[ -e "$f" ] && basename "$f" .c
	done
}

# The kernel targets (kernel/<backend>/kfuzz_<name>.c; built by ./build.sh kernel).
kernel_targets() {
	local f
	for f in kernel/*/kfuzz_*.c; do
		[ -e "$f" ] && basename "$f" .c
	done
}

# kernel_src NAME: the source of kernel target NAME, or nothing.
kernel_src() {
	local f
	for f in kernel/*/"$1".c; do
		[ -e "$f" ] && echo "$f"
	done
	return 0
}

# The model target whose programs a kernel or live target runs (its
# "vmafuzz-twin:" line): its seeds, dictionary and mutator are the target's.
kernel_twin() {
	local src=live/$1.c
	[ -e "$src" ] || src=$(kernel_src "$1")
	sed -n 's|^/\* vmafuzz-twin: \([a-z_]*\).*|\1|p' "$src" | head -n 1
}

# Files of a folder, not counting dotfiles (a crash folder's .builds) or
# AFL++'s README.txt.
count_files() {
	[ -d "$1" ] && find "$1" -maxdepth 1 -type f ! -name '.*' ! -name README.txt | wc -l || echo 0
}

usage() {
	sed -n '3,/^set -euo/s/^# \{0,1\}//p' "$0"
}

# ------------------------------------------------------------------ OSS-Fuzz
oss_fuzz() {
	export CC=${CC:-clang} CXX=${CXX:-clang++}
	export CFLAGS=${CFLAGS:-} CXXFLAGS=${CXXFLAGS:-}
	mkdir -p "$OUT"
	# OSS-Fuzz's scratch directory $WORK keeps objects between builds (and
	# apart, for builds run side by side with different flags).
	local objs=()
	[ -n "${WORK:-}" ] && objs=(OUTDIR="$WORK/vmafuzz")
	run_make oss-fuzz OSSFUZZ_OUT="$OUT" "${objs[@]}"
	# the kernel targets too when a kernel tree is given (OSS-Fuzz's image
	# has no Debian package to install: oss-fuzz/Dockerfile fetches one)
	local kts=""
	if [ -n "${KSRC:-}" ]; then
		run_make kfuzz-oss-fuzz OSSFUZZ_OUT="$OUT" KSRC="$KSRC" "${objs[@]}"
		kts=$(kernel_targets)
	fi

	# Seeds are compiled by a tool built with plain $CC -O1 (no fuzzing
	# instrumentation), in $WORK/vmafuzz-seeds or a scratch output directory.
	local t tmp
	if [ -n "${WORK:-}" ]; then
		tmp=$WORK/vmafuzz-seeds
		rm -rf "$tmp/corpus" # no stale seeds in the zip
	else
		OSS_TMP=$(mktemp -d)
		trap 'rm -rf "$OSS_TMP"' EXIT
		tmp=$OSS_TMP
	fi
	run_make OUTDIR="$tmp" FLAGS_tool=-O1 corpus

	local tw
	for t in $(targets) $kts; do
		tw=$t # a kernel target's seeds and dictionary are its model twin's
		[ -n "$(kernel_src "$t")" ] && tw=$(kernel_twin "$t")
		rm -f "$OUT/${t}_seed_corpus.zip"
		if [ "$(count_files "$tmp/corpus/$tw")" -gt 0 ]; then
			if command -v zip >/dev/null 2>&1; then
				zip -q -j "$OUT/${t}_seed_corpus.zip" "$tmp/corpus/$tw"/*
			else
				python3 - "$OUT/${t}_seed_corpus.zip" "$tmp/corpus/$tw" <<-'EOF'
				import os, sys, zipfile
				with zipfile.ZipFile(sys.argv[1], "w", zipfile.ZIP_DEFLATED) as z:
				    for name in sorted(os.listdir(sys.argv[2])):
				        z.write(os.path.join(sys.argv[2], name), name)
				EOF
			fi
		fi
		{
			echo "[libfuzzer]"
			if [ -f "dict/$tw.dict" ]; then
				cp "dict/$tw.dict" "$OUT/$t.dict"
				echo "dict = $t.dict"
			fi
			echo "max_len = 4096"
		} >"$OUT/$t.options"
		echo "oss-fuzz: $OUT/$t"
	done
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

# ------------------------------------------------------------------- coverage
# The tools of the clang that builds the coverage flavor (same profile format).
llvm_tool() {
	local major
	major=$(${COV_CC:-clang} -dumpversion 2>/dev/null | cut -d. -f1)
	if [ -n "$major" ] && command -v "$1-$major" >/dev/null 2>&1; then
		echo "$1-$major"
	elif command -v "$1" >/dev/null 2>&1; then
		echo "$1"
	else
		echo "build.sh coverage: $1 not found (install the llvm package)" >&2
		return 1
	fi
}

# Replay each target's seeds, its libFuzzer corpus out/work/<target>/corpus
# and its AFL++ queues out/work/<target>/afl/*/queue (those not empty) in
# out/coverage/<target>, merge the profiles, write the HTML report to
# out/coverage/html/ and print line and branch coverage per file of src/,
# naming every folder replayed.
coverage() {
	local profdata cov t d dir=out/coverage prof f failed replayed=()
	deps
	profdata=$(llvm_tool llvm-profdata) && cov=$(llvm_tool llvm-cov) || exit 1
	run_make coverage corpus
	rm -rf "$dir/profiles" "$dir/html"
	mkdir -p "$dir/profiles"
	local objects=()
	for t in $(targets); do
		objects+=("$dir/$t")
		local w=${VMAFUZZ_WORK_ROOT:-out/work}
		for d in "out/corpus/$t" "$w/$t/corpus" "$w/$t"/afl/*/queue; do
			[ "$(count_files "$d")" -gt 0 ] || continue
			replayed+=("$d ($(count_files "$d"))")
			echo "coverage: $t <- $d ($(count_files "$d") inputs)"
			# %m: one profile per binary, merged as processes finish
			prof="$ROOT/$dir/profiles/$t-%m.profraw"
			if ! LLVM_PROFILE_FILE=$prof "$dir/$t" "$d" >"$dir/replay.log" 2>&1; then
				# an input failed and took the process's profile with it:
				# one process per input
				failed=0
				for f in "$d"/*; do
					[ -f "$f" ] || continue
					LLVM_PROFILE_FILE=$prof "$dir/$t" "$f" >/dev/null 2>&1 ||
						failed=$((failed + 1))
				done
				echo "coverage: $failed input(s) in $d fail (replay them: out/replay/$t FILE)"
			fi
		done
	done
	if ! ls "$dir"/profiles/*.profraw >/dev/null 2>&1; then
		echo "build.sh coverage: no profiles (no seeds?)" >&2
		exit 1
	fi
	"$profdata" merge -sparse "$dir"/profiles/*.profraw -o "$dir/coverage.profdata"
	local objargs=("${objects[0]}") o
	for o in "${objects[@]:1}"; do
		objargs+=(-object "$o")
	done
	"$cov" show -format=html -output-dir="$dir/html" -instr-profile="$dir/coverage.profdata" \
		-show-line-counts-or-regions -show-branches=count "${objargs[@]}" src fuzz
	echo
	echo "Coverage of src/ by the inputs of:"
	printf '  %s\n' "${replayed[@]}"
	# llvm-cov report columns: file, regions (3), functions (3), lines (3), branches (3)
	"$cov" report -instr-profile="$dir/coverage.profdata" "${objargs[@]}" src |
		awk -v root="$ROOT/" '
			NF >= 13 && ($1 ~ /\.[ch]$/ || $1 == "TOTAL") {
				f = $1; sub("^" root, "", f)
				if (f != "TOTAL" && f !~ /^src\//) f = "src/" f
				printf "%d   %-24s lines %7s %-11s branches %7s %s\n", f == "TOTAL", f,
					$(NF-3), sprintf("(%d/%d)", $(NF-5) - $(NF-4), $(NF-5)),
					$NF, sprintf("(%d/%d)", $(NF-2) - $(NF-1), $(NF-2))
			}' | LC_ALL=C sort | cut -c2-
	echo "HTML report: $ROOT/$dir/html/index.html"
}

# ----------------------------------------------------------------------- main
if [ -n "${LIB_FUZZING_ENGINE:-}" ] && [ -n "${OUT:-}" ]; then
	oss_fuzz
	exit 0
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
coverage) coverage ;;
replay) deps; run_make replay ;;
kernel)
	deps
	run_make kernel tool corpus
	echo "Kernel targets: out/kernel/{libfuzzer,replay$([ -d out/kernel/afl ] && echo ,afl)}/{$(kernel_targets | paste -sd, -)}"
	echo "Fuzz one with: ./build.sh fuzz $(kernel_targets | head -n 1) [SECONDS]"
	;;
bugs) deps; exec scripts/bugs.sh "$@" ;;
mutants) deps; exec scripts/mutants.sh "$@" ;;
clean) run_make clean ;;
-h | --help | help) usage ;;
*)
	usage >&2
	exit 2
	;;
esac
