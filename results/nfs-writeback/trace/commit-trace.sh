#!/bin/bash
# Where do COMMITs go in a 1G-threshold write? (issue 15 analysis; run in the guest:
#   lab/vm.sh KIND OUT /work/main/results/nfs-writeback/trace/commit-trace.sh OUT/r CASE, absolute paths)
# Two dd-like writers of 1 MiB over NFSv4.2, client threshold 1 GiB (the mount's bdi,
# strict_limit), server idle (as nfs-writeback's dirty_mb = 0), ext4 on an HDD-like null_blk.
# Always traced: nfs:nfs_initiate_commit, nfs:nfs_commit_done, ext4:ext4_sync_file_enter/exit.
# CASE  fsync      30 s (what ct-analyze.py reads: COMMIT sent -> server fsync -> done)
#       stacks     6 s, with the stack of every nfs_initiate_commit
#       writeback  6 s, with writeback:writeback_start, writeback_single_inode, nfs_writeback_done
#       slots      10 s, with sunrpc:rpc_request, rpc_task_sleep, rpc_task_wakeup (where RPCs wait)
set -u
. /work/main/lab/guest/lib.sh
OUT=${1:?usage: commit-trace.sh OUT fsync|stacks|writeback|slots}
CASE=${2:?usage: commit-trace.sh OUT fsync|stacks|writeback|slots}
case $CASE in fsync) secs=30 ;; stacks | writeback) secs=6 ;; slots) secs=10 ;; *) lab_die "unknown case '$CASE'" ;; esac
mkdir -p "$OUT"
lab_storage ext4 3072 4000000 150
lab_link 0
lab_nfsd
lab_mount_budget 4.2 $((1 << 30)) rsize=1048576,wsize=1048576
T=/sys/kernel/tracing
mountpoint -q $T || mount -t tracefs none $T
for e in nfs/nfs_initiate_commit nfs/nfs_commit_done ext4/ext4_sync_file_enter ext4/ext4_sync_file_exit; do
	echo 1 >"$T/events/$e/enable"
done
case $CASE in
stacks) echo stacktrace >$T/events/nfs/nfs_initiate_commit/trigger ;;
writeback)
	for e in writeback/writeback_single_inode writeback/writeback_start nfs/nfs_writeback_done; do
		echo 1 >"$T/events/$e/enable"
	done
	;;
slots)
	for e in sunrpc/rpc_request sunrpc/rpc_task_sleep sunrpc/rpc_task_wakeup; do
		echo 1 >"$T/events/$e/enable"
	done
	;;
esac
echo 65536 >$T/buffer_size_kb
echo >$T/trace
echo 1 >$T/tracing_on
( while :; do
	printf '%s %s %s\n' "$(cut -d' ' -f1 /proc/uptime)" "$(awk '$3=="labdisk"{print $10}' /proc/diskstats) $(cat /sys/class/net/srv/statistics/rx_bytes 2>/dev/null)" \
		"$(grep -E 'BdiWriteback|BdiReclaimable' /sys/kernel/debug/bdi/"$(mountpoint -d "$MNT")"/stats | awk '{printf "%s ", $2}')"
	sleep 0.1
done ) >"$OUT/samples.txt" &
sp=$!
fio --name=w --directory="$MNT" --filename_format='wb.$jobnum' --numjobs=2 --rw=write --bs=1m --size=1024m \
	--ioengine=psync --time_based --runtime=$secs --end_fsync=1 --create_on_open=1 >"$OUT/fio.txt" 2>&1
kill $sp
echo 0 >$T/tracing_on
cat $T/trace >"$OUT/trace.txt"
grep -c nfs_initiate_commit "$OUT/trace.txt"
cat /proc/uptime
