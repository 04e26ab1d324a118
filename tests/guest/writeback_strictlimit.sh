#!/bin/bash
# Patch 26: a strictlimit wb starts background writeback at its own background threshold.
# balance_dirty_pages() woke the flusher of a strict_limit bdi only past the global background
# threshold (which such a bdi may never reach) or past the bdi's freerun ceiling; between the
# bdi's background threshold and that ceiling only the periodic kupdate work (every 5 s)
# started its writeback, although the flusher, once started, writes down to that threshold.
# On the lab's NFS mounts (their dirty budget is a strict bdi limit) the link idled about 1 s
# at a time while a 4 KiB writer dirtied its way across that band (nfs-writeback-4k, 1G).
# Here: ext4 on a fast null_blk, the disk's bdi with a 64 MiB strict budget (background
# threshold 32 MiB, freerun ceiling 48 MiB), kupdate disabled so that nothing else writes:
#   - 24 MiB dirty (below the threshold): nothing written in 2 s (nothing new starts early);
#   - 44 MiB dirty (past it, below the ceiling): the flusher brings it down to the threshold
#     at least (stock 6.12: all 44 MiB still dirty after 2 s).
set -u
. "$(dirname "$0")/../../lab/guest/lib.sh"
. "$(dirname "$0")/../../lab/guest/tap.sh"

BUDGET=$((64 << 20))
lab_storage ext4 512
bdi=$(lab_bdi "$EXPORT")
mountpoint -q /sys/kernel/debug || mount -t debugfs none /sys/kernel/debug
stats=/sys/kernel/debug/bdi/$(basename "$bdi")/stats
[ -r "$stats" ] || lab_die "no $stats"
kupdate=$(cat /proc/sys/vm/dirty_writeback_centisecs)
echo 0 >/proc/sys/vm/dirty_writeback_centisecs
lab_bdi_budget "$bdi" $BUDGET
stat_kb() { awk -v k="$1:" '$1 == k { print $2 }' "$stats"; }

# The bdi's background threshold as balance_dirty_pages() computes it: its dirty threshold
# scaled by the global background/dirty ratio.
bg_kb=$(( $(stat_kb BdiDirtyThresh) * $(stat_kb BackgroundThresh) / $(stat_kb DirtyThresh) ))
diag "bdi $(basename "$bdi"): dirty threshold $(stat_kb BdiDirtyThresh) kB, background $bg_kb kB"
if [ "$bg_kb" -lt $((28 << 10)) ] || [ "$bg_kb" -gt $((36 << 10)) ]; then
	lab_die "the bdi's background threshold is $bg_kb kB, not about 32 MiB: the test cannot reach its case"
fi

# dirty MIB NAME: MIB MiB of dirty page cache in a new file, no sync; then 2 s for a flusher.
dirty() {
	dd if=/dev/zero of="$EXPORT/$2" bs=1M count="$1" status=none || lab_die "dd failed"
	sleep 2
	stat_kb BdiReclaimable
}

below=$(dirty 24 below)
diag "24 MiB written, after 2 s dirty: $below kB"
[ "$below" -ge $((23 << 10)) ]
ok $? "below the bdi's background threshold nothing is written back early ($below kB of 24 MiB still dirty)"
sync
[ "$(stat_kb BdiReclaimable)" -le 1024 ] || lab_die "sync left $(stat_kb BdiReclaimable) kB dirty"

past=$(dirty 44 past)
diag "44 MiB written, after 2 s dirty: $past kB (threshold $bg_kb kB)"
[ "$past" -le $((bg_kb + 2048)) ]
ok $? "past the bdi's background threshold the flusher starts without kupdate and writes down to it ($past kB dirty)"

echo "$kupdate" >/proc/sys/vm/dirty_writeback_centisecs
echo 0 >"$bdi/strict_limit"
rm -f "$EXPORT/below" "$EXPORT/past"
no_splat
tap_done
