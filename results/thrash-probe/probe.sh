#!/bin/bash
# 300 slow streams in a 96 MiB cgroup (fio's setup outside it) on the HDD-like null_blk:
# every readahead decision of every stream, the cgroup's memory.stat and the readers blocked
# waiting for a request slot, every 2 s. Writes to $1 (the vm.sh OUTDIR). BLK=1 traces the page
# cache and the block layer as well: every page added to and deleted from the disk's page cache
# (mm_filemap_*), every bio queued, request got, issued and completed (block_*), in a 1 GiB
# buffer per CPU; timeline.py reads that trace.
set -eu
out=$1
. /work/main/lab/guest/lib.sh
lab_mounts
# fio moves into the cgroup once its job segment is attached, as the lab's fio() does.
N=${N:-300} MEM=${MEM:-96} RUNTIME=${RUNTIME:-40} FILE_MB=${FILE_MB:-8}
d=$NULLB/labdisk
mkdir "$d"; echo 1 >"$d/memory_backed"; echo $((N * FILE_MB + 256)) >"$d/size"; echo 4096 >"$d/blocksize"
echo 2 >"$d/irqmode"; echo 8000000 >"$d/completion_nsec"; echo 100 >"$d/mbps"; echo 1 >"$d/hw_queue_depth"
echo 2560 >"$d/max_sectors"; echo 1 >"$d/power"
echo "scheduler $(cat /sys/block/labdisk/queue/scheduler) nr_requests $(cat /sys/block/labdisk/queue/nr_requests) ra $(cat /sys/block/labdisk/queue/read_ahead_kb) ${RA_KB:-}"
[ -n "${RA_KB:-}" ] && echo "$RA_KB" >/sys/block/labdisk/queue/read_ahead_kb
[ -n "${NR_REQ:-}" ] && echo "$NR_REQ" >/sys/block/labdisk/queue/nr_requests && echo "nr_requests now $(cat /sys/block/labdisk/queue/nr_requests)"
mkfs.ext4 -q -F -E lazy_itable_init=0,lazy_journal_init=0 /dev/labdisk
mkdir -p /srv/x; mount /dev/labdisk /srv/x; mkdir /srv/x/s
for i in $(seq 0 $((N - 1))); do head -c $((FILE_MB << 20)) /dev/urandom >/srv/x/s/s.$i; done
sync; echo 3 >/proc/sys/vm/drop_caches
mkdir -p /sys/fs/cgroup; mountpoint -q /sys/fs/cgroup || mount -t cgroup2 none /sys/fs/cgroup
echo +memory >/sys/fs/cgroup/cgroup.subtree_control
mkdir /sys/fs/cgroup/w; echo "${MEM}M" >/sys/fs/cgroup/w/memory.max
T=/sys/kernel/tracing
if [ "${BLK:-0}" = 1 ]; then
	for e in filemap/mm_filemap_add_to_page_cache filemap/mm_filemap_delete_from_page_cache block/block_bio_queue block/block_getrq block/block_rq_issue block/block_rq_complete; do [ -d $T/events/$e ] && echo 1 >$T/events/$e/enable || echo "no event $e"; done
	sdev=$(( ($(stat -c %d /srv/x/s/s.0) >> 8 << 20) | ($(stat -c %d /srv/x/s/s.0) & 255) ))
	for e in mm_filemap_add_to_page_cache mm_filemap_delete_from_page_cache; do echo "s_dev == $sdev" >$T/events/filemap/$e/filter; done
fi
if [ -d $T/events/readahead/page_cache_ra_pattern ]; then
	echo "dev == $(( ($(stat -c %d /srv/x/s/s.0) >> 8 << 20) | ($(stat -c %d /srv/x/s/s.0) & 255) ))" \
		>$T/events/readahead/page_cache_ra_pattern/filter 2>/dev/null || true
	echo 1 >$T/events/readahead/page_cache_ra_pattern/enable
fi
if [ "${BLK:-0}" = 1 ]; then echo 1048576; else echo 262144; fi >$T/buffer_size_kb
echo 0 >/sys/kernel/debug/readahead/stats 2>/dev/null || true
grep -E "workingset_refault_file|pgpgin" /proc/vmstat >"$out/vmstat.before"
fio --name=s --directory=/srv/x/s --filename_format='s.$jobnum' --numjobs="$N" --thread \
	--group_reporting --rw=read --bs=4k --ioengine=psync --runtime="$RUNTIME" --rate=200k \
	--fadvise_hint=0 --invalidate=1 --startdelay=11 --output-format=terse >/tmp/fio.out 2>&1 &
pid=$!
until awk -v p=$pid '$5 == p {f=1} END {exit !f}' /proc/sysvipc/shm; do sleep 0.1; done
sleep 0.5
echo $pid >/sys/fs/cgroup/w/cgroup.procs
(
	sleep 6
	for _ in $(seq 1 $((RUNTIME / 2))); do
		t=$(cut -d' ' -f1 /proc/uptime)
		m=$(awk '/^(anon|file|kernel|shmem|inactive_file|active_file|file_writeback) /{printf "%s=%d ", $1, $2/1048576}' /sys/fs/cgroup/w/memory.stat)
		w=$(for f in /proc/$pid/task/*/wchan; do cat "$f" 2>/dev/null; echo; done | sort | uniq -c | sort -rn | head -4 | awk '{printf "%s:%s ", $2, $1}')
		echo "$t $m cur=$(( $(cat /sys/fs/cgroup/w/memory.current) >> 20 )) wchan $w"
		sleep 2
	done
) >"$out/samples.txt" 2>&1 &
wait $pid || true
echo 0 >$T/events/readahead/page_cache_ra_pattern/enable 2>/dev/null || true
if [ "${BLK:-0}" = 1 ]; then echo 0 >$T/events/enable; cat $T/per_cpu/cpu*/stats | grep -i overrun; fi
echo "fio: $(cut -d';' -f7 /tmp/fio.out) KB/s"
grep -E "workingset_refault_file|pgpgin" /proc/vmstat
cat /sys/kernel/debug/readahead/stats 2>/dev/null || true
cat /sys/block/labdisk/stat
grep -v "^#" $T/trace >"$out/trace.txt" || true
wc -l "$out/trace.txt"
