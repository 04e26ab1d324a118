#!/bin/bash
# results/exec-probe/run.sh: boot stock and patched once each, run probe.sh in each, and print
# the READs each pass sent (analyze.py). Needs both lab kernels built.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=${LAB_OUT_DIR:-/tmp/exec-probe}
for kind in ${KINDS:-stock patched}; do
	"$here/../../lab/vm.sh" "$kind" "$out/$kind" "$here/probe.sh"
	cat "$out/$kind/guest.log"
done
python3 "$here/analyze.py" "$out"
