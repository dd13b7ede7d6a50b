#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# How fast the kernel targets run on each tree, beside their model twins
# (a benchmark: it prints figures; docs/kernel.md, "Speed"):
#
#   scripts/kernel-bench.sh [--seconds S] [--cpu N] [--rounds R] [TREE...]
#
# TREE as scripts/kernel-tree.sh takes it (default: 6.1 6.12 current). Each
# tree's kernel targets are built into OUTDIR (default out; the tree in use
# stays what it was). Then, one after the other on one core (taskset -c N,
# default the last CPU), each kernel target and its model twin (kfuzz_mtree
# and fuzz_mtree, kfuzz_vma and fuzz_mm) run libFuzzer for S seconds
# (default 60) from the twin's seeds with its dictionary into a scratch
# corpus; R rounds (default 1), the pair taking turns, round i with
# -seed=i. Two runs alike but for the seed can differ twofold (the engine
# weighs inputs by their running time, so the same flags do not pick the
# same programs), so the figures are the medians over the rounds. One line
# per pair: the runs and exec/s of each (medians), their ratio (measured
# side by side, so that a shared machine's load falls on both), and whether
# the kernel target reached 3,000 exec/s.
# Run it on an idle machine for figures worth quoting.
# Exit status: 0, 1 when a target did not run, 2 for a bad command line or
# a tree that cannot be had.
set -uo pipefail
cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/.." || exit 2
OUTDIR=${OUTDIR:-out}
root=$PWD
JOBS=${JOBS:-$(nproc 2>/dev/null || echo 2)}

die() {
	echo "kernel-bench: $*" >&2
	exit 2
}
whole() { # whole NAME VALUE: a whole number (>= 1 unless NAME is --cpu)
	case $2 in
	'' | *[!0-9]*) die "$1 takes a whole number, not '$2'" ;;
	0*) [ "$1" = --cpu ] && [ "$2" = 0 ] || die "$1 takes a whole number from 1, not '$2'" ;;
	esac
}

seconds=60 cpu=$(($(nproc 2>/dev/null || echo 1) - 1)) rounds=1 trees=()
while [ $# -gt 0 ]; do
	case $1 in
	--seconds | --cpu | --rounds)
		[ $# -gt 1 ] || die "$1 needs a number"
		whole "$1" "$2"
		case $1 in
		--seconds) seconds=$2 ;;
		--cpu) cpu=$2 ;;
		*) rounds=$2 ;;
		esac
		shift
		;;
	-*) die "unknown option '$1'" ;;
	*) trees+=("$1") ;;
	esac
	shift
done
[ ${#trees[@]} -gt 0 ] || trees=(6.1 6.12 current)
command -v taskset >/dev/null || die "taskset is missing (util-linux)"
mkdir -p "$OUTDIR" || die "cannot make $OUTDIR"
OUTDIR=$(readlink -f "$OUTDIR")
# every tree first: a wrong one ends the run before anything is built
ksrcs=()
for tree in "${trees[@]}"; do
	ksrcs+=("$(OUTDIR=$OUTDIR scripts/kernel-tree.sh "$tree")") || exit 2
done
make -s -j"$JOBS" OUTDIR="$OUTDIR" "$OUTDIR/libfuzzer/fuzz_mtree" "$OUTDIR/libfuzzer/fuzz_mm" corpus \
	>/dev/null || die "the model targets did not build"

# run BINARY TWIN DIR SEED: "<runs> <exec/s>" of S seconds of BINARY on one core
run() {
	local bin=$1 twin=$2 dir=$3 seed=$4 log
	rm -rf "$dir" && mkdir -p "$dir/corpus" || return 1
	log=$dir/fuzz.log
	# (AddressSanitizer's quarantine as vmafuzz fuzz sets it, unless set)
	(cd "$dir" && ASAN_OPTIONS=${ASAN_OPTIONS:-quarantine_size_mb=64} taskset -c "$cpu" "$bin" \
		-max_total_time="$seconds" -seed="$seed" -print_final_stats=1 \
		-dict="$root/dict/$twin.dict" "$dir/corpus" "$OUTDIR/corpus/$twin" >"$log" 2>&1)
	awk '/^stat::number_of_executed_units:/ { n = $2 } /^stat::average_exec_per_sec:/ { r = $2 }
		END { if (n == "") exit 1; print n, r }' "$log"
}

# median "RUNS EXEC/S"...: the pair of the round whose exec/s is the median
# (the lower middle one of an even count)
median() {
	printf '%s\n' "$@" | sort -n -k2 | sed -n "$((($# + 1) / 2))p"
}

status=0
printf '%-10s %-12s %12s %9s %12s %9s %7s  %s\n' tree target runs exec/s "twin runs" exec/s ratio "3,000 exec/s"
for ksrc in "${ksrcs[@]}"; do
	key=$(scripts/kernel-tree.sh --key "$ksrc") || exit 2
	k=$OUTDIR/kernel/$key
	mkdir -p "$k"
	make -s -j"$JOBS" kernel KSRC="$ksrc" KSRC_RECORD=no HAVE_AFL= OUTDIR="$OUTDIR" >"$k/bench-build.log" 2>&1
	for pair in kfuzz_mtree:fuzz_mtree kfuzz_vma:fuzz_mm; do
		t=${pair%%:*} twin=${pair#*:}
		if [ ! -x "$k/libfuzzer/$t" ]; then
			printf '%-10s %-12s not built (%s)\n' "${key%-*}" "$t" \
				"$(grep -m1 "$t cannot be built" "$k/bench-build.log" | sed 's/^[^:]*: //' | cut -c1-80)"
			continue
		fi
		krs=() mrs=() failed=
		for ((i = 1; i <= rounds; i++)); do
			if ! kr=$(run "$k/libfuzzer/$t" "$twin" "$k/bench/$t" "$i") ||
				! mr=$(run "$OUTDIR/libfuzzer/$twin" "$twin" "$k/bench/$twin" "$i"); then
				failed=1
				break
			fi
			krs+=("$kr") mrs+=("$mr")
		done
		if [ -n "$failed" ]; then
			echo "kernel-bench: $t or $twin on ${key%-*} did not run ($k/bench/)" >&2
			status=1
			continue
		fi
		read -r kn ke <<<"$(median "${krs[@]}")"
		read -r mn me <<<"$(median "${mrs[@]}")"
		printf '%-10s %-12s %12s %9s %12s %9s %7s  %s\n' "${key%-*}" "$t" "$kn" "$ke" "$mn" "$me" \
			"$(awk -v a="$ke" -v b="$me" 'BEGIN { printf "%.2f", (b > 0 ? a / b : 0) }')" \
			"$([ "$ke" -ge 3000 ] && echo yes || echo no)"
	done
done
exit "$status"
