#!/usr/bin/env bash
# vmafuzz build driver (the real rules are in the Makefile).
#
#   ./build.sh                      install deps, build every flavor and the corpora
#   ./build.sh test                 build, run tests/test_* and tests/*.sh, gcc check
#   ./build.sh fuzz [T] [SECS]      libFuzzer on target T (default fuzz_mm or fuzz_mtree)
#   ./build.sh fuzz --afl [T] [SECS]  same with afl-fuzz
#   ./build.sh replay               build only the replay drivers (out/replay/)
#   ./build.sh clean                remove out/
#
# OSS-Fuzz: when LIB_FUZZING_ENGINE and OUT are both set, builds exactly what
# OSS-Fuzz expects into $OUT, whatever the arguments.
#
# Environment: CC (replay/tool/test compiler, default clang), JOBS (parallel
# jobs, default nproc), VMAFUZZ_NO_DEPS=1 (skip scripts/install-deps.sh),
# VMAFUZZ_TEST_TIMEOUT (seconds per test, default 900), V=1 (verbose make).
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
	for f in fuzz/fuzz_*.c; do
		[ -e "$f" ] && basename "$f" .c
	done
}

count_files() {
	[ -d "$1" ] && find "$1" -maxdepth 1 -type f | wc -l || echo 0
}

usage() {
	sed -n '2,/^set -euo/s/^# \{0,1\}//p' "$0"
}

# ------------------------------------------------------------------ OSS-Fuzz
oss_fuzz() {
	export CC=${CC:-clang} CXX=${CXX:-clang++}
	export CFLAGS=${CFLAGS:-} CXXFLAGS=${CXXFLAGS:-}
	mkdir -p "$OUT"
	run_make oss-fuzz OSSFUZZ_OUT="$OUT"

	# Seeds are compiled by a tool built with plain $CC -O1 (no fuzzing
	# instrumentation), in a scratch output directory.
	local t
	OSS_TMP=$(mktemp -d)
	trap 'rm -rf "$OSS_TMP"' EXIT
	local tmp=$OSS_TMP
	run_make OUTDIR="$tmp" FLAGS_tool=-O1 corpus

	for t in $(targets); do
		rm -f "$OUT/${t}_seed_corpus.zip"
		if [ "$(count_files "$tmp/corpus/$t")" -gt 0 ]; then
			if command -v zip >/dev/null 2>&1; then
				zip -q -j "$OUT/${t}_seed_corpus.zip" "$tmp/corpus/$t"/*
			else
				python3 - "$OUT/${t}_seed_corpus.zip" "$tmp/corpus/$t" <<-'EOF'
				import os, sys, zipfile
				with zipfile.ZipFile(sys.argv[1], "w", zipfile.ZIP_DEFLATED) as z:
				    for name in sorted(os.listdir(sys.argv[2])):
				        z.write(os.path.join(sys.argv[2], name), name)
				EOF
			fi
		fi
		{
			echo "[libfuzzer]"
			if [ -f "dict/$t.dict" ]; then
				cp "dict/$t.dict" "$OUT/$t.dict"
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
	if [ -d out/afl ]; then
		echo "  AFL++ targets:      out/afl/{$(targets | paste -sd, -)}"
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
	local name=$1 log=$2 rc=0 line p=0 f=0 status
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
	echo "$status $name ($p passed, $f failed; exit $rc)"
	if [ "$status" = FAIL ]; then
		tail -n 40 "$log" | sed 's/^/    | /'
		echo "    (full log: $log)"
	fi
}

run_tests() {
	local logs=out/test-logs src name t rc
	deps
	if ! run_make libfuzzer replay tool test corpus regress; then
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

# ----------------------------------------------------------------------- fuzz
fuzz() {
	local use_afl=0 target="" secs="" a
	for a in "$@"; do
		case $a in
		--afl) use_afl=1 ;;
		*[!0-9]*) target=$a ;;
		*) secs=$a ;;
		esac
	done
	if [ -z "$target" ]; then
		target=fuzz_mtree
		[ -e fuzz/fuzz_mm.c ] && target=fuzz_mm
	fi
	secs=${secs:-600}
	if [ ! -e "fuzz/$target.c" ]; then
		echo "build.sh: unknown target '$target' (have: $(targets | paste -sd' ' -))" >&2
		exit 2
	fi

	local work=out/work/$target seeds=out/corpus/$target dict=dict/$target.dict
	deps
	mkdir -p "$work/corpus" "$work/crashes" "$seeds"
	if [ "$use_afl" = 1 ]; then
		fuzz_afl
		return
	fi

	run_make "out/libfuzzer/$target" corpus
	find "$seeds" -maxdepth 1 -type f -exec cp -n -t "$work/corpus" {} +
	echo "Fuzzing $target for ${secs}s; crashes go to $ROOT/$work/crashes/"

	local cmd=("out/libfuzzer/$target" "$work/corpus" "$seeds")
	[ -f "$dict" ] && cmd+=("-dict=$dict")
	cmd+=("-max_total_time=$secs" "-artifact_prefix=$work/crashes/" -print_final_stats=1)
	echo "+ ${cmd[*]}"

	local log=$work/fuzz.log start end rc units rate crashes
	start=$(date +%s)
	# Ctrl-C: libFuzzer stops and prints its stats; tee must outlive it and
	# this script must go on to the summary.
	trap 'echo "(interrupted)"' INT
	set +e
	"${cmd[@]}" 2>&1 | (trap '' INT; exec tee "$log")
	rc=${PIPESTATUS[0]}
	set -e
	trap - INT
	end=$(date +%s)

	# exec/s: libFuzzer's final stats (executed units / its run time), else
	# units / wall time, else the last progress line.
	units=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
	rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -n 1)
	if [ "${rate:-0}" = 0 ] && [ -n "$units" ] && [ "$end" -gt "$start" ]; then
		rate=$((units / (end - start)))
	fi
	if [ "${rate:-0}" = 0 ]; then
		rate=$(grep -Eo 'exec/s: [0-9]+' "$log" | tail -n 1 | cut -d' ' -f2 || true)
	fi
	crashes=$(count_files "$work/crashes")
	echo
	echo "== $target: libFuzzer exit status $rc after $((end - start))s"
	echo "   exec/s:  ${rate:-?}${units:+ ($units executions)}"
	echo "   corpus:  $(count_files "$work/corpus") inputs in $ROOT/$work/corpus"
	echo "   crashes: $crashes file(s) in $ROOT/$work/crashes/"
	if [ "$crashes" -gt 0 ]; then
		echo "   replay one with: out/replay/$target FILE   (./build.sh replay builds it)"
	fi
	echo "   log:     $ROOT/$log"
	return "$rc"
}

# afl-fuzz on out/afl/<target>; uses target/secs/work/seeds/dict from fuzz().
fuzz_afl() {
	if ! command -v afl-fuzz >/dev/null || ! command -v afl-clang-fast >/dev/null; then
		echo "build.sh: afl-fuzz/afl-clang-fast not found (install the afl++ package)" >&2
		exit 1
	fi
	run_make "out/afl/$target" corpus
	local in=$seeds
	if [ "$(count_files "$seeds")" -eq 0 ]; then
		# afl-fuzz refuses an empty input directory.
		in=$work/afl-seed
		mkdir -p "$in"
		printf '\0' >"$in/empty"
	fi
	local cmd=(afl-fuzz -i "$in" -o "$work/afl")
	[ -f "$dict" ] && cmd+=(-x "$dict")
	cmd+=(-V "$secs" -- "out/afl/$target")
	echo "AFL++ fuzzing $target for ${secs}s; crashes go to $ROOT/$work/afl/default/crashes/"
	echo "+ ${cmd[*]}"
	local rc=0
	# AFL_AUTORESUME: keep the output directory (and its queue) between runs.
	AFL_SKIP_CPUFREQ=1 AFL_I_DONT_CARE_ABOUT_MISSING_CRASHES=1 AFL_NO_UI=1 \
		AFL_AUTORESUME=1 "${cmd[@]}" || rc=$?

	local stats=$work/afl/default/fuzzer_stats crashes
	crashes=$(find "$work/afl/default/crashes" -type f ! -name README.txt 2>/dev/null | wc -l)
	echo
	echo "== $target: afl-fuzz exit status $rc"
	if [ -f "$stats" ]; then
		echo "   exec/s:  $(sed -n 's/^execs_per_sec *: *//p' "$stats")"
		echo "   corpus:  $(sed -n 's/^corpus_count *: *//p' "$stats") inputs in $ROOT/$work/afl/default/queue"
	fi
	echo "   crashes: $crashes file(s) in $ROOT/$work/afl/default/crashes/"
	return "$rc"
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
fuzz) fuzz "$@" ;;
replay) deps; run_make replay ;;
clean) run_make clean ;;
-h | --help | help) usage ;;
*)
	usage >&2
	exit 2
	;;
esac
