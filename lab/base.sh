#!/bin/bash
# base: unpack Debian's linux-source-6.12 once into LAB_CACHE and make it a git tree whose
# first commit is tagged $BASE_TAG. Idempotent: an existing tree with the tag is reused.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

if git -C "$TREE" rev-parse -q --verify "refs/tags/$BASE_TAG" >/dev/null 2>&1; then
	say "base: $TREE at $BASE_TAG (cached)"
	exit 0
fi

installed=$(dpkg-query -W -f='${Version}' "$DEBIAN_PACKAGE" 2>/dev/null || true)
[ -n "$installed" ] || die "$DEBIAN_PACKAGE is not installed; run: apt-get install $DEBIAN_PACKAGE=$DEBIAN_VERSION"
[ "$installed" = "$DEBIAN_VERSION" ] ||
	die "installed $DEBIAN_PACKAGE is $installed but the series targets $DEBIAN_VERSION (patches/base.env); run: apt-get install $DEBIAN_PACKAGE=$DEBIAN_VERSION (or rebase the series and update patches/base.env)"
tarball=/usr/src/$DEBIAN_PACKAGE.tar.xz
[ -f "$tarball" ] || die "$tarball is missing; reinstall: apt-get install --reinstall $DEBIAN_PACKAGE=$DEBIAN_VERSION"

tmp=$TREE.tmp
rm -rf "$tmp"
mkdir -p "$tmp"
say "base: unpacking $tarball (about a minute)"
tar -xJf "$tarball" -C "$tmp" --strip-components=1
v=$(make -s -C "$tmp" kernelversion 2>/dev/null)
[ "$v" = "$KERNEL_VERSION" ] || die "$tarball unpacked to $v, expected $KERNEL_VERSION"

say "base: creating git tree (about a minute)"
cd "$tmp"
git init -q -b dev
git config core.autocrlf false
git config gc.auto 0
# A fixed date makes the base commit id the same on every machine.
export GIT_AUTHOR_DATE="2000-01-01T00:00:00Z" GIT_COMMITTER_DATE="2000-01-01T00:00:00Z"
git add -A -f .
git commit -q -m "Linux $KERNEL_VERSION from Debian $DEBIAN_PACKAGE $DEBIAN_VERSION"
git tag "$BASE_TAG"
cd /
rm -rf "$TREE"
mv "$tmp" "$TREE"
say "base: $TREE tagged $BASE_TAG ($(git -C "$TREE" rev-parse --short HEAD))"
