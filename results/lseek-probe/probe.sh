#!/bin/bash
# A header probe, as blkid, file(1) or a media indexer does it, over 200 files of 1 MiB:
# open, lseek() to 64 KiB and read 4 KiB there, lseek() back to 0 and read a 64 KiB header,
# close. Cold caches on both sides before each pass. Measured: the bytes the disk read (ext4 on
# a null_blk disk serving one request at a time in 8 ms) and the bytes NFS READ replies
# carried (nfsd's "io" counter: NFSv4.2, rsize 1 MiB, 5 ms each way), the time the pass took
# and, of it, the time close() took. 3 passes each.
# Run by results/lseek-probe/run.sh in a lab guest; prints one CSV line per pass.
set -eu
. "$(dirname "$0")/../../lab/guest/lib.sh"

lab_storage ext4 512 8000000 100
mkdir -p "$EXPORT/p"
for i in $(seq 1 200); do lab_file "$EXPORT/p/f$i" 1; done
lab_link 5
lab_nfsd
lab_mount 4.2 rsize=1048576
sync

cat >/tmp/probe.py <<'PY'
import os, sys, time
d = sys.argv[1]
t = time.monotonic()
c = 0.0
for i in range(1, 201):
    fd = os.open(f"{d}/f{i}", os.O_RDONLY)
    os.lseek(fd, 65536, os.SEEK_SET)
    os.read(fd, 4096)
    os.lseek(fd, 0, os.SEEK_SET)
    assert len(os.read(fd, 65536)) == 65536
    t0 = time.monotonic()
    os.close(fd)
    c += time.monotonic() - t0
print(f"{time.monotonic() - t:.3f},{c:.3f}")
PY

disk_bytes() { awk '$3 == "labdisk" { print $6 * 512 }' /proc/diskstats; }
nfs_bytes() { awk '$1 == "io" { print $2 }' /proc/net/rpc/nfsd; }

echo "kernel,where,pass,seconds,close_seconds,bytes_read,bytes_used"
for pass in 1 2 3; do
	lab_drop_caches
	b0=$(disk_bytes)
	s=$(python3 /tmp/probe.py "$EXPORT/p")
	echo "$(uname -r),ext4,$pass,$s,$(( $(disk_bytes) - b0 )),$(( 200 * (4096 + 65536) ))"
	lab_drop_caches
	b0=$(nfs_bytes)
	s=$(in_cli python3 /tmp/probe.py "$MNT/p")
	echo "$(uname -r),nfs,$pass,$s,$(( $(nfs_bytes) - b0 )),$(( 200 * (4096 + 65536) ))"
done
