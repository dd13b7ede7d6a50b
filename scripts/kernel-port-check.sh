#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# scripts/kernel-port-check.sh TREE OUTDIR: the kernel targets on one
# kernel tree, checked end to end (docs/kernel.md, "Trees and versions"):
#
#   1. make kernel corpus regress with the tree and OUTDIR (the model too,
#      into OUTDIR; the tree's builds into OUTDIR/kernel/<key>/, the tree in
#      use left as it was; no AFL++ flavors): the probes decide what the
#      tree can build; a target the tree lacks the pieces for is named with
#      the probe's sentence and is not a failure;
#   2. the smoke tests of what was built (OUTDIR/kernel/<key>/tests/);
#   3. every seed and regression of each built target's model twin, replayed
#      (OUTDIR/corpus/<twin>, OUTDIR/regress/<twin> and, for kfuzz_vma,
#      corpus/fuzz_mm/*.txt as text);
#   4. the known kernel findings (bugs/kernel/ and bugs/kernel/older/):
#      with the sidesteps on (the default) each reproducer runs clean; with
#      its own off, whether the tree has it (it fails as its # expect: line
#      says, line numbers aside), said but not judged;
#   5. SECONDS_EACH (default 20) seconds of libFuzzer on each built target,
#      from its twin's seeds into a corpus of its own, with the twin's
#      dictionary: runs and exec/s, or the crash that ended it (kept in
#      OUTDIR/port-check/<target>/) with its first report line.
#
# Prints one line per check and a summary; exit status 0 when every check
# of what the tree can build passed, 1 otherwise, 2 on a bad command line.
# Progress and the build's log go to OUTDIR/port-check/.
set -uo pipefail
cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/.." || exit 2
root=$PWD

if [ $# -ne 2 ]; then
	echo "usage: scripts/kernel-port-check.sh TREE OUTDIR   (TREE: 6.1, 6.12, current or a path;" \
		"SECONDS_EACH=20 fuzzing per target)" >&2
	exit 2
fi
mkdir -p "$2" || exit 2
OUTDIR=$(readlink -f "$2")
KSRC=$(OUTDIR=$OUTDIR scripts/kernel-tree.sh "$1") || exit 2
K=$OUTDIR/kernel/$(scripts/kernel-tree.sh --key "$KSRC") || exit 2
SECONDS_EACH=${SECONDS_EACH:-20}
JOBS=${JOBS:-2}
LOG=$K/port-check
mkdir -p "$LOG"
pass=0 fail=0 summary=()

ok() {
	pass=$((pass + 1))
	echo "ok    $*"
}
bad() {
	fail=$((fail + 1))
	echo "FAIL  $*"
	summary+=("FAIL $*")
}
note() {
	echo "note  $*"
	summary+=("$*")
}

version=$(sed -n 's/^\(VERSION\|PATCHLEVEL\|SUBLEVEL\) = \([0-9]*\)$/\2/p' "$KSRC/Makefile" 2>/dev/null |
	head -n 3 | paste -sd.)
echo "kernel-port-check: $KSRC (${version:+Linux $version}${version:+, }output in $OUTDIR)"

# 1. the build
if make -s -j"$JOBS" kernel corpus regress KSRC="$KSRC" KSRC_RECORD=no HAVE_AFL= OUTDIR="$OUTDIR" \
	>"$LOG/build.log" 2>&1; then
	ok "make kernel corpus regress"
else
	bad "make kernel corpus regress (the end of $LOG/build.log:)"
	tail -n 20 "$LOG/build.log" | sed 's/^/      /'
fi
for c in "$K/config.mk" "$K/vma_config.mk"; do
	[ -f "$c" ] && sed -n 's/^\(KMT_DEFS\|KVMA_LAYOUT\|KVMA_DEFS\|KMT_SHIM_DIR\) := */  probe: \1 = /p' "$c"
done

twin() {
	case $1 in
	kfuzz_mtree) echo fuzz_mtree ;;
	kfuzz_vma) echo fuzz_mm ;;
	esac
}

targets=()
for t in kfuzz_mtree kfuzz_vma; do
	if [ -x "$K/replay/$t" ] && [ -x "$K/libfuzzer/$t" ]; then
		targets+=("$t")
	else
		msg=$(sed -n "s/^.*\\($t cannot be built from .*\\)$/\\1/p" "$LOG/build.log" | head -n 1)
		if [ -n "$msg" ]; then
			note "$t not built: $msg"
		else
			bad "$t was not built"
		fi
	fi
done

# 2. the smoke tests
for tst in test_tree_kernel test_vma_kernel; do
	bin=$K/tests/$tst
	[ -x "$bin" ] || continue
	if "$bin" >"$LOG/$tst.log" 2>&1 && grep -q ' passed, 0 failed' "$LOG/$tst.log"; then
		ok "$tst: $(tail -n 1 "$LOG/$tst.log")"
	else
		bad "$tst: $(tail -n 1 "$LOG/$tst.log") ($LOG/$tst.log)"
	fi
done

# 3. seeds and regressions
replay() { # replay TARGET WHAT PATH...: none failed
	local t=$1 what=$2 out
	shift 2
	out=$("$K/replay/$t" "$@" 2>&1 | tail -n 1)
	if grep -q 'none failed' <<<"$out"; then
		ok "$t $what: $out"
	else
		bad "$t $what: $out"
	fi
}
for t in "${targets[@]}"; do
	tw=$(twin "$t")
	replay "$t" "seeds" "$OUTDIR/corpus/$tw"
	for d in "$OUTDIR/regress/$tw" "$OUTDIR/regress/$t"; do
		[ -d "$d" ] && replay "$t" "regressions ($d)" "$d"
	done
	if [ "$t" = kfuzz_vma ]; then
		# the text seeds: those with threads do not parse as one-thread
		# programs (kfuzz_vma runs one), which is not a failure
		"$K/replay/$t" corpus/fuzz_mm/*.txt >"$LOG/vma-text.log" 2>&1
		out=$(tail -n 1 "$LOG/vma-text.log")
		unparsed=$(grep -c 'is not t0\.\.t0' "$LOG/vma-text.log")
		if grep -q 'none failed' <<<"$out"; then
			ok "$t text seeds: $out ($unparsed more have threads: not one-thread programs)"
		else
			bad "$t text seeds: $out"
		fi
	fi
done

# 4. the known findings
if [[ " ${targets[*]} " == *" kfuzz_mtree "* ]]; then
	present=() absent=()
	for txt in bugs/kernel/*.txt bugs/kernel/older/*.txt; do
		[ -f "$txt" ] || continue
		name=$(basename "$txt" .txt)
		finding=$(sed -n 's/^# finding: //p' "$txt" | head -n 1)
		want=$(sed -n 's/^# expect: //p' "$txt" | head -n 1 | sed 's/[.:][0-9][0-9]*:[0-9][0-9]*: /: /')
		bin=$LOG/finding-$name
		if ! "$OUTDIR/vmafuzz" compile "$txt" -o "$bin" >/dev/null 2>&1; then
			bad "finding $finding: $txt does not compile"
			continue
		fi
		replay kfuzz_mtree "finding $finding sidestepped" "$bin"
		# (the subshell keeps bash's "Aborted" notice out of the output)
		(VMAFUZZ_SHOW_FINDINGS=$finding "$K/replay/kfuzz_mtree" "$bin" \
			>"$LOG/finding-$name.log" 2>&1; exit $?) 2>/dev/null
		if sed 's/[.:][0-9][0-9]*:[0-9][0-9]*: /: /' "$LOG/finding-$name.log" | grep -qF -- "$want"; then
			present+=("$finding")
		else
			absent+=("$finding")
		fi
	done
	note "findings present in this tree (sidestep off): ${present[*]:-none}"
	note "findings not shown by this tree (fixed, or its program cannot run here): ${absent[*]:-none}"
fi

# 5. fuzzing
for t in "${targets[@]}"; do
	tw=$(twin "$t")
	work=$LOG/$t
	rm -rf "$work"
	mkdir -p "$work/corpus"
	(cd "$work" && "$K/libfuzzer/$t" -max_total_time="$SECONDS_EACH" \
		-dict="$root/dict/$tw.dict" "$work/corpus" "$OUTDIR/corpus/$tw" >"$work/fuzz.log" 2>&1)
	runs=$(sed -n 's/^Done \([0-9]*\) runs in \([0-9]*\) second.*/\1 \2/p' "$work/fuzz.log")
	crash=$(find "$work" -maxdepth 1 -name 'crash-*' -o -maxdepth 1 -name 'leak-*' | head -n 1)
	if [ -n "$crash" ]; then
		bad "$t: fuzzing found $crash: $("$K/replay/$t" "$crash" 2>&1 |
			grep -m 1 'invariant\|runtime error\|ERROR: AddressSanitizer\|ERROR: LeakSanitizer')"
	elif [ -n "$runs" ]; then
		read -r n secs <<<"$runs"
		ok "$t: ${SECONDS_EACH}s of fuzzing, $n runs in $secs s ($((n / (secs > 0 ? secs : 1))) exec/s), nothing found"
	else
		bad "$t: ${SECONDS_EACH}s of fuzzing did not end as it should ($work/fuzz.log)"
	fi
done

echo "--- kernel-port-check: $KSRC${version:+ (Linux $version)}"
for s in "${summary[@]}"; do
	echo "  $s"
done
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
