#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Which lines of the kernel's own files the kernel targets' corpora reach
# (./build.sh kernel-coverage [OPTIONS] [TREE]; docs/kernel.md):
#
#   scripts/kernel-coverage.sh [--only TARGET] [--seeds | --inputs DIR...]
#                              [--report DIR] [--check-merge TABLE] [TREE]
#
# TREE as scripts/kernel-tree.sh takes it (default: the tree in use). Each
# kernel target the tree can give (--only: that one) is built with
# source-based coverage (out/kernel/<key>/coverage/), and replays its
# twin's seeds and regressions, its fuzzing corpus (out/work/<target>/corpus)
# and its AFL++ queues (--seeds: the seeds and regressions alone; --inputs,
# with --only: these folders alone). Printed: line and function coverage
# of each of the kernel's files (lib/maple_tree.c, mm/vma*.c), then each
# branch condition of mm/vma.c's merge decision (the can_vma_merge_*
# checks, anon_vma, file and offset, userfaultfd context and policy) with
# how often the corpus saw it true and false.
# Written into out/kernel/<key>/coverage-report/ (--report: DIR):
# summary.txt, the functions never run (unreached.txt), every condition
# (merge-conditions.txt: function, line:col, true, false, verdict,
# condition; scripts/kernel-branches.awk) and an HTML report
# (html/index.html).
# --check-merge TABLE: the conditions against the table of TABLE (the
# merge-decision table of docs/kernel.md, scripts/kernel-branches-check.awk);
# exit status 1 when a side the table says was seen is seen no more, or
# the table and the tree's conditions differ.
# VMAFUZZ_WORK_ROOT: another folder for out/work. JOBS: make's jobs.
set -euo pipefail
cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/.."
OUTDIR=${OUTDIR:-out}
WORK=${VMAFUZZ_WORK_ROOT:-$OUTDIR/work}

. scripts/build-lib.sh
profdata=$(llvm_tool llvm-profdata kernel-coverage) || exit 2
cov=$(llvm_tool llvm-cov kernel-coverage) || exit 2

usage() {
	sed -n '3,/^set -euo/s/^# \{0,1\}//p' "$0" | sed '$d'
}
spec='' only='' seeds=0 rep='' check=''
inputs=()
while [ $# -gt 0 ]; do
	case $1 in
	--only) only=${2:?--only needs a target}; shift 2 ;;
	--seeds) seeds=1; shift ;;
	--inputs) inputs+=("${2:?--inputs needs a folder}"); shift 2 ;;
	--report) rep=${2:?--report needs a folder}; shift 2 ;;
	--check-merge) check=${2:?--check-merge needs a file}; shift 2 ;;
	-h | --help) usage; exit 0 ;;
	-*) echo "kernel-coverage: unknown option $1" >&2; usage >&2; exit 2 ;;
	*) spec=$1; shift ;;
	esac
done
if [ ${#inputs[@]} -gt 0 ] && [ -z "$only" ]; then
	echo "kernel-coverage: --inputs needs --only TARGET (whose programs they are)" >&2
	exit 2
fi
[ -z "$check" ] || [ -f "$check" ] || { echo "kernel-coverage: no table $check" >&2; exit 2; }
for d in "${inputs[@]}"; do
	[ -d "$d" ] || { echo "kernel-coverage: no folder $d" >&2; exit 2; }
done
if [ -n "$only" ] && ! ls kernel/*/"$only".c >/dev/null 2>&1; then
	echo "kernel-coverage: no kernel target $only" >&2
	exit 2
fi
tree=$(OUTDIR=$OUTDIR scripts/kernel-tree.sh ${spec:+"$spec"}) || exit 2
key=$(scripts/kernel-tree.sh --key "$tree") || exit 2
kout=$OUTDIR/kernel/$key
jobs=${JOBS:-$(nproc 2>/dev/null || echo 2)}

# what the tree can give: each target's coverage build, one make for all
make -s --no-print-directory -j"$jobs" OUTDIR="$OUTDIR" KSRC="$tree" KSRC_RECORD=no \
	kernel-notes >/dev/null 2>"$OUTDIR/kernel-coverage.notes" || true
targets=()
for src in kernel/*/kfuzz_*.c; do
	t=$(basename "$src" .c)
	[ -z "$only" ] || [ "$t" = "$only" ] || continue
	grep -q "kernel: $t cannot be built" "$OUTDIR/kernel-coverage.notes" || targets+=("$t")
done
cat "$OUTDIR/kernel-coverage.notes" >&2
rm -f "$OUTDIR/kernel-coverage.notes"
[ ${#targets[@]} -gt 0 ] || { echo "kernel-coverage: $tree gives no kernel target${only:+ $only}" >&2; exit 2; }
make -s --no-print-directory -j"$jobs" OUTDIR="$OUTDIR" KSRC="$tree" KSRC_RECORD=no corpus regress \
	$(printf "$kout/coverage/%s " "${targets[@]}")

rep=${rep:-$kout/coverage-report}
rm -rf "$rep"
mkdir -p "$rep/profiles"
rep=$(cd "$rep" && pwd)
objects=()
# The kernel's own objects first: llvm-cov keeps one function of a name,
# the first it reads, and the model defines some of the kernel's names
# (vma_merge_new_range, validate_mm, mt_find...), which would hide the
# kernel's in the linked drivers.
for o in kmt.o kvma.o; do
	[ -f "$kout/obj/kernel-coverage/$o" ] && objects+=("$kout/obj/kernel-coverage/$o")
done
for t in "${targets[@]}"; do
	twin=$(sed -n 's|^/\* vmafuzz-twin: \([a-z_]*\).*|\1|p' kernel/*/"$t".c | head -n 1)
	bin=$kout/coverage/$t
	objects+=("$bin")
	dirs=("$OUTDIR/corpus/$twin" "$OUTDIR/regress/$twin" "$OUTDIR/regress/$t")
	[ "$seeds" = 1 ] || dirs+=("$WORK/$t/corpus" "$WORK/$t"/afl/*/queue)
	[ ${#inputs[@]} -eq 0 ] || dirs=("${inputs[@]}")
	for d in "${dirs[@]}"; do
		[ -d "$d" ] || continue
		n=$(find "$d" -maxdepth 1 -type f ! -name '.*' | wc -l)
		[ "$n" -gt 0 ] || continue
		echo "kernel-coverage: $t <- $d ($n inputs)"
		echo "$t $d $n" >>"$rep/replayed.txt"
		prof="$rep/profiles/$t-%m.profraw"
		if ! LLVM_PROFILE_FILE=$prof "$bin" "$d" >"$rep/replay.log" 2>&1; then
			# an input failed and took the process's profile with it: one
			# process per input
			failed=0
			for f in "$d"/*; do
				[ -f "$f" ] || continue
				LLVM_PROFILE_FILE=$prof "$bin" "$f" >/dev/null 2>&1 || failed=$((failed + 1))
			done
			echo "kernel-coverage: $failed input(s) of $d fail (replay them: $kout/replay/$t FILE)"
		fi
	done
done
ls "$rep"/profiles/*.profraw >/dev/null 2>&1 || { echo "kernel-coverage: no inputs to replay" >&2; exit 2; }
"$profdata" merge -sparse "$rep"/profiles/*.profraw -o "$rep/kernel.profdata"
objargs=("${objects[0]}")
for o in "${objects[@]:1}"; do
	objargs+=(-object "$o")
done
# the kernel's files the built targets compiled (a tree's mm/vma_exec.c
# is in no target: llvm-cov knows nothing of it)
files=()
for f in lib/maple_tree.c mm/vma.c mm/vma_init.c mm/vma_exec.c; do
	[ -f "$tree/$f" ] || continue
	"$cov" report -instr-profile="$rep/kernel.profdata" "${objargs[@]}" "$tree/$f" 2>/dev/null |
		awk -v want="/$f" '{ n = length($1) - length(want) + 1 }
			n >= 1 && substr($1, n) == want { found = 1 } END { exit !found }' &&
		files+=("$tree/$f")
done
[ ${#files[@]} -gt 0 ] || { echo "kernel-coverage: no file of $tree in the coverage data" >&2; exit 2; }

# llvm-cov report: file, regions (3), functions (3), lines (3), branches (3)
{
	echo "Kernel code reached by the corpora of ${targets[*]}, tree $tree (Linux ${key%-*}):"
	"$cov" report -instr-profile="$rep/kernel.profdata" "${objargs[@]}" "${files[@]}" |
		awk -v tree="$tree/" 'NF >= 13 && ($1 ~ /\.c$/ || $1 == "TOTAL") {
			name = $1
			if (index(name, tree) == 1) # one file alone is named by its whole path
				name = substr(name, length(tree) + 1)
			printf "  %-18s lines %7s (%d/%d)   functions %7s (%d/%d)\n", name,
				$(NF-3), $(NF-5) - $(NF-4), $(NF-5), $(NF-6), $(NF-8) - $(NF-7), $(NF-8)
		}'
} | tee "$rep/summary.txt"

# the functions never run, per file
for f in "${files[@]}"; do
	"$cov" report -instr-profile="$rep/kernel.profdata" "${objargs[@]}" -show-functions "$f" |
		awk -v file="${f#"$tree"/}" 'NF >= 10 && $1 !~ /^(Name|TOTAL|-+)$/ && $2 == $3 && $2 > 0 {
			fn = $1; sub(/^.*\.c:/, "", fn); print file ": " fn }'
done | sort -u >"$rep/unreached.txt"
echo "  functions never run: $(wc -l <"$rep/unreached.txt") ($rep/unreached.txt)"

# the merge decision's conditions, each with how often it was seen true
# and false: from the kernel's object (above), branches in mm/vma.c itself
merge_fns='^(is_mergeable_(vma|anon_vma)|are_anon_vmas_compatible|can_vma_merge_(before|after|left|right)'
merge_fns+='|needs_adjacent_anon_pgoff|can_merge_remove_vma|vma_merge_(new|existing|copied)_range|anon_vma_compatible)$'
status=0
if [ -f "$tree/mm/vma.c" ] && [ -f "$kout/obj/kernel-coverage/kvma.o" ] && [[ " ${targets[*]} " == *" kfuzz_vma "* ]]; then
	"$cov" export -format=text -instr-profile="$rep/kernel.profdata" "${objargs[@]}" "$tree/mm/vma.c" |
		grep -o '{"branches":[^{]*"name":"[^"]*"' |
		awk -v src="$tree/mm/vma.c" -v file=mm/vma.c -v funcs="$merge_fns" -f scripts/kernel-branches.awk \
			>"$rep/merge-conditions.txt"
	awk -F'\t' -v rep="$rep/merge-conditions.txt" '
		{ n++; if ($5 == "both") b++; else rest[++r] = sprintf("    %-26s %-8s %-11s %6d %6d  %s", $1, $2, $5, $3, $4, $6) }
		END {
			printf "  merge-decision conditions of mm/vma.c: %d, seen both ways %d, not seen both ways: %d (%s)\n", n, b, n - b, rep
			if (r) printf "    %-26s %-8s %-11s %6s %6s  %s\n", "function", "line", "seen", "true", "false", "condition"
			for (i = 1; i <= r; i++) print rest[i]
		}' "$rep/merge-conditions.txt" | tee -a "$rep/summary.txt"
	[ -s "$rep/merge-conditions.txt" ] || { echo "kernel-coverage: no condition of the merge decision found" >&2; status=1; }
	if [ -n "$check" ]; then
		awk -f scripts/kernel-branches-check.awk "$check" "$rep/merge-conditions.txt" || status=1
	fi
elif [ -n "$check" ]; then
	echo "kernel-coverage: --check-merge needs kfuzz_vma and mm/vma.c of $tree" >&2
	exit 2
fi
"$cov" show -format=html -output-dir="$rep/html" -instr-profile="$rep/kernel.profdata" \
	-show-line-counts-or-regions -show-branches=count "${objargs[@]}" "${files[@]}" >/dev/null 2>&1 || true
echo "  HTML: $rep/html/index.html"
exit "$status"
