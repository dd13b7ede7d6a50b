#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# A guest kernel built from a tree (./build.sh vm; docs/vm.md):
#
#   scripts/vm-kernel.sh [--kasan] [--bug NAME] [TREE]    the bzImage's path on stdout
#
# TREE as scripts/kernel-tree.sh takes it (6.1, 6.12, current, a path;
# default: the tree in use). The kernel is configured from `make tinyconfig`
# with live/vm/vmafuzz.config merged on (and live/vm/kasan.config with
# --kasan), and built out of the tree (O=) in the machine's cache, so that a
# second build after an edit in the tree makes only what changed and a
# fresh checkout finds it built: $VMAFUZZ_CACHE/vm-kernels/<key>, <key> being
# <version>-<hash of the tree's path>[-kasan][-bug-NAME], is a shadow of the
# tree (a link to each of its parts; with --bug NAME, real folders down to
# each file bugs/vm/NAME.patch touches, and a patched copy of that file),
# with the build in its folder vmafuzz-build/ (reached as out/vm/<key>).
# Built so, one folder below its source, the kernel names its source
# relatively (srctree ..), so a planted bug's build starts as a copy of the
# plain one and makes only what the patch changed. The tree is never
# written to: one built in place (O= refuses it) is named, with what to do.
# Options of the fragments the tree does not take are named on stderr.
set -euo pipefail
cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/.."
ROOT=$PWD
OUTDIR=${OUTDIR:-out}
CACHE=${VMAFUZZ_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/vmafuzz}
JOBS=${JOBS:-$(nproc 2>/dev/null || echo 2)}

die() {
	echo "vm-kernel: $*" >&2
	exit 2
}

kasan=0 bug=
while [ $# -gt 0 ]; do
	case $1 in
	--kasan) kasan=1 ;;
	--bug)
		[ $# -gt 1 ] || die "--bug needs a name (bugs/vm/*.patch)"
		bug=$2
		shift
		;;
	-*) die "unknown option '$1'" ;;
	*) break ;;
	esac
	shift
done
[ $# -le 1 ] || die "one tree at most, not '$*'"
if [ -n "$bug" ] && [ ! -f "bugs/vm/$bug.patch" ]; then
	die "no planted kernel bug '$bug' (have: $(ls bugs/vm/*.patch 2>/dev/null | xargs -rn1 basename | sed 's/\.patch$//' | paste -sd' ' -))"
fi
tree=$(OUTDIR=$OUTDIR scripts/kernel-tree.sh ${1:+"$1"}) || exit 2
version=$(scripts/kernel-tree.sh --version "$tree") || exit 2
[ -f "$tree/arch/x86/Makefile" ] || die "$tree (Linux $version) has no arch/x86: not a whole kernel tree"
if [ -e "$tree/.config" ] || [ -d "$tree/include/config" ]; then
	die "$tree (Linux $version) was built in place, and a build out of it (O=) refuses such a tree;" \
		"run 'make mrproper' in it (which removes that build), or give a clean copy"
fi
key=$version-$(printf '%s' "$tree" | sha256sum | cut -c1-8)
[ "$kasan" = 1 ] && key=$key-kasan
plain=$key
[ -n "$bug" ] && key=$key-bug-$bug
src=$CACHE/vm-kernels/$key
build=$src/vmafuzz-build
mkdir -p "$OUTDIR/vm" "$CACHE/vm-kernels"

# one build of a tree's kernels at a time (its plain one and its planted
# bugs', which start from the plain one): another checkout's run (a test,
# CI) waits here rather than configuring into a folder being built
exec 9>"$CACHE/vm-kernels/$plain.lock"
if ! flock -n 9; then
	echo "vm-kernel: waiting for another build of Linux $version's kernels in $CACHE/vm-kernels" >&2
	flock 9
fi

# the shadow: links to the tree's parts, the patched files copies
stamp="$tree ${bug:+$(sha256sum <"bugs/vm/$bug.patch" | cut -c1-16)}"
if [ "$(cat "$src/.vmafuzz-shadow" 2>/dev/null)" != "$stamp" ]; then
	rm -rf "$src"
	mkdir -p "$src"
	for e in "$tree"/* "$tree"/.[!.]*; do
		[ -e "$e" ] && [ "$(basename "$e")" != .git ] && ln -s "$e" "$src/$(basename "$e")"
	done
	if [ -n "$bug" ]; then
		for f in $(sed -n 's|^+++ b/\([^[:space:]]*\).*|\1|p' "bugs/vm/$bug.patch"); do
			d=$src
			rel=
			for part in $(dirname "$f" | tr / ' '); do
				[ "$part" = . ] && continue
				rel=${rel:+$rel/}$part
				if [ -L "$d/$part" ]; then
					rm "$d/$part"
					mkdir "$d/$part"
					for e in "$tree/$rel"/* "$tree/$rel"/.[!.]*; do
						[ -e "$e" ] && ln -s "$e" "$d/$part/$(basename "$e")"
					done
				fi
				d=$d/$part
			done
			rm -f "$src/$f"
			cp "$tree/$f" "$src/$f"
		done
		patch -p1 --quiet -d "$src" <"bugs/vm/$bug.patch" ||
			die "bugs/vm/$bug.patch does not apply to $tree (Linux $version)"
		# the plain build's objects to start from (the same relative
		# names: only what the patch changed is made again)
		[ -f "$CACHE/vm-kernels/$plain/vmafuzz-build/arch/x86/boot/bzImage" ] &&
			cp -a "$CACHE/vm-kernels/$plain/vmafuzz-build" "$build"
	fi
	echo "$stamp" >"$src/.vmafuzz-shadow"
fi
mkdir -p "$build"
ln -sfn "$build" "$OUTDIR/vm/$key"

# the configuration, again when a fragment or the tree changed
frags=("$ROOT/live/vm/vmafuzz.config")
[ "$kasan" = 1 ] && frags+=("$ROOT/live/vm/kasan.config")
want="$tree $(cat "${frags[@]}" | sha256sum | cut -c1-16)"
if [ "$(cat "$build/.vmafuzz-config" 2>/dev/null)" != "$want" ] || [ ! -f "$build/.config" ]; then
	echo "vm-kernel: configuring Linux $version in $build" >&2
	make -s -C "$src" O="$build" tinyconfig >&2
	"$src/scripts/kconfig/merge_config.sh" -m -O "$build" "$build/.config" "${frags[@]}" \
		>"$build/merge.log" 2>&1 || die "merging the configuration failed ($build/merge.log)"
	make -s -C "$src" O="$build" olddefconfig >&2
	# what the tree did not take
	grep -hE '^CONFIG_[A-Z0-9_]+=' "${frags[@]}" | while IFS= read -r l; do
		grep -qxF -- "$l" "$build/.config" ||
			echo "vm-kernel: Linux $version does not take $l (a dependency is off, or it is gone)" >&2
	done
	echo "$want" >"$build/.vmafuzz-config"
fi
start=$(date +%s)
echo "vm-kernel: building Linux $version in $build ($JOBS jobs)" >&2
if ! make -s -C "$src" O="$build" -j"$JOBS" bzImage >"$build/build.log" 2>&1; then
	tail -n 30 "$build/build.log" >&2
	die "building Linux $version failed ($build/build.log)"
fi
echo "vm-kernel: built in $(($(date +%s) - start)) s" >&2
echo "$build/arch/x86/boot/bzImage"
