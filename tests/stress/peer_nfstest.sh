#!/bin/bash
# NFStest's nfstest_alloc, nfstest_cache and nfstest_io over NFS (issue 16), on whatever
# kernel boots (make stress runs every tests/stress/peer_*.sh on stock, patched and the debug
# kernel, and compares the counts; peer_tools.sh runs nfstest_posix).
#  - nfstest_alloc (v4.2: ALLOCATE and DEALLOCATE): alloc01-05 and dealloc01-05. Its alloc06,
#    dealloc06 and perf01 write the export's whole free space with a pattern that NFStest 3.2
#    builds by appending 32-byte lines to a bytes object, quadratic in the size: on this
#    768 MiB export alloc06 was still building it after 10 minutes. It checks the wire with
#    tcpdump, started as peer.sh's nfstest_tcpdump says.
#  - nfstest_cache: attribute and data caching (acregmin, acregmax, acdirmin, acdirmax,
#    actimeo) against a second client that changes the files. NFStest reaches that client
#    with ssh; here it is netns "cli2" (10.9.2.2) with a mount namespace of its own, reached
#    by lab/guest/ns-ssh on PATH as `ssh`. Its mounts are made from its own netns, so they get
#    an NFS client, superblocks and a page cache of their own, as a second machine's would.
#  - nfstest_io: four processes of random opens, reads, writes, renames, truncates, links,
#    fsyncs and locks over the mount, with a fixed seed, on files of 256 KiB on average (the
#    export stays far from full: at 1 MiB it wrote 214 MiB in 15 s on a tmpfs); its verdict
#    is the count of failed calls (it checks no data: fsx, stress-ng --verify and
#    nfs_faults.sh do that).
# Every tool's verdict is one TAP line; its counts go to a "# peer: TOOL VERS pass=N fail=N
# skip=N" line that lab/stress.sh collects.
# Environment: STRESS_SHORT=1 runs nfstest_alloc's alloc01 and dealloc01, nfstest_cache's
# acregmin tests only (attributes and data, 2 of its 10) and nfstest_io for 20 s instead of 120.
set -u
. "$(dirname "$0")/../../lab/guest/lib.sh"
. "$(dirname "$0")/../../lab/guest/tap.sh"
. "$LAB_OUT/kernel.env"
# shellcheck source=lab/guest/peer.sh
. "$(dirname "$0")/../../lab/guest/peer.sh"
[ -x "$peer/nfstest/usr/bin/nfstest_cache" ] ||
	lab_die "no NFStest under $peer; run lab/peer-tools.sh on the host"
short=${STRESS_SHORT:-0}
io_s=$([ "$short" = 1 ] && echo 20 || echo 120)
cache_tests=()
[ "$short" = 1 ] && cache_tests=(--runtest "acregmin_attr,acregmin_data")
alloc_tests=(--runtest "$(echo alloc0{1..5} dealloc0{1..5} | tr ' ' ,)")
[ "$short" = 1 ] && alloc_tests=(--runtest "alloc01,dealloc01")

peer_setup

# The second client: netns cli2 on a veth pair of its own (no netem: it only changes files
# and reads attributes), routed to the server's address, with an NFSv4 client identifier of
# its own (both namespaces have the guest's hostname; with one owner string the server would
# take them for one client). Its mount namespace is made now, while nothing is mounted on
# $MNT, and kept private: mounts on either side stay on that side.
CLI2_IP=10.9.2.2
modprobe nfs 2>/dev/null
ip netns add cli2
ip link add srv2 type veth peer name cli netns cli2
ip addr add 10.9.2.1/24 dev srv2
ip link set srv2 up
ip -n cli2 addr add "$CLI2_IP/24" dev cli
ip -n cli2 link set cli up
ip -n cli2 link set lo up
ip -n cli2 route add default via 10.9.2.1
ip netns exec cli2 sh -c 'echo lab-cli2 >/sys/fs/nfs/net/nfs_client/identifier' ||
	lab_die "cannot give netns cli2 an NFS client identifier"
mkdir -p /run/lab-ns
{ mount --bind /run/lab-ns /run/lab-ns && mount --make-private /run/lab-ns; } ||
	lab_die "cannot make /run/lab-ns private"
touch /run/lab-ns/cli2
unshare --mount=/run/lab-ns/cli2 --propagation private true ||
	lab_die "cannot make cli2's mount namespace"
mkdir -p /tmp/ns-ssh
ln -sf "$LAB_GUEST/ns-ssh" /tmp/ns-ssh/ssh
export LAB_NS_HOST=$CLI2_IP LAB_NS_NET=cli2 LAB_NS_MNT=/run/lab-ns/cli2
/tmp/ns-ssh/ssh -t -t "$CLI2_IP" "ping -q -c 2 -i 0.2 $SRV_IP >/dev/null"
ok $? "the second client (netns cli2, via ns-ssh) reaches the server"

# nfstest_cache VERS: its own mounts, on the local client (netns cli) and the second one.
# It mounts with options of its own ("hard,intr,rsize=4096,wsize=4096,acregmin=10" and so on),
# not --mtopts, so:
#  - v3: the guest runs no statd, and mount.nfs refuses a v3 mount with locking without it;
#    mount.nfs's own configuration file (/etc/nfsmount.conf, in the guest's tmpfs overlay of
#    /etc) gives those mounts nolock for the run (locks stay local, as on every v3 mount here).
#  - Read delegations off (fs.leases-enable = 0, which nfsd's delegations need): the tests
#    time the cache from the moment the second client changes the file, with no margin
#    (acregmin 10 s: the "just after" read comes 10.0 s later). With a delegation, nfsd recalls
#    it when the second client opens the file, and the DELEGRETURN's GETATTR restarts the
#    first client's attribute timer within that change, up to a second later under TCG: seen,
#    "File data should have changed just after acregmin" failing on stock with 10.016 s.
run_cache() {
	local vers=$1 rc exp=$EXPORT out=$log/nfstest_cache-v$1.log
	[ "$vers" = 4.2 ] && exp=/
	[ "$vers" = 3 ] && printf '[ NFSMount_Global_Options ]\nLock=False\n' >/etc/nfsmount.conf
	echo 0 >/proc/sys/fs/leases-enable
	PATH="/tmp/ns-ssh:$PATH" nfstest_run 2400 nfstest_cache "${cache_tests[@]}" \
		--server "$SRV_IP" --client "$CLI2_IP" --export "$exp" --nfsversion "$vers" \
		--mtpoint "$MNT" --datadir "nfstest-cache-$vers" --notty --tmpdir /tmp \
		--interface cli --rmtraces >"$out" 2>&1
	rc=$?
	echo 1 >/proc/sys/fs/leases-enable
	rm -f /etc/nfsmount.conf
	nfstest_verdict nfstest_cache "$vers" "$out" $rc
}

# nfstest_alloc (v4.2 only): its own mounts, from netns cli.
run_alloc() {
	local rc out=$log/nfstest_alloc-v4.2.log
	nfstest_run 1800 nfstest_alloc "${alloc_tests[@]}" \
		--server "$SRV_IP" --export / --nfsversion 4.2 --mtpoint "$MNT" --mtopts hard \
		--rsize 1048576 --wsize 1048576 --datadir nfstest-alloc --notty --tmpdir /tmp \
		--client-ipaddr "$CLI_IP" --interface cli \
		"${nfstest_tcpdump[@]}" --rmtraces >"$out" 2>&1
	rc=$?
	tcpdump_left
	nfstest_verdict nfstest_alloc 4.2 "$out" $rc
}

# nfstest_io VERS: on the lab's mount; failed calls are "ERROR on file object" lines and an
# "ERRORS: N" total, which NFStest prints but does not turn into an exit status.
run_io() {
	local vers=$1 rc errs ops bad out=$log/nfstest_io-v$1.log
	lab_mount "$vers"
	mkdir -p "$MNT/nfstest-io"
	nfstest_run $((io_s + 300)) nfstest_io -d "$MNT/nfstest-io" -s 16 -n 4 \
		-r "$io_s" --fsizeavg 256k --fsizedev 64k -v info >"$out" 2>&1
	rc=$?
	errs=$(awk '/ERRORS:/ { print $NF }' "$out" | tail -1)
	errs=${errs:-$(grep -c "ERROR on file object" "$out")}
	# "INFO: DATE TIME  READ:  76706,  4.54 GB, ...": the count follows the name
	ops=$(awk '{ for (i = 1; i < NF; i++) if ($i ~ /^(OPEN|READ|WRITE):$/) {
		sub(",", "", $(i + 1)); n += $(i + 1) } } END { print n + 0 }' "$out")
	bad=$(( rc != 0 || errs != 0 || ops == 0 ))
	ok $bad "NFSv$vers nfstest_io, 4 processes for $io_s s: $ops opens, reads and writes," \
		"$errs failed calls (rc $rc, log peer/nfstest_io-v$vers.log)"
	[ "$errs" != 0 ] && grep -A3 "ERROR" "$out" | head -12 | sed 's/^/# /'
	count nfstest_io "$vers" $(( !bad )) $bad 0
	rm -rf "$MNT/nfstest-io" 2>/dev/null
	umount "$MNT"
}

run_alloc
umount "$MNT" 2>/dev/null
for vers in 3 4.2; do
	run_cache "$vers"
	umount "$MNT" 2>/dev/null
	run_io "$vers"
done
no_splat
tap_done
