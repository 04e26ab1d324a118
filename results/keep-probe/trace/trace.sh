#!/bin/bash
# 300 slow streams in a 96 MiB cgroup (fio's setup outside it): readahead decisions of 3 streams.
set -eu
. /work/main/lab/guest/lib.sh
lab_mounts
d=$NULLB/labdisk
mkdir "$d"; echo 1 >"$d/memory_backed"; echo 1500 >"$d/size"; echo 4096 >"$d/blocksize"
echo 2 >"$d/irqmode"; echo 8000000 >"$d/completion_nsec"; echo 100 >"$d/mbps"; echo 1 >"$d/hw_queue_depth"
echo 1 >"$d/power"
mkfs.ext4 -q -F -E lazy_itable_init=0,lazy_journal_init=0 /dev/labdisk
mkdir -p /srv/x; mount /dev/labdisk /srv/x; mkdir /srv/x/s
for i in $(seq 0 299); do head -c 3145728 /dev/zero | tr '\0' 'a' >/srv/x/s/s.$i; done
sync; echo 3 >/proc/sys/vm/drop_caches
mkdir -p /sys/fs/cgroup; mountpoint -q /sys/fs/cgroup || mount -t cgroup2 none /sys/fs/cgroup
echo +memory >/sys/fs/cgroup/cgroup.subtree_control
mkdir /sys/fs/cgroup/w; echo ${MEM:-96}M >/sys/fs/cgroup/w/memory.max
T=/sys/kernel/tracing
dev=$(( ($(stat -c %d /srv/x/s/s.0) >> 8 << 20) | ($(stat -c %d /srv/x/s/s.0) & 255) ))
f=""
for i in 0 150 299; do f="$f${f:+ || }i_ino == $(stat -c %i /srv/x/s/s.$i)"; done
echo "($f)" >$T/events/readahead/page_cache_ra_pattern/filter
echo 1 >$T/events/readahead/page_cache_ra_pattern/enable
echo 65536 >$T/buffer_size_kb
for i in 0 150 299; do echo "s.$i ino $(stat -c %i /srv/x/s/s.$i)"; done
fio --name=s --directory=/srv/x/s --filename_format='s.$jobnum' --numjobs=300 --thread \
	--group_reporting --rw=read --bs=4k --ioengine=psync --runtime=${RUNTIME:-40} --rate=200k \
	--fadvise_hint=0 --invalidate=1 --startdelay=11 --output-format=terse >/tmp/fio.out 2>&1 &
pid=$!
sleep 5
echo $pid >/sys/fs/cgroup/w/cgroup.procs
wait $pid || true
echo 0 >$T/events/readahead/page_cache_ra_pattern/enable
echo "fio: $(cut -d';' -f7 /tmp/fio.out) KB/s"
cat /sys/kernel/debug/readahead/stats 2>/dev/null || true
grep -E "workingset_refault_file|pgpgin" /proc/vmstat
cat $T/trace | grep -v "^#" | sed 's/^ *//' | cut -c1-220
