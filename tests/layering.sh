#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The parts of the tree and who may reach whom, read twice: from the
# sources' #include "..." lines and from the objects' symbols (nm: which
# file defines a symbol and which files use it, the link graph).
#
#   src/runtime < src/tree < src/mm                       the model
#   < fuzz/prog < fuzz/tree < fuzz/as < fuzz/targets < fuzz/run   the harness
#   < kernel/maple < kernel/vma,  live,  bench             backends, runner
#   < tools                                                the CLI
#
# A file may reach its own part and the parts its line in PARTS names,
# never another (the model knows nothing of fuzzing; the harness nothing of
# the kernel backends that plug into it or of the runner; kernel/ and live/
# nothing of each other). tests/ may reach anything. And no two files may
# call each other in a circle, directly or through others, by includes
# (modules: a .c and its .h) or by symbols. Then the checker is shown
# catching each kind in copies broken on purpose.
set -uo pipefail
ROOT=${ROOT:-$(cd "$(dirname "$0")/.." && pwd)}
OUT=${OUT:-$ROOT/out}
. "$ROOT/tests/shlib"

# part: what it may reach besides itself
PARTS='
src/runtime:
src/tree: src/runtime
src/mm: src/runtime src/tree
fuzz/prog: src/runtime src/tree src/mm
fuzz/tree: src/runtime src/tree src/mm fuzz/prog
fuzz/as: src/runtime src/tree src/mm fuzz/prog fuzz/tree
fuzz/targets: src/runtime src/tree src/mm fuzz/prog fuzz/tree fuzz/as
fuzz/run: src/runtime src/tree src/mm fuzz/prog fuzz/tree fuzz/as fuzz/targets
kernel/maple: src/runtime src/tree src/mm fuzz/prog fuzz/tree fuzz/as fuzz/targets
kernel/vma: src/runtime src/tree src/mm fuzz/prog fuzz/tree fuzz/as fuzz/targets kernel/maple
live: src/runtime src/tree src/mm fuzz/prog fuzz/tree fuzz/as fuzz/targets fuzz/run
bench: src/runtime src/tree src/mm
tools: src/runtime src/tree src/mm fuzz/prog fuzz/tree fuzz/as fuzz/targets fuzz/run live bench
'

# The rule as awk: part(path) and allowed(from, to) over PARTS.
PARTS_AWK='
function part(p) {
	if (p ~ /^src\/runtime\//) return "src/runtime"
	if (p ~ /^src\/tree\//) return "src/tree"
	if (p ~ /^src\//) return "src/mm"
	if (p ~ /^(fuzz|kernel)\/[^\/]+\//) { split(p, s, "/"); return s[1] "/" s[2] }
	split(p, s, "/"); return s[1]
}
function allowed(a, b,    pa, pb) {
	pa = part(a); pb = part(b)
	return pa == pb || pa == "tests" || index(" " may[pa] " ", " " pb " ") > 0
}
BEGIN {
	n = split(parts, l, "\n")
	for (i = 1; i <= n; i++) {
		if (l[i] !~ /:/) continue
		p = l[i]; sub(/:.*/, "", p); r = l[i]; sub(/^[^:]*:[ ]*/, "", r)
		may[p] = r
	}
}'

# include_edges DIR: "file included" for every include of DIR's sources,
# resolved as the compiler resolves it (the including file's folder, then
# -Isrc, then the top; the kernel shims by their -I folders).
include_edges() {
	(cd "$1" && find src fuzz kernel live tools bench tests -name '*.[ch]' 2>/dev/null | sort |
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
					split(d "/" inc " src/" inc " " inc " kernel/maple/shim/" inc, c, " ")
					for (k = 1; k <= 4; k++)
						if (c[k] in have) { print f, c[k]; break }
				}
				close(f)
			}
		}' - /dev/null)
}

# link_edges DIR OBJDIR...: "user definer" between DIR's source files, from
# the objects under each OBJDIR (an object's path below it is its
# source's; a kernel backend's objects lie flat in out/obj/kernel-<flavor>/
# and are found by name in kernel/*/, the kernel's own code, *_unit.o,
# aside); objects whose source is gone are left out.
link_edges() {
	local dir=$1 o src
	shift
	for od in "$@"; do
		find "$od" -name '*.o' ! -name '*_unit.o' 2>/dev/null | while read -r o; do
			src=${o#"$od"/}
			src=${src%.o}.c
			if [ ! -e "$dir/$src" ]; then
				src=$(cd "$dir" && ls kernel/*/"$src" 2>/dev/null | head -n 1)
				[ -n "$src" ] || continue
			fi
			nm -g --defined-only "$o" 2>/dev/null | awk -v s="$src" 'NF >= 3 { print "D", s, $3 }'
			nm -u "$o" 2>/dev/null | awk -v s="$src" '{ print "U", s, $NF }'
		done
	done | awk '
		$1 == "D" { def[$3] = $2; next }
		{ use[++n] = $2 " " $3 }
		END {
			for (i = 1; i <= n; i++) {
				split(use[i], a, " ")
				if ((a[2] in def) && def[a[2]] != a[1]) print a[1], def[a[2]]
			}
		}' | sort -u
}

# check EDGES KIND: the upward edges and the circles among EDGES ("from to"
# lines; for includes, a module is a .c and its .h); 0 when none.
check() {
	local edges=$1 kind=$2 bad=0 up loops
	up=$(echo "$edges" | awk -v parts="$PARTS" "$PARTS_AWK"'
		NF == 2 && !allowed($1, $2) { print "upward '"$kind"': " $1 " reaches " $2 " (" part($1) " may not reach " part($2) ")" }')
	if [ -n "$up" ]; then
		echo "$up"
		bad=1
	fi
	# circles: tsort names a loop (tests/ aside: a test may use anything)
	loops=$(echo "$edges" | awk 'NF == 2 && $1 !~ /^tests\// {
			a = $1; b = $2; sub(/\.[ch]$/, "", a); sub(/\.[ch]$/, "", b)
			if (a != b) print a, b
		}' | tsort 2>&1 >/dev/null | grep -v 'input contains a loop:$' || true)
	if [ -n "$loops" ]; then
		echo "$kind circle through:"
		echo "$loops" | sed 's/^tsort: /  /'
		bad=1
	fi
	return $bad
}

# anagrams DIR: pairs of source files under DIR whose names (without the
# extension and underscores) are anagrams of each other, such as
# fuzz_mm.c and mm_fuzz.c: two names for one thing, or one name for two
anagrams() {
	(cd "$1" && find src fuzz kernel live tools bench scripts -type f \
		\( -name '*.c' -o -name '*.h' -o -name '*.sh' -o -name '*.mk' \) 2>/dev/null) |
		awk -F/ '{
			b = $NF; sub(/\.[^.]*$/, "", b)
			k = b; gsub(/_/, "", k)
			n = split(k, ch, ""); key = ""
			for (i = 1; i <= n; i++) {
				for (j = i + 1; j <= n; j++)
					if (ch[j] < ch[i]) { t = ch[i]; ch[i] = ch[j]; ch[j] = t }
				key = key ch[i]
			}
			if ((key in seen) && seen[key] != b) print "anagram names: " where[key] " and " $0
			else if (!(key in seen)) { seen[key] = b; where[key] = $0 }
		}'
}

# ---- the tree as it is
inc=$(include_edges "$ROOT")
n=$(echo "$inc" | grep -c .)
[ "$n" -gt 300 ] && ok "read $n includes" || bad "read only $n includes"
if out=$(check "$inc" include); then
	ok "every include keeps the parts' order and none is in a circle"
else
	echo "$out"
	bad "includes of $ROOT"
fi

# the objects: the tool's (the model, the harness, the runner, the CLI,
# the benchmarks) and the kernel backends' where they are built
objdirs=("$OUT/obj/tool")
[ -d "$OUT/kernel/current/obj/kernel-replay" ] && objdirs+=("$OUT/obj/replay" "$OUT/kernel/current/obj/kernel-replay")
link=$(link_edges "$ROOT" "${objdirs[@]}")
n=$(echo "$link" | grep -c .)
[ "$n" -gt 300 ] && ok "read $n calls between files from the objects" ||
	bad "read only $n calls between files (is $OUT/obj/tool built?)"
if out=$(check "$link" call); then
	ok "every call between files keeps the parts' order and none is in a circle"
else
	echo "$out"
	bad "calls between the files of $ROOT"
fi
out=$(anagrams "$ROOT")
[ -z "$out" ] && ok "no two source files are named with the same letters" || bad "$out"
parts=(fuzz/run live tools)
[ -d "$OUT/kernel/current/obj/kernel-replay" ] && parts+=(kernel/maple kernel/vma)
for p in "${parts[@]}"; do
	echo "$link" | grep -q "^$p/" && ok "the link graph has $p" || bad "no calls from $p read"
done

# ---- the checker fires
copy() {
	rm -rf "$T/tree"
	mkdir -p "$T/tree"
	(cd "$ROOT" && cp -r src fuzz kernel live tools bench "$T/tree/")
}
# caught WHAT PATTERN OUTPUT RC: a broken copy fails, saying PATTERN
caught() {
	if [ "$4" -ne 0 ] && echo "$3" | grep -q -- "$2"; then
		ok "$1 is caught"
	else
		bad "$1 went unseen: $3"
	fi
}
copy
cp "$T/tree/fuzz/targets/fuzz_mm.c" "$T/tree/fuzz/targets/mm_fuzz.c"
out=$(anagrams "$T/tree")
[ -z "$out" ] # fails, as a check does on a broken tree
caught "two files named with the same letters (fuzz_mm.c, mm_fuzz.c)" 'anagram names: .*mm_fuzz.c' "$out" $?
copy
echo '#include "mm/types.h"' >>"$T/tree/src/tree/itree.c"
out=$(check "$(include_edges "$T/tree")" include)
caught "an upward include (tree -> mm)" 'src/tree/itree.c reaches src/mm/types.h' "$out" $?
copy
echo '#include "fuzz/targets/exec.h"' >>"$T/tree/src/runtime/check.c"
out=$(check "$(include_edges "$T/tree")" include)
caught "a model file including the harness" 'src/runtime/check.c reaches fuzz/targets/exec.h' "$out" $?
copy
echo '#include "kernel/maple/kmt_backend.h"' >>"$T/tree/fuzz/tree/tree_pair.c"
out=$(check "$(include_edges "$T/tree")" include)
caught "the harness including a kernel backend" 'fuzz/tree/tree_pair.c reaches kernel/maple' "$out" $?
copy
echo '#include "live/ksys.h"' >>"$T/tree/kernel/vma/kvma_backend.c"
out=$(check "$(include_edges "$T/tree")" include)
caught "a kernel backend including the runner" 'kernel/vma may not reach live' "$out" $?
copy
echo '#include "mm/mmap.h"' >>"$T/tree/src/mm/vma.h"
echo '#include "mm/vma.h"' >>"$T/tree/src/mm/mmap.h"
out=$(check "$(include_edges "$T/tree")" include)
caught "an include circle (mm/vma <-> mm/mmap)" 'include circle' "$out" $?

# calls: objects made on purpose, each named as the source it stands for
mkdir -p "$T/ctree/fuzz/as" "$T/ctree/src/mm" "$T/cobj/fuzz/as" "$T/cobj/src/mm"
cc_obj() { # cc_obj SOURCE TEXT: SOURCE written and compiled into $T/cobj
	printf '%s\n' "$2" >"$T/ctree/$1"
	cc -c -o "$T/cobj/${1%.c}.o" "$T/ctree/$1"
}
cc_obj fuzz/as/one.c 'void two(void); void one(void) { two(); }'
cc_obj fuzz/as/two.c 'void one(void); void two(void) { one(); }'
cc_obj src/mm/low.c 'void three(void); void low(void) { three(); }'
cc_obj fuzz/as/three.c 'void three(void) { }'
edges=$(link_edges "$T/ctree" "$T/cobj")
out=$(check "$(grep -v '^src/' <<<"$edges")" call)
caught "a call circle (one.c <-> two.c, no include between them)" 'call circle' "$out" $?
out=$(check "$(grep '^src/' <<<"$edges")" call)
caught "a model file calling the harness" 'upward call: src/mm/low.c reaches fuzz/as/three.c' "$out" $?

finish
