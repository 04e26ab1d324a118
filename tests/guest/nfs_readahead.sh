#!/bin/bash
# nfs.readahead_rsize_multiple: a new mount's read_ahead_kb = max(128, N x rsize) capped at
# 16 MiB; N = 0 keeps 128; bad values are refused and change nothing; a value written to
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

for vers in 4.2 3; do
	for rsize in 32768 524288 1048576; do
		want=$(( rsize * 4 / 1024 ))
		[ $want -lt 128 ] && want=128
		is "$(ra_after_mount $vers $rsize)" "$want $rsize" "v$vers rsize $rsize: read_ahead_kb $want"
	done
done

echo 0 >"$P"
is "$(ra_after_mount 4.2 1048576)" "128 1048576" "multiple 0: the VM default, 128"
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

# around_size: the window of the read-around for one page fault in the middle of a file.
around_size() {
	local T=/sys/kernel/tracing/events/readahead/page_cache_ra_pattern
	echo >/sys/kernel/tracing/trace
	echo 1 >"$T/enable"
	python3 -c "import mmap, sys; f = open(sys.argv[1], 'rb'); m = mmap.mmap(f.fileno(), 0, prot=mmap.PROT_READ); m[8 << 20]" "$MNT/big"
	echo 0 >"$T/enable"
	sed -n 's/.*pattern=around .* ra=[0-9]*+\([0-9]*\)-.*/\1/p' /sys/kernel/tracing/trace | head -n 1
}

# A larger window is for streams: a page fault still reads around by 128 KiB.
lab_mounts
head -c $((16 << 20)) /dev/urandom >"$EXPORT/big"
lab_mount 4.2 rsize=1048576
is "$(cat "$(lab_bdi "$MNT")/read_ahead_kb")" 4096 "mount for the read-around check has a 4 MiB window"
is "$(around_size)" 32 "a page fault reads around 32 pages (128 KiB), not the 4 MiB window"
echo 1024 >"$(lab_bdi "$MNT")/read_ahead_kb"
echo 3 >/proc/sys/vm/drop_caches
is "$(around_size)" 256 "after read_ahead_kb is written, read-around follows it (256 pages)"
umount "$MNT"

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
