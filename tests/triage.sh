#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Crash triage on planted bugs: builds replay drivers with the test-only
# switches VMAFUZZ_BUG_mt_gap_stale and VMAFUZZ_BUG_mt_free_early (make
# bug-replay), makes crash files from the text programs in tests/triage/
# laid out as libFuzzer and AFL++ leave them, then checks vmafuzz triage
# (table, --json, --sarif), minimize and regress, and their command-line
# errors. Run by ./build.sh test with OUT and ROOT set.
set -u
cd "$ROOT"
. tests/shlib
V="$OUT/vmafuzz"
outdir=()
[ "$OUT" = "$ROOT/out" ] || outdir=(OUTDIR="$OUT")


# ---- drivers with planted bugs: each alone, and both in one driver
GAP="$OUT/bugs/mt_gap_stale/replay"
UAF="$OUT/bugs/mt_free_early/replay"
BOTH="$OUT/bugs/mt_free_early+mt_gap_stale/replay"
for bug in mt_gap_stale mt_free_early mt_gap_stale,mt_free_early; do
	if make -s --no-print-directory -j2 "${outdir[@]}" bug-replay BUG="$bug" >"$T/make.log" 2>&1; then
		ok
	else
		bad "make bug-replay BUG=$bug"; tail -n 20 "$T/make.log"
		finish
	fi
done
expect 2 "no planted bug 'nope'" make -s --no-print-directory "${outdir[@]}" bug-replay BUG=nope
# the normal drivers have no planted bug
if grep -q 'VMAFUZZ_BUG' "$OUT/obj/replay/.flags" "$OUT/obj/libfuzzer/.flags" 2>/dev/null; then
	bad "a normal flavor is built with a planted bug"
else
	ok
fi

# ---- crash files: libFuzzer's crash-<sha1> and AFL++'s default/crashes/id:*
LF="$T/work/fuzz_mtree/crashes" # the target comes from the path
AFL="$T/afl"
mkdir -p "$LF" "$AFL/default/crashes" "$AFL/default/queue" "$T/bin"
n=0
declare -A AFLFILE
for txt in tests/triage/*.txt; do
	name=$(basename "$txt" .txt)
	"$V" compile "$txt" -o "$T/bin/$name" || bad "compile $txt"
	sha=$(sha1sum "$T/bin/$name" | cut -d' ' -f1)
	cp "$T/bin/$name" "$LF/crash-$sha"
	AFLFILE[$name]="$AFL/default/crashes/id:00000$n,sig:06,src:000000,time:$n,execs:$n,op:havoc,rep:2"
	cp "$T/bin/$name" "${AFLFILE[$name]}"
	cp "$T/bin/$name" "$AFL/default/queue/id:00000$n,src:000000"
	n=$((n + 1))
done
echo "not a crash" >"$LF/fuzz.log"
echo "AFL++ notes" >"$AFL/default/crashes/README.txt"
[ "$n" -ge 6 ] && ok || bad "want at least 6 programs in tests/triage/, have $n"

# ---- triage: two buckets, each with all the files of its bug
expect 0 '^12 files in 2 buckets$' "$V" triage --replay "$BOTH" "$LF" "$AFL" --target fuzz_mtree
cp "$T/out" "$T/table"
grep -qE '^MT_GAP +6 ' "$T/table" && ok || { bad "no MT_GAP bucket of 6"; cat "$T/table"; }
grep -qE '^AddressSanitizer: heap-use-after-free in mt_rcu_walk( <- [a-z_]+)* +6 ' "$T/table" &&
	ok || { bad "no heap-use-after-free bucket of 6 with model frames"; cat "$T/table"; }
[ "$(wc -l <"$T/table")" -eq 4 ] && ok || { bad "table is not header, 2 buckets, total"; cat "$T/table"; }
grep -q 'README\|fuzz.log\|queue' "$T/table" && bad "triage took a file that is no crash" || ok
# the target from the path alone; a directory given with a trailing slash
expect 0 '^6 files in 2 buckets$' "$V" triage --replay "$BOTH" "$LF/"
# deterministic
"$V" triage --replay "$BOTH" --target fuzz_mtree "$AFL" "$LF" >"$T/table2" 2>/dev/null
cmp -s "$T/table" "$T/table2" && ok || { bad "triage output depends on the order of arguments"; diff "$T/table" "$T/table2"; }

# each bug alone lands in its bucket; the other crashes no longer fail
expect 0 '^MT_GAP +3 .*invariant MT_GAP failed' "$V" triage --replay "$GAP" "$LF"
grep -qE '^no longer fails +3 ' "$T/out" && ok || bad "gap driver: no 'no longer fails' bucket of 3"
expect 0 '^AddressSanitizer: heap-use-after-free in mt_rcu_walk' "$V" triage --replay "$UAF" "$LF"
# the normal driver (replay/ beside vmafuzz): every crash is fixed
expect 0 '^no longer fails +6 ' "$V" triage "$LF"
expect 0 '^1 file in 1 bucket$' "$V" triage --target fuzz_mtree "$T/bin/gap_stale_raw"

# --json: all buckets with all files, the smallest first
"$V" triage --json --replay "$BOTH" --target fuzz_mtree "$LF" "$AFL" >"$T/json" 2>"$T/err" || bad "triage --json failed"
if python3 - "$T/json" <<-'EOF'; then ok; else bad "triage --json"; cat "$T/json"; fi
	import json, sys
	b = json.load(open(sys.argv[1]))
	assert len(b) == 2, b
	names = sorted(x["bucket"] for x in b)
	assert names[0].startswith("AddressSanitizer: heap-use-after-free in mt_rcu_walk"), names
	assert names[1] == "MT_GAP", names
	for x in b:
	    assert x["count"] == 6 == len(x["files"]), x
	    sizes = [f["size"] for f in x["files"]]
	    assert sizes == sorted(sizes) and x["smallest"] == x["files"][0]["path"], x
	    assert x["frames"] and x["frames"][0]["file"].startswith("src/"), x
EOF

# --sarif: SARIF 2.1.0, one result per bucket, located in the model
"$V" triage --sarif --replay "$BOTH" --target fuzz_mtree "$LF" "$AFL" >"$T/sarif" 2>"$T/err" || bad "triage --sarif failed"
if python3 - "$T/sarif" <<-'EOF'; then ok; else bad "triage --sarif"; cat "$T/sarif"; fi
	import json, re, sys
	s = json.load(open(sys.argv[1]))
	assert s["version"] == "2.1.0", s["version"]
	res = s["runs"][0]["results"]
	assert len(res) == 2, res
	rules = [r["id"] for r in s["runs"][0]["tool"]["driver"]["rules"]]
	for r in res:
	    assert r["ruleId"] in rules and r["message"]["text"], r
	    loc = r["locations"][0]["physicalLocation"]
	    assert loc["artifactLocation"]["uri"].startswith("src/"), loc
	    assert loc["region"]["startLine"] > 0, loc
	# short stable rule ids, each with help (the invariant's from the catalogue)
	assert sorted(rules) == ["asan/heap-use-after-free", "invariant/MT_GAP"], rules
	for rule in s["runs"][0]["tool"]["driver"]["rules"]:
	    assert re.fullmatch(r"[a-z-]+/[A-Za-z0-9_.-]+", rule["id"]), rule
	    assert rule["help"]["text"] and rule["fullDescription"]["text"], rule
	gap = [r for r in s["runs"][0]["tool"]["driver"]["rules"] if r["id"] == "invariant/MT_GAP"][0]
	assert "an internal node's gap equals its child's largest empty range" in gap["help"]["text"], gap
	# fingerprints from the bucket: distinct, and stable across runs (compared below)
	fps = [r["partialFingerprints"]["vmafuzzBucket/v1"] for r in res]
	assert len(set(fps)) == 2 and all(re.fullmatch(r"[0-9a-f]{16}", f) for f in fps), fps
	# no heap, stack or code addresses in what code scanning shows
	for r in res:
	    text = r["message"]["text"] + r["properties"]["bucket"]
	    assert not re.search(r"0x[5-7][0-9a-f]{11}\b", text), text
	assert s["runs"][0]["automationDetails"]["id"] == "vmafuzz-triage/", s["runs"][0]
EOF
"$V" triage --sarif --replay "$BOTH" --target fuzz_mtree "$AFL" >"$T/sarif2" 2>/dev/null
python3 - "$T/sarif" "$T/sarif2" <<-'EOF' && ok || bad "SARIF fingerprints change between runs"
	import json, sys
	fp = lambda f: sorted((r["ruleId"], r["partialFingerprints"]["vmafuzzBucket/v1"]) for r in json.load(open(f))["runs"][0]["results"])
	sys.exit(0 if fp(sys.argv[1]) == fp(sys.argv[2]) else 1)
EOF

# ---- minimize: a few operations, same bucket
ops() { grep -cvE '^(#|target |sched |config |$)' "$1"; }
# check_minimize NAME DRIVER BUCKET-REGEX: minimize the AFL++ copy of NAME
check_minimize() {
	local src=${AFLFILE[$1]} k rc=0

	"$V" minimize --replay "$2" --target fuzz_mtree -o "$T/min_$1" "$src" >"$T/min_$1.txt" 2>"$T/min_$1.err" || rc=$?
	if [ "$rc" -ne 0 ]; then
		bad "minimize $1 exited $rc"; cat "$T/min_$1.err"
		return
	fi
	k=$(ops "$T/min_$1.txt")
	[ "$k" -le 5 ] && ok || { bad "minimize $1 left $k operations"; cat "$T/min_$1.txt"; }
	[ "$(stat -c %s "$T/min_$1")" -lt "$(stat -c %s "$src")" ] && ok || bad "minimize $1 did not shrink"
	grep -qE "^minimize: fixed point after [0-9]+ runs: [0-9]+ bytes \([0-9]+ ops\) -> [0-9]+ bytes" "$T/min_$1.err" &&
		ok || { bad "minimize $1: no summary line"; cat "$T/min_$1.err"; }
	grep -qE "^# bucket: $3\$" "$T/min_$1.txt" && ok || { bad "minimize $1: no bucket line"; cat "$T/min_$1.txt"; }
	expect 0 "^$3 +1 " "$V" triage --replay "$2" --target fuzz_mtree "$T/min_$1"
	# the text on stdout is the program written with -o
	expect 0 '' "$V" compile --target fuzz_mtree "$T/min_$1.txt" -o "$T/min_$1.re"
	cmp -s "$T/min_$1" "$T/min_$1.re" && ok || bad "minimize $1: text and bytes differ"
}
check_minimize gap_stale_store "$GAP" 'MT_GAP'
check_minimize free_early_walk "$UAF" 'AddressSanitizer: heap-use-after-free in mt_rcu_walk( <- [a-z_]+)*'
expect 0 'stopped at the run cap after 5 runs' "$V" minimize --replay "$GAP" --max-runs 5 \
	--target fuzz_mtree "$T/bin/gap_stale_raw"
expect 1 'does not fail' "$V" minimize --target fuzz_mtree "$T/bin/gap_stale_raw"
# a crash whose folder's .builds names its build: the minimized file, as
# text with -o X.txt, names that build for the commands after it, and
# nothing else is written
mkdir -p "$T/found/fuzz_mtree" "$T/kept"
cp "$T/bin/gap_stale_raw" "$T/found/fuzz_mtree/crash-gap"
echo "crash-gap bugs/mt_gap_stale/libfuzzer" >"$T/found/fuzz_mtree/.builds"
expect 0 'fixed point' "$V" minimize -o "$T/kept/min.txt" "$T/found/fuzz_mtree/crash-gap"
grep -q '^target fuzz_mtree$' "$T/kept/min.txt" && grep -q '^# bucket: MT_GAP$' "$T/kept/min.txt" &&
	ok || bad "minimize -o X.txt: not the text program: $(cat "$T/kept/min.txt")"
grep -qx '# build: bugs/mt_gap_stale/libfuzzer' "$T/kept/min.txt" && ok ||
	bad "minimize -o: the build is not kept: $(cat "$T/kept/min.txt")"
[ "$(ls -A "$T/kept")" = min.txt ] && ok || bad "minimize -o wrote more than min.txt: $(ls -A "$T/kept")"
expect 0 '^MT_GAP +1 ' "$V" triage "$T/kept/min.txt"

# ---- regress: into a scratch tree, never into corpus/regress/
before=$(ls -R corpus/regress 2>/dev/null | md5sum)
mkdir -p "$T/tree/corpus"
expect 0 "^$T/tree/corpus/regress/fuzz_mtree/mt-gap-[0-9a-f]{8}\.txt$" "$V" regress --root "$T/tree" \
	--replay "$GAP" --target fuzz_mtree --why "the gap two levels up goes stale" "$T/min_gap_stale_store"
reg=$(tail -n 1 "$T/out")
if [ -f "$reg" ]; then
	sed -n 1p "$reg" | grep -qx '# bucket: MT_GAP' && ok || bad "regress: bucket line"
	sed -n 2p "$reg" | grep -qE '^# date: [0-9]{4}-[0-9]{2}-[0-9]{2}$' && ok || bad "regress: date line"
	sed -n 3p "$reg" | grep -qx '# cause: the gap two levels up goes stale' && ok || bad "regress: cause line"
	grep -qx 'target fuzz_mtree' "$reg" && ok || bad "regress: no program"
	expect 0 '' "$V" compile "$reg" -o "$T/reg.bin"
	cmp -s "$T/reg.bin" "$T/min_gap_stale_store" && ok || bad "regress: the stored program differs"
	# once the bug is fixed (the normal driver) it passes, as ./build.sh test needs
	expect 0 '^no longer fails +1 ' "$V" triage "$reg"
	expect 0 '^MT_GAP +1 ' "$V" triage --replay "$GAP" "$reg"
else
	bad "regress wrote no file"; cat "$T/out"
fi
expect 0 "$reg" "$V" regress --root "$T/tree" --replay "$GAP" --target fuzz_mtree "$T/min_gap_stale_store"
grep -q 'already stored' "$T/out" && ok || bad "regress: a second store is not 'already stored'"
# without --why the cause is the failure line
expect 0 'heap-use-after-free' "$V" regress --root "$T/tree" --replay "$UAF" "$T/min_free_early_walk.txt"
reg2=$(tail -n 1 "$T/out")
grep -q '^# cause: AddressSanitizer: heap-use-after-free on address' "$reg2" 2>/dev/null && ok ||
	bad "regress: cause is not the failure line"
expect 1 'does not fail' "$V" regress --root "$T/tree" --target fuzz_mtree "$T/min_gap_stale_store"
after=$(ls -R corpus/regress 2>/dev/null | md5sum)
[ "$before" = "$after" ] && ok || bad "the test changed corpus/regress/"

# ---- the other kinds of failure, from a fake driver with canned reports
mkdir -p "$T/fake" "$T/kinds"
cat >"$T/fake/fuzz_mtree" <<'FAKE'
#!/usr/bin/env bash
# prints what a sanitized driver prints for the failure named in the input
case $(head -n 1 "$1") in
ubsan)
	echo 'src/mtree.c:200:12: runtime error: signed integer overflow: 2147483647 + 1 cannot be represented' >&2
	echo '    #0 0x55d0 in mt_foo /work/main/src/mtree.c:200:12' >&2
	echo '    #1 0x55d1 in run_op /work/main/fuzz/targets/fuzz_mtree.c:333:3' >&2
	echo '    #2 0x55d2 in mt_bar /work/main/src/mtree.c:300:3' >&2
	echo '    #3 0x55d3 in fiber_entry /work/main/src/sched.c:70:2' >&2
	echo '    #4 0x55d4 in mt_baz /work/main/src/mtree.c:310:3' >&2
	echo >&2
	echo 'SUMMARY: UndefinedBehaviorSanitizer: signed-integer-overflow src/mtree.c:200:12 in ' >&2
	exit 1 ;;
leak)
	echo '=================================================================' >&2
	echo '==77==ERROR: LeakSanitizer: detected memory leaks' >&2
	echo >&2
	echo 'Direct leak of 424 byte(s) in 1 object(s) allocated from:' >&2
	echo '    #0 0x4a in __interceptor_calloc (/x/replay/fuzz_mtree+0xd13b8)' >&2
	echo '    #1 0x4b in model_alloc /w/src/alloc.c:47:6' >&2
	echo '    #2 0x4c in mt_node_alloc /w/src/mtree.c:58:6' >&2
	echo >&2
	echo 'SUMMARY: AddressSanitizer: 424 byte(s) leaked in 1 allocation(s).' >&2
	exit 1 ;;
segv)
	echo '==78==ERROR: AddressSanitizer: SEGV on unknown address 0x000000000008 (pc 0x1 bp 0x2 sp 0x3 T0)' >&2
	echo '==78==The signal is caused by a READ memory access.' >&2
	echo '    #0 0x1 in leaf_of src/mtree.c:250:9' >&2
	echo '    #1 0x2 in run_op fuzz/targets/fuzz_mtree.c:12:3' >&2
	exit 1 ;;
assert)
	echo 'vmafuzz: model assertion failed at src/mtree.c:123 in build(): nodes > 0' >&2
	kill -ABRT $$ ;;
harness)
	echo '==79==ERROR: AddressSanitizer: stack-overflow on address 0x7ffd (pc 0x1 bp 0x2 sp 0x3 T0)' >&2
	echo '    #0 0x1 in prog_decode /w/fuzz/prog/prog.c:99:3' >&2
	echo '    #1 0x2 in exec_begin /w/fuzz/targets/exec.c:80:2' >&2
	exit 1 ;;
signal) kill -SEGV $$ ;;
hang) exec sleep 30 ;;
esac
exit 0
FAKE
chmod +x "$T/fake/fuzz_mtree"
for k in ubsan leak segv assert harness signal hang; do echo "$k" >"$T/kinds/crash-$k"; done
echo pass >"$T/kinds/crash-pass"
expect 0 '^8 files in 8 buckets$' "$V" triage --replay "$T/fake" --target fuzz_mtree --timeout 1 "$T/kinds"
for b in 'UndefinedBehaviorSanitizer: signed-integer-overflow in mt_foo <- mt_bar <- fiber_entry +1 ' \
	'LeakSanitizer: detected memory leaks in model_alloc <- mt_node_alloc +1 ' \
	'AddressSanitizer: SEGV in leaf_of +1 ' \
	'MODEL_ASSERT src/mtree.c:123 +1 ' \
	'AddressSanitizer: stack-overflow in prog_decode <- exec_begin +1 ' \
	'signal SIGSEGV +1 ' 'timeout +1 .* killed after the timeout' 'no longer fails +1 '; do
	grep -qE "^$b" "$T/out" && ok || { bad "no bucket /$b/"; cat "$T/out"; }
done

# ---- command lines
expect 0 'usage: vmafuzz triage' "$V" triage --help
expect 0 'usage: vmafuzz minimize' "$V" minimize --help
expect 0 'usage: vmafuzz regress' "$V" regress --help
expect 2 'needs crash files or directories' "$V" triage
expect 2 'exclude each other' "$V" triage --json --sarif "$LF"
expect 2 "unknown option '--bogus'" "$V" triage --bogus "$LF"
expect 2 "unknown target 'fuzz_nope'" "$V" triage --target fuzz_nope "$LF"
expect 2 '--target needs a target name' "$V" triage "$LF" --target
expect 2 "$T/missing: No such file" "$V" triage "$T/missing"
expect 2 'cannot tell which target' "$V" triage "$T/bin"
expect 2 "--timeout '0' is not" "$V" triage --timeout 0 "$LF"
expect 2 'not a directory' "$V" triage --replay "$T/missing" "$LF"
expect 2 'no replay driver' "$V" triage --replay "$T" "$LF"
expect 2 'needs a crash file' "$V" minimize
expect 2 "takes one file, got also" "$V" minimize "$LF"/crash-* "$LF"/crash-*
expect 2 "--max-runs 'x' is not" "$V" minimize --max-runs x "$T/bin/gap_stale_raw"
expect 2 '-o needs a file name' "$V" minimize "$T/bin/gap_stale_raw" -o
expect 2 'needs a crash file' "$V" regress
expect 2 '--why needs an argument' "$V" regress "$T/bin/gap_stale_raw" --why
expect 2 'no corpus/ directory' "$V" regress --root "$T/bin" --target fuzz_mtree "$T/bin/gap_stale_raw"

finish
