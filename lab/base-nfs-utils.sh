#!/bin/bash
# base-nfs-utils: fetch Debian's nfs-utils source package (the version in
# patches/nfs-utils/base.env) with apt-get source, unpacked with Debian's own patches applied,
# and make it a git tree whose first commit is tagged $BASE_TAG. Idempotent.
#
# apt-get source needs deb-src entries: when the version is not on offer, this adds
# /etc/apt/sources.list.d/nfsra-lab-src.sources with deb-src for the Debian suites the
# machine already uses (its deb entries on deb.debian.org), and nothing else.
set -euo pipefail
export SERIES=nfs-utils
. "$(dirname "$0")/lib.sh"

if git -C "$TREE" rev-parse -q --verify "refs/tags/$BASE_TAG" >/dev/null 2>&1; then
	say "base: $TREE at $BASE_TAG (cached)"
	exit 0
fi
command -v dpkg-source >/dev/null || die "dpkg-source is missing; run: make deps (dpkg-dev)"

offered() { apt-cache showsrc "$NFSU_PACKAGE" 2>/dev/null | grep -qx "Version: $NFSU_VERSION"; }
if ! offered; then
	[ "$(id -u)" -eq 0 ] || die "no deb-src entry offers $NFSU_PACKAGE $NFSU_VERSION; run as root to add one"
	list=/etc/apt/sources.list.d/nfsra-lab-src.sources
	# The suites of the machine's own Debian deb entries, in either sources format.
	suites=$( { apt-get indextargets --format '$(REPO_URI) $(RELEASE)' 'Created-By: Packages' 2>/dev/null || true; } |
		sort -u)
	[ -n "$suites" ] || die "apt knows no Debian suites (apt-get indextargets is empty); add a deb-src line for $NFSU_PACKAGE by hand"
	{
		echo "# Added by nfsra-lab (lab/base-nfs-utils.sh): sources for apt-get source $NFSU_PACKAGE."
		while read -r uri suite; do
			case "$uri" in http*://deb.debian.org/debian*/ | http*://security.debian.org/*) ;; *) continue ;; esac
			printf 'Types: deb-src\nURIs: %s\nSuites: %s\nComponents: main\nSigned-By: /usr/share/keyrings/debian-archive-keyring.gpg\n\n' \
				"$uri" "$suite"
		done <<<"$suites"
	} >"$list"
	say "base: added deb-src entries in $list; apt-get update"
	apt-get update -qq || die "apt-get update failed"
	offered || die "no deb-src entry offers $NFSU_PACKAGE $NFSU_VERSION even after adding $list (apt-cache showsrc $NFSU_PACKAGE)"
fi

tmp=$TREE.tmp
rm -rf "$tmp" "$tmp.dl"
mkdir -p "$tmp.dl"
say "base: apt-get source $NFSU_PACKAGE=$NFSU_VERSION"
(cd "$tmp.dl" && apt-get source -qq --download-only "$NFSU_PACKAGE=$NFSU_VERSION" >/dev/null 2>&1) ||
	die "apt-get source --download-only $NFSU_PACKAGE=$NFSU_VERSION failed"
dsc=$(ls "$tmp.dl"/*.dsc)
# apt has checked the files against the signed Release; dpkg-source's own gpgv check would only
# complain about a missing Debian developer key, so its output is shown on failure alone.
dpkg-source -x "$dsc" "$tmp" >"$tmp.dl/log" 2>&1 || { cat "$tmp.dl/log" >&2; die "dpkg-source -x $dsc failed"; }
rm -rf "$tmp.dl"

cd "$tmp"
# The tree is the Debian source as unpacked, quilt state included, so it matches what
# `apt-get source` gives any user; build products are ignored, never committed.
git init -q -b dev
git config core.autocrlf false
export GIT_AUTHOR_DATE="2000-01-01T00:00:00Z" GIT_COMMITTER_DATE="2000-01-01T00:00:00Z"
git add -A -f .
git commit -q -m "nfs-utils $NFSU_VERSION from Debian (apt-get source, Debian patches applied)"
git tag "$BASE_TAG"
cd /
rm -rf "$TREE"
mv "$tmp" "$TREE"
say "base: $TREE tagged $BASE_TAG ($(git -C "$TREE" rev-parse --short HEAD))"
