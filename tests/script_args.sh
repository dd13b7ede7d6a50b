#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The measuring scripts refuse a bad command line before they build or run
# anything: exit status 2 and a sentence naming what is wrong
# (scripts/kernel-bench.sh, scripts/vm-bugs.sh). Run by ./build.sh test
# with OUT and ROOT set.
set -u
cd "$ROOT"
. tests/shlib
export OUTDIR=$T/build

K=scripts/kernel-bench.sh
for s in 0 -1 1.5 abc ''; do
	expect 2 "--seconds takes a whole number" "$K" --seconds "$s"
done
expect 2 "--seconds needs a number" "$K" --seconds
expect 2 "--cpu takes a whole number, not 'x'" "$K" --cpu x
expect 2 "--rounds takes a whole number from 1, not '0'" "$K" --rounds 0
expect 2 "--rounds needs a number" "$K" --rounds
expect 2 "unknown option '--fast'" "$K" --fast
expect 2 "kernel-tree.sh: .*not a kernel tree|no such|not a folder" "$K" --seconds 1 "$T/nothing"

V=scripts/vm-bugs.sh
for s in 0 x ''; do
	expect 2 "--runs takes a whole number from 1, not '$s'" "$V" --runs "$s"
done
expect 2 "--timeout takes a whole number from 1, not '-1'" "$V" --timeout -1
expect 2 "unknown option '--bogus'" "$V" --bogus
expect 2 "no planted kernel bug 'nosuchbug'" "$V" nosuchbug
[ -e "$OUTDIR/kernel" ] && bad "a refused command line built something in $OUTDIR" || ok
finish
