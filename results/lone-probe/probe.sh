#!/bin/bash
# One NFS 4 KiB sequential reader alone in a small memory cgroup (nfs-ra-lone-memcg's point):
# every readahead decision (patched), the cgroup's memory.stat every second, the READs.
# vm.sh KIND OUT env DELAY=20 MEM=32 RUNTIME=8 bash $PWD/results/lone-probe/probe.sh OUT
set -eu
out=$1
. /work/main/lab/guest/lib.sh
DELAY=${DELAY:-20} MEM=${MEM:-32} RUNTIME=${RUNTIME:-8}
lab_storage ext4 512
lab_file "$EXPORT/f" 256
sync
cat "$EXPORT/f" >/dev/null
lab_link "$DELAY"
lab_nfsd
lab_mount 4.2 rsize=1048576
bdi=$(lab_bdi "$MNT")
echo "kernel $(uname -r) read_ahead_kb $(cat "$bdi/read_ahead_kb") rtt $(lab_rtt) ms mem ${MEM}M"
lab_memcg w "$((MEM << 20))"
T=/sys/kernel/tracing
echo 65536 >$T/buffer_size_kb
echo >$T/trace
[ -d $T/events/readahead/page_cache_ra_pattern ] && echo 1 >$T/events/readahead/page_cache_ra_pattern/enable
echo 0 >/sys/kernel/debug/readahead/stats 2>/dev/null || true
(
	for _ in $(seq 1 $((RUNTIME + 3))); do
		t=$(cut -d' ' -f1 /proc/uptime)
		m=$(awk '/^(anon|file|kernel|sock|shmem|inactive_file|active_file|file_writeback|workingset_refault_file) /{printf "%s=%d ", $1, $2/1024}' /sys/fs/cgroup/w/memory.stat)
		echo "$t cur=$(( $(cat /sys/fs/cgroup/w/memory.current) >> 10 ))K $m"
		sleep 1
	done
) >"$out/samples.txt" 2>&1 &
in_memcg w nsenter --net=/run/netns/cli timeout -s INT "$RUNTIME" dd if="$MNT/f" of=/dev/null bs=4k 2>"$out/dd.txt" || true
cat "$out/dd.txt"
echo 0 >$T/events/readahead/page_cache_ra_pattern/enable 2>/dev/null || true
wait
grep -v '^#' $T/trace >"$out/trace.txt" || true
cat /sys/kernel/debug/readahead/stats 2>/dev/null | head -30 || true
# The NFS mount's READs (its own section of mountstats, not the first mount's).
in_cli awk -v mnt="$MNT" '$1 == "device" { m = ($5 == mnt) } m && $1 == "READ:" { print; exit }' \
	/proc/self/mountstats
