#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# ./build.sh bugs --kernel: the known kernel bugs (bugs/README.md, "Kernel
# bugs"). Each bugs/kernel-patches/<name>.patch reverts a historical fix to
# lib/maple_tree.c; for each, a shadow tree out/kernel-bugs/<name>/src
# (symlinks to the kernel tree's include/, tools/ and mm/, a patched copy of
# lib/maple_tree.c) is built into kfuzz_mtree with its own OUTDIR, fuzzed
# from fuzz_mtree's seeds minus any seed named for the bug, and the median
# time to the first crash that is the bug's and what reported it are
# printed: a crash counts only if the unpatched tree, built the same way
# (out/kernel-bugs/baseline), runs it clean; after a crash of the tree's own
# libFuzzer goes on from the corpus it has grown, and such crashes are counted.
#
#   scripts/kernel-bugs.sh [NAME...] [--seconds S] [--runs R] [--jobs J] [--csv]
#                          [--expect-found] [--baseline] [--check] [--reproduce]
#   scripts/kernel-bugs.sh baseline ...   only the unpatched tree
#
# S (default 300) per run, R (default 3) runs with -seed=1..R, J (default 1)
# at once. --baseline also fuzzes the unpatched tree built the same way (it
# should find nothing). --check only dry-runs every patch against the tree
# (the CI check). --reproduce builds only the replay flavor and checks that
# each bug's stored program (bugs/kernel-patches/<name>.txt, where there is
# one) fails on the patched build and runs clean on out/kernel/replay
# (exit 1 if not). A patch that no longer applies is reported and makes the
# exit status 2. The bug builds, like every kernel build, sidestep the
# tree's known findings (kernel/maple/kmt_known.h), so that bugs/kernel/ does not
# stop every run (docs/kernel.md, "Known findings").
set -uo pipefail

cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/.."
. scripts/bugs-lib.sh
NPROC=$(nproc 2>/dev/null || echo 2)
PATCHES=bugs/kernel-patches
TARGET=kfuzz_mtree TWIN=fuzz_mtree

usage() {
	sed -n '3,28p' "$0" | sed 's/^# \{0,1\}//' >&2
}

seconds=300 runs=3 jobs=1 csv=0 expect_found=0 baseline=0 check=0 reproduce=0
names=()
while [ $# -gt 0 ]; do
	bugs_opt "build.sh bugs --kernel" "$@"
	if [ "$BUGS_TOOK" -gt 0 ]; then
		shift "$BUGS_TOOK"
		continue
	fi
	case $1 in
	--baseline) baseline=1 ;;
	--check) check=1 ;;
	--reproduce) reproduce=1 ;;
	-h | --help)
		usage
		exit 0
		;;
	-*)
		echo "build.sh bugs --kernel: unknown option '$1'" >&2
		usage
		exit 2
		;;
	*) names+=("$1") ;;
	esac
	shift
done

all=$(for p in "$PATCHES"/*.patch; do basename "$p" .patch; done | paste -sd' ' -)
given=${#names[@]} picked=()
for n in "${names[@]}"; do
	# "baseline" alone: only the unpatched tree
	[ "$n" = baseline ] && baseline=1 || picked+=("$n")
done
names=("${picked[@]}")
[ "$given" -gt 0 ] || read -r -a names <<<"$all"
for n in "${names[@]}"; do
	if ! [ -f "$PATCHES/$n.patch" ]; then
		echo "build.sh bugs --kernel: no kernel bug '$n' (have: $all)" >&2
		exit 2
	fi
done

KTREE=$(scripts/kernel-tree.sh) || exit 2

# applies NAME: does the patch apply cleanly to the kernel tree?
applies() {
	patch -p1 --dry-run --quiet -d "$KTREE" <"$PATCHES/$1.patch" >/dev/null 2>&1
}

bad_patch=0
for n in "${names[@]}"; do
	if ! applies "$n"; then
		echo "build.sh bugs --kernel: $PATCHES/$n.patch does not apply to $KTREE/lib/maple_tree.c" \
			"(a newer tree? refresh the patch or drop the bug)" >&2
		bad_patch=1
	elif [ "$check" = 1 ]; then
		echo "$n: applies to $KTREE"
	fi
done
[ "$check" = 1 ] && exit $((bad_patch ? 2 : 0))

# shadow NAME DIR: the shadow tree DIR for bug NAME ("" for none: unpatched)
shadow() {
	local name=$1 dir=$2
	rm -rf "$dir"
	mkdir -p "$dir/lib"
	# everything but lib/ as the tree has it (its Makefile says its version)
	local e
	for e in "$KTREE"/*; do
		[ "$(basename "$e")" = lib ] || ln -s "$e" "$dir/$(basename "$e")"
	done
	cp "$KTREE/lib/maple_tree.c" "$dir/lib/"
	[ -z "$name" ] || patch -p1 --quiet -d "$dir" <"$PATCHES/$name.patch" >/dev/null
}

# build NAME OUT: kfuzz_mtree's libFuzzer and replay flavors in OUT
build() {
	local name=$1 out=$2
	shadow "$name" "$out/src" || return 1
	make -s --no-print-directory -j"$NPROC" OUTDIR="$out" KSRC="$out/src" \
		"$out/kernel/libfuzzer/$TARGET" "$out/kernel/replay/$TARGET"
}

# replay BIN FILE LOG: does BIN fail on FILE? (the shell's "Aborted" goes
# to the group's stderr)
fails() {
	local rc=0
	{ "$1" "$2" >"$3" 2>&1; } 2>/dev/null || rc=$?
	[ "$rc" != 0 ]
}

# own NAME CRASH: is CRASH the bug's, i.e. does the patched replay build
# fail on it and the unpatched (baseline) one not? The 6.12 tree has
# findings of its own that the fuzzer meets too.
own() {
	local name=$1 c=$2
	fails "out/kernel-bugs/$name/kernel/replay/$TARGET" "$c" "$c.log" &&
		! fails "out/kernel-bugs/baseline/kernel/replay/$TARGET" "$c" "$c.baseline.log"
}

# run NAME K DIR BIN: one fuzzing run until the first crash that is the
# bug's or S seconds; a crash of the tree's own is set aside (crash/tree/)
# and libFuzzer starts again on the corpus grown so far, with the time left
# and a new -seed. Prints "seconds caught-by" or "- -", then the number of
# the tree's own crashes passed over.
run() {
	local name=$1 k=$2 dir=$3 bin=$4 t0 left c others=0 round=0 result="- -"
	rm -rf "$dir"
	mkdir -p "$dir/corpus" "$dir/crash/tree"
	for s in out/corpus/"$TWIN"/*; do
		case $(basename "$s") in *"$name"*) continue ;; esac
		cp "$s" "$dir/corpus/"
	done
	t0=$(date +%s)
	: >"$dir/log"
	while left=$((seconds - ($(date +%s) - t0))) && [ "$left" -gt 0 ]; do
		ASAN_OPTIONS=${ASAN_OPTIONS:-quarantine_size_mb=64} \
			"$bin" -seed=$((k + 1000 * round)) -max_total_time="$left" -rss_limit_mb=2048 \
			-dict="dict/$TWIN.dict" -artifact_prefix="$dir/crash/" "$dir/corpus" \
			>>"$dir/log" 2>&1
		round=$((round + 1))
		c=$(ls -t "$dir/crash"/crash-* "$dir/crash"/leak-* "$dir/crash"/timeout-* \
			"$dir/crash"/oom-* 2>/dev/null | grep -v '\.log$' | head -n 1)
		[ -n "$c" ] || break
		if own "$name" "$c"; then
			result="$(awk -v a="$t0" -v b="$(date -r "$c" +%s.%N)" \
				'BEGIN { printf "%.1f", b - a }') $(bugs_caught_by "$c.log")"
			break
		fi
		others=$((others + 1))
		mv "$c" "$c".*log "$dir/crash/tree/" 2>/dev/null
	done
	echo "$result"
	echo "$others"
}

# --reproduce: each stored program fails on its bug's build, not on the tree's
if [ "$reproduce" = 1 ]; then
	[ "$bad_patch" = 0 ] || exit 2
	failed=0
	for n in "${names[@]}"; do
		txt=$PATCHES/$n.txt out=out/kernel-bugs/$n
		[ -f "$txt" ] || continue
		mkdir -p "$out"
		if ! { shadow "$n" "$out/src" && make -s --no-print-directory -j"$NPROC" OUTDIR="$out" \
			KSRC="$out/src" "$out/kernel/replay/$TARGET"; } \
			>"$out/build.log" 2>&1; then
			echo "build.sh bugs --kernel: building $n failed ($out/build.log)" >&2
			tail -n 20 "$out/build.log" >&2
			exit 1
		fi
		out/vmafuzz compile "$txt" -o "$out/repro.bin" || exit 1
		# (the group's stderr takes the shell's "Aborted" for the expected crash)
		rc=0
		{ "$out/kernel/replay/$TARGET" "$out/repro.bin" >"$out/repro.log" 2>&1; } 2>/dev/null || rc=$?
		if [ "$rc" = 0 ]; then
			echo "$n: $txt runs clean on the patched build ($out/repro.log)" >&2
			failed=1
		elif [ -x "out/kernel/replay/$TARGET" ] &&
			! "out/kernel/replay/$TARGET" "$out/repro.bin" >"$out/repro-tree.log" 2>&1; then
			echo "$n: $txt fails on the unpatched tree too ($out/repro-tree.log)" >&2
			failed=1
		else
			echo "$n: $txt fails on the patched build ($(bugs_caught_by "$out/repro.log"))"
		fi
	done
	exit "$failed"
fi

make -s --no-print-directory -j"$NPROC" corpus >/dev/null || exit 1

# the unpatched build judges every crash (own); built first
todo=(baseline "${names[@]}")
[ "$baseline" = 1 ] || [ ${#names[@]} -gt 0 ] || todo=()
[ "$csv" = 1 ] && echo "bug,target,runs,found,median_seconds,caught_by,tree_crashes" ||
	printf '%-22s %-12s %6s %9s  %s\n' bug target found "median s" "caught by"
missing=0
for bug in "${todo[@]}"; do
	patchname=$bug
	[ "$bug" = baseline ] && patchname=
	if [ -n "$patchname" ] && ! applies "$patchname"; then
		[ "$csv" = 1 ] && echo "$bug,$TARGET,0,0,-,patch-does-not-apply,0" ||
			printf '%-22s %-12s %6s %9s  %s\n' "$bug" "$TARGET" - - "patch does not apply"
		continue
	fi
	out=out/kernel-bugs/$bug
	mkdir -p "$out"
	if ! build "$patchname" "$out" >"$out/build.log" 2>&1; then
		echo "build.sh bugs --kernel: building $bug failed ($out/build.log)" >&2
		tail -n 20 "$out/build.log" >&2
		exit 1
	fi
	[ "$bug" != baseline ] || [ "$baseline" = 1 ] || continue
	times=() found=0 caught= others=0
	for k in $(seq 1 "$runs"); do
		while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do wait -n; done
		run "$bug" "$k" "$out/runs/$k" "$out/kernel/libfuzzer/$TARGET" >"$out/runs.$k.result" &
	done
	wait
	for k in $(seq 1 "$runs"); do
		{ read -r t what; read -r o; } <"$out/runs.$k.result"
		others=$((others + ${o:-0}))
		times+=("$t")
		if [ "$t" != - ]; then
			found=$((found + 1))
			[ -n "$caught" ] || caught=$what
		fi
	done
	m=$(bugs_median "${times[@]}")
	[ "$m" != - ] || [ "$bug" = baseline ] || missing=$((missing + 1))
	if [ "$csv" = 1 ]; then
		echo "$bug,$TARGET,$runs,$found,$m,${caught:--},$others"
	else
		printf '%-22s %-12s %6s %9s  %s\n' "$bug" "$TARGET" "$found/$runs" "$m" \
			"${caught:--}$([ "$others" = 0 ] || echo " ($others crash(es) of the tree's own passed over)")"
	fi
done
[ "$csv" = 1 ] || echo "(budget ${seconds}s per run, ${runs} run(s) each; builds, logs and crashes" \
	"in out/kernel-bugs/<bug>/; replay a crash with out/kernel-bugs/<bug>/kernel/replay/$TARGET)"
[ "$bad_patch" = 0 ] || exit 2
if [ "$expect_found" = 1 ] && [ "$missing" -gt 0 ]; then
	echo "build.sh bugs --kernel: $missing bug(s) not found" >&2
	exit 1
fi
exit 0
