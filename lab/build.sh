#!/bin/bash
# build KIND [VARIANT]: build the lab kernel for KIND ("stock" = the base, "patched" = base +
# patches/) in a persistent out-of-tree directory with ccache. Prints the bzImage path.
# A VARIANT adds lab/config/variant-VARIANT.config and builds in KIND-VARIANT/ (for instance
# "patched nostats", the series without CONFIG_READAHEAD_STATS, to measure what it costs).
set -euo pipefail
. "$(dirname "$0")/lib.sh"

kind=${1:-}
variant=${2:-}
case "$kind" in stock|patched) ;; *) die "usage: build.sh stock|patched [VARIANT]" ;; esac
name=$kind${variant:+-$variant}
frags=("$LAB_DIR/config/lab.config" "$LAB_DIR/config/series.config")
if [ -n "$variant" ]; then
	[ -f "$LAB_DIR/config/variant-$variant.config" ] ||
		die "no lab/config/variant-$variant.config for variant '$variant'"
	frags+=("$LAB_DIR/config/variant-$variant.config")
fi
command -v ccache >/dev/null || die "ccache is missing; run: make deps"

"$LAB_DIR/base.sh"
if [ "$kind" = stock ]; then
	want=$(git -C "$TREE" rev-parse "$BASE_TAG^{commit}")
else
	want=$("$LAB_DIR/apply.sh")
fi

# Source worktree at the wanted commit. checkout only rewrites files that differ, so make
# rebuilds only what the series change touched.
src=$(src_dir "$name")
out=$(build_dir "$name")
if [ ! -e "$src/.git" ]; then
	rm -rf "$src"
	git -C "$TREE" worktree prune
	say "build $name: checking out $src"
	git -C "$TREE" worktree add -q --detach "$src" "$want"
elif [ "$(git -C "$src" rev-parse HEAD)" != "$want" ] || [ -n "$(git -C "$src" status --porcelain)" ]; then
	git -C "$src" checkout -q -f --detach "$want"
	git -C "$src" clean -q -fdx
fi
mkdir -p "$out"

# Config: tinyconfig + lab.config + series.config (+ variant), regenerated only when an
# input changed.
stamp=$(cat "${frags[@]}" | sha256sum | cut -c1-16)-$(git -C "$src" rev-parse HEAD | cut -c1-12)
mk=(make -C "$src" O="$out" ARCH=x86_64 LOCALVERSION="-$name" CC="ccache gcc")
if [ ! -f "$out/.config" ] || [ "$(cat "$out/.lab-config" 2>/dev/null)" != "$stamp" ]; then
	say "build $name: configuring (tinyconfig + lab fragments)"
	"${mk[@]}" -s tinyconfig >/dev/null
	"$src/scripts/kconfig/merge_config.sh" -m -O "$out" "$out/.config" "${frags[@]}" >"$out/merge.log" 2>&1 ||
		{ cat "$out/merge.log" >&2; die "merge_config failed"; }
	"${mk[@]}" -s olddefconfig >/dev/null
	"$LAB_DIR/checkconfig.py" "$out/.config" "$src" "$kind" "${frags[@]}"
	echo "$stamp" >"$out/.lab-config"
fi

# Build with a heartbeat: the full log goes to build.log.
ccache -z -d "$CCACHE_DIR" >/dev/null 2>&1 || true
export CCACHE_BASEDIR=$LAB_CACHE CCACHE_MAXSIZE=${CCACHE_MAXSIZE:-8G}
say "build $name: make bzImage -j$(nproc) (log: $out/build.log)"
start=$(date +%s)
"${mk[@]}" -j"$(nproc)" bzImage >"$out/build.log" 2>&1 &
pid=$!
t=0
while kill -0 "$pid" 2>/dev/null; do
	sleep 1
	t=$((t + 1))
	[ $((t % 30)) -eq 0 ] &&
		say "build $name: $(grep -c '^  CC ' "$out/build.log" || true) objects compiled, $(( $(date +%s) - start ))s"
done
if ! wait "$pid"; then
	grep -E 'error|Error' "$out/build.log" | head -20 >&2
	die "build $name failed; see $out/build.log"
fi
say "build $name: done in $(( $(date +%s) - start ))s; $(ccache -s 2>/dev/null | grep -iE '^ *(hits|misses):' | tr -s ' ' | paste -sd' ')"

# The kselftests the series adds or changes, built for the guest (which runs the host's
# userspace) into $out/kselftest/<dir>.
rm -rf "$out/kselftest"
for d in $(git -C "$src" diff --name-only "$BASE_TAG" HEAD -- tools/testing/selftests | cut -d/ -f4 | sort -u); do
	[ -f "$src/tools/testing/selftests/$d/Makefile" ] || continue
	mkdir -p "$out/kselftest/$d"
	make -s -C "$src/tools/testing/selftests/$d" OUTPUT="$out/kselftest/$d" >"$out/kselftest-$d.log" 2>&1 ||
		{ cat "$out/kselftest-$d.log" >&2; die "kselftest $d does not build"; }
	say "build $name: kselftest $d built"
done
echo "$out/arch/x86/boot/bzImage"
