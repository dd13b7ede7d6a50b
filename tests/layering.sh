#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The layering of the sources, read from their #include "..." lines:
#
#   src/runtime  <  src/tree  <  src/mm  <  fuzz, kernel  <  tools, bench
#
# A file may include headers of its own layer and of lower ones, never of a
# higher one (the model knows nothing of fuzzing; the range tree nothing of
# the address space; the runtime neither). tests/ may include anything.
# Modules (a .c and its .h, by path without the extension) must not include
# each other in a circle. Then the checker is shown catching an upward
# include and a circle, in copies of the tree broken on purpose.
set -uo pipefail
ROOT=${ROOT:-$(cd "$(dirname "$0")/.." && pwd)}
. "$ROOT/tests/shlib"

# layering_check DIR: 0 when DIR's sources keep the rules, else 1 with the
# offending includes on stdout.
layering_check() {
	local dir=$1 edges bad=0
	# one awk over every file (a shell loop per include took a minute and
	# a half of CI): the files are known first, then each include is
	# resolved as the compiler's -I list would, the including file's own
	# folder first
	edges=$(cd "$dir" && find src fuzz kernel tools bench -name '*.[ch]' 2>/dev/null | sort |
		awk '
		NR == FNR { have[$0] = 1; files[++n] = $0; next }
		END {
			for (i = 1; i <= n; i++) {
				f = files[i]
				d = f; sub(/\/[^\/]*$/, "", d)
				while ((getline line < f) > 0) {
					if (line !~ /^[ \t]*#[ \t]*include[ \t]+"[^"]+"/)
						continue
					inc = line; sub(/^[^"]*"/, "", inc); sub(/".*$/, "", inc)
					split(d "/" inc " src/" inc " fuzz/" inc " kernel/" inc " bench/" inc " tools/" inc, c, " ")
					for (k = 1; k <= 6; k++)
						if (c[k] in have) { print f, c[k]; break }
				}
				close(f)
			}
		}' - /dev/null)
	# upward includes
	local up
	up=$(echo "$edges" | awk '
		function layer(p) {
			if (p ~ /^src\/runtime\//) return 0
			if (p ~ /^src\/tree\//) return 1
			if (p ~ /^src\/mm\//) return 2
			if (p ~ /^src\//) return 2
			if (p ~ /^fuzz\// || p ~ /^kernel\//) return 3
			return 4
		}
		NF == 2 && layer($2) > layer($1) { print "upward include: " $1 " includes " $2 }')
	if [ -n "$up" ]; then
		echo "$up"
		bad=1
	fi
	# circles between modules: tsort reports a loop
	local loops
	loops=$(echo "$edges" | awk 'NF == 2 {
			a = $1; b = $2; sub(/\.[ch]$/, "", a); sub(/\.[ch]$/, "", b)
			if (a != b) print a, b
		}' | tsort 2>&1 >/dev/null | grep -v '^tsort: -: input contains a loop:$' || true)
	if [ -n "$loops" ]; then
		echo "include circle through:"
		echo "$loops" | sed 's/^tsort: /  /'
		bad=1
	fi
	return $bad
}

out=$(layering_check "$ROOT")
if [ $? -eq 0 ]; then
	ok "the tree keeps its layers and has no include circle"
else
	echo "$out"
	bad "layering of $ROOT"
fi
edges=$(cd "$ROOT" && grep -rhoE '^#include "[^"]+"' src fuzz tools bench | wc -l)
[ "$edges" -gt 200 ] && ok "read $edges includes" || bad "read only $edges includes"

# The checker fires: a copy with an upward include, a copy with a circle.
copy() {
	rm -rf "$T/tree"
	mkdir -p "$T/tree"
	(cd "$ROOT" && cp -r src fuzz kernel tools bench "$T/tree/")
}
# caught WHAT PATTERN: the broken copy fails the check, saying PATTERN
caught() {
	local out
	out=$(layering_check "$T/tree")
	if [ $? -ne 0 ] && echo "$out" | grep -q -- "$2"; then
		ok "$1 is caught"
	else
		bad "$1 went unseen: $out"
	fi
}
copy
echo '#include "mm/types.h"' >>"$T/tree/src/tree/itree.c"
caught "an upward include (tree -> mm)" 'upward include: src/tree/itree.c includes src/mm/types.h'
copy
echo '#include "exec.h"' >>"$T/tree/src/runtime/check.c"
caught "a model file including the harness" 'src/runtime/check.c includes fuzz/exec.h'
copy
echo '#include "mm/mmap.h"' >>"$T/tree/src/mm/vma.h"
echo '#include "mm/vma.h"' >>"$T/tree/src/mm/mmap.h"
caught "an include circle (mm/vma <-> mm/mmap)" 'include circle'

finish
