#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Which kernel tree the kernel backends (kernel/maple, kernel/vma) and the
# virtual machine are built from, and where it is (docs/kernel.md):
#
#   scripts/kernel-tree.sh [--record] [TREE]   the tree's path on stdout
#   scripts/kernel-tree.sh --key PATH          "<version>-<hash>": its builds' name
#   scripts/kernel-tree.sh --version PATH      its version (make kernelversion)
#   scripts/kernel-tree.sh --recorded          the tree in use, as recorded
#
# TREE is one of
#   6.1, 6.12   Debian's linux-source-6.1 / -6.12 (this machine's apt
#               sources; installed with apt-get as root, else named);
#   current     the newest linux-source-N.M Debian ships (trixie-backports
#               and sid), fetched with apt-get download through a sources
#               list and list folder of our own, never the system's;
#   a path      a kernel checkout, used where it is (never written to).
# Without TREE: $KSRC, else the recorded tree, else 6.12. With --record
# (what a build given KSRC does), TREE becomes the recorded tree, in
# $OUTDIR/kernel/tree, which later builds, fuzzing and triage use until
# another is recorded.
#
# Debian's trees are unpacked once, whole, into the machine's cache
# ($VMAFUZZ_CACHE, else $XDG_CACHE_HOME/vmafuzz, else ~/.cache/vmafuzz),
# one folder per package version, shared by every checkout: only the first
# run pays. The key's hash is of the files the backends compile (the
# maple tree, the VMA code and the userland shims of tools/), so an edit of
# any of them names a new build, kept beside the others.
# Progress goes to stderr. Exit 2 with one sentence when a tree cannot be had.
set -euo pipefail

cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/.."
OUTDIR=${OUTDIR:-out}
CACHE=${VMAFUZZ_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/vmafuzz}
RECORD=$OUTDIR/kernel/tree
MIRROR=http://deb.debian.org/debian

die() {
	echo "kernel-tree.sh: $*" >&2
	exit 2
}

# version PATH: the kernel's version, as its Makefile says
version() {
	local v
	[ -f "$1/Makefile" ] || die "$1 is not a kernel tree (no Makefile)"
	v=$(make -s --no-print-directory -C "$1" kernelversion 2>/dev/null | tail -n 1) || true
	case $v in
	[0-9]*.[0-9]*) echo "$v" ;;
	*) die "$1 is not a kernel tree ('make kernelversion' says no version)" ;;
	esac
}

# The files the backends compile, by path from the tree's top.
compiled_files() {
	(cd "$1" && find lib/maple_tree.c include/linux/maple_tree.h mm/vma.c mm/vma.h \
		mm/vma_internal.h mm/vma_init.c mm/vma_exec.c tools/testing/shared \
		tools/testing/vma tools/testing/radix-tree tools/include \
		-type f \( -name '*.[ch]' -o -name '*.mk' -o -name Makefile \) 2>/dev/null | LC_ALL=C sort) || true
}

key() {
	local v h
	v=$(version "$1")
	h=$(cd "$1" && compiled_files . | xargs -r -d '\n' sha256sum | sha256sum | cut -c1-8)
	echo "$v-$h"
}

# unwritten NAME: false (and the tree marked incomplete, so it is unpacked
# again) if something built in the cached tree $CACHE/trees/NAME: a build
# in place, or one out of a folder of links to it, writes its Makefile and
# scripts/basic/fixdep there, and such a tree no longer builds out of itself
unwritten() {
	local dest=$CACHE/trees/$1 top
	[ -f "$dest/.complete" ] || return 0
	top=$(find "$dest" -mindepth 1 -maxdepth 1 -type d | head -n 1)
	if [ -e "$top/scripts/basic/fixdep" ] || [ -e "$top/.config" ] ||
		grep -q '^# Automatically generated' "$top/Makefile" 2>/dev/null; then
		echo "kernel-tree.sh: $top was built in (its Makefile or scripts/basic/fixdep written); unpacking it again" >&2
		rm -f "$dest/.complete"
		return 1
	fi
}

# unpack TARBALL NAME STAMP: the tarball, whole, into $CACHE/trees/NAME
# (once; STAMP names what it came from); prints the tree's path
unpack() {
	local tarball=$1 name=$2 stamp=$3 dest=$CACHE/trees/$2 top start
	unwritten "$name" || true
	if [ -f "$dest/.complete" ] && [ "$(cat "$dest/.complete")" = "$stamp" ]; then
		find "$dest" -mindepth 1 -maxdepth 1 -type d | head -n 1
		return
	fi
	echo "kernel-tree.sh: unpacking $tarball into $dest (once)" >&2
	start=$(date +%s)
	rm -rf "$dest" "$dest.tmp"
	mkdir -p "$dest.tmp"
	tar -xJf "$tarball" -C "$dest.tmp" || die "cannot unpack $tarball"
	echo "$stamp" >"$dest.tmp/.complete"
	mv "$dest.tmp" "$dest"
	top=$(find "$dest" -mindepth 1 -maxdepth 1 -type d | head -n 1)
	echo "kernel-tree.sh: unpacked in $(($(date +%s) - start)) s" >&2
	echo "$top"
}

# debian_lts PKG: a linux-source package of this machine's apt sources
debian_lts() {
	local pkg=$1 tarball=/usr/src/$1.tar.xz ver
	if [ ! -f "$tarball" ]; then
		if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
			echo "kernel-tree.sh: installing $pkg (apt-get)" >&2
			apt-get install -y "$pkg" >&2 ||
				{ apt-get update >&2 && apt-get install -y "$pkg" >&2; } || true
		fi
		[ -f "$tarball" ] || die "no $pkg: install the Debian package" \
			"(apt-get install $pkg, as root), or set KSRC=<kernel tree>"
	fi
	ver=$(dpkg-query -W -f '${Version}' "$pkg" 2>/dev/null || stat -c %Y "$tarball")
	unpack "$tarball" "${pkg}_$ver" "$pkg $ver $(stat -c '%s %Y' "$tarball")"
}

# current: the newest linux-source-N.M of trixie-backports and sid
current() {
	local apt=$CACHE/apt opts pkg deb ver
	mkdir -p "$apt/sources" "$apt/lists/partial" "$apt/cache/archives/partial" "$apt/debs"
	cat >"$apt/sources/vmafuzz.sources" <<-EOF
	Types: deb
	URIs: $MIRROR
	Suites: trixie-backports sid
	Components: main
	Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
	EOF
	opts=(-o Dir::Etc::sourcelist=/dev/null -o Dir::Etc::sourceparts="$apt/sources"
		-o Dir::State::Lists="$apt/lists" -o Dir::Cache="$apt/cache"
		-o Dir::State::status=/var/lib/dpkg/status -o APT::Sandbox::User=root)
	# the lists once a day at most; a cached tree serves when the mirror is away
	if [ -z "$(find "$apt/lists" -maxdepth 1 -name '*Packages*' -mtime -1 2>/dev/null)" ]; then
		echo "kernel-tree.sh: reading Debian's trixie-backports and sid lists" >&2
		apt-get "${opts[@]}" update >&2 || echo "kernel-tree.sh: apt-get update failed" >&2
	fi
	# the answer is kept until the lists change (apt-cache takes seconds)
	local known=$apt/current
	if [ -f "$known" ] && [ -z "$(find "$apt/lists" -maxdepth 1 -newer "$known" -name '*Packages*' 2>/dev/null)" ] &&
		[ -f "$(cat "$known")" ]; then
		deb=$(cat "$known")
	else
		pkg=$(apt-cache "${opts[@]}" pkgnames linux-source- 2>/dev/null |
			grep -E '^linux-source-[0-9]+\.[0-9]+$' | sort -V | tail -n 1 || true)
		if [ -z "$pkg" ]; then
			# nothing listed: the newest tree already cached, if any
			deb=$(ls "$apt"/debs/linux-source-*.deb 2>/dev/null | sort -V | tail -n 1 || true)
			[ -n "$deb" ] || die "cannot list Debian's linux-source packages (no network?) and none is cached"
		else
			ver=$(apt-cache "${opts[@]}" show "$pkg" 2>/dev/null | sed -n 's/^Version: //p' |
				sort -V | tail -n 1)
			deb=$apt/debs/${pkg}_${ver//:/%3a}_all.deb
			if [ ! -f "$deb" ]; then
				echo "kernel-tree.sh: fetching $pkg $ver" >&2
				(cd "$apt/debs" && apt-get "${opts[@]}" download "$pkg=$ver" >&2) ||
					die "cannot download $pkg $ver"
				[ -f "$deb" ] || deb=$(ls "$apt"/debs/"${pkg}"_*.deb | sort -V | tail -n 1)
			fi
		fi
		echo "$deb" >"$known"
	fi
	local name x
	name=$(basename "$deb" .deb)
	x=$CACHE/trees/$name.deb-x
	unwritten "$name" || true
	if [ ! -f "$CACHE/trees/$name/.complete" ]; then
		rm -rf "$x"
		mkdir -p "$x"
		dpkg -x "$deb" "$x" || die "cannot unpack $deb"
	fi
	local tarball
	tarball=$(ls "$x"/usr/src/linux-source-*.tar.xz 2>/dev/null | head -n 1 || true)
	if [ -z "$tarball" ] && [ -f "$CACHE/trees/$name/.complete" ]; then
		tarball=$deb # already unpacked: the stamp is all that is read
	fi
	[ -n "$tarball" ] || die "$deb holds no kernel tarball"
	unpack "$tarball" "$name" "$name"
	rm -rf "$x"
}

# resolve TREE: its path
resolve() {
	case $1 in
	6.1 | 6.12) debian_lts "linux-source-$1" ;;
	current) current ;;
	*)
		[ -d "$1" ] || die "KSRC=$1: not a folder, nor 6.1, 6.12 or current"
		readlink -f "$1"
		;;
	esac
}

recorded() {
	[ -f "$RECORD" ] && sed -n 's/^tree //p' "$RECORD" | head -n 1
}

case ${1:-} in
--key)
	key "$2"
	exit
	;;
--version)
	version "$2"
	exit
	;;
--recorded)
	recorded
	exit
	;;
esac
record=0
if [ "${1:-}" = --record ]; then
	record=1
	shift
fi
spec=${1:-${KSRC:-}}
[ -n "$spec" ] || spec=$(recorded || true)
[ -n "$spec" ] || spec=6.12
path=$(resolve "$spec")
if [ "$record" = 1 ] && [ "$(recorded || true)" != "$spec" ]; then
	mkdir -p "$(dirname "$RECORD")"
	printf 'tree %s\npath %s\n' "$spec" "$path" >"$RECORD.tmp"
	mv "$RECORD.tmp" "$RECORD"
	echo "kernel-tree.sh: kernel tree in use from now on: $spec ($path)" >&2
fi
echo "$path"
