#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# ./build.sh bugs: the known-bug suite (bugs/README.md). For each planted
# bug (-DVMAFUZZ_BUG_<name>), build the libFuzzer targets with the switch,
# fuzz each target the bug concerns from its seed corpus minus any seed named
# for the bug, and report how long the first detection took (median of R
# runs) and which invariant or sanitizer report caught it.
#
#   scripts/bugs.sh [NAME...] [--seconds S] [--runs R] [--jobs J] [--csv] [--expect-found]
#   scripts/bugs.sh --kernel ...   the reverted kernel fixes (scripts/kernel-bugs.sh)
#
# S (default 600) is each run's budget, R (default 3) the runs per bug and
# target, each on one core with its own -seed; J (default 1) runs of a bug
# and target at once (each still on one core: at most the cores you have). A run that finds nothing
# counts as slower than any that did; the median is "-" when most runs found
# nothing. --expect-found exits 1 unless every bug was found by some target
# in most of its runs (the short CI version, tests/bugs.sh). Works in
# out/bugs-runs/. Needs the Makefile's bug-libfuzzer builds (clang with
# libFuzzer).
set -uo pipefail

cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/.."
ROOT=$PWD
. scripts/bugs-lib.sh

# --kernel: the reverted kernel fixes (scripts/kernel-bugs.sh)
for a in "$@"; do
	if [ "$a" = --kernel ]; then
		args=()
		for b in "$@"; do [ "$b" = --kernel ] || args+=("$b"); done
		exec scripts/kernel-bugs.sh "${args[@]}"
	fi
done
JOBS=${JOBS:-$(nproc 2>/dev/null || echo 2)}

# bug -> the targets whose operations reach it
targets_of() {
	case $1 in
	mt_gap_stale | mt_free_early) echo fuzz_mtree ;;
	rollup_skip_after_relock | rollup_stop_on_freed) echo fuzz_rollup fuzz_mm ;;
	zero_entry_walker | uffd_fork_fail_leak) echo fuzz_fork fuzz_mm ;;
	merge_anon_mismatch | merge_case4_anon | merge_case3_pgoff | copied_anon_merge | \
		dontunmap_locked_split) echo fuzz_mm ;;
	*) echo fuzz_mm fuzz_fork ;;
	esac
}

usage() {
	sed -n '3,19p' "$0" | sed 's/^# \{0,1\}//' >&2
}

seconds=600 runs=3 jobs=1 csv=0 expect_found=0
names=()
while [ $# -gt 0 ]; do
	bugs_opt "build.sh bugs" "$@"
	if [ "$BUGS_TOOK" -gt 0 ]; then
		shift "$BUGS_TOOK"
		continue
	fi
	case $1 in
	-h | --help)
		usage
		exit 0
		;;
	-*)
		echo "build.sh bugs: unknown option '$1'" >&2
		usage
		exit 2
		;;
	*) names+=("$1") ;;
	esac
	shift
done

all=$(make -s --no-print-directory list-bugs)
[ ${#names[@]} -gt 0 ] || read -r -a names <<<"$all"
for n in "${names[@]}"; do
	if ! grep -qw -- "$n" <<<"$all"; then
		echo "build.sh bugs: no planted bug '$n' (have: $all)" >&2
		exit 2
	fi
done

make -s --no-print-directory -j"$JOBS" corpus >/dev/null || exit 1

# run BUG TARGET K DIR: one fuzzing run; prints "seconds caught-by" or "- -"
run() {
	local bug=$1 target=$2 k=$3 dir=$4 t0 t1 rc=0 what
	rm -rf "$dir"
	mkdir -p "$dir/corpus" "$dir/crash"
	for s in out/corpus/"$target"/*; do
		case $(basename "$s") in *"$bug"*) continue ;; esac
		cp "$s" "$dir/corpus/"
	done
	t0=$(date +%s.%N)
	ASAN_OPTIONS=${ASAN_OPTIONS:-quarantine_size_mb=64} \
		"out/bugs/$bug/libfuzzer/$target" -seed="$k" -max_total_time="$seconds" \
		-rss_limit_mb=2048 -dict="dict/$target.dict" -artifact_prefix="$dir/crash/" \
		"$dir/corpus" >"$dir/log" 2>&1 || rc=$?
	t1=$(date +%s.%N)
	if [ "$rc" -ne 0 ] && ls "$dir/crash"/* >/dev/null 2>&1; then
		what=$(bugs_caught_by "$dir/log")
		echo "$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }') $what"
	else
		echo "- -"
	fi
}


[ "$csv" = 1 ] && echo "bug,target,runs,found,median_seconds,caught_by" ||
	printf '%-26s %-12s %6s %9s  %s\n' bug target found "median s" "caught by"
missing=0
for bug in "${names[@]}"; do
	if ! make -s --no-print-directory -j"$JOBS" bug-libfuzzer BUG="$bug" >"out/bugs-build-$bug.log" 2>&1; then
		echo "build.sh bugs: building $bug failed (out/bugs-build-$bug.log)" >&2
		exit 1
	fi
	found_any=0
	for target in $(targets_of "$bug"); do
		times=() found=0 caught=
		for k in $(seq 1 "$runs"); do
			while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do wait -n; done
			mkdir -p "out/bugs-runs/$bug/$target"
			run "$bug" "$target" "$k" "out/bugs-runs/$bug/$target/$k" \
				>"out/bugs-runs/$bug/$target/$k.result" &
		done
		wait
		for k in $(seq 1 "$runs"); do
			read -r t what <"out/bugs-runs/$bug/$target/$k.result"
			times+=("$t")
			if [ "$t" != - ]; then
				found=$((found + 1))
				[ -n "$caught" ] || caught=$what
			fi
		done
		m=$(bugs_median "${times[@]}")
		[ "$m" != - ] && found_any=1
		if [ "$csv" = 1 ]; then
			echo "$bug,$target,$runs,$found,$m,${caught:--}"
		else
			printf '%-26s %-12s %6s %9s  %s\n' "$bug" "$target" "$found/$runs" "$m" "${caught:--}"
		fi
	done
	[ "$found_any" = 1 ] || missing=$((missing + 1))
done
[ "$csv" = 1 ] || echo "(budget ${seconds}s per run, ${runs} run(s) each; logs and crashes in out/bugs-runs/)"
if [ "$expect_found" = 1 ] && [ "$missing" -gt 0 ]; then
	echo "build.sh bugs: $missing bug(s) not found" >&2
	exit 1
fi
exit 0
