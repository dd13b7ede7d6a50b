#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# scripts/ktest-run.sh [--patch FILE.patch] TREE TEST.c: build a test that
# `vmafuzz repro --ktest` wrote into TREE's own userland maple tree test
# program and run it there.
#
# TREE is what scripts/kernel-tree.sh takes (6.1, 6.12, current, a path).
# The test is pasted into tools/testing/radix-tree/maple.c above
# maple_tree_tests(), as its header says a developer would, and the program
# is built by the tree's own Makefile (`make maple`: the tree's shims,
# AddressSanitizer, liburcu). That happens in a shadow of the tree,
# out/ktest/<key>[-<patch name>]/, whose tools/testing/radix-tree and
# tools/testing/shared are copies and everything else links into the tree,
# so the tree is never written; the shadow keeps its objects for the next
# run. --patch applies FILE.patch to copies of the files it touches (a
# planted bug, as bugs/kernel-patches/ holds).
#
# The runner calls the test first in maple_tree_tests() and exits after it:
# the rest of the suite is the tree's own and takes minutes.
#
#   ktest: <test> passes in Linux <version>'s maple test program       exit 0
#   ktest: <test> fails in ...: at step <N: operation>, TEST.c:<line>:
#          <the test's line> (<the MT_BUG_ON or the sanitizer's report>) exit 1
# Exit 2: a bad command line, a file that is no such test, a tree without
# the test program, a patch that does not apply, a test that does not build.
set -uo pipefail
cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/.." || exit 2
OUTDIR=${OUTDIR:-out}

die() {
	echo "ktest-run.sh: $*" >&2
	exit 2
}

patchf=
if [ "${1:-}" = --patch ]; then
	[ -n "${2:-}" ] || die "--patch needs a patch file"
	patchf=$2
	shift 2
	[ -f "$patchf" ] || die "no patch file '$patchf'"
	patchf=$(readlink -f "$patchf")
fi
[ $# -eq 2 ] || die "usage: scripts/ktest-run.sh [--patch FILE.patch] TREE TEST.c"
[[ ${KTEST_TIMEOUT:-300} =~ ^[1-9][0-9]{0,5}$ ]] ||
	die "KTEST_TIMEOUT takes whole seconds from 1, not '${KTEST_TIMEOUT:-}'"
spec=$1 test=$2
[ -f "$test" ] || die "no test file '$test'"
test=$(readlink -f "$test")
fn=$(sed -n 's/^static void \(vmafuzz_[A-Za-z0-9_]*\)(void)$/\1/p' "$test" | tail -n 1)
[ -n "$fn" ] || die "$test is no test of vmafuzz repro --ktest (no 'static void vmafuzz_...(void)')"

tree=$(scripts/kernel-tree.sh "$spec") || exit 2
key=$(scripts/kernel-tree.sh --key "$tree") || exit 2
version=${key%-*}
prog=tools/testing/radix-tree
[ -f "$tree/$prog/maple.c" ] && [ -f "$tree/$prog/Makefile" ] ||
	die "$tree (Linux $version) has no $prog/maple.c, the userland maple tree tests"
grep -q '^void maple_tree_tests(void)$' "$tree/$prog/maple.c" ||
	die "$tree (Linux $version): $prog/maple.c has no maple_tree_tests() to call the test from"

# The shadow: real folders down to what is written or patched, links elsewhere.
shadow=$OUTDIR/ktest/$key${patchf:+-$(basename "$patchf" .patch)}
# a path's parent folders in the shadow made real, each holding links to
# the tree's entries of that folder
unlink_path() {
	local rel=$1 part= p
	IFS=/ read -r -a parts <<<"$rel"
	for p in "${parts[@]}"; do
		part=${part:+$part/}$p
		if [ -L "$shadow/$part" ] && [ -d "$tree/$part" ]; then
			rm "$shadow/$part" && mkdir "$shadow/$part" || return 1
			for e in "$tree/$part"/* "$tree/$part"/.[!.]*; do
				[ -e "$e" ] || [ -L "$e" ] || continue
				ln -s "$e" "$shadow/$part/$(basename "$e")" || return 1
			done
		fi
	done
}

stamp="v2 $tree ${patchf:+$(sha256sum <"$patchf" | cut -c1-16)}"
if [ "$(cat "$shadow/.vmafuzz-shadow" 2>/dev/null)" != "$stamp" ]; then
	rm -rf "$shadow" && mkdir -p "$shadow" || die "cannot make $shadow"
	for e in "$tree"/* "$tree"/.[!.]*; do
		[ -e "$e" ] && ln -s "$e" "$shadow/$(basename "$e")"
	done
	unlink_path tools/testing || die "cannot make $shadow"
	for d in radix-tree shared; do
		[ -d "$tree/tools/testing/$d" ] || continue
		rm -f "$shadow/tools/testing/$d" && cp -r "$tree/tools/testing/$d" "$shadow/tools/testing/$d" ||
			die "cannot copy $tree/tools/testing/$d"
	done
	# a checkout's own build of the test program is not ours to reuse
	(cd "$shadow/$prog" && rm -f ./*.o main idr-test multiorder xarray maple radix-tree.c idr.c)
	if [ -n "$patchf" ]; then
		while read -r f; do
			[ -n "$f" ] || continue
			unlink_path "$(dirname "$f")" || die "cannot make $shadow"
			rm -f "$shadow/$f" && cp "$tree/$f" "$shadow/$f" || die "$patchf touches $f, which $tree lacks"
		done < <(sed -n 's|^+++ b/\([^	]*\).*|\1|p' "$patchf" | sort -u)
		patch -p1 -s --forward --no-backup-if-mismatch -d "$shadow" <"$patchf" >"$shadow.patch.log" 2>&1 ||
			{ cat "$shadow.patch.log" >&2; rm -rf "$shadow"; die "$patchf does not apply to $tree (Linux $version)"; }
	fi
	# maple.c as the tree (and the patch) has it, for each test to be pasted in
	cp "$shadow/$prog/maple.c" "$shadow/$prog/maple.c.base" || die "cannot copy maple.c"
	echo "$stamp" >"$shadow/.vmafuzz-shadow"
fi

# maple.c as the tree has it, the test pasted above maple_tree_tests(), and
# the runner's call as the first thing in it
dir=$shadow/$prog
base=$dir/maple.c.base
at=$(grep -n '^void maple_tree_tests(void)$' "$base" | head -n 1 | cut -d: -f1)
[ -n "$at" ] || die "$base has no maple_tree_tests() to call the test from"
{
	head -n $((at - 1)) "$base"
	echo "#include <unistd.h>"
	cat "$test"
	echo
	sed -n "${at},$((at + 1))p" "$base"
	printf '\t/* scripts/ktest-run.sh: the pasted test alone */\n'
	printf '\t%s();\n\tprintf("vmafuzz: %s passed\\n");\n\tfflush(stdout);\n\t_exit(0);\n' "$fn" "$fn"
	tail -n +$((at + 2)) "$base"
} >"$dir/maple.c.new" && mv "$dir/maple.c.new" "$dir/maple.c" || die "cannot write $dir/maple.c"
first=$((at + 1)) # maple.c's line of the test's first line

echo "ktest: building $fn into Linux $version's maple test program ($dir)" >&2
build() {
	make -C "$dir" -j"${JOBS:-$(nproc)}" maple >"$shadow/build.log" 2>&1
}
if ! build; then
	# 6.1's tools/include has no `fallthrough` (its maple test program does
	# not build as shipped): the kernel's own definition, given on the
	# command line, and said
	if grep -q "fallthrough.* undeclared" "$shadow/build.log"; then
		echo "ktest: Linux $version's tools/include lacks 'fallthrough'; building with it defined" >&2
		export CFLAGS="${CFLAGS:-} -D'fallthrough=__attribute__((__fallthrough__))'"
		build
	else
		false
	fi || {
		grep -E 'error|Error' "$shadow/build.log" | head -n 10 >&2
		die "$fn does not build in Linux $version's maple test program ($shadow/build.log)"
	}
fi
# (an MT_BUG_ON that fails asserts: AddressSanitizer prints where, so a
# failure inside the shared check names the test's line that called it)
(cd "$dir" && ASAN_OPTIONS=handle_abort=1:symbolize=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 timeout "${KTEST_TIMEOUT:-300}" ./maple) \
	>"$shadow/run.log" 2>&1
rc=$?
where="Linux $version's maple test program${patchf:+ (with $(basename "$patchf"))}"
# (a sanitizer's report is a failure even where it did not stop the run)
if [ $rc -eq 0 ] && grep -qx "vmafuzz: $fn passed" "$shadow/run.log" &&
	! grep -qE 'runtime error|ERROR: AddressSanitizer' "$shadow/run.log"; then
	echo "ktest: $fn passes in $where"
	exit 0
fi
# Where it failed: a failed MT_BUG_ON asserts ("maple.c:<line>: <function>:
# Assertion"); a sanitizer's report has a stack. The test's line is the
# MT_BUG_ON's, or that of the frame of the test under the helper or the
# kernel's code that failed; the step is the last "/* N: operation */" above.
bug=$(grep -m1 -oE "maple\.c:[0-9]+: vmafuzz_[A-Za-z0-9_]+: Assertion" "$shadow/run.log")
san=$(grep -m1 -E 'ERROR: AddressSanitizer|runtime error' "$shadow/run.log" | sed 's/^==[0-9]*==//')
line= func=
if [ -n "$bug" ]; then
	line=$(echo "$bug" | cut -d: -f2) func=$(echo "$bug" | cut -d' ' -f2 | tr -d :)
fi
[ "$func" = "$fn" ] ||
	line=$(grep -m1 -oE " in $fn [^ ]*maple\.c:[0-9]+" "$shadow/run.log" | sed 's/.*://')
what=${bug:+MT_BUG_ON failed${func:+ in $func}}
what=${what:-$san}
if [ -n "$line" ]; then
	n=$((line - first + 1))
	src=$(sed -n "${n}p" "$test" | sed 's/^[[:space:]]*//')
	step=$(head -n "$n" "$test" | grep -E '^	/\* [0-9]+: ' | tail -n 1 | sed 's|^	/\* ||; s| \*/$||')
	echo "ktest: $fn fails in $where: at step ${step:-?}, $(basename "$test"):$n: $src (${what:-exit status $rc})"
else
	echo "ktest: $fn fails in $where: ${what:-exit status $rc} ($shadow/run.log)"
fi
exit 1
