#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Batch triage: the crashes of a batch run sit in folders named for their
# target, and vmafuzz triage finds them there and buckets them:
#  - triage-in/<target>/crash-* (a folder per target, OSS-Fuzz's testcases
#    too, whatever their names);
#  - ClusterFuzzLite's out/artifacts/<target>/<sanitizer>/crash-*, with its
#    crash-*.summary beside each (a stack, no crash), which the batch
#    workflow's own triage step (.github/workflows/cflite_batch.yml) reads:
#    its commands are run here as the workflow runs them, in a checkout
#    beside out/, with a replay driver that has a planted bug.
# Run by ./build.sh test with OUT and ROOT set.
set -u
cd "$ROOT"
. tests/shlib
V=$OUT/vmafuzz
outdir=()
[ "$OUT" = "$ROOT/out" ] || outdir=(OUTDIR="$OUT")
GAP=$OUT/bugs/mt_gap_stale/replay
WF=.github/workflows/cflite_batch.yml

if ! make -s --no-print-directory -j2 "${outdir[@]}" bug-replay BUG=mt_gap_stale >"$T/make.log" 2>&1; then
	bad "make bug-replay BUG=mt_gap_stale"; tail -n 20 "$T/make.log"
	finish
	exit
fi
"$V" compile tests/triage/gap_stale_store.txt -o "$T/gap" >/dev/null || bad "compile gap_stale_store"
"$V" compile corpus/fuzz_mm/advice_pages.txt -o "$T/mm" >/dev/null || bad "compile a fuzz_mm seed"
gap=crash-$(sha1sum "$T/gap" | cut -d' ' -f1)
mm=crash-$(sha1sum "$T/mm" | cut -d' ' -f1)

# ---- triage-in/<target>/: the crashes of each target in its folder
I=$T/triage-in
mkdir -p "$I/fuzz_mtree" "$I/fuzz_mm" "$I/kfuzz_vma"
cp "$T/gap" "$I/fuzz_mtree/$gap"
cp "$T/mm" "$I/fuzz_mm/clusterfuzz-testcase-minimized-fuzz_mm-1"
expect 0 '^2 files in 2 buckets$' "$V" triage --replay "$GAP" "$I"
grep -qE '^MT_GAP +1 ' "$T/out" && ok || { bad "triage-in: no MT_GAP bucket"; cat "$T/out"; }
grep -qE '^no longer fails +1 +.*/fuzz_mm/clusterfuzz-testcase' "$T/out" && ok ||
	{ bad "triage-in: the fuzz_mm testcase is not triaged"; cat "$T/out"; }
# a target's folder beside a crash of the folder itself: both
cp "$T/gap" "$I/crash-loose"
expect 0 '^3 files in 2 buckets$' "$V" triage --replay "$GAP" --target fuzz_mtree "$I"
rm "$I/crash-loose"

# ---- the batch workflow's triage step, on ClusterFuzzLite's layout
W=$T/ws
A=$W/out/artifacts
mkdir -p "$A/fuzz_mtree/address" "$A/fuzz_mtree/undefined" "$A/fuzz_mm/address" "$W/vmafuzz-src/out"
cp "$T/gap" "$A/fuzz_mtree/address/$gap"
cp "$T/gap" "$A/fuzz_mtree/undefined/$gap"
cp "$T/mm" "$A/fuzz_mm/address/$mm"
for f in "$A"/*/*/crash-*; do
	printf '==1==ERROR: AddressSanitizer: heap-use-after-free\n    #0 0x1 in f\n' >"$f.summary"
done
# the checkout: its out/vmafuzz, whose replay drivers beside it have the bug
cp "$V" "$W/vmafuzz-src/out/vmafuzz"
ln -s "$GAP" "$W/vmafuzz-src/out/replay"
# the step's run: block as the workflow has it, the matrix's sanitizer filled in
awk '
	/^ *- name: Triage crashes/ { step = 1; next }
	step && /^ *- name:/ { exit }
	step && !run && /^ *run: \|/ { run = 1; match($0, /^ */); ind = RLENGTH; next }
	run {
		if ($0 ~ /[^ ]/) { match($0, /^ */); if (RLENGTH <= ind) exit }
		print substr($0, ind + 3)
	}' "$WF" | sed 's/\${{ matrix.sanitizer }}/address/g' >"$T/step.sh"
grep -q 'vmafuzz triage' "$T/step.sh" && ok || { bad "no triage command in $WF's triage step"; cat "$T/step.sh"; }
(cd "$W/vmafuzz-src" && bash -e "$T/step.sh") >"$T/step.log" 2>&1 && ok ||
	{ bad "the workflow's triage step failed"; cat "$T/step.log"; }
if python3 - "$W/vmafuzz-triage.sarif" "$gap" <<-'EOF'; then ok; else bad "the workflow's SARIF"; cat "$W/vmafuzz-triage.sarif"; fi
	import json, sys
	s = json.load(open(sys.argv[1]))
	run = s["runs"][0]
	assert run["automationDetails"]["id"] == "vmafuzz-triage-address/", run["automationDetails"]
	res = {r["ruleId"]: r for r in run["results"]}
	assert sorted(res) == ["invariant/MT_GAP", "no-longer-fails"], sorted(res)
	gap = res["invariant/MT_GAP"]["properties"]
	assert gap["count"] == 2, gap
	assert all(f.endswith("/" + sys.argv[2]) and "/fuzz_mtree/" in f for f in gap["files"]), gap
	files = [f for r in run["results"] for f in r["properties"]["files"]]
	assert not [f for f in files if f.endswith(".summary")], files
	assert len(files) == 3, files
EOF
# no crash at all: an empty log, and the step still succeeds
rm -rf "$A" "$W/vmafuzz-triage.sarif"
(cd "$W/vmafuzz-src" && bash -e "$T/step.sh") >"$T/step.log" 2>&1 && ok ||
	{ bad "the triage step failed without crashes"; cat "$T/step.log"; }
python3 -c 'import json,sys; sys.exit(len(json.load(open(sys.argv[1]))["runs"][0]["results"]))' \
	"$W/vmafuzz-triage.sarif" && ok || bad "no crash: the SARIF has results"
finish
