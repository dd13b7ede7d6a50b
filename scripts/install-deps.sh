#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Check (and, as root, install) what the vmafuzz build needs.
#
# Required: clang, clang's libFuzzer runtime, make.
# Optional: afl-clang-fast (afl++) for the AFL++ build, gcc for the gcc
#           compile check of `./build.sh test`, zip for OSS-Fuzz seed zips,
#           liburcu-dev for the ThreadSanitizer stress (`make tsan`),
#           gnuplot-nox for `vmafuzz plot`, llvm (llvm-profdata, llvm-cov)
#           for `./build.sh coverage`, clang-format for tests/format.sh,
#           qemu-system-x86, flex, bison, bc and libelf-dev for ./build.sh vm.
#
# Silent when everything is present.  As root, missing packages are installed
# with apt-get (one `apt-get update` first).  Otherwise the missing packages
# and the command to install them are printed; exits non-zero only when a
# required one is missing.
set -euo pipefail

required=()   # missing required packages
optional=()   # missing optional packages

have() { command -v "$1" >/dev/null 2>&1; }

# Is clang's libFuzzer runtime installed?  Old layout:
# <resource-dir>/lib/linux/libclang_rt.fuzzer-<arch>.a; newer LLVMs:
# <resource-dir>/lib/<triple>/libclang_rt.fuzzer.a.
have_libfuzzer() {
	local dir f
	dir=$(clang -print-resource-dir 2>/dev/null) || return 1
	for f in "$dir"/lib/linux/libclang_rt.fuzzer-"$(uname -m)".a \
		 "$dir"/lib/*/libclang_rt.fuzzer.a; do
		[ -e "$f" ] && return 0
	done
	return 1
}

# Debian package holding the libFuzzer runtime for the installed clang:
# libclang-rt-<major>-dev (bookworm and later), libclang-common-<major>-dev
# (older releases), or the unversioned libclang-rt-dev.
libfuzzer_pkg() {
	local major="" p
	if have clang; then
		major=$(clang -dumpversion 2>/dev/null | cut -d. -f1)
	fi
	for p in ${major:+libclang-rt-$major-dev libclang-common-$major-dev} libclang-rt-dev; do
		if apt-cache show "$p" >/dev/null 2>&1; then
			echo "$p"
			return
		fi
	done
	echo "libclang-rt-dev"
}

# Replace the LIBFUZZER placeholder in required[] by the package name (needs
# apt-cache, hence done only once we know something is missing).
resolve_libfuzzer_pkg() {
	local i
	for i in "${!required[@]}"; do
		if [ "${required[i]}" = LIBFUZZER ]; then
			required[i]=$(libfuzzer_pkg)
		fi
	done
}

have clang || required+=(clang)
have make || required+=(make)
have_libfuzzer || required+=(LIBFUZZER)   # resolved to a package name below
have afl-clang-fast || optional+=(afl++)
have gcc || optional+=(gcc)
have zip || optional+=(zip)
clang -E -include urcu/urcu-memb.h -x c /dev/null >/dev/null 2>&1 || optional+=(liburcu-dev)
have gnuplot || optional+=(gnuplot-nox)
{ have llvm-profdata && have llvm-cov; } || optional+=(llvm)
have clang-format || optional+=(clang-format)
# ./build.sh vm: qemu, and what a kernel's build needs beyond gcc and make
have qemu-system-x86_64 || optional+=(qemu-system-x86)
for t in flex bison bc; do
	have "$t" || optional+=("$t")
done
[ -e /usr/include/libelf.h ] || optional+=(libelf-dev)

[ ${#required[@]} -eq 0 ] && [ ${#optional[@]} -eq 0 ] && exit 0

if [ "$(id -u)" -ne 0 ]; then
	# Not root: say what is missing and how to get it.
	resolve_libfuzzer_pkg
	if [ ${#required[@]} -gt 0 ]; then
		echo "install-deps: missing required packages: ${required[*]}" >&2
		echo "install-deps: run: sudo apt-get install -y ${required[*]} ${optional[*]}" >&2
		exit 1
	fi
	for p in "${optional[@]}"; do
		case $p in
		afl++) echo "install-deps: warning: afl++ missing: the AFL++ build is skipped" >&2 ;;
		gcc) echo "install-deps: warning: gcc missing: the gcc check of './build.sh test' fails" >&2 ;;
		zip) echo "install-deps: warning: zip missing: OSS-Fuzz seed zips use python3" >&2 ;;
		liburcu-dev) echo "install-deps: warning: liburcu-dev missing: tests/tsan.sh and bench rollup fail" >&2 ;;
		gnuplot-nox) echo "install-deps: warning: gnuplot missing: vmafuzz plot draws nothing" >&2 ;;
		llvm) echo "install-deps: warning: llvm-profdata/llvm-cov missing: ./build.sh coverage fails" >&2 ;;
		clang-format) echo "install-deps: warning: clang-format missing: tests/format.sh checks nothing" >&2 ;;
		qemu-system-x86 | flex | bison | bc | libelf-dev)
			echo "install-deps: warning: $p missing: ./build.sh vm cannot build or boot a kernel" >&2 ;;
		esac
	done
	echo "install-deps: to install: sudo apt-get install -y ${optional[*]}" >&2
	exit 0
fi

apt_get() {
	# Wait for a concurrent apt/dpkg run instead of failing on its lock.
	DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 "$@"
}

echo "install-deps: installing missing packages:" "${required[@]/LIBFUZZER/libFuzzer runtime}" "${optional[@]}" >&2
apt_get update -qq
resolve_libfuzzer_pkg
if [ ${#required[@]} -gt 0 ]; then
	apt_get install -y -qq "${required[@]}"
fi
if [ ${#optional[@]} -gt 0 ]; then
	apt_get install -y -qq "${optional[@]}" ||
		echo "install-deps: warning: could not install ${optional[*]}; continuing" >&2
fi

# The libFuzzer check is by file, so verify it again after installing.
if ! have clang || ! have make || ! have_libfuzzer; then
	echo "install-deps: clang, make or the libFuzzer runtime is still missing" >&2
	exit 1
fi
