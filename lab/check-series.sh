#!/bin/bash
# check-series: the series applies with git am, is exactly what `make patches` generates, and
# every patch is checkpatch --strict clean (6.12's own checkpatch.pl, patches fed on stdin:
# given a file name inside a git tree it would check the file as source and pass anything).
set -euo pipefail
. "$(dirname "$0")/lib.sh"

head=$("$LAB_DIR/apply.sh")
n=$(git -C "$APPLY_WT" rev-list --count "$BASE_TAG..$head")

# Round trip: exporting the applied series must give back patches/ byte for byte.
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$LAB_DIR/patches.sh" export "$APPLY_WT" "$tmp/out" 2>/dev/null
shopt -s nullglob
for f in "$tmp"/out/* "$PATCH_DIR"/*.patch "$PATCH_DIR/series"; do
	b=$(basename "$f")
	cmp -s "$tmp/out/$b" "$PATCH_DIR/$b" ||
		die "patches/$b differs from what 'make patches' generates from the applied series (hand-edited? regenerate with: make patches)"
done
say "series: $n patch(es) apply to $BASE_TAG and match their generated form"

# Run from the temporary directory: inside a git tree checkpatch leaves a cache file behind.
checkpatch() { (cd "$tmp" && perl "$APPLY_WT/scripts/checkpatch.pl" --strict --no-tree --terse --show-types -); }

# The checker must catch a bad patch, or a clean result means nothing.
if checkpatch <"$REPO_DIR/tests/fixtures/bad.patch" >/dev/null 2>&1; then
	die "checkpatch passed tests/fixtures/bad.patch; the checkpatch step is not working"
fi

bad=0
while read -r p; do
	[ -n "$p" ] || continue
	if ! out=$(checkpatch <"$PATCH_DIR/$p" 2>&1) || grep -qE '(ERROR|WARNING|CHECK):' <<<"$out"; then
		echo "$out" | sed "s|^|$p: |" >&2
		bad=1
	fi
done <"$PATCH_DIR/series"
[ $bad -eq 0 ] || die "checkpatch --strict found problems (above)"
say "series: checkpatch --strict clean on $n patch(es)"

# The nfs-utils companion: applies to Debian's nfs-utils source, matches its generated form,
# and builds (lab/udev.sh compiles nfsrahead from the applied tree; its guest test is
# tests/guest/lab_family_mount.sh). nfs-utils has no checkpatch; its own warnings are errors.
nhead=$(SERIES=nfs-utils "$LAB_DIR/apply.sh")
SERIES=nfs-utils "$LAB_DIR/patches.sh" export "$LAB_CACHE/nfs-utils/apply" "$tmp/nfsu" 2>/dev/null
for f in "$tmp"/nfsu/* "$REPO_DIR"/patches/nfs-utils/*.patch "$REPO_DIR/patches/nfs-utils/series"; do
	b=$(basename "$f")
	cmp -s "$tmp/nfsu/$b" "$REPO_DIR/patches/nfs-utils/$b" ||
		die "patches/nfs-utils/$b differs from what 'make patches' generates from the applied series (hand-edited? regenerate with: make patches)"
done
"$LAB_DIR/udev.sh" >/dev/null
grep -E "^main\.c:[0-9]+:[0-9]+: warning" "$LAB_CACHE/udev/nfsrahead-build.log" >&2 &&
	die "nfsrahead builds with warnings (above)"
say "series: nfs-utils companion ($(grep -c . "$REPO_DIR/patches/nfs-utils/series") patch(es), ${nhead:0:12}) applies, matches its generated form, builds"
