#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The tree follows its one .clang-format: every tracked C file is as
# clang-format would write it. Run by ./build.sh test with ROOT set.
set -u
cd "$ROOT"
. tests/shlib

if ! command -v clang-format >/dev/null; then
	# scripts/install-deps.sh installs it as root and warns otherwise
	echo "format.sh: clang-format not installed; nothing checked"
	finish
	exit
fi
n=0 off=""
for f in $(git ls-files '*.c' '*.h' 2>/dev/null || find src fuzz tools tests bench -name '*.[ch]'); do
	n=$((n + 1))
	if ! clang-format --dry-run --Werror "$f" >"$T/fmt" 2>&1; then
		off="$off $f"
		head -n 3 "$T/fmt"
	fi
done
[ "$n" -gt 50 ] && ok || bad "found only $n C files"
[ -z "$off" ] && ok || bad "not as .clang-format says (clang-format -i to mend):$off"

# and it notices a file that is not
printf 'int  f(void) { return 0; }\n' >"$T/bad.c"
cp .clang-format "$T/"
clang-format --dry-run --Werror "$T/bad.c" >/dev/null 2>&1 && bad "a misformatted file passed" || ok
finish
