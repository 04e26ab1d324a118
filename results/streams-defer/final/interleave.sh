#!/bin/bash
# interleave.sh OUT ROUNDS SCENARIO KERNEL... : boot builds of the patched kernel in turn,
# ROUNDS times, each running SCENARIO (one repetition) with lab/bench.py --kernels patched,
# into OUT/<kernel>-<round>. KERNEL is a name whose bzImage is /tmp/bz-<name>/bzImage; it is
# copied over LAB_CACHE/patched/build's for the boot, and that one is put back at the end.
set -euo pipefail
out=$1 rounds=$2 scen=$3; shift 3
repo=$(cd "$(dirname "$0")/../../.." && pwd)
cache=${LAB_CACHE:-$HOME/.cache/nfsra-lab}
img=$cache/patched/build/arch/x86/boot/bzImage
cp "$img" "$out.orig-bzImage" 2>/dev/null || { mkdir -p "$(dirname "$out")"; cp "$img" "$out.orig-bzImage"; }
trap 'cp "$out.orig-bzImage" "$img"' EXIT
for r in $(seq 1 "$rounds"); do
	for k in "$@"; do
		[ -d "$out/$k-$r/raw" ] && [ -f "$out/$k-$r/summary.csv" ] && continue
		cp "/tmp/bz-$k/bzImage" "$img"
		"$cache/venv/bin/python" "$repo/lab/bench.py" --no-build --kernels patched \
			--out "$out/$k-$r" "$scen"
	done
done
