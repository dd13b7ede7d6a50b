#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# A full disk loses nothing and is said, on a small tmpfs that fills while
# vmafuzz fuzz runs:
#  - a run whose crash report fills the disk (a planted bug's crash among
#    the seeds, the disk left a page for the build record and one for the
#    log): exit status 74 (docs/fuzzing-at-scale.md), a clear message; the
#    crash file libFuzzer could not write is not left empty, its program is
#    on stderr between marker lines, from which print and triage read it
#    back, on the bug's build; the corpus and the build record are as they
#    were;
#  - a run whose new inputs fill the disk: stopped with 74, no input left
#    empty, the corpus's inputs from before untouched, no merge;
#  - a run on a disk already full: 74 before the engine starts, the build
#    record untouched;
#  - a write that fails (vmafuzz compile -o) names the file and leaves the
#    one there as it was.
# Needs root (a tmpfs mount, undone on exit). Run by ./build.sh test with
# OUT and ROOT set.
set -u
cd "$ROOT"
. tests/shlib
V=$OUT/vmafuzz
export VMAFUZZ_NO_DEPS=1 VMAFUZZ_STATUS_EVERY=5
S=$T/small
B=test_exit_frees_shared

if [ "$(id -u)" != 0 ]; then
	echo "(not root: no tmpfs to fill, nothing checked)"
	finish
	exit
fi
mkdir -p "$S" "$T/seeds"
trap 'umount "$S" 2>/dev/null; rm -rf "$T"' EXIT
if ! make -s --no-print-directory -j2 bug-libfuzzer bug-replay BUG=$B >"$T/build.log" 2>&1; then
	bad "make bug-libfuzzer bug-replay BUG=$B failed: $(tail -n 5 "$T/build.log")"
	finish
	exit
fi
"$V" compile tests/crash_kept/no_fork.txt -o "$T/seeds/no_fork" >/dev/null
"$V" compile tests/crash_kept/exit_shared.txt -o "$T/seeds/exit_shared" >/dev/null

# small SIZE ROOM: a fresh tmpfs of SIZE with ROOM bytes left, after the
# work folder of fuzz_fork has its corpus (the seeds) and a crash folder
small() {
	umount "$S" 2>/dev/null
	mount -t tmpfs -o "size=$1" tmpfs "$S" || return 1
	mkdir -p "$S/fuzz_fork/corpus" "$S/fuzz_fork/crashes" "$S/fuzz_fork/logs"
	cp "$T/seeds"/* "$S/fuzz_fork/corpus/"
	dd if=/dev/zero of="$S/filler" bs=4096 2>/dev/null
	truncate -s "-$2" "$S/filler"
}

# empty_files DIR: the empty files in DIR
empty_files() { find "$1" -maxdepth 1 -type f -size 0 | sed "s|^$1/||"; }

# ---- 1. the crash's report fills the disk
small 1m 8K || { bad "cannot mount a tmpfs on $S"; finish; exit; }
rc=0
VMAFUZZ_WORK_ROOT=$S "$V" fuzz --bug $B --seeds "$T/seeds" fuzz_fork 30 >"$T/out" 2>"$T/err" || rc=$?
[ "$rc" = 74 ] && ok || { bad "a run on a full disk exited $rc, want 74"; tail -n 12 "$T/out" "$T/err"; }
grep -q '(the disk is full: No space left on device; the run stops)' "$T/out" && ok ||
	bad "the run does not say the disk is full: $(tail -n 8 "$T/out")"
grep -qE "the run stopped: the disk holding $S/fuzz_fork is full .*exit status 74" "$T/err" && ok ||
	{ bad "no closing message"; cat "$T/err"; }
grep -q 'unsaved: 1 crash not saved, printed on stderr' "$T/out" && ok || bad "the summary does not count the unsaved crash"
[ -z "$(empty_files "$S/fuzz_fork/crashes")" ] && ok || bad "an empty crash file is left: $(empty_files "$S/fuzz_fork/crashes")"
for f in no_fork exit_shared; do
	cmp -s "$S/fuzz_fork/corpus/$f" "$T/seeds/$f" && ok || bad "corpus file $f changed"
done
[ "$(ls -A "$S/fuzz_fork/corpus" | wc -l)" = 2 ] && ok || bad "the corpus holds $(ls -A "$S/fuzz_fork/corpus")"
grep -qx "\\* bugs/$B/libfuzzer from=[0-9.]*" "$S/fuzz_fork/crashes/.builds" && ok ||
	bad "the build record is not whole: $(cat "$S/fuzz_fork/crashes/.builds")"
# the crash, back from stderr: its program, on the bug's build
grep -q "^--- vmafuzz: unsaved crash crash-[0-9a-f]* (fuzz_fork): its program ---$" "$T/err" && ok ||
	bad "no unsaved crash's block on stderr"
expect 0 "^# $T/err:[0-9]+: 4 operations, 50 bytes \\(the program in this log\\)" "$V" print "$T/err"
tail -n +2 "$T/out" >"$T/from_log"
"$V" print --target fuzz_fork "$T/seeds/exit_shared" | tail -n +2 >"$T/from_seed"
grep -v '^#' "$T/from_log" | cmp -s - "$T/from_seed" && ok || { bad "the log's program is not the crash's"; diff "$T/from_log" "$T/from_seed"; }
expect 0 '^AddressSanitizer: heap-use-after-free in .* +1 ' "$V" triage "$T/err"

# ---- 2. new inputs fill the disk
umount "$S"
mount -t tmpfs -o size=2m tmpfs "$S"
mkdir -p "$S/fuzz_mtree/corpus"
cp "$OUT"/corpus/fuzz_mtree/* "$S/fuzz_mtree/corpus/"
(cd "$S/fuzz_mtree/corpus" && md5sum * >"$T/before.md5")
dd if=/dev/zero of="$S/filler" bs=4096 2>/dev/null
truncate -s -160K "$S/filler"
rc=0
VMAFUZZ_WORK_ROOT=$S "$V" fuzz fuzz_mtree 40 >"$T/out" 2>"$T/err" || rc=$?
[ "$rc" = 74 ] && ok || { bad "a run whose inputs fill the disk exited $rc, want 74"; tail -n 12 "$T/out" "$T/err"; }
[ -z "$(empty_files "$S/fuzz_mtree/corpus")" ] && ok ||
	bad "$(empty_files "$S/fuzz_mtree/corpus" | wc -l) corpus files are empty"
(cd "$S/fuzz_mtree/corpus" && md5sum --quiet -c "$T/before.md5") && ok || bad "a corpus file from before changed"
[ "$(ls "$S/fuzz_mtree/corpus" | wc -l)" -gt "$(wc -l <"$T/before.md5")" ] && ok ||
	bad "the whole new inputs are not kept"
grep -q '(the corpus is not merged: the disk is full)' "$T/out" && ok || bad "the run says nothing of the merge"
[ -e "$S/fuzz_mtree/corpus.merge" ] && bad "a merge folder is left" || ok

# ---- 3. no room at all: the run does not start, the record stays
small 1m 0 || bad "cannot mount a tmpfs on $S"
echo "* libfuzzer from=1.000000000" >"$T/builds"
rm -f "$S/filler"
cp "$T/builds" "$S/fuzz_fork/crashes/.builds"
echo "the old one" >"$S/seed"
dd if=/dev/zero of="$S/filler" bs=4096 2>/dev/null
rc=0
VMAFUZZ_WORK_ROOT=$S "$V" fuzz --bug $B --seeds "$T/seeds" fuzz_fork 30 >"$T/out" 2>"$T/err" || rc=$?
[ "$rc" = 74 ] && ok || { bad "a run on a disk already full exited $rc, want 74"; tail -n 8 "$T/out" "$T/err"; }
grep -q "the disk holding $S/fuzz_fork is full (No space left on device): the run does not start" "$T/err" &&
	ok || { bad "no message that the run does not start"; cat "$T/err"; }
grep -q 'Test unit written\|INFO: Seed' "$T/out" "$T/err" && bad "the engine ran" || ok
cmp -s "$T/builds" "$S/fuzz_fork/crashes/.builds" && ok || bad "the build record changed: $(cat "$S/fuzz_fork/crashes/.builds")"
ls -A "$S/fuzz_fork/crashes" | grep -q '^\.builds\..*tmp' && bad "a temporary record is left" || ok

# ---- 4. a failed write names the file and leaves the old one
expect 2 "cannot write $S/seed: No space left on device" "$V" compile tests/crash_kept/no_fork.txt -o "$S/seed"
[ "$(cat "$S/seed")" = "the old one" ] && ok || bad "a failed compile -o changed the file there"
finish
