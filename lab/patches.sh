#!/bin/bash
# patches: the series as git format-patch files, generated, never edited by hand.
#
#   patches.sh export [TREE_DIR [OUTDIR]]  write base..HEAD of TREE_DIR (default: the dev tree)
#                                          as format-patch files + series + cover letter
#   patches.sh tree                        create the dev branch from patches/ if the tree has
#                                          none yet (a fresh machine), so work can go on there
#
# SERIES=nfs-utils does the same for the nfs-utils companion series (patches/nfs-utils/, dev
# tree LAB_CACHE/nfs-utils/tree, no cover letter); `make patches` and `make tree` do both.
#
# Output is deterministic (zero commit ids, fixed cover date, no signature), so exporting an
# applied series gives back byte-identical files: lab/check-series.sh relies on that.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

export_series() {
	local dir=$1 out=$2 tmp n
	local cover=()
	if [ -n "$COVER_SRC" ]; then
		[ -f "$COVER_SRC" ] || die "$COVER_SRC is missing (first line: subject, then the blurb)"
		cover=(--cover-letter)
	fi
	tmp=$(mktemp -d)
	n=$(git -C "$dir" rev-list --count "$BASE_TAG..HEAD")
	if [ "$n" -gt 0 ]; then
		# The cover letter's date is the last patch's date, so it is stable too.
		GIT_COMMITTER_DATE=$(git -C "$dir" log -1 --format=%aD) \
		git -C "$dir" format-patch -q "${cover[@]}" --zero-commit --no-signature \
			--base="$BASE_TAG" -o "$tmp" "$BASE_TAG..HEAD"
	fi
	if [ "$n" -gt 0 ] && [ -n "$COVER_SRC" ]; then
		python3 - "$tmp"/0000-cover-letter.patch "$COVER_SRC" <<'PY'
import sys
path, src = sys.argv[1], sys.argv[2]
lines = open(src).read().split("\n")
subject, blurb = lines[0].strip(), "\n".join(lines[1:]).strip("\n")
text = open(path).read()
assert "*** SUBJECT HERE ***" in text and "*** BLURB HERE ***" in text
text = text.replace("*** SUBJECT HERE ***", subject, 1).replace("*** BLURB HERE ***", blurb, 1)
open(path, "w").write(text)
PY
	fi
	for f in "$tmp"/*.patch; do
		[ -e "$f" ] && [ "${f##*/}" != 0000-cover-letter.patch ] && echo "${f##*/}"
	done >"$tmp/series"
	mkdir -p "$out"
	rm -f "$out"/*.patch "$out/series"
	cp "$tmp"/* "$out"/
	rm -rf "$tmp"
	say "patches: $n patch(es) from $dir written to $out"
}

case "${1:-}" in
export)
	"$LAB_DIR/$BASE_SH"
	export_series "${2:-$TREE}" "${3:-$PATCH_DIR}"
	;;
tree)
	"$LAB_DIR/$BASE_SH"
	if [ "$(git -C "$TREE" rev-parse HEAD)" != "$(git -C "$TREE" rev-parse "$BASE_TAG^{commit}")" ]; then
		say "patches: dev tree $TREE already has commits on $BASE_TAG; left alone"
		exit 0
	fi
	head=$("$LAB_DIR/apply.sh")
	git -C "$TREE" reset -q --hard "$head"
	say "patches: dev tree $TREE now has the series ($(git -C "$TREE" rev-list --count "$BASE_TAG..HEAD") commits)"
	;;
*) die "usage: patches.sh export [TREE_DIR [OUTDIR]] | tree" ;;
esac
