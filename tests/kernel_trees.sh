#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The kernel targets on every tree a kernel developer works on: Debian's
# 6.1 LTS, 6.12 LTS and the newest release Debian ships (fetched once into
# the machine's cache), each end to end by scripts/kernel-port-check.sh:
# built, smoke tests, every seed and regression of the twins, the known
# findings, then 20 s of fuzzing per target finding nothing. kfuzz_mtree on
# all three; kfuzz_vma where the tree has mm/vma.c (6.12 and the current
# release), and on 6.1 one sentence saying why not. The tree in use stays
# what it was.
set -uo pipefail
ROOT=${ROOT:-$(cd "$(dirname "$0")/.." && pwd)}
OUT=${OUT:-$ROOT/out}
cd "$ROOT"
. tests/shlib

before=$(readlink "$OUT/kernel/current" 2>/dev/null)
# port_check TREE WANT...: the check passes, and builds exactly WANT
port_check() {
	local tree=$1 log=$T/$1.log t
	shift
	if SECONDS_EACH=${VMAFUZZ_TREE_SECONDS:-20} scripts/kernel-port-check.sh "$tree" "$OUT" >"$log" 2>&1; then
		ok "kernel-port-check $tree: $(tail -n 1 "$log")"
	else
		bad "kernel-port-check $tree:"
		grep -E '^FAIL' "$log" | head -n 10
	fi
	for t in kfuzz_mtree kfuzz_vma; do
		if [[ " $* " == *" $t "* ]]; then
			grep -q "^ok    $t: .*s of fuzzing, [0-9]* runs .*nothing found" "$log" && ok ||
				bad "$tree: $t was not fuzzed clean"
		else
			grep -q "$t not built: $t cannot be built from .*(Linux [0-9.]*): " "$log" && ok ||
				bad "$tree: no sentence saying why $t is not built"
		fi
	done
	# the figures, for whoever reads the log
	grep -E '^ok    kfuzz_[a-z]+: ' "$log" | sed "s/^ok    /  $tree: /"
}
port_check 6.1 kfuzz_mtree
port_check 6.12 kfuzz_mtree kfuzz_vma
port_check current kfuzz_mtree kfuzz_vma
[ "$(readlink "$OUT/kernel/current" 2>/dev/null)" = "$before" ] && ok ||
	bad "the port checks changed the tree in use ($before)"
finish
