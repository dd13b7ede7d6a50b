#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Which lines of the kernel's own files the kernel targets' corpora reach
# (./build.sh kernel-coverage [TREE]; docs/kernel.md):
#
#   scripts/kernel-coverage.sh [TREE]
#
# TREE as scripts/kernel-tree.sh takes it (default: the tree in use). Each
# kernel target the tree can give is built with source-based coverage
# (out/kernel/<key>/coverage/), and replays its twin's seeds and
# regressions, its fuzzing corpus (out/work/<target>/corpus) and its AFL++
# queues. Printed: line and function coverage of each of the kernel's
# files (lib/maple_tree.c, mm/vma*.c), then each branch condition of the
# merge decision (the can_vma_merge_* checks, anon_vma, file and offset,
# userfaultfd context and policy) that the corpus never saw both ways.
# Written into out/kernel/<key>/coverage-report/: summary.txt, the
# functions never run (unreached.txt), the conditions
# (merge-conditions.txt) and an HTML report (html/index.html).
# VMAFUZZ_WORK_ROOT: another folder for out/work.
set -euo pipefail
cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/.."
OUTDIR=${OUTDIR:-out}
WORK=${VMAFUZZ_WORK_ROOT:-$OUTDIR/work}

. scripts/build-lib.sh
profdata=$(llvm_tool llvm-profdata kernel-coverage) || exit 2
cov=$(llvm_tool llvm-cov kernel-coverage) || exit 2

spec=${1:-}
tree=$(OUTDIR=$OUTDIR scripts/kernel-tree.sh ${spec:+"$spec"}) || exit 2
key=$(scripts/kernel-tree.sh --key "$tree") || exit 2
kout=$OUTDIR/kernel/$key
jobs=$(nproc 2>/dev/null || echo 2)

# what the tree can give: each target's coverage build, one make for all
make -s --no-print-directory -j"$jobs" OUTDIR="$OUTDIR" KSRC="$tree" KSRC_RECORD=no \
	kernel-notes >/dev/null 2>"$OUTDIR/kernel-coverage.notes" || true
targets=()
for src in kernel/*/kfuzz_*.c; do
	t=$(basename "$src" .c)
	grep -q "kernel: $t cannot be built" "$OUTDIR/kernel-coverage.notes" || targets+=("$t")
done
cat "$OUTDIR/kernel-coverage.notes" >&2
rm -f "$OUTDIR/kernel-coverage.notes"
[ ${#targets[@]} -gt 0 ] || { echo "kernel-coverage: $tree gives no kernel target" >&2; exit 2; }
make -s --no-print-directory -j"$jobs" OUTDIR="$OUTDIR" KSRC="$tree" KSRC_RECORD=no corpus regress \
	$(printf "$kout/coverage/%s " "${targets[@]}")

rep=$kout/coverage-report
rm -rf "$rep"
mkdir -p "$rep/profiles"
objects=()
for t in "${targets[@]}"; do
	twin=$(sed -n 's|^/\* vmafuzz-twin: \([a-z_]*\).*|\1|p' kernel/*/"$t".c | head -n 1)
	bin=$kout/coverage/$t
	objects+=("$bin")
	for d in "$OUTDIR/corpus/$twin" "$OUTDIR/regress/$twin" "$OUTDIR/regress/$t" "$WORK/$t/corpus" \
		"$WORK/$t"/afl/*/queue; do
		[ -d "$d" ] || continue
		n=$(find "$d" -maxdepth 1 -type f ! -name '.*' | wc -l)
		[ "$n" -gt 0 ] || continue
		echo "kernel-coverage: $t <- $d ($n inputs)"
		echo "$t $d $n" >>"$rep/replayed.txt"
		prof="$PWD/$rep/profiles/$t-%m.profraw"
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
files=()
for f in lib/maple_tree.c mm/vma.c mm/vma_init.c mm/vma_exec.c; do
	[ -f "$tree/$f" ] && files+=("$tree/$f")
done

# llvm-cov report: file, regions (3), functions (3), lines (3), branches (3)
{
	echo "Kernel code reached by the corpora of ${targets[*]}, tree $tree (Linux ${key%-*}):"
	"$cov" report -instr-profile="$rep/kernel.profdata" "${objargs[@]}" "${files[@]}" |
		awk 'NF >= 13 && ($1 ~ /\.c$/ || $1 == "TOTAL") {
			printf "  %-18s lines %7s (%d/%d)   functions %7s (%d/%d)\n", $1,
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

# the merge decision's conditions: each branch with a side never taken
if [ -f "$tree/mm/vma.c" ]; then
	"$cov" show -instr-profile="$rep/kernel.profdata" "${objargs[@]}" -show-branches=count \
		-name-regex='(^|:)(can_vma_merge_(before|after|left|right)|is_mergeable_(vma|anon_vma)|anon_vma_compatible|is_mergeable_vm_userfaultfd_ctx|vma_merge_new_range|vma_merge_existing_range|mpol_equal)$' \
		"$tree/mm/vma.c" 2>/dev/null |
		awk '/^[^ |].*:$/ { fn = $1; sub(/^.*\.c:/, "", fn) }
			/Branch \(/ && /(True|False): 0[,\]]/ { sub(/^[ |]*/, ""); print fn " " $0 }' >"$rep/merge-conditions.txt" || true
	echo "  merge-decision conditions not seen both ways: $(wc -l <"$rep/merge-conditions.txt")" \
		"($rep/merge-conditions.txt)"
fi
"$cov" show -format=html -output-dir="$rep/html" -instr-profile="$rep/kernel.profdata" \
	-show-line-counts-or-regions -show-branches=count "${objargs[@]}" "${files[@]}" >/dev/null 2>&1 || true
echo "  HTML: $rep/html/index.html"
