#!/bin/bash
T=/sys/kernel/tracing
mountpoint -q $T || mount -t tracefs none $T
echo 0 > $T/tracing_on
echo 100000 > $T/buffer_size_kb
echo 1 > $T/events/readahead/page_cache_ra_pattern/enable
echo 1 > $T/tracing_on
/work/main/lab/guest/bench.py "$LAB_OUT"
rc=$?
echo 0 > $T/tracing_on
cat $T/trace > "$LAB_OUT/trace.txt"
exit $rc
