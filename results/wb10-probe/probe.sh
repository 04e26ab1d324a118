#!/bin/bash
# Issue 15's remaining gap: ten 1 MiB dd-like writers over NFSv4.2 at a 1 GiB client dirty
# budget (nfs-writeback's dirty=1g/writers=10 point, writeback_cs = 1), where the patched mount
# sent 2229 COMMITs of 1.5 MiB on average against stock's 91 of 34 MiB
# (results/nfs-writeback-flusher/). Traces every COMMIT with the kernel stack that sent it,
# and every writepages call of the flusher (writeback_single_inode: pages asked and written),
# so the COMMITs can be counted by their origin.
#   vm.sh KIND OUT env RUNTIME=30 WRITERS=10 bash $PWD/results/wb10-probe/probe.sh OUT
set -u
out=$1
. "/work/main/lab/guest/lib.sh"
RUNTIME=${RUNTIME:-30} WRITERS=${WRITERS:-10} BUDGET=$((${BUDGET_MB:-1024} << 20))
lab_storage ext4 3072 4000 150
lab_link 0
lab_nfsd
lab_mount_budget 4.2 $BUDGET rsize=1048576,wsize=1048576
echo 1 >/proc/sys/vm/dirty_writeback_centisecs
echo "kernel $(uname -r) budget $BUDGET writers $WRITERS"
T=/sys/kernel/tracing
[ -d $T/events ] || mount -t tracefs none $T
echo mono >$T/trace_clock
echo 262144 >$T/buffer_size_kb
echo >$T/trace
for e in writeback/writeback_start writeback/writeback_written writeback/writeback_single_inode \
	nfs/nfs_initiate_commit nfs/nfs_commit_done nfs/nfs_fsync_enter nfs/nfs_fsync_exit; do
	[ -d $T/events/$e ] && echo 1 >$T/events/$e/enable
done
echo stacktrace >$T/events/nfs/nfs_initiate_commit/trigger
sleep 1
fio --name=w --directory="$MNT" --filename_format='wb.$jobnum' --numjobs="$WRITERS" --group_reporting \
	--rw=write --bs=1m --size=$((2048 / WRITERS))m --ioengine=psync --time_based --runtime="$RUNTIME" \
	--end_fsync=1 --fallocate=none --create_on_open=1 >"$out/fio.txt" 2>&1
echo "fio rc $? $(grep -o 'bw=[^,]*' "$out/fio.txt" | head -1)"
echo 0 >$T/tracing_on
grep -v '^#' $T/trace | gzip >"$out/trace.txt.gz"
echo "COMMITs traced: $(zcat "$out/trace.txt.gz" | grep -c 'nfs_initiate_commit:')"
echo "COMMITs counted: $(grep -E '^\s+COMMIT:' /proc/self/mountstats | head -1)"
