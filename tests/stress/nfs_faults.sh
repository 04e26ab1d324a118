#!/bin/bash
# Faults with checksums (issue 16): data written and read over NFS (v3 and v4.2, hard mounts)
# while netem drops, reorders, duplicates and corrupts packets, while the link goes down and
# comes back, and while nfsd is stopped and restarted mid-transfer; then the same with the
# client's reader and writer in a small memory cgroup. Every file is checked three ways: the
# copy on the server's disk, a read back over NFS with cold caches, and fio's own crc32c
# verification. Counts go to "# bytes verified: N" and "# bytes lost: N" (lab/stress.sh).
# Where the series' nfsd preallocation exists it is on, and each round also copies the file
# with O_DSYNC (stable WRITEs, the streams nfsd preallocates ahead of): once nfsd has closed
# the file for good, it must take no more space than its data (nothing leaked by a fault).
# Environment: STRESS_SHORT=1 (make check's share) uses 16 MiB files instead of 96 MiB and
# v4.2 only, leaves out the round without faults (the netem round does all it does, on a
# lossy link), takes the link down and restarts nfsd during writes only (the cold read back
# runs on the restored link; netem still impairs it), and in the memory cgroup runs the
# netem and nfsd rounds only.
set -u
. "$(dirname "$0")/../../lab/guest/lib.sh"
. "$(dirname "$0")/../../lab/guest/tap.sh"
[ -f "$LAB_OUT/kernel.env" ] && . "$LAB_OUT/kernel.env"
short=${STRESS_SHORT:-0}
mb=$([ "$short" = 1 ] && echo 16 || echo 96)
versions=$([ "$short" = 1 ] && echo 4.2 || echo "3 4.2")
read_faults=$([ "$short" = 1 ] && echo 0 || echo 1)
rounds=$([ "$short" = 1 ] && echo "netem link nfsd" || echo "none netem link nfsd")
cg_rounds=$([ "$short" = 1 ] && echo "netem nfsd" || echo "$rounds")

lab_storage ext4 1024
lab_link 1
lab_nfsd
PREALLOC=/sys/module/nfsd/parameters/nfsd_prealloc
if [ -e "$PREALLOC" ]; then echo 1 >"$PREALLOC"; diag "nfsd_prealloc on"; fi
mkdir -p /tmp/src
head -c $((mb << 20)) /dev/urandom >/tmp/src/f
want=$(sha256sum </tmp/src/f | cut -d' ' -f1)
verified=0 lost=0
MOPTS=hard,timeo=50

# The memory cgroup the client's processes run in for the "under memory pressure" rounds.
lab_memcg cli
CG=none

# in_cg CMD...: run CMD in the client's memory cgroup when a round asks for one.
in_cg() {
	if [ "$CG" = none ]; then "$@"; else in_memcg cli "$@"; fi
}

netem() {	# netem ARGS...: the same impairment on both ends of the link
	tc qdisc change dev srv root netem "$@" limit 20000
	in_cli tc qdisc change dev cli root netem "$@" limit 20000
}

# fault NAME: start the fault NAME in the background, half a second into the transfer that
# follows (the link and nfsd rounds run at 50 Mbit/s, so a transfer lasts seconds: 16 MiB 2.7 s,
# 96 MiB 16 s); fault_end waits for it to be over.
fault() {
	case $1 in
	none|netem) FPID= ; return ;;
	link) (sleep 0.5; ip link set srv down; sleep 5; ip link set srv up) & ;;
	nfsd) (sleep 0.5; rpc.nfsd 0; sleep 5; rpc.nfsd -L 10 -G 10 8) & ;;
	esac
	FPID=$!
}
fault_end() { [ -n "$FPID" ] && wait "$FPID"; FPID=; }

# check WHAT FILE-ON-SERVER: compare the server's copy and a cold read over NFS with the source.
check() {
	local what=$1 name=$2 got bad
	umount "$MNT" && lab_drop_caches && lab_mount "$VERS" "$MOPTS"
	got=$(sha256sum <"$EXPORT/$name" | cut -d' ' -f1)
	is "$got" "$want" "$what: the server's disk holds the bytes written"
	if [ "$got" = "$want" ]; then verified=$((verified + (mb << 20))); else
		bad=$(cmp -l /tmp/src/f "$EXPORT/$name" 2>/dev/null | wc -l)
		lost=$((lost + bad + (mb << 20) - $(stat -c %s "$EXPORT/$name"))); fi
	[ "$read_faults" = 1 ] && fault "$FAULT"
	got=$(in_cg dd if="$MNT/$name" bs=64k status=none | sha256sum | cut -d' ' -f1)
	fault_end
	is "$got" "$want" "$what: a cold read over NFS returns them"
	if [ "$got" = "$want" ]; then verified=$((verified + (mb << 20))); else lost=$((lost + (mb << 20))); fi
}

# copy WHAT NAME FLAG: dd the source to NAME over NFS under FAULT (FLAG conv=fsync, or
# oflag=dsync for stable WRITEs, the streams nfsd preallocates ahead of), then check it.
copy() {
	local what=$1 name=$2 t0=$SECONDS rc
	fault "$FAULT"
	in_cg dd if=/tmp/src/f of="$MNT/$name" bs=1M "$3" status=none
	rc=$?
	# A fault that hit the transfer shows in its time: 5 s or more of link or nfsd lost.
	ok $rc "$what: dd to NFS returns success ($((SECONDS - t0)) s)"
	fault_end
	check "$what" "$name"
}

round() {	# round FAULT: two copies and a fio verify run under FAULT
	FAULT=$1
	local what="NFSv$VERS, $FAULT"
	[ "$CG" != none ] && what="$what, client in a $CG memory cgroup"
	rm -f "$EXPORT"/f-* "$EXPORT"/fio.*
	copy "$what" f-copy conv=fsync
	copy "$what, O_DSYNC" f-dsync oflag=dsync
	# fio: random 4-64 KiB writes with crc32c headers, then a verifying read pass.
	fault "$FAULT"
	in_cg fio --name=v --filename="$MNT/fio.v" --rw=randwrite --bsrange=4k-64k --size=${mb}m \
		--ioengine=psync --verify=crc32c --do_verify=1 --verify_fatal=1 --end_fsync=1 \
		--output="$LAB_OUT/fio-$VERS-$FAULT-$CG.log" >/dev/null 2>&1
	ok $? "$what: fio randwrite + crc32c verify"
	fault_end
	umount "$MNT" && lab_drop_caches && lab_mount "$VERS" "$MOPTS"
	in_cg fio --name=v --filename="$MNT/fio.v" --rw=randwrite --bsrange=4k-64k --size=${mb}m \
		--ioengine=psync --verify=crc32c --verify_only=1 --verify_fatal=1 \
		--output="$LAB_OUT/fio-$VERS-$FAULT-$CG-cold.log" >/dev/null 2>&1
	local rc=$?
	ok $rc "$what: fio crc32c verify with cold caches"
	if [ $rc -eq 0 ]; then verified=$((verified + (mb << 20))); else lost=$((lost + (mb << 20))); fi
}

for VERS in $versions; do
	for CG in none 48M; do
		[ "$CG" != none ] && lab_memcg cli $((48 << 20))
		lab_mount "$VERS" "$MOPTS"
		r=$rounds
		[ "$CG" != none ] && r=$cg_rounds
		for f in $r; do
			case $f in
			none) netem delay 1ms rate 1gbit ;;
			netem) netem delay 1ms loss 1% reorder 5% 50% duplicate 1% corrupt 0.1% rate 1gbit ;;
			*) netem delay 1ms rate 50mbit ;;
			esac
			round $f
		done
		umount "$MNT"
		# Once nfsd closes it for good (NFSv3: its file cache lets go within seconds), the
		# O_DSYNC copy holds its data and no preallocation (64 KiB allowed for ext4's extent
		# blocks, which count in its blocks: a smaller leftover would go unseen).
		limit=$(((mb << 20) + 65536))
		used=$(lab_wait_used "$EXPORT/f-dsync" "$limit")
		[ "$used" -le "$limit" ]
		ok $? "NFSv$VERS, CG $CG: the O_DSYNC copy takes $used bytes for $((mb << 20)) once closed"
	done
done
diag "bytes verified: $verified"
diag "bytes lost: $lost"
diag "server netem: $(tc -s qdisc show dev srv | grep -m1 Sent)"
no_splat
tap_done
