#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# scripts/ktest-run.sh [--patch FILE.patch] TREE TEST.c: build a test that
# `vmafuzz repro --ktest` wrote into TREE's own userland test program and
# run it there: a kfuzz_mtree test (`static void vmafuzz_...(void)`) in the
# maple tree's, a kfuzz_vma test (`static bool vmafuzz_...(void)`) in
# tools/testing/vma's.
#
# TREE is what scripts/kernel-tree.sh takes (6.1, 6.12, current, a path).
# The test is pasted where its header says a developer would put it: into
# tools/testing/radix-tree/maple.c above maple_tree_tests(), or into
# tools/testing/vma's main.c (vma.c before the tests moved to tests/) above
# main(). The program is built by the tree's own Makefile (`make maple`,
# `make vma`: the tree's shims, AddressSanitizer, UBSan, liburcu). That
# happens in a shadow of the tree, out/ktest/<key>[-<patch name>]/, whose
# tools/testing/radix-tree, tools/testing/vma and tools/testing/shared are
# copies and everything else links into the tree, so the tree is never
# written; the shadow keeps its objects for the next run. --patch applies
# FILE.patch to copies of the files it touches (a planted bug, as
# bugs/kernel-patches/ holds).
#
# The runner calls the test first (in maple_tree_tests(), or in main()
# after its setup) and exits after it: the rest of the suite is the tree's.
#
#   ktest: <test> passes in Linux <version>'s <program>                 exit 0
#   ktest: <test> fails in ...: at step <N: operation>, TEST.c:<line>:
#          <the test's line> (<the assertion or the sanitizer's report>) exit 1
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
kind=mtree
if [ -z "$fn" ]; then
	fn=$(sed -n 's/^static bool \(vmafuzz_[A-Za-z0-9_]*\)(void)$/\1/p' "$test" | tail -n 1)
	kind=vma
fi
[ -n "$fn" ] || die "$test is no test of vmafuzz repro --ktest (no 'static void vmafuzz_...(void)' or 'static bool vmafuzz_...(void)')"

tree=$(scripts/kernel-tree.sh "$spec") || exit 2
key=$(scripts/kernel-tree.sh --key "$tree") || exit 2
version=${key%-*}
if [ $kind = mtree ]; then
	prog=tools/testing/radix-tree src=maple.c goal=maple anchor='^void maple_tree_tests(void)$'
	[ -f "$tree/$prog/maple.c" ] && [ -f "$tree/$prog/Makefile" ] ||
		die "$tree (Linux $version) has no $prog/maple.c, the userland maple tree tests"
	grep -q "$anchor" "$tree/$prog/maple.c" ||
		die "$tree (Linux $version): $prog/maple.c has no maple_tree_tests() to call the test from"
	progname="Linux $version's maple test program"
else
	prog=tools/testing/vma src=vma.c goal=vma anchor='^int main(void)$'
	[ -f "$tree/$prog/main.c" ] && src=main.c
	[ -f "$tree/$prog/$src" ] && [ -f "$tree/$prog/Makefile" ] ||
		die "$tree (Linux $version) has no $prog, the userland VMA tests"
	grep -q "$anchor" "$tree/$prog/$src" ||
		die "$tree (Linux $version): $prog/$src has no main() to call the test from"
	progname="Linux $version's VMA test program"
fi

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

stamp="v3 $tree ${patchf:+$(sha256sum <"$patchf" | cut -c1-16)}"
if [ "$(cat "$shadow/.vmafuzz-shadow" 2>/dev/null)" != "$stamp" ]; then
	rm -rf "$shadow" && mkdir -p "$shadow" || die "cannot make $shadow"
	for e in "$tree"/* "$tree"/.[!.]*; do
		[ -e "$e" ] && ln -s "$e" "$shadow/$(basename "$e")"
	done
	unlink_path tools/testing || die "cannot make $shadow"
	for d in radix-tree vma shared; do
		[ -d "$tree/tools/testing/$d" ] || continue
		rm -f "$shadow/tools/testing/$d" && cp -r "$tree/tools/testing/$d" "$shadow/tools/testing/$d" ||
			die "cannot copy $tree/tools/testing/$d"
	done
	# a checkout's own build of the test program is not ours to reuse
	for d in radix-tree vma; do
		[ -d "$shadow/tools/testing/$d" ] || continue
		(cd "$shadow/tools/testing/$d" && rm -f ./*.o main idr-test multiorder xarray maple vma radix-tree.c idr.c)
	done
	if [ -n "$patchf" ]; then
		while read -r f; do
			[ -n "$f" ] || continue
			unlink_path "$(dirname "$f")" || die "cannot make $shadow"
			rm -f "$shadow/$f" && cp "$tree/$f" "$shadow/$f" || die "$patchf touches $f, which $tree lacks"
		done < <(sed -n 's|^+++ b/\([^	]*\).*|\1|p' "$patchf" | sort -u)
		patch -p1 -s --forward --no-backup-if-mismatch -d "$shadow" <"$patchf" >"$shadow.patch.log" 2>&1 ||
			{ cat "$shadow.patch.log" >&2; rm -rf "$shadow"; die "$patchf does not apply to $tree (Linux $version)"; }
	fi
	# the test programs' sources as the tree (and the patch) has them, for
	# each test to be pasted in
	for f in radix-tree/maple.c vma/main.c vma/vma.c; do
		[ -f "$shadow/tools/testing/$f" ] || continue
		cp "$shadow/tools/testing/$f" "$shadow/tools/testing/$f.base" || die "cannot copy $f"
	done
	echo "$stamp" >"$shadow/.vmafuzz-shadow"
fi

# the source as the tree has it, the test pasted above the anchor, and the
# runner's call as the first thing in maple_tree_tests(), or in main() after
# its setup (the first lines that only initialise: *_init();)
dir=$shadow/$prog
base=$dir/$src.base
[ -f "$base" ] || die "$shadow is stale: remove it and run again"
at=$(grep -n "$anchor" "$base" | head -n 1 | cut -d: -f1)
[ -n "$at" ] || die "$base has no place to call the test from"
if [ $kind = mtree ]; then
	call=$((at + 1)) # after the function's opening brace
	fail='\t%s();\n'
else
	call=$((at + 1))
	while sed -n "$((call + 1))p" "$base" | grep -qE '^[[:space:]]*(\{|int [a-z_, =0-9]+;|)$|^[[:space:]]*[a-z_]+_init\(\);$'; do
		call=$((call + 1))
	done
	fail='\tif (!%s()) {\n\t\tfflush(stderr);\n\t\t_exit(1);\n\t}\n'
fi
# a vma test's first part goes above the #include of the tree's mm/ files;
# in its place in the rest, blank lines (the test's lines keep their numbers)
p1=0 inc=$at
if [ $kind = vma ]; then
	m1=$(grep -n -m1 "^/\* ---- vmafuzz: paste this part above" "$test" | cut -d: -f1)
	m2=$(grep -n -m1 '^/\* ---- vmafuzz: paste the rest above main' "$test" | cut -d: -f1)
	inc=$(grep -n -m1 '^#include "\.\./\.\./\.\./mm/' "$base" | cut -d: -f1)
	[ -n "$m1" ] && [ -n "$m2" ] && [ "$m1" -lt "$m2" ] || die "$test has not the two parts of a vma test"
	[ -n "$inc" ] && [ "$inc" -lt "$at" ] || die "$base includes no mm/ file above main()"
	p1=$((m2 - m1))
fi
{
	head -n $((inc - 1)) "$base"
	if [ $kind = vma ]; then
		sed -n "${m1},$((m2 - 1))p" "$test"
		sed -n "${inc},$((at - 1))p" "$base"
	fi
	echo "#include <unistd.h>"
	if [ $kind = vma ]; then
		awk -v a="$m1" -v b="$m2" 'NR >= a && NR < b { print ""; next } { print }' "$test"
	else
		cat "$test"
	fi
	echo
	sed -n "${at},${call}p" "$base"
	printf '\t/* scripts/ktest-run.sh: the pasted test alone */\n'
	printf "$fail" "$fn"
	printf '\tprintf("vmafuzz: %s passed\\n");\n\tfflush(stdout);\n\t_exit(0);\n' "$fn"
	tail -n +$((call + 1)) "$base"
} >"$dir/$src.new" && mv "$dir/$src.new" "$dir/$src" || die "cannot write $dir/$src"
first=$((at + 1 + p1)) # the source's line of the test's first line

echo "ktest: building $fn into $progname ($dir)" >&2
build() {
	make -C "$dir" -j"${JOBS:-$(nproc)}" $goal >"$shadow/build.log" 2>&1
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
		die "$fn does not build in $progname ($shadow/build.log)"
	}
fi
# (an MT_BUG_ON that fails asserts: AddressSanitizer prints where, so a
# failure inside the shared check names the test's line that called it)
(cd "$dir" && ASAN_OPTIONS=handle_abort=1:symbolize=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 timeout "${KTEST_TIMEOUT:-300}" ./$goal) \
	>"$shadow/run.log" 2>&1
rc=$?
where="$progname${patchf:+ (with $(basename "$patchf"))}"
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
srcre=${src//./\\.}
if [ $kind = mtree ]; then
	bug=$(grep -m1 -oE "maple\.c:[0-9]+: vmafuzz_[A-Za-z0-9_]+: Assertion" "$shadow/run.log")
	line= func=
	if [ -n "$bug" ]; then
		line=$(echo "$bug" | cut -d: -f2) func=$(echo "$bug" | cut -d' ' -f2 | tr -d :)
	fi
	kindof="MT_BUG_ON failed${func:+ in $func}"
else
	# "Assert FAILED at <path>/main.c:<line>:<function>(): <expr> is FALSE."
	bug=$(grep -m1 -oE "Assert FAILED at [^ ]*$srcre:[0-9]+:vmafuzz_[A-Za-z0-9_]+\(\)" "$shadow/run.log")
	line= func=
	if [ -n "$bug" ]; then
		line=$(echo "$bug" | sed -E 's/.*:([0-9]+):.*/\1/') func=$(echo "$bug" | sed -E 's/.*:([A-Za-z0-9_]+)\(\)$/\1/')
	fi
	# the check's own word on what differs, when it said
	diff=$(grep -m1 '^vmafuzz: ' "$shadow/run.log" | sed 's/^vmafuzz: //')
	kindof="assertion failed${diff:+: $diff}"
fi
san=$(grep -m1 -E 'ERROR: AddressSanitizer|runtime error' "$shadow/run.log" | sed 's/^==[0-9]*==//')
[ "$func" = "$fn" ] ||
	line=$(grep -m1 -oE " in $fn [^ ]*$srcre:[0-9]+" "$shadow/run.log" | sed 's/.*://')
what=${bug:+$kindof}
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
