#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# What OSS-Fuzz expects of a build, into $OUT: every target, its seed
# corpus as <target>_seed_corpus.zip, its dictionary and <target>.options.
# ./build.sh runs this, whatever its arguments, when LIB_FUZZING_ENGINE and
# OUT are both set (docs/fuzzing-at-scale.md). Objects go to $WORK/vmafuzz
# when WORK is set (OSS-Fuzz sets it), else out/obj/oss-fuzz. With KSRC=<kernel
# tree> set too, the kernel targets are built there as well.
set -euo pipefail

cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/.."
. scripts/build-lib.sh

# kernel_src NAME: the source of kernel target NAME, or nothing.
kernel_src() {
	local f
	for f in kernel/*/"$1".c; do
		[ -e "$f" ] && echo "$f"
	done
	return 0
}

# The model target whose seeds and dictionary a kernel target uses (its
# "vmafuzz-twin:" line).
kernel_twin() {
	sed -n 's|^/\* vmafuzz-twin: \([a-z_]*\).*|\1|p' "$(kernel_src "$1")" | head -n 1
}

export CC=${CC:-clang} CXX=${CXX:-clang++}
export CFLAGS=${CFLAGS:-} CXXFLAGS=${CXXFLAGS:-}
mkdir -p "$OUT"
# OSS-Fuzz's scratch directory $WORK keeps objects between builds (and
# apart, for builds run side by side with different flags).
objs=()
[ -n "${WORK:-}" ] && objs=(OUTDIR="$WORK/vmafuzz")
run_make oss-fuzz OSSFUZZ_OUT="$OUT" "${objs[@]}"
# the kernel targets too when a kernel tree is given (OSS-Fuzz's image
# has no Debian package to install: oss-fuzz/Dockerfile fetches one)
kts=""
if [ -n "${KSRC:-}" ]; then
	run_make kfuzz-oss-fuzz OSSFUZZ_OUT="$OUT" KSRC="$KSRC" "${objs[@]}"
	kts=$(kernel_targets)
fi

# Seeds are compiled by a tool built with plain $CC -O1 (no fuzzing
# instrumentation), in $WORK/vmafuzz-seeds or a scratch output directory.
if [ -n "${WORK:-}" ]; then
	tmp=$WORK/vmafuzz-seeds
	rm -rf "$tmp/corpus" # no stale seeds in the zip
else
	tmp=$(mktemp -d)
	trap 'rm -rf "$tmp"' EXIT
fi
run_make OUTDIR="$tmp" FLAGS_tool=-O1 corpus

for t in $(targets) $kts; do
	tw=$t # a kernel target's seeds and dictionary are its model twin's
	[ -n "$(kernel_src "$t")" ] && tw=$(kernel_twin "$t")
	rm -f "$OUT/${t}_seed_corpus.zip"
	if [ "$(count_files "$tmp/corpus/$tw")" -gt 0 ]; then
		if command -v zip >/dev/null 2>&1; then
			zip -q -j "$OUT/${t}_seed_corpus.zip" "$tmp/corpus/$tw"/*
		else
			python3 - "$OUT/${t}_seed_corpus.zip" "$tmp/corpus/$tw" <<-'PY'
			import os, sys, zipfile
			with zipfile.ZipFile(sys.argv[1], "w", zipfile.ZIP_DEFLATED) as z:
			    for name in sorted(os.listdir(sys.argv[2])):
			        z.write(os.path.join(sys.argv[2], name), name)
			PY
		fi
	fi
	{
		echo "[libfuzzer]"
		if [ -f "dict/$tw.dict" ]; then
			cp "dict/$tw.dict" "$OUT/$t.dict"
			echo "dict = $t.dict"
		fi
		echo "max_len = 4096"
	} >"$OUT/$t.options"
	echo "oss-fuzz: $OUT/$t"
done
