#!/bin/bash
# nfs.readahead_rsize_multiple: a new mount's read_ahead_kb = max(VM default, N x rsize)
# capped at 16 MiB (the VM default is 512 KiB with the series' CONFIG_READAHEAD_DEFAULT_KB);
# N = 0 keeps the VM default; bad values are refused and change nothing; a value written to
# read_ahead_kb survives a second mount of the same export and a remount.
set -u
. "$(dirname "$0")/../../lab/guest/lib.sh"
. "$(dirname "$0")/../../lab/guest/tap.sh"

P=/sys/module/nfs/parameters/readahead_rsize_multiple
[ -f "$P" ] || { echo "not ok 1 - $P missing (is the series applied?)"; echo "1..1"; exit 1; }
is "$(cat "$P")" 4 "default multiple is 4"

lab_storage ext4 64
lab_link 0
lab_nfsd

# ra_after_mount VERS RSIZE: read_ahead_kb of a fresh mount, and the rsize it got.
ra_after_mount() {
	lab_mount "$1" "rsize=$2" || return 1
	echo "$(cat "$(lab_bdi "$MNT")/read_ahead_kb") $(lab_mount_opt "$MNT" rsize)"
	umount "$MNT"
}

# The VM's default window: the series builds with CONFIG_READAHEAD_DEFAULT_KB=512.
VM_KB=512
for vers in 4.2 3; do
	for rsize in 32768 524288 1048576; do
		want=$(( rsize * 4 / 1024 ))
		[ $want -lt $VM_KB ] && want=$VM_KB
		is "$(ra_after_mount $vers $rsize)" "$want $rsize" "v$vers rsize $rsize: read_ahead_kb $want"
	done
done

echo 0 >"$P"
is "$(ra_after_mount 4.2 1048576)" "$VM_KB 1048576" "multiple 0: the VM default, $VM_KB"
echo 16 >"$P"
is "$(ra_after_mount 4.2 1048576)" "16384 1048576" "multiple 16 x 1 MiB: 16384 (the cap)"
echo 2 >"$P"
is "$(ra_after_mount 4.2 524288)" "1024 524288" "multiple 2 x 512 KiB: 1024"

for bad in 17 -1 abc 4x " " 99999999999; do
	printf '%s\n' "$bad" >"$P" 2>/dev/null
	rc=$?
	[ $rc -ne 0 ] && [ "$(cat "$P")" = 2 ]
	ok $? "writing '$bad' is refused and leaves the value alone"
done
err=$( { printf 17 >"$P"; } 2>&1 )
case "$err" in *"Invalid argument"*) ok 0 "an out-of-range value fails with EINVAL" ;;
*) ok 1 "an out-of-range value fails with EINVAL (got: $err)" ;; esac
echo 4 >"$P"

# fault_windows OFFSETS...: fault the pages at these page offsets of $MNT/big, in order, and
# print the trace's pattern and window size for each decision the faults made.
fault_windows() {
	lab_trace_on local 1408 readahead/page_cache_ra_pattern
	python3 - "$MNT/big" "$@" <<'PY'
import mmap, sys
f = open(sys.argv[1], "rb")
m = mmap.mmap(f.fileno(), 0, prot=mmap.PROT_READ)
for p in sys.argv[2:]:
    m[int(p) * 4096]
PY
	lab_trace_off
	sed -n 's/.*pattern=\([a-z]*\) req=\([0-9]*\)+[0-9]* ra=[0-9]*+\([0-9]*\)-.* mmap=1 .*/\1 \2 \3/p' \
		"$LAB_TRACE/trace"
}

# A larger window is for streams: a page fault still reads around by 128 KiB.
lab_mounts
head -c $((16 << 20)) /dev/urandom >"$EXPORT/big"
lab_mount 4.2 rsize=1048576
bdi=$(lab_bdi "$MNT")
is "$(cat "$bdi/read_ahead_kb")" 4096 "mount for the read-around checks has a 4 MiB window"
is "$(cat "$bdi/read_around_kb")" 128 "... and read_around_kb 128"
is "$(fault_windows 2048)" "around 2048 32" "a page fault reads around 32 pages (128 KiB), not 1024"

# An out-of-order marker hit by a fault (the marker of an older window, as in a mapped
# binary) must not read a whole streaming window either.
lab_drop_caches
out=$(fault_windows 1000 3000 1008)
diag "faults at 1000, 3000, then 1000's marker at 1008: $(echo "$out" | tr '\n' ';')"
marker=$(echo "$out" | awk '$2 == 1008')
case "$marker" in
"context 1008 "*) ok 0 "the marker hit is a context decision" ;;
*) ok 1 "the marker hit is a context decision (got '$marker')" ;;
esac
size=$(echo "$marker" | awk '{ print $3 }')
[ -n "$size" ] && [ "$size" -le 32 ]
ok $? "... of at most read_around_kb (got $size pages)"

# Also when the file's last window is a stream's: an old read-around marker stays bounded.
lab_drop_caches
out=$(fault_windows 1000 $(seq 2000 2400) 1008)
marker=$(echo "$out" | awk '$2 == 1008')
size=$(echo "$marker" | awk '{ print $3 }')
[ -n "$size" ] && [ "$size" -le 32 ]
ok $? "after a stream elsewhere in the file, the old marker's window is bounded ($marker)"

# A stream interrupted by a fault elsewhere (which takes over the file's readahead state)
# does not run dry: its older marker, with a large window cached after it, reads nothing but
# leaves a marker read_around_kb before the end of what is cached, so no fault of the stream
# misses (a read-around decision), and its windows ramp up again from there.
lab_drop_caches
out=$(fault_windows $(seq 0 1500) 3500 $(seq 1501 3400))
after=$(echo "$out" | awk '$2 > 1500 && $2 <= 3400')
diag "decisions after the interruption: $(echo "$after" | tr '\n' ';')"
is "$(echo "$after" | awk '$1 == "around"' | wc -l)" 0 "an interrupted stream does not run dry"
big=$(echo "$after" | awk '{ if ($3 > m) m = $3 } END { print m + 0 }')
[ "$big" -gt 32 ]
ok $? "... and ramps up again ($big pages after the interruption)"

# A sequential reader through the mapping still gets the full window.
lab_drop_caches
big=$(fault_windows $(seq 0 3071) | awk '{ if ($3 > m) m = $3 } END { print m }')
is "$big" 1024 "sequential faults ramp up to read_ahead_kb (1024 pages)"

# Raising read_ahead_kb (as nfsrahead would) keeps the read-around bound ...
echo 8192 >"$bdi/read_ahead_kb"
lab_drop_caches
is "$(fault_windows 2048)" "around 2048 32" "read_ahead_kb written: read-around stays 32 pages"
# ... which read_around_kb changes, 0 making it follow read_ahead_kb.
echo 512 >"$bdi/read_around_kb"
lab_drop_caches
is "$(fault_windows 2048)" "around 2048 128" "read_around_kb 512: read-around of 128 pages"
echo 0 >"$bdi/read_around_kb"
lab_drop_caches
is "$(fault_windows 2048)" "around 2048 2048" "read_around_kb 0: read-around follows read_ahead_kb (2048 pages)"
# Refused: below a page, not a whole number of pages, above read_ahead_kb (8192), garbage.
for bad in 1 3 6 16384 abc -4 " " 99999999999999999999999; do
	echo 512 >"$bdi/read_around_kb"
	printf '%s\n' "$bad" >"$bdi/read_around_kb" 2>/dev/null
	rc=$?
	[ $rc -ne 0 ] && [ "$(cat "$bdi/read_around_kb")" = 512 ]
	ok $? "read_around_kb refuses '$bad' and keeps its value"
done
umount "$MNT"

# multiple 0 raises nothing: the mount keeps the VM's defaults, a window of
# CONFIG_READAHEAD_DEFAULT_KB (512 KiB in the series) and faults read around 128 KiB.
echo 0 >"$P"
lab_mount 4.2 rsize=1048576
is "$(cat "$(lab_bdi "$MNT")/read_around_kb")" 128 "multiple 0: read_around_kb is the VM's 128"
umount "$MNT"
echo 4 >"$P"

# A user's value sticks: second mount sharing the superblock, remount.
lab_mount 4.2 rsize=1048576
bdi=$(lab_bdi "$MNT")
echo 640 >"$bdi/read_ahead_kb"
mkdir -p /srv/nfs2
in_cli mount -t nfs -o vers=4.2,rsize=1048576 "$SRV_IP:/" /srv/nfs2
is "$(lab_bdi /srv/nfs2)" "$bdi" "a second mount of the export shares the superblock"
is "$(cat "$bdi/read_ahead_kb")" 640 "... and keeps the user's read_ahead_kb"
in_cli mount -o remount,ro /srv/nfs2
is "$(cat "$bdi/read_ahead_kb")" 640 "remount keeps the user's read_ahead_kb"
umount /srv/nfs2
umount "$MNT"
tap_done
