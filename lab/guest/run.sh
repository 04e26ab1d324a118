#!/bin/bash
# In the guest: run CMD with its output in OUTDIR/guest.log and its exit status in OUTDIR/rc;
# the kernel log of the whole boot goes to OUTDIR/dmesg.log (lab/vm.sh scans it for splats).
#   run.sh OUTDIR CMD [ARG...]
outdir=$1
shift
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export LAB_OUT="$outdir"
"$@" >"$outdir/guest.log" 2>&1
rc=$?
dmesg >"$outdir/dmesg.log" 2>&1
echo "$rc" >"$outdir/rc.tmp" && mv "$outdir/rc.tmp" "$outdir/rc"
sync
exit "$rc"
