#!/bin/bash
# results/exec-probe/run-many.sh: boot stock, then patched, run probe-many.sh in each (eight
# programs run from NFS, their READs traced) and compare the pages each kernel READ
# (analyze-many.py). Needs both lab kernels built. REPS=N boots each kernel N times (default 1;
# the pages READ were the same in every pass of probe.sh, the seconds are one run each).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=${LAB_OUT_DIR:-/tmp/exec-probe-many}
dirs=()
for rep in $(seq 1 "${REPS:-1}"); do
	for kind in ${KINDS:-stock patched}; do
		"$here/../../lab/vm.sh" "$kind" "$out/$kind.$rep" "$here/probe-many.sh"
		cat "$out/$kind.$rep/guest.log"
		dirs+=("$out/$kind.$rep")
	done
done
python3 "$here/analyze-many.py" "${dirs[@]}"
