#!/bin/bash
# In the guest: run CMD with its output in OUTDIR/guest.log and its exit status in OUTDIR/rc.
#   run.sh OUTDIR CMD [ARG...]
outdir=$1
shift
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export LAB_OUT="$outdir"
"$@" >"$outdir/guest.log" 2>&1
rc=$?
echo "$rc" >"$outdir/rc.tmp" && mv "$outdir/rc.tmp" "$outdir/rc"
sync
exit "$rc"
