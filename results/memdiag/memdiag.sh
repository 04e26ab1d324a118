#!/bin/bash
# 300 slow streams (200 KB/s, 4 KiB reads) in a 128 MiB cgroup on an HDD-like null_blk (8 ms, qd 1):
# what the cgroup's memory holds while they run.
set -eu
. /work/main/lab/guest/lib.sh
lab_mounts
d=$NULLB/labdisk
mkdir "$d"; echo 1 >"$d/memory_backed"; echo 2700 >"$d/size"; echo 4096 >"$d/blocksize"
echo 2 >"$d/irqmode"; echo 8000000 >"$d/completion_nsec"; echo 100 >"$d/mbps"; echo 1 >"$d/hw_queue_depth"
echo 1 >"$d/power"
mkfs.ext4 -q -F -E lazy_itable_init=0,lazy_journal_init=0 /dev/labdisk
mkdir -p /srv/x; mount /dev/labdisk /srv/x; mkdir /srv/x/s
for i in $(seq 0 299); do head -c 8388608 /dev/zero | tr '\0' 'a' >/srv/x/s/s.$i; done
sync; echo 3 >/proc/sys/vm/drop_caches
mkdir -p /sys/fs/cgroup; mountpoint -q /sys/fs/cgroup || mount -t cgroup2 none /sys/fs/cgroup
echo +memory >/sys/fs/cgroup/cgroup.subtree_control
mkdir /sys/fs/cgroup/w; echo 128M >/sys/fs/cgroup/w/memory.max
(
	echo $BASHPID >/sys/fs/cgroup/w/cgroup.procs
	exec fio --name=s --directory=/srv/x/s --filename_format='s.$jobnum' --numjobs=300 --thread \
		--group_reporting --rw=read --bs=4k --ioengine=psync --runtime=25 --rate=200k \
		--fadvise_hint=0 --invalidate=1 --output-format=terse >/tmp/fio.out 2>&1
) &
pid=$!
for t in 5 10 15 20; do
	sleep 5
	echo "== t=$t"
	grep -E "^(anon|file|kernel|slab|sock|shmem|file_mapped|active_file|inactive_file|workingset_refault_file|workingset_activate_file|percpu|pagetables|kernel_stack) " /sys/fs/cgroup/w/memory.stat | tr '\n' ' '; echo
	cat /sys/fs/cgroup/w/memory.current
done
wait $pid || true
echo "fio: $(cut -d';' -f7 /tmp/fio.out) KB/s"
