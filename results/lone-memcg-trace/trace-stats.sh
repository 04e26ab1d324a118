#!/bin/bash
# One 4 KiB NFS reader alone in a 32 or 64 MiB memory cgroup at 20 ms each way: every
# readahead decision (page_cache_ra_pattern), the stats, the cgroup's memory.stat.
set -u
OUT=$1
. "$(dirname "$0")/../../lab/guest/lib.sh"
lab_storage ext4 1024
lab_link "${DELAY:-20}"
lab_nfsd
lab_file "$EXPORT/big" 256
sync
lab_rtt
T=/sys/kernel/tracing
for mb in ${SIZES:-32 64}; do
	lab_mount 4.2 rsize=1048576
	lab_memcg lone $((mb << 20))
	echo 0 >/sys/kernel/debug/readahead/stats
	echo 65536 >$T/buffer_size_kb
	echo >$T/trace
	echo 1 >$T/events/readahead/page_cache_ra_pattern/enable
	echo 1 >$T/tracing_on
	in_memcg lone fio --name=r --filename="$MNT/big" --rw=read --bs=4k --ioengine=psync \
		--runtime=8 --time_based --output="$OUT/fio-$mb.txt"
	echo 0 >$T/tracing_on
	echo 0 >$T/events/readahead/page_cache_ra_pattern/enable
	cp $T/trace "$OUT/trace-$mb.txt"
	cat /sys/kernel/debug/readahead/stats >"$OUT/rastats-$mb.txt"
	cat /sys/fs/cgroup/lone/memory.stat >"$OUT/memstat-$mb.txt"
	grep -o 'bw=[^,]*' "$OUT/fio-$mb.txt"
	umount "$MNT"
	rmdir /sys/fs/cgroup/lone 2>/dev/null || true
	lab_drop_caches
done
