#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# How far one operation travels through the sources: the files control
# passes through from the input's bytes to the model and back, counted.
#
#   scripts/op-path.sh [PROGRAM.txt [STEP]]
#
# Default: a fuzz_mm program whose step 2 is an mprotect. The replay
# driver of fuzz_mm is built with -finstrument-functions (in a folder of
# its own) and run on the program; every function's entry and exit is
# recorded, and the file each is in read from its debug information. The
# path of STEP is its decoding (the operation's canonical_args call inside
# prog_decode) then its run (the call of the operation from fiber_main,
# where a program's steps start). A stop is a stretch of the path in one
# file: a call or a return into another file is the next stop. Printed:
# the stops, how many of them return to a file the path had already left,
# and the files, counted twice: every file its own stop, and the model
# (src/) as one stop, which is the harness's part of the path; then the
# path of files, the model as one. The invariant checks after the step are
# counted apart.
set -euo pipefail
cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/.."
ROOT=$PWD
prog=${1:-}
step=${2:-2}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
if [ -z "$prog" ]; then
	prog=$tmp/prog.txt
	printf 'target fuzz_mm\nmmap p0 @0x20:16 r,w private f0 fixed\ntouch p0 @0x20:8 write\nmprotect p0 @0x22:4 r\n' >"$prog"
fi
build=${OP_PATH_BUILD:-out/op-path}

# the hooks: not instrumented themselves, the address of each function
# relative to its object's base (for addr2line)
cat >"$tmp/hooks.c" <<'EOF'
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
static FILE *out;
static void __attribute__((no_instrument_function)) put(char k, void *fn)
{
	Dl_info i;
	if (!out) {
		const char *p = getenv("OP_PATH_OUT");
		out = fopen(p ? p : "/dev/null", "w");
	}
	if (out && dladdr(fn, &i) && i.dli_fbase)
		fprintf(out, "%c %lx\n", k, (unsigned long)((char *)fn - (char *)i.dli_fbase));
}
void __attribute__((no_instrument_function)) __cyg_profile_func_enter(void *fn, void *site)
{
	(void)site;
	put('E', fn);
}
void __attribute__((no_instrument_function)) __cyg_profile_func_exit(void *fn, void *site)
{
	(void)site;
	put('X', fn);
}
EOF
mkdir -p "$build"
clang -O1 -c "$tmp/hooks.c" -o "$build/hooks.o"
# -O0: every function a call, none folded into another file's
make -s --no-print-directory -j"$(nproc 2>/dev/null || echo 2)" OUTDIR="$build" \
	EXTRA_CFLAGS="-O0 -finstrument-functions" \
	LINK_replay="-fsanitize=address,undefined $ROOT/$build/hooks.o" "$build/replay/fuzz_mm" >&2
OP_PATH_OUT=$tmp/trace "$build/replay/fuzz_mm" "$prog" >/dev/null
awk '{ print $2 }' "$tmp/trace" | sort -u >"$tmp/addrs"
sed 's/^/0x/' "$tmp/addrs" | addr2line -f -e "$build/replay/fuzz_mm" | paste - - |
	paste "$tmp/addrs" - >"$tmp/syms"

awk -v root="$ROOT/" -v step="$step" -F'\t' '
FNR == NR {
	f = $3; sub(/:.*/, "", f); sub("^" root, "", f)
	name[$1] = $2; file[$1] = f
	next
}
{
	split($0, ev, " "); k = ev[1]; a = ev[2]
	if (k == "E") {
		parent = depth ? name[stack[depth]] : ""
		if (parent == "prog_decode" && name[a] == "canonical_args") {
			ndec++; cur = (ndec == step + 1) ? "op" : ""; base = depth
		}
		if (parent == "fiber_main") {
			nfm++; idx = int((nfm - 1) / 2); kind = (nfm % 2) ? "op" : "check"
			cur = (idx == step) ? kind : ""; base = depth
		}
		stack[++depth] = a
		if (cur != "") seq[cur, ++n[cur]] = file[a]
	} else {
		depth--
		if (cur != "" && depth > 0) seq[cur, ++n[cur]] = file[stack[depth]]
		if (cur != "" && depth == base) cur = ""
	}
}
function walk(kind, model,    i, f, last, m, seen, ret, stops, path) {
	delete seen; ret = 0; stops = 0; last = ""; path = ""
	for (i = 1; i <= n[kind]; i++) {
		f = seq[kind, i]
		if (model && f ~ /^src\//) f = "src/ (the model)"
		if (f == last) continue
		if (f in seen) ret++
		seen[f] = 1; stops++; last = f
		path = path (path == "" ? "" : " > ") f
	}
	m = 0; for (f in seen) m++
	printf "%d stops, %d of them returns to a file already left, %d files", stops, ret, m
	return path
}
END {
	printf "operation %d, from its bytes to the model and back:\n", step
	printf "  every file its own stop:   "; walk("op", 0); printf "\n"
	printf "  the model as one stop:     "; p = walk("op", 1); printf "\n"
	printf "  the invariant checks after it, apart: "; walk("check", 1); printf "\n"
	printf "  the path (the model as one stop):\n    %s\n", p
}' "$tmp/syms" "$tmp/trace"
