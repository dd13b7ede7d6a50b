#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# What every seed of every target does, as one line a seed:
#
#   <target> <seed file> <exit status> <hash of the replay's trace>
#
# The trace is the replay driver's -v output: each operation with the
# result it got, in the order the schedule ran them, and the report when
# one fails. Two builds whose records agree ran every seed alike, which is
# what a change that only moves code must keep (tests/seed_outcomes.sh).
#
#   scripts/seed-outcomes.sh [--kernel] [OUTDIR]   the record on stdout
#
# OUTDIR: the build's output folder (default out); --kernel adds the kernel
# targets (out/kernel/replay/kfuzz_*), which need ./build.sh kernel.
set -euo pipefail
cd "$(dirname "$0")/.."
kernel=0
if [ "${1:-}" = --kernel ]; then
	kernel=1
	shift
fi
out=${1:-out}

# replay_line TARGET DRIVER FILE: one record line
replay_line() {
	local rc=0 trace
	trace=$("$2" -v "$3" 2>&1) || rc=$?
	# the first line names the file's path and size, which a move may change
	trace=$(sed -e '/^replay .* bytes)$/d' -e "s|$tmp/||g" <<<"$trace")
	printf '%s %s %s %s\n' "$1" "$3" "$rc" "$(sha256sum <<<"$trace" | cut -c1-16)"
}

# a kernel target runs its model twin's seeds
twin() {
	case $1 in
	kfuzz_mtree) echo fuzz_mtree ;;
	kfuzz_vma) echo fuzz_mm ;;
	*) echo "$1" ;;
	esac
}

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
drivers=()
for d in "$out"/replay/fuzz_*; do
	[ -x "$d" ] && drivers+=("$d")
done
if [ "$kernel" = 1 ]; then
	for d in "$out"/kernel/replay/kfuzz_*; do
		[ -x "$d" ] && drivers+=("$d")
	done
fi
[ ${#drivers[@]} -gt 0 ] || { echo "seed-outcomes: no replay drivers in $out/replay (./build.sh replay)" >&2; exit 2; }
for d in "${drivers[@]}"; do
	t=$(basename "$d")
	tw=$(twin "$t")
	for f in corpus/"$tw"/*.txt corpus/regress/"$tw"/*.txt; do
		[ -e "$f" ] && replay_line "$t" "$d" "$f"
	done
	# fuzz_fork starts from fuzz_mm's seeds too (the Makefile's mm_<name>)
	if [ "$t" = fuzz_fork ]; then
		for f in corpus/fuzz_mm/*.txt; do
			sed 's/^target fuzz_mm$/target fuzz_fork/' "$f" >"$tmp/mm_${f##*/}"
			replay_line "$t" "$d" "$tmp/mm_${f##*/}" | sed "s|$tmp/mm_|corpus/fuzz_mm/|"
		done
	fi
done
