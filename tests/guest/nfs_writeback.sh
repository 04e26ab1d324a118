#!/bin/bash
# Patch 16: a long writepages call sends COMMITs as it goes. 192 MiB written into the client's
# cache (thresholds far above it: nothing is written back before), then one fsync(): stock
# 6.12 writes it all, then sends one COMMIT; the patched client commits every eighth of a
# second of data, so the server's disk writes while the rest is on the wire. The data on the
# server is what was written; NFSv3 and NFSv4.2.
set -u
. "$(dirname "$0")/../../lab/guest/lib.sh"
. "$(dirname "$0")/../../lab/guest/tap.sh"

MB=192
lab_storage ext4 1024
lab_link 0
lab_nfsd
head -c $((MB << 20)) /dev/urandom >/tmp/wb-src
want=$(sha256sum </tmp/wb-src | cut -d' ' -f1)

for vers in 3 4.2; do
	# The data stays dirty until the fsync: global thresholds of 8 GiB, and the mount's bdi
	# held to 1 GiB of its own. With only the global thresholds, a new mount's share of the
	# background threshold follows its recent writeout, which is none: the flusher once
	# started on the 192 MiB before the fsync (3 COMMITs, CI on 2026-11-26).
	lab_mount_budget "$vers" $((1 << 30)) wsize=1048576
	# One process writes, then fsyncs while the file is open (close() would flush it all by
	# itself: close-to-open); it prints the COMMIT counts before the writes, before the
	# fsync and after it, and the fsync's time.
	read -r c0 c1 c2 secs < <(python3 - "$MNT" /tmp/wb-src <<'PY'
import os, sys, time
mnt, src = sys.argv[1], sys.argv[2]
def commits():
    cur = False
    for line in open("/proc/self/mountstats"):
        w = line.split()
        if line.startswith("device "):
            cur = len(w) > 4 and w[4] == mnt
        elif cur and w and w[0] == "COMMIT:":
            return int(w[1])
c0 = commits()
fd = os.open(f"{mnt}/f", os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
with open(src, "rb") as f:
    while b := f.read(1 << 20):
        os.write(fd, b)
c1 = commits()
t0 = time.monotonic()
os.fsync(fd)
secs = time.monotonic() - t0
c2 = commits()
os.close(fd)
print(c0, c1, c2, round(secs, 2))
PY
)
	[ -n "${secs:-}" ]
	ok $? "v$vers: fsync of $MB MiB written into the cache returned after ${secs:-?} s"
	[ "$c1" -eq "$c0" ]
	ok $? "v$vers: nothing committed before the fsync ($((c1 - c0)) COMMITs)"
	[ $((c2 - c1)) -ge 4 ]
	ok $? "v$vers: the fsync sent $((c2 - c1)) COMMITs as its WRITEs went (want >= 4; stock sends 1)"
	umount "$MNT"
	lab_drop_caches
	got=$(sha256sum <"$EXPORT/f" | cut -d' ' -f1)
	[ "$got" = "$want" ]
	ok $? "v$vers: the server's file is what was written"
	rm -f "$EXPORT/f"
done
rm -f /tmp/wb-src
no_splat
tap_done
