#!/bin/bash
# sample the workload cgroup's memory.stat every 50 ms while the bench runs; trace ra events
T=/sys/kernel/tracing
mountpoint -q $T || mount -t tracefs none $T
echo 0 > $T/tracing_on
echo 100000 > $T/buffer_size_kb
echo 1 > $T/events/readahead/page_cache_ra_pattern/enable 2>/dev/null
echo 1 > $T/tracing_on
(
  CG=/sys/fs/cgroup/lab-work
  while :; do
    if [ -f $CG/memory.stat ] && [ -n "$(cat $CG/cgroup.procs 2>/dev/null)" ]; then
      echo "T $(cat /proc/uptime | cut -d' ' -f1) cur $(cat $CG/memory.current) max $(cat $CG/memory.max) $(grep -E '^(anon|file|kernel|kernel_stack|pagetables|percpu|sock|shmem|slab|inactive_file|active_file|workingset_refault_file|pgscan|pgsteal) ' $CG/memory.stat | tr '\n' ' ')"
    fi
    sleep 0.05
  done
) > "$LAB_OUT/memstat.txt" 2>&1 &
S=$!
chrt -f -p 2 $S
/work/main/lab/guest/bench.py "$LAB_OUT"
rc=$?
kill $S
echo 0 > $T/tracing_on
cat $T/trace > "$LAB_OUT/trace.txt"
exit $rc
