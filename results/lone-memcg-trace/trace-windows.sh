#!/bin/bash
# One 4 KiB NFS reader alone in a 32 MiB memory cgroup at 20 ms each way, with the mount's
# read_ahead_kb and smaller ones: throughput and the share of short windows.
set -u
OUT=$1
. "$(dirname "$0")/../../lab/guest/lib.sh"
lab_storage ext4 1024
lab_link "${DELAY:-20}"
lab_nfsd
lab_file "$EXPORT/big" 256
sync
echo "rtt $(lab_rtt)"
T=/sys/kernel/tracing
for ra in ${RAS:-default 4096 2048}; do
	for mb in ${SIZES:-32}; do
		lab_mount 4.2 rsize=1048576
		bdi=$(lab_bdi "$MNT")
		echo "mount: rsize $(lab_mount_opt "$MNT" rsize) read_ahead_kb $(cat "$bdi/read_ahead_kb")"
		[ "$ra" = default ] || echo "$ra" >"$bdi/read_ahead_kb"
		lab_memcg lone $((mb << 20))
		echo >$T/trace
		echo 1 >$T/events/readahead/page_cache_ra_pattern/enable
		echo 1 >$T/tracing_on
		in_memcg lone fio --name=r --filename="$MNT/big" --rw=read --bs=4k --ioengine=psync \
			--runtime=8 --time_based ${FIO_EXTRA:-} --output="$OUT/fio-$ra-$mb.txt"
		echo 0 >$T/tracing_on
		echo 0 >$T/events/readahead/page_cache_ra_pattern/enable
		grep 'dev=0:' $T/trace >"$OUT/trace-$ra-$mb.txt"
		short=$(grep -c 'pattern=subsequent.*-1 async' "$OUT/trace-$ra-$mb.txt")
		all=$(grep -c 'pattern=subsequent' "$OUT/trace-$ra-$mb.txt")
		echo "read_ahead_kb $ra memcg ${mb}M: $(grep -o 'bw=[^,]*' "$OUT/fio-$ra-$mb.txt") subsequent windows $all, short $short"
		umount "$MNT"
		rmdir /sys/fs/cgroup/lone 2>/dev/null || true
		lab_drop_caches
	done
done
