#!/bin/bash
# bisect-check: every prefix of the series builds (the series is bisectable).
#
# For each patch k, the tree with patches 1..k applied is built in LAB_CACHE/bisect: by
# default the objects of every C file patches 1..k touch (interface changes between patches
# break there), with FULL=1 the whole bzImage (slow, for before posting). Same config and
# ccache as the lab kernels.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

head=$("$LAB_DIR/apply.sh")
commits=$(git -C "$APPLY_WT" rev-list --reverse "$BASE_TAG..$head")
n=$(echo "$commits" | grep -c . || true)
[ "$n" -gt 0 ] || { say "bisect: empty series, nothing to check"; exit 0; }

src=$(src_dir bisect)
out=$(build_dir bisect)
if [ ! -e "$src/.git" ]; then
	rm -rf "$src"
	git -C "$TREE" worktree prune
	git -C "$TREE" worktree add -q --detach "$src" "$BASE_TAG"
fi
mkdir -p "$out"
export CCACHE_BASEDIR=$LAB_CACHE CCACHE_MAXSIZE=${CCACHE_MAXSIZE:-8G}
mk=(make -s -C "$src" O="$out" ARCH=x86_64 LOCALVERSION=-bisect CC="ccache gcc")

k=0
for c in $commits; do
	k=$((k + 1))
	git -C "$src" checkout -q -f --detach "$c"
	subject=$(git -C "$src" log -1 --format=%s)
	# Same config as the patched kernel (its options exist or are dropped by olddefconfig).
	cp "$(build_dir patched)/.config" "$out/.config"
	"${mk[@]}" olddefconfig >/dev/null
	if [ "${FULL:-0}" = 1 ]; then
		targets=(bzImage)
	else
		mapfile -t targets < <(git -C "$src" diff --name-only "$BASE_TAG" HEAD -- '*.c' |
			grep -v '^tools/' | sed 's/\.c$/.o/')
	fi
	if [ ${#targets[@]} -gt 0 ] && ! "${mk[@]}" -j"$(nproc)" "${targets[@]}" >"$out/step-$k.log" 2>&1; then
		grep -E 'error|Error' "$out/step-$k.log" | head -20 >&2
		die "bisect: patch $k ($subject) does not build; see $out/step-$k.log"
	fi
	say "bisect: $k/$n builds ($subject): ${targets[*]:-nothing to compile}"
done
