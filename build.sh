#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# vmafuzz build driver (the real rules are in the Makefile).
#
#   ./build.sh                      install deps, build every flavor and the corpora
#   ./build.sh test                 build, run tests/test_* and tests/*.sh, gcc check
#   ./build.sh fuzz [T] [SECS]      libFuzzer on target T (default fuzz_mm or fuzz_mtree),
#                                   with the structure-aware mutator (fuzz/prog/mutator.h)
#   ./build.sh fuzz --plain ...     the same without it (out/libfuzzer-plain/T)
#   ./build.sh fuzz --afl [T] [SECS]  afl-fuzz with the dictionary, a CmpLog binary
#                                   (-c out/afl-cmplog/T) and the mutator library
#                                   (AFL_CUSTOM_MUTATOR_LIBRARY=out/afl/T-mutator.so);
#                                   its status screen on a terminal, else status lines;
#                                   plot_data rows from the first second (vmafuzz statsd)
#   ./build.sh fuzz --jobs N ...    N workers on one corpus: libFuzzer -fork=N
#                                   (-ignore_crashes=1), AFL++ one -M and N-1 -S
#   ./build.sh fuzz ... -- FLAGS    FLAGS to the engine as they are; fuzz --help
#   ./build.sh coverage             replay seeds, corpora and AFL++ queues in a source-based
#                                   coverage build: out/coverage/html/, per-file summary
#   ./build.sh replay               build only the replay drivers (out/replay/)
#   ./build.sh kernel               the kernel targets (kfuzz_mtree: the kernel's own
#                                   lib/maple_tree.c) in out/kernel/, from $KSRC or Debian's
#                                   linux-source-6.12 (installed as root); docs/kernel.md
#   ./build.sh fuzz kfuzz_mtree ... fuzz a kernel target (seeds: its model twin's)
#   ./build.sh fuzz fuzz_conform .. fuzz_mm's programs in the model and on this kernel;
#                                   a difference is a crash (README)
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
. scripts/afl-lib.sh
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

# The targets that run programs on this machine's kernel too (live/fuzz_*.c:
# fuzz_conform, live/live.mk), built under libFuzzer only.
live_targets() {
	local f
	for f in live/fuzz_*.c; do
		[ -e "$f" ] && basename "$f" .c
	done
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

# ----------------------------------------------------------------------- fuzz
# What a libFuzzer exit status means (its -*_exitcode defaults, and the
# sanitizers' own exit status after a report).
libfuzzer_status() {
	case $1 in
	0) echo "finished: the time or -runs was up" ;;
	1) echo "a sanitizer report: the input is saved under crashes/" ;;
	70) echo "an input ran longer than -timeout: saved as timeout-*" ;;
	71) echo "out of memory (-rss_limit_mb or -malloc_limit_mb): saved as oom-*" ;;
	72) echo "interrupted (Ctrl-C or a signal)" ;;
	77) echo "a crash, leak or deadly signal: the input is saved under crashes/" ;;
	*) echo "see libFuzzer's log" ;;
	esac
}

fuzz_usage() {
	cat <<-'EOF'
	usage: ./build.sh fuzz [--bug NAME...] [--afl|--plain] [--jobs N] [--seeds DIR]
	                       [TARGET] [SECONDS] [-- ENGINE FLAGS...]

	Builds TARGET (default fuzz_mm; a kernel target such as kfuzz_mtree,
	and fuzz_conform, which runs fuzz_mm's programs on this machine's kernel
	too, fuzz from their model twin's seeds) and fuzzes it for SECONDS
	(default 600) from out/corpus/<target>, the corpus growing in
	out/work/<target>/.
	  --bug NAME  the build with planted bug NAME (make list-bugs; again
	              for more than one): out/bugs/NAME/, its replay build too
	  --seeds DIR start from DIR's inputs, not out/corpus/<target>
	  --afl       under afl-fuzz (CmpLog, the structure-aware mutator)
	  --plain     libFuzzer without the structure-aware mutator
	  --jobs N    N workers on one corpus (libFuzzer -fork=N, AFL++ -M/-S)
	  -- FLAGS    passed to the engine as they are (libFuzzer: -runs=1000,
	              -seed=7 ...; afl-fuzz: -p explore ...), after ours; and
	              ours: -return_to_seeds=K, one libFuzzer mutation in K
	              starts from a seed (default 16, 0: never)
	A status line every few seconds (with --afl on a terminal, afl-fuzz's
	status screen instead); the engine's whole log in out/work/<target>/logs/
	(fuzz.log: libFuzzer's last). With --afl, plot_data has a row a second
	(vmafuzz plot draws it) and afl-whatsup out/work/<target>/afl works.
	Crashes go to out/work/<target>/crashes/ (AFL++: afl/<instance>/crashes/);
	each folder's .builds says which build found each crash, and vmafuzz
	triage, minimize, regress and replay use that build's replay driver.
	EOF
}

# The planted bugs of the model (VMAFUZZ_BUG_<name> in src/ or fuzz/, as the
# Makefile finds them), the harness's own test_ plants included.
planted_bugs() {
	grep -rhoE 'VMAFUZZ_BUG_[A-Za-z0-9_]+' src fuzz 2>/dev/null | sed 's/^VMAFUZZ_BUG_//' | sort -u
}

# record_builds DIR BUILD BEFORE: name BUILD in DIR/.builds for each crash
# file of DIR not in the list BEFORE (one name per line), i.e. new this run.
record_builds() {
	local dir=$1 build=$2 before=$3 f name
	[ -d "$dir" ] || return 0
	for f in "$dir"/*; do
		[ -f "$f" ] || continue
		name=$(basename "$f")
		[ "$name" = README.txt ] && continue
		grep -qxF -- "$name" <<<"$before" && continue
		# already recorded so (the last line for a name counts)
		[ -f "$dir/.builds" ] && [ "$(grep -F -- "$name " "$dir/.builds" | tail -n 1)" = "$name $build" ] && continue
		echo "$name $build" >>"$dir/.builds"
	done
}

# crash_names DIR: the crash files of DIR, one per line.
crash_names() {
	[ -d "$1" ] && find "$1" -maxdepth 1 -type f ! -name '.*' ! -name README.txt -printf '%f\n' | sort || true
}

# libfuzzer_sample LOG: "exec/s edges corpus" from libFuzzer's last
# progress line.
libfuzzer_sample() {
	local last cov corp rate
	last=$(grep -E 'cov: [0-9]+.*exec/s:? [0-9]+' "$1" 2>/dev/null | tail -n 1 || true)
	cov=$(grep -Eo 'cov: [0-9]+' <<<"$last" | cut -d' ' -f2 || true)
	corp=$(grep -Eo 'corp: [0-9]+' <<<"$last" | cut -d' ' -f2 || true)
	rate=$(grep -Eo 'exec/s:? [0-9]+' <<<"$last" | grep -Eo '[0-9]+' || true)
	echo "${rate:-?} ${cov:-?} ${corp:-?}"
}

# afl_sample ROWS: the same from the last plot_data row vmafuzz statsd wrote
# (columns: time, cycles, item, corpus, ..., exec/s, executions, edges).
afl_sample() {
	local last
	last=$(tail -n 1 "$1" 2>/dev/null | grep -v '^#' || true)
	awk -F', ' -v l="$last" 'BEGIN { split(l, f, ", ");
		if (l == "") print "? ? ?"; else printf "%d %s %s\n", f[11], f[13], f[4] }'
}

# fuzz_status SAMPLER SOURCE BEFORE START SECS CRASHDIR...: a status line
# every few seconds from what SAMPLER says of SOURCE (libfuzzer_sample LOG,
# afl_sample ROWS), until killed. On a terminal the line is rewritten in
# place every 5 s; else one line every 30 s (VMAFUZZ_STATUS_EVERY=S: every
# S s). Crashes: the files of the CRASHDIRs beyond BEFORE.
fuzz_status() {
	local sampler=$1 src=$2 before=$3 start=$4 secs=$5 every=30 end=$'\n' now t left
	local rate cov corp n d
	shift 5
	if [ -t 1 ]; then
		every=5 end=$'\r'
	fi
	every=${VMAFUZZ_STATUS_EVERY:-$every}
	while sleep "$every"; do
		now=$(date +%s)
		t=$((now - start))
		left=$((secs - t))
		[ "$left" -lt 0 ] && left=0
		read -r rate cov corp < <("$sampler" "$src")
		n=$((-before))
		for d in "$@"; do
			n=$((n + $(count_files "$d")))
		done
		printf '[%s] %ds elapsed, %ds left: exec/s %s, edges %s, corpus %s, crashes %d new%s' \
			"$(date +%H:%M:%S)" "$t" "$left" "$rate" "$cov" "$corp" "$n" "$end"
	done
}

fuzz() {
	local use_afl=0 plain=0 jobs=1 target="" secs="" a engine=() live_flags=() bugs=() seeds_dir=
	while [ $# -gt 0 ]; do
		a=$1
		shift
		case $a in
		-h | --help)
			fuzz_usage
			exit 0
			;;
		--)
			engine=("$@")
			break
			;;
		--afl) use_afl=1 ;;
		--plain) plain=1 ;;
		--seeds=*) seeds_dir=${a#--seeds=} ;;
		--seeds)
			[ $# -gt 0 ] || { echo "build.sh fuzz: --seeds needs a directory" >&2; exit 2; }
			seeds_dir=$1
			shift
			;;
		--bug=*) bugs+=("${a#--bug=}") ;;
		--bug)
			[ $# -gt 0 ] || { echo "build.sh fuzz: --bug needs a planted bug's name (make list-bugs)" >&2; exit 2; }
			bugs+=("$1")
			shift
			;;
		--jobs=*) jobs=${a#--jobs=} ;;
		--jobs | -j)
			[ $# -gt 0 ] || { echo "build.sh: $a needs a number" >&2; exit 2; }
			jobs=$1
			shift
			;;
		-*)
			echo "build.sh fuzz: unknown option '$a' (engine flags go after '--'; see --help)" >&2
			exit 2
			;;
		*[!0-9]*) target=$a ;;
		*) secs=$a ;;
		esac
	done
	case $jobs in
	'' | *[!0-9]* | 0)
		echo "build.sh fuzz: --jobs takes a positive number, not '$jobs'" >&2
		exit 2
		;;
	esac
	if [ -z "$target" ]; then
		target=fuzz_mtree
		[ -e fuzz/targets/fuzz_mm.c ] && target=fuzz_mm
	fi
	secs=${secs:-600}
	# --bug: the planted bugs' build, named as the Makefile names it (sorted,
	# joined by +)
	local bug="" b
	if [ ${#bugs[@]} -gt 0 ]; then
		local have
		have=$(planted_bugs)
		for b in "${bugs[@]}"; do
			if ! grep -qxF -- "$b" <<<"$have"; then
				echo "build.sh fuzz: no planted bug '$b' (have: $(paste -sd' ' - <<<"$have"))" >&2
				exit 2
			fi
		done
		bug=$(printf '%s\n' "${bugs[@]}" | sort -u | paste -sd+ -)
		if [ "$plain" = 1 ]; then
			echo "build.sh fuzz: --bug builds have the structure-aware mutator (no --plain)" >&2
			exit 2
		fi
		if [ -n "$(kernel_src "$target")" ]; then
			echo "build.sh fuzz: --bug plants bugs in the model; the kernel targets' reverted" \
				"fixes are patches to the kernel tree (scripts/kernel-bugs.sh)" >&2
			exit 2
		fi
	fi
	# a kernel target runs its model twin's programs: kfuzz_mtree, fuzz_mtree's
	local twin=$target kdir=""
	if [ -n "$(kernel_src "$target")" ]; then
		twin=$(kernel_twin "$target")
		[ -e "fuzz/targets/$twin.c" ] || { echo "build.sh: $(kernel_src "$target") names no model twin" >&2; exit 2; }
		kdir=kernel/
		if [ "$plain" = 1 ]; then
			echo "build.sh fuzz: $target runs with the structure-aware mutator only (no --plain)" >&2
			exit 2
		fi
	elif [ -e "live/$target.c" ]; then
		# fuzz_conform: its twin's programs, in the model and on this kernel
		twin=$(kernel_twin "$target")
		# programs up to about 48 operations (12 bytes each, and a
		# schedule): every operation is compared in full on the kernel,
		# so a run of 128-operation programs goes at a third of the speed,
		# and every divergence found so far needed 28 or fewer
		live_flags=(-max_len=640)
		if [ "$use_afl" = 1 ] || [ "$plain" = 1 ] || [ -n "$bug" ] || [ "$jobs" -gt 1 ]; then
			echo "build.sh fuzz: $target runs under libFuzzer, one worker, with the" \
				"structure-aware mutator only (no --afl, --plain, --bug or --jobs)" >&2
			exit 2
		fi
	elif [ ! -e "fuzz/targets/$target.c" ]; then
		echo "build.sh: unknown target '$target' (have: $(targets | paste -sd' ' -)" \
			"$(live_targets | paste -sd' ' -) $(kernel_targets | paste -sd' ' -))" >&2
		exit 2
	fi

	# (VMAFUZZ_WORK_ROOT: another folder for out/work, as tests use)
	local work=${VMAFUZZ_WORK_ROOT:-out/work}/$target seeds=out/corpus/$twin dict=dict/$twin.dict
	if [ -n "$seeds_dir" ]; then
		[ -d "$seeds_dir" ] || { echo "build.sh fuzz: --seeds $seeds_dir: not a directory" >&2; exit 2; }
		seeds=$seeds_dir
	fi
	deps
	mkdir -p "$work/corpus" "$work/crashes" "$seeds"
	if [ "$use_afl" = 1 ]; then
		fuzz_afl
		return
	fi

	local flavor=${kdir}libfuzzer what="structure-aware mutator on; --plain: off"
	if [ "$plain" = 1 ]; then
		flavor=libfuzzer-plain what="libFuzzer's own mutations only (--plain)"
	fi
	if [ -n "$bug" ]; then
		flavor=bugs/$bug/libfuzzer what="planted bug $bug, structure-aware mutator on"
		run_make bug-libfuzzer bug-replay BUG="$bug"
	fi
	run_make "out/$flavor/$target" corpus
	find "$seeds" -maxdepth 1 -type f -exec cp -n -t "$work/corpus" {} +
	echo "Fuzzing $target for ${secs}s ($what); crashes go to $(abs "$work")/crashes/"

	local cmd=("out/$flavor/$target" "$work/corpus" "$seeds")
	[ -f "$dict" ] && cmd+=("-dict=$dict")
	cmd+=("-max_total_time=$secs" "-artifact_prefix=$work/crashes/" -print_final_stats=1)
	if [ "$jobs" -gt 1 ]; then
		# fork mode: N child processes, new inputs merged into the first
		# corpus directory; a crash is saved and fuzzing goes on
		cmd+=("-fork=$jobs" -ignore_crashes=1)
	fi
	cmd+=("${live_flags[@]}" "${engine[@]}")
	# AddressSanitizer keeps 256 MB of freed memory by default to catch late
	# uses; a quarter of that still catches them in programs this small and
	# keeps a run well under libFuzzer's RSS limit.
	export ASAN_OPTIONS=${ASAN_OPTIONS:-quarantine_size_mb=64}
	echo "+ ASAN_OPTIONS=$ASAN_OPTIONS ${cmd[*]}"

	# the engine's whole log, one per run, fuzz.log the last one's
	local log start end rc units rate crashes old_crashes before spid
	mkdir -p "$work/logs"
	log=$work/logs/$(date +%Y%m%d-%H%M%S)-${flavor//\//-}.log
	ln -sfn "logs/$(basename "$log")" "$work/fuzz.log"
	echo "   engine log: $(abs "$log")"
	old_crashes=$(count_files "$work/crashes")
	before=$(crash_names "$work/crashes")
	start=$(date +%s)
	# Ctrl-C: libFuzzer stops and prints its stats; this script must go on
	# to the summary (the status loop, in the background, ignores it).
	trap 'echo; echo "(interrupted)"' INT
	fuzz_status libfuzzer_sample "$log" "$old_crashes" "$start" "$secs" "$work/crashes" &
	spid=$!
	set +e
	"${cmd[@]}" >"$log" 2>&1
	rc=$?
	set -e
	kill "$spid" 2>/dev/null || true
	wait "$spid" 2>/dev/null || true
	trap - INT
	end=$(date +%s)
	[ -t 1 ] && echo # past the status line
	record_builds "$work/crashes" "$flavor" "$before"

	# exec/s: libFuzzer's final stats (executed units / its run time), else
	# units / wall time, else the last progress line.
	units=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
	rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -n 1)
	if [ "${rate:-0}" = 0 ] && [ -n "$units" ] && [ "$end" -gt "$start" ]; then
		rate=$((units / (end - start)))
	fi
	if [ "${rate:-0}" = 0 ]; then
		# (-fork=N lines say "exec/s N")
		rate=$(grep -Eo 'exec/s:? [0-9]+' "$log" | tail -n 1 | cut -d' ' -f2 || true)
	fi
	crashes=$(count_files "$work/crashes")
	# The corpus keeps only what adds coverage: libFuzzer's -merge=1 into a
	# fresh folder, which then replaces it (kept as it was if the merge
	# fails; its log beside fuzz.log).
	local grown merged=$work/corpus.merge
	grown=$(count_files "$work/corpus")
	rm -rf "$merged"
	mkdir -p "$merged"
	# (an input that crashes the merge is saved with the run's crashes)
	if "out/$flavor/$target" -merge=1 -artifact_prefix="$work/crashes/" "$merged" \
		"$work/corpus" >"$work/merge.log" 2>&1 &&
		[ "$(count_files "$merged")" -gt 0 ]; then
		rm -rf "$work/corpus"
		mv "$merged" "$work/corpus"
	else
		rm -rf "$merged"
		echo "   (merging the corpus failed; kept as it was: $(abs "$work")/merge.log)"
	fi
	record_builds "$work/crashes" "$flavor" "$before"
	crashes=$(count_files "$work/crashes")
	echo
	echo "== $target: libFuzzer exit status $rc ($(libfuzzer_status "$rc")) after $((end - start))s"
	echo "   exec/s:  ${rate:-?}${units:+ ($units executions)}"
	echo "   corpus:  $(count_files "$work/corpus") inputs in $(abs "$work")/corpus" \
		"(merged from $grown)"
	echo "   crashes: $((crashes - old_crashes)) new this run, $crashes in all, in $(abs "$work")/crashes/"
	if [ "$crashes" -gt "$old_crashes" ]; then
		# what the engine said of the crash, from the log
		grep -E '^vmafuzz: (invariant|model assertion)|ERROR: (AddressSanitizer|libFuzzer)|runtime error:|^SUMMARY:|Test unit written to' \
			"$log" | head -n 8 | sed 's/^/   | /' || true
	fi
	if [ -e "live/$target.c" ]; then
		# what its inputs were: how many ran for real, how many were refused
		grep -E '^fuzz_conform: ' "$log" | tail -n 8 | sed 's/^fuzz_conform: /   /' || true
		[ "$crashes" -gt 0 ] && echo "   again:   out/vmafuzz conform FILE   (a crash is a" \
			"fuzz_mm program; both views side by side)"
	elif [ "$crashes" -gt 0 ]; then
		echo "   triage:  out/vmafuzz triage $work/crashes   (each crash with the replay" \
			"driver of the build that found it)"
	fi
	echo "   log:     $(abs "$log")"
	return "$rc"
}

# afl-fuzz on out/afl/<target>, with the CmpLog binary and the custom
# mutator library; uses target/secs/jobs/work/seeds/dict from fuzz().
# One instance is "default"; with --jobs N, "main" (-M, with CmpLog) runs in
# the foreground and s1..s<N-1> (-S) in the background, all on $work/afl.
# On a terminal afl-fuzz draws its status screen; otherwise its output goes
# to a log and a status line comes every 30 s. vmafuzz statsd writes each
# instance's plot_data rows from the first second (scripts/afl-lib.sh).
fuzz_afl() {
	if ! command -v afl-fuzz >/dev/null || ! command -v afl-clang-fast >/dev/null; then
		echo "build.sh: afl-fuzz/afl-clang-fast not found (install the afl++ package)" >&2
		exit 1
	fi
	# a kernel target: its own AFL++ and CmpLog builds, its twin's mutator
	local bin=out/afl/$target cmplog=out/afl-cmplog/$target build=afl
	if [ -n "$kdir" ]; then
		bin=out/kernel/afl/$target cmplog=out/kernel/afl-cmplog/$target build=kernel/afl
	fi
	# --bug: its AFL++ build (and its replay build, for triage); CmpLog's
	# comparisons from the normal build
	[ -n "$bug" ] && bin=out/bugs/$bug/afl/$target build=bugs/$bug/afl &&
		run_make bug-afl bug-replay BUG="$bug"
	run_make "$bin" "out/afl/$twin-mutator.so" "$cmplog" corpus tool
	local in=$seeds
	if [ "$(count_files "$seeds")" -eq 0 ]; then
		# afl-fuzz refuses an empty input directory.
		in=$work/afl-seed
		mkdir -p "$in"
		printf '\0' >"$in/empty"
	fi
	# the crashes there before this run (AFL_AUTORESUME keeps them)
	local before_afl d n
	before_afl=$(for d in "$work"/afl/*/crashes; do crash_names "$d" | sed "s|^|$d/|"; done 2>/dev/null)
	local common=(-i "$in" -o "$work/afl")
	[ -f "$dict" ] && common+=(-x "$dict")
	local names=(default) i rc=0
	[ "$jobs" -gt 1 ] && names=(main)
	for ((i = 1; i < jobs; i++)); do
		names+=("s$i")
	done
	local afl_ui=0 afl_log=
	afl_env
	local crashdirs=() old=0
	for n in "${names[@]}"; do
		crashdirs+=("$work/afl/$n/crashes")
		old=$((old + $(count_files "$work/afl/$n/crashes")))
	done
	echo "AFL++ fuzzing $target for ${secs}s with ${jobs} instance(s) (${names[*]});" \
		"crashes go to $(abs "$work")/afl/<instance>/crashes/"
	echo "+ AFL_CUSTOM_MUTATOR_LIBRARY=$AFL_CUSTOM_MUTATOR_LIBRARY"
	afl_instances
	trap - INT

	local crashes=0 c stats
	echo
	echo "== $target: afl-fuzz exit status $rc"
	for n in "${names[@]}"; do
		record_builds "$work/afl/$n/crashes" "$build" \
			"$(sed -n "s|^$work/afl/$n/crashes/||p" <<<"$before_afl")"
		stats=$work/afl/$n/fuzzer_stats
		c=$(count_files "$work/afl/$n/crashes")
		crashes=$((crashes + c))
		if [ -f "$stats" ]; then
			echo "   $n: exec/s $(sed -n 's/^execs_per_sec *: *//p' "$stats")," \
				"corpus $(sed -n 's/^corpus_count *: *//p' "$stats")," \
				"edges $(sed -n 's/^edges_found *: *//p' "$stats")," \
				"stability $(sed -n 's/^stability *: *//p' "$stats"), crashes $c"
		fi
	done
	echo "   queue:   $(abs "$work")/afl/<instance>/queue"
	echo "   crashes: $((crashes - old)) new this run, $crashes in all, in" \
		"$(abs "$work")/afl/<instance>/crashes/"
	echo "   plot:    out/vmafuzz plot $work/afl/${names[0]}/plot_data" \
		"($(grep -vc '^#' "$work/afl/${names[0]}/plot_data" 2>/dev/null || echo 0) rows)"
	[ -n "$afl_log" ] && echo "   log:     $(abs "$afl_log")"
	return "$rc"
}

# abs PATH: PATH from /, as it is when it starts with /.
abs() {
	case $1 in
	/*) echo "$1" ;;
	*) echo "$ROOT/$1" ;;
	esac
}

# The environment of every afl-fuzz build.sh runs (uses twin from fuzz()).
afl_env() {
	# AFL_AUTORESUME: keep the output directory (and its queue) between runs.
	# AFL_SKIP_CRASHES: a seed that crashes (a --bug build's, often) is
	# skipped, not the end of the run.
	export AFL_SKIP_CRASHES=1
	export AFL_SKIP_CPUFREQ=1 AFL_I_DONT_CARE_ABOUT_MISSING_CRASHES=1 \
		AFL_AUTORESUME=1 AFL_CUSTOM_MUTATOR_LIBRARY="$ROOT/out/afl/$twin-mutator.so"
	# figures every second to vmafuzz statsd (plot_data rows), untagged
	export AFL_STATSD=1
	unset AFL_STATSD_TAGS_FLAVOR AFL_STATSD_HOST
	# No pinning to a core (afl-fuzz refuses to start when every core is
	# pinned, which on a shared machine other runs may have done), unless
	# VMAFUZZ_AFL_BIND=1.
	[ "${VMAFUZZ_AFL_BIND:-0}" = 1 ] || export AFL_NO_AFFINITY=1
	# the status screen on a terminal; else a log and status lines
	afl_ui=0
	if afl_wants_ui; then
		afl_ui=1
	else
		export AFL_NO_UI=1
	fi
}

# Run the instances of fuzz_afl (its names, common, bin, cmplog...), each
# with a vmafuzz statsd, the secondaries in the background (output in
# $work/afl-<name>.log), the first as afl_main says; then merge their rows
# into plot_data and end what afl-fuzz left behind. Sets rc and afl_log.
afl_instances() {
	local run=$$-$(date +%s%N) map pids=() spids=() ports=() rows=() k cmd
	map=$(AFL_DUMP_MAP_SIZE=1 "$bin" 2>/dev/null | tail -n 1 || true)
	case $map in '' | *[!0-9]*) map=0 ;; esac
	for ((k = 0; k < ${#names[@]}; k++)); do
		rows+=("$work/afl-${names[k]}.plot")
		afl_statsd_start "${rows[k]}" "$work/afl/${names[k]}/fuzzer_stats" "$map"
		spids+=("$statsd_pid")
		ports+=("$statsd_port")
	done
	trap 'echo "(interrupted)"; for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done' INT
	for ((k = 1; k < ${#names[@]}; k++)); do
		cmd=(afl-fuzz "${common[@]}" -S "${names[k]}" -V "$secs" "${engine[@]}" -- "$bin")
		echo "+ ${cmd[*]} >$work/afl-${names[k]}.log &"
		afl_run "$run" "${ports[k]}" "${cmd[@]}" >"$work/afl-${names[k]}.log" 2>&1 </dev/null &
		pids+=($!)
	done
	cmd=(afl-fuzz "${common[@]}")
	[ "$jobs" -gt 1 ] && cmd+=(-M main)
	cmd+=(-c "$cmplog" -V "$secs" "${engine[@]}" -- "$bin")
	echo "+ ${cmd[*]}"
	afl_main "$run" "${ports[0]}" "${rows[0]}" "${cmd[@]}"
	for k in "${pids[@]}"; do
		wait "$k" 2>/dev/null || true
	done
	for ((k = 0; k < ${#names[@]}; k++)); do
		kill "${spids[k]}" 2>/dev/null || true
		wait "${spids[k]}" 2>/dev/null || true
		afl_merge_rows "$work/afl/${names[k]}/plot_data" "${rows[k]}"
	done
	afl_end_leftovers "$run"
}

# afl_run RUN PORT CMD...: CMD with VMAFUZZ_AFL_RUN=RUN (afl_leftovers) and
# its statsd figures to PORT (none when vmafuzz statsd did not start).
afl_run() {
	local run=$1 port=$2
	shift 2
	if [ -n "$port" ]; then
		env "VMAFUZZ_AFL_RUN=$run" "AFL_STATSD_PORT=$port" "$@"
	else
		env -u AFL_STATSD "VMAFUZZ_AFL_RUN=$run" "$@"
	fi
}

# afl_main RUN PORT ROWS CMD...: the first instance. On a terminal it draws
# its status screen there; else its output goes to $work/logs/ (afl_log)
# and fuzz_status prints lines from ROWS.
afl_main() {
	local run=$1 port=$2 rows=$3 start spid pid
	shift 3
	afl_log=
	if [ "$afl_ui" = 1 ]; then
		afl_run "$run" "$port" "$@" || rc=$?
		return 0
	fi
	mkdir -p "$work/logs"
	afl_log=$work/logs/$(date +%Y%m%d-%H%M%S)-${build//\//-}.log
	echo "   engine log: $(abs "$afl_log")"
	start=$(date +%s)
	fuzz_status afl_sample "$rows" "$old" "$start" "$secs" "${crashdirs[@]}" &
	spid=$!
	afl_run "$run" "$port" "$@" >"$afl_log" 2>&1 </dev/null &
	pid=$!
	pids+=("$pid") # (for the INT trap)
	wait "$pid" || rc=$?
	# a Ctrl-C ends the first wait early; afl-fuzz still writes its stats
	if kill -0 "$pid" 2>/dev/null; then
		wait "$pid" || rc=$?
	fi
	kill "$spid" 2>/dev/null || true
	wait "$spid" 2>/dev/null || true
	[ -t 1 ] && echo # past the status line
	return 0
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
fuzz) fuzz "$@" ;;
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
