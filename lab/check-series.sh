#!/bin/bash
# check-series: the series applies with git am, is exactly what `make patches` generates, and
# every patch is checkpatch --strict clean (6.12's own checkpatch.pl, patches fed on stdin:
# given a file name inside a git tree it would check the file as source and pass anything).
set -euo pipefail
. "$(dirname "$0")/lib.sh"

head=$("$LAB_DIR/apply.sh")
n=$(git -C "$APPLY_WT" rev-list --count "$BASE_TAG..$head")

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
shopt -s nullglob

# same_as_generated SERIES WORKTREE PATCHDIR: exporting the applied series must give back
# PATCHDIR byte for byte.
same_as_generated() {
	local out=$tmp/out-$1 f b
	SERIES=$1 "$LAB_DIR/patches.sh" export "$2" "$out" 2>/dev/null
	for f in "$out"/* "$3"/*.patch "$3/series"; do
		b=$(basename "$f")
		cmp -s "$out/$b" "$3/$b" ||
			die "${3#"$REPO_DIR"/}/$b differs from what 'make patches' generates from the applied series (hand-edited? regenerate with: make patches)"
	done
}
same_as_generated linux "$APPLY_WT" "$PATCH_DIR"
say "series: $n patch(es) apply to $BASE_TAG and match their generated form"

# Run from the temporary directory: inside a git tree checkpatch leaves a cache file behind.
# FILE_PATH_CHANGES ("does MAINTAINERS need updating?") fires for every added file whatever
# MAINTAINERS says; the check after the loop asks the question for real. UNKNOWN_COMMIT_ID:
# outside a git tree, and with a base that has no mainline history, checkpatch can look up no
# commit id at all; changelogs cite mainline commits as 'commit <12 hex> ("subject")', which
# checkpatch in a mainline tree verifies.
checkpatch() {
	(cd "$tmp" && perl "$APPLY_WT/scripts/checkpatch.pl" --strict --no-tree --terse --show-types \
		--ignore FILE_PATH_CHANGES --ignore UNKNOWN_COMMIT_ID -)
}

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
# Every file the series adds has a maintainer in the patched MAINTAINERS other than THE REST.
while read -r f; do
	[ -n "$f" ] || continue
	who=$(cd "$APPLY_WT" && perl scripts/get_maintainer.pl --nogit --nogit-fallback --nol -f "$f" 2>/dev/null)
	if ! grep -v "THE REST" <<<"$who" | grep -q .; then
		echo "$f: added by the series, but MAINTAINERS names nobody for it (only THE REST)" >&2
		bad=1
	fi
done < <(git -C "$APPLY_WT" diff --diff-filter=A --name-only "$BASE_TAG" "$head")
[ $bad -eq 0 ] || die "checkpatch --strict found problems (above)"
say "series: checkpatch --strict clean on $n patch(es)"

# The nfs-utils companion: applies to Debian's nfs-utils source, matches its generated form,
# and builds (lab/udev.sh compiles nfsrahead from the applied tree; its guest test is
# tests/guest/lab_family_mount.sh). nfs-utils has no checkpatch; its own warnings are errors.
# udev.sh applies the series (apply.sh) and builds nfsrahead from it; the round trip then
# reads the same applied worktree.
"$LAB_DIR/udev.sh" >/dev/null
nwt=$LAB_CACHE/nfs-utils/apply
nhead=$(git -C "$nwt" rev-parse HEAD)
same_as_generated nfs-utils "$nwt" "$REPO_DIR/patches/nfs-utils"
grep -E "^main\.c:[0-9]+:[0-9]+: warning" "$LAB_CACHE/udev/nfsrahead-build.log" >&2 &&
	die "nfsrahead builds with warnings (above)"
say "series: nfs-utils companion ($(grep -c . "$REPO_DIR/patches/nfs-utils/series") patch(es), ${nhead:0:12}) applies, matches its generated form, builds"
