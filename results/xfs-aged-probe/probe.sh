#!/bin/bash
# Issue 13: where does the space go that nfs-write-logs-seek-aged found left after close on
# aged XFS with nfsd_prealloc on? The scenario's point, traced: XFS on a 1 GiB null_blk aged
# as lab/families/nfs_write.py's age() does (60 % filled with 64 KiB-1 MiB files, every other
# one deleted), exported, sixteen O_DSYNC writers appending 4 KiB to 4 MiB files over NFSv4.2,
# nfsd's preallocation events traced; then per file: size, blocks, extents after the client
# unmounted, and xfs_bmap of the files that keep more than their size.
#   vm.sh patched OUT bash $PWD/results/xfs-aged-probe/probe.sh OUT [ext4|xfs] [AGE_PCT]
set -u
out=$1 fs=${2:-xfs} age=${3:-60}
. "/work/main/lab/guest/lib.sh"
lab_storage "$fs" 1024
lab_link 1
# Aged by the nfs-write family's own age() (run before this change by a copy of it, same seed).
PYTHONPATH=/work/main/lab python3 - "$EXPORT" "$age" <<'PY'
import subprocess, sys
from types import SimpleNamespace
from families.nfs_write import age
env = SimpleNamespace(disk=SimpleNamespace(path=sys.argv[1]), run=lambda argv: subprocess.run(argv, check=True))
n = age(env, int(sys.argv[2]))
print(f"aged: {n} files written, every other one deleted")
PY
echo Y >/sys/module/nfsd/parameters/nfsd_prealloc
lab_nfsd
T=/sys/kernel/tracing
mountpoint -q $T || mount -t tracefs none $T
echo 65536 >$T/buffer_size_kb
echo 1 >$T/events/nfsd/nfsd_write_prealloc/enable
echo 1 >$T/events/nfsd/nfsd_prealloc_release/enable
echo >$T/trace
in_cli bash -s <<SH
mkdir -p $MNT && mount -t nfs -o vers=4.2 $SRV_IP:/ $MNT
fio --name=writers --directory=$MNT --filename_format=w.\\\$jobnum --numjobs=16 --group_reporting \
    --rw=write --bs=4k --size=4m --ioengine=psync --end_fsync=1 --fallocate=none --create_on_open=1 \
    --sync=dsync --output-format=terse >/dev/null
echo "after write, open:"; cd $EXPORT && for f in w.*; do echo "\$f \$(stat -c '%s %b' \$f)"; done
cd /; umount $MNT
SH
sleep 15
echo "after umount + 15 s:"
cd "$EXPORT" || exit 1
for f in w.*; do
	set -- $(stat -c '%s %b' "$f")
	echo "$f size=$1 used=$(( $2 * 512 )) extents=$(filefrag "$f" | grep -o '[0-9]* extents\? found')"
	[ $(( $2 * 512 )) -gt $(( $1 + 65536 )) ] && [ "$fs" = xfs ] && xfs_bmap -v "$f"
done
cd /
cp $T/trace "$out/trace.txt"
grep -c nfsd_write_prealloc "$out/trace.txt"
grep nfsd_prealloc_release "$out/trace.txt" | sed 's/^.*nfsd_prealloc_release/nfsd_prealloc_release/'
