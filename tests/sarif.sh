#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# triage --sarif puts each result where it failed: the check that fired
# (the invariant's line in the model, the expectation's site in the
# harness, the model-against-kernel comparison in fuzz/as/, live/ or
# kernel/<backend>/, the assertion's line), not the frames below it such as
# the fiber entry src/runtime/sched.c; a kernel tree's file relative to a
# base id of its own (KSRC), which originalUriBaseIds define as the tree's
# root (or describe, for a guest kernel whose tree is not known); a file of
# this tree relative to %SRCROOT%. A result with no location says why in
# its message and properties.noLocation. A fake replay driver prints the
# reports the real ones print (the invariants' stacks only when asked for,
# as ASAN_OPTIONS=handle_abort=1 does), and one real run checks an
# invariant of the model. Run by ./build.sh test with OUT and ROOT set.
set -u
cd "$ROOT"
. tests/shlib
V=$OUT/vmafuzz
outdir=()
[ "$OUT" = "$ROOT/out" ] || outdir=(OUTDIR="$OUT")

mkdir -p "$T/fake" "$T/crashes"
cat >"$T/fake/fuzz_mm" <<'FAKE'
#!/usr/bin/env bash
# what a sanitized replay driver prints for the failure the input names;
# an invariant's stack only under ASAN_OPTIONS=handle_abort=1
abort_stack() {
	case ${ASAN_OPTIONS:-} in *handle_abort=1*) ;; *) kill -ABRT $$ ;; esac
	echo '==9==ERROR: AddressSanitizer: ABRT on unknown address 0x0000000003bc (pc 0x7f00 bp 0x7f01 sp 0x5600 T0)' >&2
	echo '    #0 0x7f00 in __pthread_kill_implementation nptl/./nptl/pthread_kill.c:44:76' >&2
	echo '    #1 0x7f01 in abort stdlib/./stdlib/abort.c:79:7' >&2
	echo '    #2 0x5601 in check_fail /b/vmafuzz/src/runtime/check.c:88:2' >&2
	for f in "$@"; do echo "    $f" >&2; done
	echo '    #9 0x5609 in fiber_main /b/vmafuzz/fuzz/targets/exec.c:205:4' >&2
	echo '    #10 0x560a in fiber_entry /b/vmafuzz/src/runtime/sched.c:73:2' >&2
	kill -ABRT $$
}
case $(head -n 1 "$1") in
expect)
	echo 'vmafuzz: invariant MM_EXPECTED_STATE failed: p0 must map [0x1000, 0x3000)' >&2
	abort_stack '#3 0x5603 in expect_check_vmas /b/vmafuzz/fuzz/as/expect/expect_check.c:106:10' \
		'#4 0x5604 in as_expect_check /b/vmafuzz/fuzz/as/expect/expect_check.c:260:3' ;;
pair)
	echo 'vmafuzz: invariant TREE_BACKENDS_DIFFER failed: the kernel tree and the model differ' >&2
	abort_stack '#3 0x5603 in pair_compare /b/vmafuzz/fuzz/tree/tree_pair.c:140:2' ;;
conform)
	echo 'vmafuzz: invariant AS_BACKENDS_DIFFER failed: this kernel and the model differ' >&2
	abort_stack '#3 0x5603 in conform_differs /b/vmafuzz/live/fuzz_conform.c:248:2' ;;
kmt)
	echo 'vmafuzz: invariant MEM_LIVE_MISMATCH failed: the kernel tree holds 3 nodes, the model 2' >&2
	abort_stack '#3 0x5603 in kmt_check_live /b/vmafuzz/kernel/maple/kmt_backend.c:341:10' ;;
model)
	echo 'vmafuzz: invariant VMA_PGOFF failed: vma [0x1000, 0x2000) pgoff 3' >&2
	abort_stack '#3 0x5603 in validate_vma /b/vmafuzz/src/mm/validate.c:77:4' \
		'#4 0x5604 in mm_validate_all /b/vmafuzz/src/mm/validate.c:200:2' ;;
assert)
	echo 'vmafuzz: model assertion failed at /b/vmafuzz/src/mm/mmap.c:321 in do_mmap(): len > 0' >&2
	kill -ABRT $$ ;;
kasan)
	echo '==7==ERROR: AddressSanitizer: heap-use-after-free on address 0x602000000010 at pc 0x1 bp 0x2 sp 0x3' >&2
	echo 'READ of size 8 at 0x602000000010 thread T0' >&2
	echo '    #0 0x1 in kmt_k_mas_walk /usr/src/linux-6.12+p/lib/maple_tree.c:4321:9' >&2
	echo '    #1 0x2 in kmt_load /b/vmafuzz/kernel/maple/kmt_backend.c:100:3' >&2
	echo '    #2 0x3 in fiber_entry /b/vmafuzz/src/runtime/sched.c:73:2' >&2
	exit 1 ;;
guest)
	echo 'vmafuzz: kernel report: BUG: unable to handle page fault at mm/vma.c:456' >&2
	exit 1 ;;
ubsan)
	echo '/b/vmafuzz/fuzz/as/expect/expect.c:575:12: runtime error: shift exponent 64 is too large' >&2
	echo '    #0 0x1 in exp_page /b/vmafuzz/fuzz/as/expect/expect.c:575:12' >&2
	echo '    #1 0x2 in fiber_entry /b/vmafuzz/src/runtime/sched.c:73:2' >&2
	echo 'SUMMARY: UndefinedBehaviorSanitizer: shift-exponent /b/vmafuzz/fuzz/as/expect/expect.c:575:12' >&2
	exit 1 ;;
signal) kill -SEGV $$ ;;
hang) exec sleep 30 ;;
esac
exit 0
FAKE
chmod +x "$T/fake/fuzz_mm"
kinds="expect pair conform kmt model assert kasan guest ubsan signal hang pass"
for k in $kinds; do echo "$k" >"$T/crashes/crash-$k"; done

"$V" triage --sarif --replay "$T/fake" --target fuzz_mm --timeout 2 "$T/crashes" >"$T/sarif" 2>"$T/err" &&
	ok || { bad "triage --sarif failed"; cat "$T/err"; }
if python3 - "$T/sarif" <<-'EOF'; then ok; else bad "the SARIF's locations"; cat "$T/sarif"; fi
	import json, sys
	s = json.load(open(sys.argv[1]))
	run = s["runs"][0]
	by = {r["properties"]["smallest"].rsplit("crash-", 1)[1]: r for r in run["results"]}
	assert len(by) == 12, sorted(by)

	def loc(kind):
	    r = by[kind]
	    assert len(r["locations"]) == 1, (kind, r)
	    p = r["locations"][0]["physicalLocation"]
	    return p["artifactLocation"]["uri"], p["artifactLocation"]["uriBaseId"], p["region"]["startLine"]

	ours = {
	    "expect": ("fuzz/as/expect/expect_check.c", 106),
	    "pair": ("fuzz/tree/tree_pair.c", 140),
	    "conform": ("live/fuzz_conform.c", 248),
	    "kmt": ("kernel/maple/kmt_backend.c", 341),
	    "model": ("src/mm/validate.c", 77),
	    "assert": ("src/mm/mmap.c", 321),
	    "ubsan": ("fuzz/as/expect/expect.c", 575),
	}
	for kind, (uri, line) in ours.items():
	    assert loc(kind) == (uri, "%SRCROOT%", line), (kind, loc(kind))
	# nothing points at the fiber entry or the check reporting
	for r in run["results"]:
	    for l in r["locations"]:
	        uri = l["physicalLocation"]["artifactLocation"]["uri"]
	        assert uri not in ("src/runtime/sched.c", "src/runtime/check.c"), r
	# kernel trees' files: relative to a base of their own, defined by the run
	bases = run["originalUriBaseIds"]
	uri, base, line = loc("kasan")
	assert (uri, line) == ("lib/maple_tree.c", 4321), loc("kasan")
	assert bases[base]["uri"] == "file:///usr/src/linux-6.12%2Bp/", bases
	uri, base2, line = loc("guest")
	assert (uri, line) == ("mm/vma.c", 456) and base2 != base, loc("guest")
	assert "uri" not in bases[base2] and bases[base2]["description"]["text"], bases
	assert sorted(bases) == sorted([base, base2]) and base == "KSRC", bases
	# the function, where the stack named it
	assert by["expect"]["locations"][0]["logicalLocations"][0]["name"] == "expect_check_vmas", by["expect"]
	# no location: said why
	for kind, why in (("pass", "no longer fails"), ("hang", "timeout"), ("signal", "without a report")):
	    r = by[kind]
	    assert r["locations"] == [], (kind, r)
	    assert why in r["properties"]["noLocation"], (kind, r)
	    assert "No location: " + r["properties"]["noLocation"] in r["message"]["text"], (kind, r)
	for kind in ours:
	    assert "noLocation" not in by[kind]["properties"], by[kind]
EOF

# one real run: an invariant of the model, at its validator's line
if make -s --no-print-directory -j2 "${outdir[@]}" bug-replay BUG=mt_gap_stale >"$T/make.log" 2>&1; then
	"$V" compile tests/triage/gap_stale_store.txt -o "$T/gap" >/dev/null
	"$V" triage --sarif --replay "$OUT/bugs/mt_gap_stale/replay" --target fuzz_mtree "$T/gap" >"$T/real" 2>&1 &&
		python3 - "$T/real" <<-'EOF' && ok || { bad "the real MT_GAP's location"; cat "$T/real"; }
	import json, sys
	r = json.load(open(sys.argv[1]))["runs"][0]["results"][0]
	p = r["locations"][0]["physicalLocation"]
	assert r["ruleId"] == "invariant/MT_GAP", r
	assert p["artifactLocation"] == {"uri": "src/tree/mtree_validate.c", "uriBaseId": "%SRCROOT%"}, p
	assert p["region"]["startLine"] > 0, p
EOF
else
	bad "make bug-replay BUG=mt_gap_stale"; tail -n 20 "$T/make.log"
fi
finish
