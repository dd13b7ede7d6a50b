#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# ./build.sh coverage: replay each target's seeds, its libFuzzer corpus
# out/work/<target>/corpus and its AFL++ queues out/work/<target>/afl/*/queue
# (those not empty; VMAFUZZ_WORK_ROOT for another out/work) in the
# source-based coverage build out/coverage/<target>, merge the profiles,
# write the HTML report to out/coverage/html/ and print line and branch
# coverage per file of src/, naming every folder replayed. COV_CC: the
# compiler of the coverage build (default clang), whose llvm-profdata and
# llvm-cov read its profiles.
set -euo pipefail

cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/.."
ROOT=$PWD
. scripts/build-lib.sh

dir=out/coverage
profdata=$(llvm_tool llvm-profdata "build.sh coverage") && cov=$(llvm_tool llvm-cov "build.sh coverage") || exit 1
run_make coverage corpus
rm -rf "$dir/profiles" "$dir/html"
mkdir -p "$dir/profiles"
objects=() replayed=()
w=${VMAFUZZ_WORK_ROOT:-out/work}
for t in $(targets); do
	objects+=("$dir/$t")
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
objargs=("${objects[0]}")
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
