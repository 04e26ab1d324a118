#!/bin/bash
# nfsd write preallocation (nfsd.nfsd_prealloc, nfsd.nfsd_prealloc_len): the series' kselftest
# tools/testing/selftests/nfsd/prealloc_test through NFSv3 and NFSv4.2 mounts of an ext4
# export (the parameters, a sequential stream preallocated ahead and given back at close, a
# random writer not preallocated, nothing when off, a nearly full filesystem), then the trace
# events of a stream, a hostile-input pass over both parameters, a stream given back on XFS
# (before the fix, the release's one notify_change() of size and mtime tripped XFS's assertion:
# a WARNING on the debug kernel, which has CONFIG_XFS_WARN), and one given back on XFS after a
# reader held the inode lock when nfsd closed the file.
set -u
. "$(dirname "$0")/../../lab/guest/lib.sh"
. "$(dirname "$0")/../../lab/guest/tap.sh"
. "$LAB_OUT/kernel.env"

t=$KSELFTEST_DIR/nfsd/prealloc_test
[ -x "$t" ] || { echo "not ok 1 - $t was not built"; echo "1..1"; exit 1; }
P=/sys/module/nfsd/parameters
lab_storage ext4 256
lab_link 0
lab_nfsd
is "$(cat $P/nfsd_prealloc) $(cat $P/nfsd_prealloc_len)" "N 16777216" "off by default, at most 16 MiB"


mkdir -p "$EXPORT/t"
for vers in 3 4.2; do
	lab_mount "$vers"
	run_ks "prealloc_test over NFSv$vers" env NFSD_PREALLOC_TEST_MNT="$MNT/t" \
		NFSD_PREALLOC_TEST_EXPORT="$EXPORT/t" "$t"
	umount "$MNT"
done

# The events of one stream of 256 KiB stable WRITEs with nfsd_prealloc_len 1 MiB: none for
# the first WRITE of the empty file, one at the second, then one each time less than half of
# the 1 MiB is left (4 in all), and a release that gives back what was not used.
echo 1 >$P/nfsd_prealloc
echo 1048576 >$P/nfsd_prealloc_len
lab_mount 4.2
lab_trace_on local 1408 nfsd/nfsd_write_prealloc nfsd/nfsd_prealloc_release
in_cli dd if=/dev/zero of="$MNT/t/ev" bs=256k count=16 oflag=dsync status=none
umount "$MNT"
sleep 1
lab_trace_off
ev=$(grep -c 'nfsd_write_prealloc:.*error=0' "$LAB_TRACE/trace")
diag "$(grep -o 'nfsd_[a-z_]*: .*' "$LAB_TRACE/trace" | tr '\n' ';')"
[ "$ev" -ge 3 ] && [ "$ev" -le 6 ]
ok $? "a 4 MiB stream with nfsd_prealloc_len 1 MiB: $ev preallocations (3-6)"
! grep -q 'nfsd_write_prealloc:.*write=0+' "$LAB_TRACE/trace"
ok $? "no preallocation for the first WRITE of the empty file"
grep -q 'nfsd_prealloc_release:.*size=4194304 .*error=0' "$LAB_TRACE/trace"
ok $? "the release at close: size 4194304, no error"
used=$(lab_used "$EXPORT/t/ev")
is "$used" 4194304 "after close the file takes what it holds"

# Files removed or renamed over while nfsd still holds them preallocated (NFSv3: nfsd keeps
# the open file a few seconds): nfsd_unlink() and nfsd_rename() close them with freeze
# protection held; the release must neither deadlock nor splat (lockdep on the debug kernel).
lab_mount 3
in_cli dd if=/dev/zero of="$MNT/t/gone" bs=256k count=8 oflag=dsync status=none
in_cli rm "$MNT/t/gone"
ok $? "a preallocated file removed at once"
in_cli dd if=/dev/zero of="$MNT/t/old" bs=256k count=8 oflag=dsync status=none
in_cli dd if=/dev/zero of="$MNT/t/new" bs=256k count=8 oflag=dsync status=none
in_cli mv "$MNT/t/new" "$MNT/t/old"
ok $? "a preallocated file renamed over another one at once"
umount "$MNT"
is "$(lab_wait_used "$EXPORT/t/old" 2097152 30)" 2097152 "the file renamed over it takes what it holds once closed"

# Hostile input: refused with EINVAL, values unchanged, no splat.
printf '' >$P/nfsd_prealloc_len
is "$(cat $P/nfsd_prealloc_len)" 1048576 "an empty write to nfsd_prealloc_len changes nothing"
for bad in " " abc -1 0 4095 65535 4M 1073741825 2147483648 99999999999999999999 "1 2" \
	$(head -c 300 /dev/zero | tr '\0' 9); do
	printf '%s' "$bad" >$P/nfsd_prealloc_len 2>/dev/null
	rc=$?
	[ $rc -ne 0 ] && [ "$(cat $P/nfsd_prealloc_len)" = 1048576 ]
	ok $? "nfsd_prealloc_len refuses '${bad:0:24}' and keeps 1048576"
done
for bad in " " 2 maybe -1; do
	printf '%s' "$bad" >$P/nfsd_prealloc 2>/dev/null
	rc=$?
	[ $rc -ne 0 ] && [ "$(cat $P/nfsd_prealloc)" = Y ]
	ok $? "nfsd_prealloc refuses '$bad' and stays Y"
done
# Racing writers of both parameters while a stream writes: no splat, a valid value after.
lab_mount 4.2
in_cli dd if=/dev/zero of="$MNT/t/race" bs=1M count=32 oflag=dsync status=none &
for i in $(seq 1 200); do
	echo $(( (i % 64 + 1) * 65536 )) >$P/nfsd_prealloc_len
	echo $(( i % 2 )) >$P/nfsd_prealloc
done &
wait
umount "$MNT"
v=$(cat $P/nfsd_prealloc_len)
[ $(( v % 65536 )) -eq 0 ] && [ "$v" -ge 65536 ] && [ "$v" -le 4194304 ]
ok $? "racing writes leave a valid nfsd_prealloc_len ($v)"
is "$(stat -c %s "$EXPORT/t/race")" 33554432 "the stream written meanwhile is whole"

# XFS, whose setattr asserts that a size change comes alone (a WARN on the debug kernel, built
# with CONFIG_XFS_WARN): a stream nfsd preallocated is given back when nfsd closes the file,
# with its mtime kept. allocsize=4k holds XFS's own preallocation past EOF below what makes
# nfsd leave a stream to it. NFSv3: nfsd closes the file a few seconds after the last WRITE.
X=/srv/xfs
lab_nullb labxfs 512
mkfs.xfs -q -f /dev/labxfs && mkdir -p $X && mount -o allocsize=4k /dev/labxfs $X ||
	lab_die "cannot make XFS on /dev/labxfs"
exportfs -o rw,no_root_squash,insecure,no_subtree_check,fsid=7 10.9.0.0/16:$X
echo 1048576 >$P/nfsd_prealloc_len
echo 1 >$P/nfsd_prealloc
lab_trace_on local 1408 nfsd/nfsd_write_prealloc nfsd/nfsd_prealloc_release
in_cli mount -t nfs -o vers=3,nolock "$SRV_IP:$X" "$MNT"
in_cli dd if=/dev/zero of="$MNT/xs" bs=256k count=16 oflag=dsync status=none
ok $? "XFS: a 4 MiB stream of stable WRITEs"
mtime=$(stat -c %y "$X/xs")
used=$(lab_used "$X/xs")
[ "$used" -gt 4194304 ]
ok $? "XFS: preallocated ahead while open ($used bytes for 4194304)"
umount "$MNT"
for _ in $(seq 60); do
	grep -q 'nfsd_prealloc_release:' "$LAB_TRACE/trace" && break
	sleep 0.5
done
lab_trace_off
diag "$(grep -o 'nfsd_prealloc_release: .*' "$LAB_TRACE/trace")"
grep -q 'nfsd_prealloc_release:.*size=4194304 .*error=0' "$LAB_TRACE/trace"
ok $? "XFS: the release at close: size 4194304, no error"
is "$(lab_used "$X/xs")" 4194304 "XFS: after close the file takes what it holds"
is "$(stat -c %y "$X/xs")" "$mtime" "XFS: the release keeps the modification time"
exportfs -u "10.9.0.0/16:$X"
umount $X

# A release that finds the inode lock taken is tried again from a work item, not given up:
# XFS takes the lock shared for every read of the file (a reader tailing a log, a backup),
# and XFS never trims the blocks past EOF of a file that had fallocate()d ones, so before
# the retry the window stayed allocated for good. Here a local read() of the file holds the
# lock for about 8 s when nfsd's laundrette closes the NFSv3 file 2-4 s after its last WRITE
# (the retries go on for 10 s): the read copies into a shared mapping of a block device whose
# every request takes 500 ms, so each page fault of the copy waits for the device with the
# lock held. The reader starts (and maps the device) before the WRITEs and reads once they
# are done: on the debug kernel Python's start alone took longer than the laundrette's delay.
# The events and the reader share one clock (trace_clock mono): where the file was closed
# before the reader began (a slow guest, once on the debug kernel), the case did not happen,
# and it is set up once more, on a new file.
S=/srv/xslow
lab_nullb labxslow 512
lab_nullb labslowb 16 500000000
mkfs.xfs -q -f /dev/labxslow && mkdir -p $S && mount -o allocsize=4k /dev/labxslow $S ||
	lab_die "cannot make XFS on /dev/labxslow"
exportfs -o rw,no_root_squash,insecure,no_subtree_check,fsid=8 10.9.0.0/16:$S
in_cli mount -t nfs -o vers=3,nolock "$SRV_IP:$S" "$MNT"
XR_OUT=$(mktemp)
# xfs_reader_case FILE: stream 4 MiB of stable WRITEs to FILE, then read it locally through
# the slow mapping; the reader leaves its start on the trace clock (s) in $XR_OUT.
xfs_reader_case() {
	local f=$1 go reader
	go=$(mktemp -u) && mkfifo "$go"
	python3 - "$S/$f" /dev/labslowb "$go" <<'PY' >"$XR_OUT" &
import mmap, os, sys, time
buf = mmap.mmap(os.open(sys.argv[2], os.O_RDWR), 4 << 20, mmap.MAP_SHARED)
with open(sys.argv[3]) as go:
    go.read()
src = os.open(sys.argv[1], os.O_RDONLY)
t = time.clock_gettime(time.CLOCK_MONOTONIC)
print(f"start {t:.6f}", flush=True)
os.readv(src, [buf])
print(f"# the reader held the inode lock {time.clock_gettime(time.CLOCK_MONOTONIC) - t:.1f} s")
PY
	reader=$!
	in_cli dd if=/dev/zero of="$MNT/$f" bs=256k count=16 oflag=dsync status=none
	ok $? "XFS: another 4 MiB stream of stable WRITEs ($f)"
	# (not blocking for good on the FIFO should the reader have died before opening it)
	timeout 30 sh -c 'echo go >"$1"' sh "$go" || diag "the reader was not there to start"
	rm -f "$go"
	wait $reader
	grep '^#' "$XR_OUT"
}
# first_release: the trace clock time of the first release event (s), or nothing.
first_release() {
	grep -m1 'nfsd_prealloc_release: ' "$LAB_TRACE/trace" | sed -n 's/.* \([0-9]*\.[0-9]*\): nfsd_prealloc_release: .*/\1/p'
}
for attempt in 1 2; do
	lab_trace_on mono 1408 nfsd/nfsd_prealloc_release
	xfs_reader_case "xr$attempt"
	start=$(sed -n 's/^start //p' "$XR_OUT")
	for _ in $(seq 20); do
		grep -q 'nfsd_prealloc_release:.*tries=[1-9].*error=0' "$LAB_TRACE/trace" && break
		sleep 0.5
	done
	lab_trace_off
	rel=$(first_release)
	diag "$(grep -c 'nfsd_prealloc_release: ' "$LAB_TRACE/trace") tries; the reader began at ${start:-?} s, the first release at ${rel:-?} s; the first and the last:"
	diag "$(grep -o 'nfsd_prealloc_release: .*' "$LAB_TRACE/trace" | sed -n '1p;$p' | tr '\n' ';')"
	[ -n "$start" ] && [ -n "$rel" ] && awk -v r="$rel" -v s="$start" 'BEGIN { exit !(r + 0 < s + 0) }' || break
	diag "attempt $attempt: nfsd closed the file before the reader began: the case did not happen"
done
grep -q 'nfsd_prealloc_release:.*size=4194304 .*tries=0 error=-11' "$LAB_TRACE/trace"
ok $? "XFS: the release at close found the inode lock taken by the reader (-EAGAIN)"
grep -q 'nfsd_prealloc_release:.*size=4194304 .*tries=[1-9][0-9]* error=0' "$LAB_TRACE/trace"
ok $? "XFS: a retry gave the window back once the reader let go"
is "$(lab_used "$S/xr$attempt")" 4194304 "XFS: after the retry the file takes what it holds"
lab_trace_clear	# (only after the checks)
rm -f "$XR_OUT"
umount "$MNT"
exportfs -u "10.9.0.0/16:$S"
umount $S
no_splat
echo 0 >$P/nfsd_prealloc
echo 16777216 >$P/nfsd_prealloc_len
tap_done
