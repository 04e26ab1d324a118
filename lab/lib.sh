# shellcheck shell=bash
# shellcheck disable=SC2034 # variables for the scripts that source this file
# Shared settings for the lab scripts; sourced, never run.
# Everything big (kernel trees, builds, ccache, venv) lives in LAB_CACHE, outside the clone,
# so fresh clones and CI reuse what an earlier run built.

LAB_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO_DIR=$(cd "$LAB_DIR/.." && pwd)
PATCH_DIR=${PATCH_DIR:-$REPO_DIR/patches}
LAB_CACHE=${LAB_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/nfsra-lab}

# Two series share the tooling (base, apply, export, tree): the kernel's in patches/ and the
# nfs-utils companion in patches/nfs-utils/. SERIES=nfs-utils selects the second.
# shellcheck source=../patches/base.env
. "$REPO_DIR/patches/base.env"
# shellcheck source=../patches/nfs-utils/base.env
. "$REPO_DIR/patches/nfs-utils/base.env"
case "${SERIES:=linux}" in
linux)
	BASE_TAG=v$KERNEL_VERSION-debian
	TREE=$LAB_CACHE/linux         # the git tree: base tag, branch "dev" for development
	APPLY_WT=$LAB_CACHE/apply     # worktree where patches/ is applied with git am
	BASE_SH=base.sh
	COVER_SRC=$REPO_DIR/Documentation/cover-letter.txt
	;;
nfs-utils)
	# A tag cannot hold the epoch's ':' or a '~'.
	BASE_TAG=nfs-utils-$(echo "${NFSU_VERSION#*:}" | tr '~' '_')-debian
	TREE=$LAB_CACHE/nfs-utils/tree
	APPLY_WT=$LAB_CACHE/nfs-utils/apply
	PATCH_DIR=$REPO_DIR/patches/nfs-utils
	BASE_SH=base-nfs-utils.sh
	COVER_SRC=
	;;
*) echo "error: SERIES must be linux or nfs-utils, not '$SERIES'" >&2; exit 1 ;;
esac
VENV=$LAB_CACHE/venv
export CCACHE_DIR=${CCACHE_DIR:-$LAB_CACHE/ccache}

say() { printf '[%s] %s\n' "$(date +%H:%M:%S)" "$*" >&2; }
die() { printf 'error: %s\n' "$*" >&2; exit 1; }

# apt_missing PKG...: the packages among PKG... that dpkg does not have installed, one a line.
apt_missing() {
	local p
	for p; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || echo "$p"
	done
}

# lab_commit: the lab's commit (12 hex digits), "+changes" appended when lab/ or tests/ differ
# from it, "unknown" outside git. guest-tests.sh records it with each boot and bench.py in
# meta.json, so a run resumed in parts says which lab code made each result.
lab_commit() {
	local c
	c=$(git -C "$REPO_DIR" rev-parse --short=12 HEAD 2>/dev/null) || { echo unknown; return; }
	[ -n "$(git -C "$REPO_DIR" status --porcelain -- lab tests 2>/dev/null)" ] && c+=+changes
	echo "$c"
}

# src_dir/build_dir KIND: KIND is "stock" or "patched". Both use the same relative
# layout (KIND/src, KIND/build) so ccache (base_dir=LAB_CACHE) shares objects between them.
src_dir() { echo "$LAB_CACHE/$1/src"; }
build_dir() { echo "$LAB_CACHE/$1/build"; }
