#!/bin/bash
# Issue 15's random-write case (nfs-writeback-random.toml's dirty=1g point): fio 4 KiB random
# buffered writes to one 2 GiB file over NFSv4.2 with a 1 GiB strict budget, then fsync.
# Samples every 50 ms the mount's bdi (dirty, writeback incl. unstable), its WRITE and COMMIT
# counts, the server disk's written sectors and the bdi's write bandwidth estimate; traces
# the writeback and NFS write/commit events.
#   vm.sh KIND OUT env RUNTIME=30 BS=4k bash $PWD/results/wbrand-probe/probe.sh OUT
set -u
out=$1
. "/work/main/lab/guest/lib.sh"
RUNTIME=${RUNTIME:-30} BS=${BS:-4k} BUDGET=$((${BUDGET_MB:-1024} << 20))
lab_storage ext4 3072 4000 150
lab_link 0
lab_nfsd
lab_mount_budget 4.2 $BUDGET rsize=1048576,wsize=1048576
bdi=$(basename "$(lab_bdi "$MNT")")
mountpoint -q /sys/kernel/debug || mount -t debugfs none /sys/kernel/debug
stats=/sys/kernel/debug/bdi/$bdi/stats
echo "kernel $(uname -r) bdi $bdi budget $BUDGET bs $BS"
python3 - "$stats" "$((RUNTIME + 25))" >"$out/samples.txt" <<'PY' &
import re, sys, time
end = time.monotonic() + int(sys.argv[2])
def sectors():
    return int(open("/sys/block/labdisk/stat").read().split()[6])
while time.monotonic() < end:
    st = dict(re.findall(r"^(\w+):\s+(\d+) kB", open(sys.argv[1]).read(), re.M))
    ms = open("/proc/self/mountstats").read()
    w = re.search(r"^\s+WRITE: (\d+) \d+ \d+ (\d+)", ms, re.M)
    c = re.search(r"^\s+COMMIT: (\d+)", ms, re.M)
    print("%.3f" % time.monotonic(), st["BdiReclaimable"], st["BdiWriteback"], w.group(1) if w else 0,
          c.group(1) if c else 0, sectors(), st.get("BdiWriteBandwidth", 0), flush=True)
    time.sleep(0.05)
PY
sampler=$!
T=/sys/kernel/tracing
[ -d $T/events ] || mount -t tracefs none $T
echo mono >$T/trace_clock
echo 131072 >$T/buffer_size_kb
echo >$T/trace
for e in writeback/writeback_start writeback/writeback_written writeback/writeback_wait writeback/writeback_single_inode \
	writeback/writeback_queue writeback/writeback_wake_background writeback/global_dirty_state \
	nfs/nfs_initiate_commit nfs/nfs_commit_done nfs/nfs_initiate_write nfs/nfs_writeback_done \
	nfs/nfs_fsync_enter nfs/nfs_fsync_exit nfs/nfs_writeback_inode_enter nfs/nfs_writeback_inode_exit; do
	[ -d $T/events/$e ] && echo 1 >$T/events/$e/enable
done
# balance_dirty_pages fires on every throttling: keep only the pauses.
echo 'pause > 0' >$T/events/writeback/balance_dirty_pages/filter
echo 1 >$T/events/writeback/balance_dirty_pages/enable
sleep 1
fio --name=w --directory="$MNT" --filename=wb.0 --rw=randwrite --bs="$BS" --size=2048m --randrepeat=0 \
	--ioengine=psync --time_based --runtime="$RUNTIME" --end_fsync=1 --fallocate=none \
	--create_on_open=1 >"$out/fio.txt" 2>&1
echo "fio rc $? $(grep -o 'bw=[^,]*' "$out/fio.txt" | head -1)"
echo "fio done $(cut -d' ' -f1 /proc/uptime)"
kill $sampler 2>/dev/null
echo 0 >$T/tracing_on
grep -v '^#' $T/trace >"$out/trace.txt"
wc -l "$out/trace.txt" "$out/samples.txt"
