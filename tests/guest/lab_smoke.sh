#!/bin/bash
# The lab path works: the guest runs the kernel just built, and a file exported by nfsd in the
# init netns reads back byte for byte over NFS from netns "cli" across the veth pair.
set -u
. "$(dirname "$0")/../../lab/guest/lib.sh"
. "$(dirname "$0")/../../lab/guest/tap.sh"

. "$LAB_OUT/kernel.env"
is "$(uname -r)" "$KERNEL_RELEASE" "uname -r is the release just built"
is "$(uname -v)" "$KERNEL_VERSION" "uname -v is the build just made"

lab_storage ext4 256
lab_link 1
lab_nfsd
rtt=$(lab_rtt)
diag "measured RTT ${rtt} ms over netem 1 ms each way"
awk -v r="$rtt" 'BEGIN { exit !(r >= 2.0 && r < 50) }'
ok $? "RTT $rtt ms reflects 1 ms of netem each way"

lab_file "$EXPORT/data" 24
want=$(sha256sum <"$EXPORT/data")
for vers in 3 4.0 4.1 4.2; do
	lab_mount "$vers" rsize=1048576
	ok $? "mount NFS v$vers from netns cli"
	lab_drop_caches
	tx0=$(cat /sys/class/net/srv/statistics/tx_bytes)
	got=$(sha256sum <"$MNT/data")
	is "$got" "$want" "v$vers: file reads back byte for byte"
	tx=$(( $(cat /sys/class/net/srv/statistics/tx_bytes) - tx0 ))
	[ "$tx" -ge $((24 * 1048576)) ]
	ok $? "v$vers: the data crossed the veth pair ($tx bytes sent by the server)"
	# A file of its own: the guest shares the host's /tmp, where a fixed name may be taken.
	w=$(mktemp)
	head -c 3000000 /dev/urandom >"$w"
	cp "$w" "$MNT/written" && sync
	cmp -s "$w" "$EXPORT/written"
	ok $? "v$vers: a file written by the client lands on the server intact"
	rm -f "$MNT/written" "$w"
	umount "$MNT"
done
tap_done
