# SPDX-License-Identifier: GPL-2.0
#
# What build.sh and the scripts it runs (oss-fuzz-build.sh, coverage.sh,
# kernel-coverage.sh) share: make with the usual flags and the targets of the tree. Sourced
# from the top of the tree; JOBS and V as build.sh describes them.

JOBS=${JOBS:-$(nproc 2>/dev/null || echo 2)}

run_make() {
	# -s: no "Nothing to be done" chatter; the Makefile prints its own short
	# progress lines (full commands with V=1).
	if [ "${V:-0}" = 1 ]; then
		make -j"$JOBS" --no-print-directory "$@"
	else
		make -j"$JOBS" --no-print-directory -s "$@"
	fi
}

targets() {
	local f
	for f in fuzz/targets/fuzz_*.c; do
		[ -e "$f" ] && basename "$f" .c
	done
}

# The kernel targets (kernel/<backend>/kfuzz_<name>.c; built by ./build.sh kernel).
kernel_targets() {
	local f
	for f in kernel/*/kfuzz_*.c; do
		[ -e "$f" ] && basename "$f" .c
	done
}

# Files of a folder, not counting dotfiles (a crash folder's .builds) or
# AFL++'s README.txt.
count_files() {
	[ -d "$1" ] && find "$1" -maxdepth 1 -type f ! -name '.*' ! -name README.txt | wc -l || echo 0
}

# llvm_tool NAME WHO: the NAME (llvm-cov, llvm-profdata) of the clang that
# builds the coverage flavor (the same profile format); 1, with WHO's
# message, when there is none
llvm_tool() {
	local major
	major=$(${COV_CC:-clang} -dumpversion 2>/dev/null | cut -d. -f1)
	if [ -n "$major" ] && command -v "$1-$major" >/dev/null 2>&1; then
		echo "$1-$major"
	elif command -v "$1" >/dev/null 2>&1; then
		echo "$1"
	else
		echo "$2: $1 not found (install the llvm package)" >&2
		return 1
	fi
}
