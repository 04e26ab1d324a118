#!/bin/bash
d=$1
T=/sys/kernel/tracing
mountpoint -q $T || mount -t tracefs none $T
echo 65536 >$T/buffer_size_kb
echo 1 >$T/events/nfsd/nfsd_write_prealloc/enable
echo 1 >$T/events/nfsd/nfsd_prealloc_release/enable
/work/main/lab/guest/bench.py "$d"
rc=$?
cp $T/trace "$d/trace.txt"
exit $rc
