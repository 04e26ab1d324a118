#!/bin/bash
# apply: git am patches/series onto the base in a scratch worktree and print the resulting
# commit. An empty series prints the base commit. The commit id depends only on the patches
# (committer date = author date), so an unchanged series gives the same id every time.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

"$LAB_DIR/$BASE_SH"
[ -f "$PATCH_DIR/series" ] || die "$PATCH_DIR/series is missing (an empty file means stock)"
if [ ! -e "$APPLY_WT/.git" ]; then
	rm -rf "$APPLY_WT"
	git -C "$TREE" worktree prune
	git -C "$TREE" worktree add -q --detach "$APPLY_WT" "$BASE_TAG"
fi
cd "$APPLY_WT"
git am --abort >/dev/null 2>&1 || true
git checkout -q -f --detach "$BASE_TAG"
git clean -q -fdx
# The lab's own commits carry a fixed committer, so the id depends on the patches alone.
export GIT_COMMITTER_NAME="nfsra-lab" GIT_COMMITTER_EMAIL="lab@localhost"
log=$(mktemp)
trap 'rm -f "$log"' EXIT
n=0
while read -r p _; do
	case "$p" in ''|'#'*) continue ;; esac
	[ -f "$PATCH_DIR/$p" ] || die "patches/series names $p, which does not exist"
	if ! git am -q --committer-date-is-author-date "$PATCH_DIR/$p" >"$log" 2>&1; then
		cat "$log" >&2
		git am --abort >/dev/null 2>&1 || true
		die "patch $p does not apply to $BASE_TAG"
	fi
	n=$((n + 1))
done <"$PATCH_DIR/series"
say "apply: $n patch(es) applied on $BASE_TAG -> $(git rev-parse --short HEAD)"
git rev-parse HEAD
