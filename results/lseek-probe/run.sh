#!/bin/bash
# results/lseek-probe/run.sh: boot stock and patched in turn, 3 boots each, run probe.sh in
# each, and collect its CSV into results/lseek-probe/probe.csv. Needs both lab kernels built.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=${LAB_OUT_DIR:-/tmp/lseek-probe}
echo "kernel,where,pass,seconds,close_seconds,bytes_read,bytes_used,boot" >"$here/probe.csv"
for boot in 1 2 3; do
	for kind in stock patched; do
		"$here/../../lab/vm.sh" "$kind" "$out/$kind-$boot" "$here/probe.sh"
		grep -E '^6\.12' "$out/$kind-$boot/guest.log" | sed "s/\$/,$boot/" >>"$here/probe.csv"
	done
done
cat "$here/probe.csv"
