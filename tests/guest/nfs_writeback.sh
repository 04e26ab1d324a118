#!/bin/bash
# Patch 16: a long writepages call sends COMMITs as it goes. 192 MiB written into the client's
# cache (thresholds far above it: nothing is written back before), then one fsync(): stock
# 6.12 writes it all, then sends one COMMIT; the patched client commits every eighth of a
# second of data, so the server's disk writes while the rest is on the wire. The data on the
# server is what was written; NFSv3 and NFSv4.2. Then patch 26: pages scattered in runs shorter
# than half a wsize take no commit point in the middle of the fsync's call until about a second
# of them is queued (patch 27). Then patch 28: with a small budget, batches of a quarter of it.
set -u
. "$(dirname "$0")/../../lab/guest/lib.sh"
. "$(dirname "$0")/../../lab/guest/tap.sh"

MB=192
lab_storage ext4 1024
lab_link 0
lab_nfsd
head -c $((MB << 20)) /dev/urandom >/tmp/wb-src
want=$(sha256sum </tmp/wb-src | cut -d' ' -f1)

# server_file_ok MSG: unmount, drop both caches, and check the server's file against the source.
server_file_ok() {
	umount "$MNT"
	lab_drop_caches
	[ "$(sha256sum <"$EXPORT/f" | cut -d' ' -f1)" = "$want" ]
	ok $? "$1"
	rm -f "$EXPORT/f"
}

for vers in 3 4.2; do
	# The data stays dirty until the fsync: global thresholds of 8 GiB, and the mount's bdi
	# held to 1 GiB of its own. With only the global thresholds, a new mount's share of the
	# background threshold follows its recent writeout, which is none: the flusher once
	# started on the 192 MiB before the fsync (3 COMMITs, CI on 2026-11-26).
	lab_mount_budget "$vers" $((1 << 30)) wsize=1048576
	# One process writes, then fsyncs while the file is open (close() would flush it all by
	# itself: close-to-open); it prints the COMMIT counts before the writes, before the
	# fsync and after it, and the fsync's time.
	read -r c0 c1 c2 secs < <(python3 "$LAB_GUEST/nfswrite.py" stream "$MNT" /tmp/wb-src)
	[ -n "${secs:-}" ]
	ok $? "v$vers: fsync of $MB MiB written into the cache returned after ${secs:-?} s"
	[ "$c1" -eq "$c0" ]
	ok $? "v$vers: nothing committed before the fsync ($((c1 - c0)) COMMITs)"
	[ $((c2 - c1)) -ge 4 ]
	ok $? "v$vers: the fsync sent $((c2 - c1)) COMMITs as its WRITEs went (want >= 4; stock sends 1)"
	server_file_ok "v$vers: the server's file is what was written"

	# Patch 26: scattered pages take no commit point mid-call. 48 MiB in runs of 64 KiB, one
	# every 128 KiB of a 96 MiB file, then one fsync(): runs of less than half a wsize do not
	# stream on the server's disk, and a COMMIT after every eighth of a second of them (a new
	# mount's bandwidth estimate: 12.5 MiB) would make it flush them a piece at a time.
	# Patches 16-25 send 4 or more COMMITs here; stock and patch 26 one at the end of the
	# call, and maybe the fsync's own.
	lab_mount_budget "$vers" $((1 << 30)) wsize=1048576
	read -r c1 c2 < <(python3 "$LAB_GUEST/nfswrite.py" scatter "$MNT" 768 64 128)
	[ -n "${c2:-}" ] && [ $((c2 - c1)) -ge 1 ] && [ $((c2 - c1)) -le 2 ]
	ok $? "v$vers: the fsync of 768 runs of 64 KiB sent $((${c2:-0} - ${c1:-0})) COMMITs (want 1-2; patches 16-25 send 4 or more)"
	umount "$MNT"
	[ "$(stat -c %s "$EXPORT/s")" -eq $((96 << 20)) ]
	ok $? "v$vers: the scattered file has its size on the server"
	rm -f "$EXPORT/s"
	# Patch 27: scattered pages still take a commit point after about a second of data (eight
	# times the stream's spacing: 100 MiB on a new mount, at least 32 MiB), so the fsync of a
	# large cache of them does not send everything before one COMMIT. 320 MiB in runs of
	# 64 KiB: 3-12 COMMITs (the link's 125 MB/s bounds the spacing to 125 MiB); patch 26
	# sends 1-2.
	lab_mount_budget "$vers" $((1 << 30)) wsize=1048576
	read -r c1 c2 < <(python3 "$LAB_GUEST/nfswrite.py" scatter "$MNT" 5120 64 128)
	[ -n "${c2:-}" ] && [ $((c2 - c1)) -ge 3 ] && [ $((c2 - c1)) -le 12 ]
	ok $? "v$vers: the fsync of 320 MiB in runs of 64 KiB sent $((${c2:-0} - ${c1:-0})) COMMITs (want 3-12; patch 26 sends 1-2)"
	umount "$MNT"
	rm -f "$EXPORT/s"
	# Patch 28: a COMMIT's batch is at most a quarter of the mount's dirty budget. With 10 MiB
	# (the seed's 10M point) the 192 MiB stream is written back while the writer is throttled,
	# in batches of about 2.5 MiB (192 / 2.5 is 77; 72-73 COMMITs in the lab, 82-85 with the
	# since-dropped strictlimit patch). The check wants 64, batches of 3 MiB, as slack; patches
	# 16-27 batch 4 MiB (43 in the lab).
	lab_mount_budget "$vers" $((10 << 20)) wsize=1048576
	read -r c0 c1 c2 secs < <(python3 "$LAB_GUEST/nfswrite.py" stream "$MNT" /tmp/wb-src)
	[ -n "${secs:-}" ] && [ $((c2 - c0)) -ge 64 ]
	ok $? "v$vers: $MB MiB with a 10 MiB budget sent $((${c2:-0} - ${c0:-0})) COMMITs (want >= 64, batches of 3 MiB or less; patches 16-27 batch 4 MiB)"
	server_file_ok "v$vers: the file written with a 10 MiB budget is what was written"
done
rm -f /tmp/wb-src
no_splat
tap_done
