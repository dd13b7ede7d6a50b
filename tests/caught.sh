#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Programs the harness must keep catching: each tests/caught/<target>/*.txt
# names with '# expect: CHECK' the invariant that must stop it. These are
# behaviours of the model it refuses on purpose (the reverted anon_vma
# policy), so unlike corpus/regress they fail in every build. Run by
# ./build.sh test with OUT and ROOT set.
set -u
cd "$ROOT"
. tests/shlib
V="$OUT/vmafuzz"

n=0
for txt in tests/caught/*/*.txt; do
	[ -e "$txt" ] || continue
	target=$(basename "$(dirname "$txt")")
	check=$(sed -n 's/^# expect: //p' "$txt")
	if [ -z "$check" ]; then
		bad "$txt has no '# expect: CHECK' line"
		continue
	fi
	expect 0 '' "$V" compile "$txt" -o "$T/prog"
	expect 134 "invariant $check failed" "$V" replay "$target" "$T/prog"
	n=$((n + 1))
done
[ "$n" -gt 0 ] && ok || bad "no program in tests/caught"
finish
