# shellcheck shell=bash
# shellcheck disable=SC2034 # variables for the scripts that source this file
# In-guest lab library: storage, NFS server, the veth/netem link and the client mount.
# Sourced by guest tests and benchmark workloads; every function fails loudly.
#
# Topology (one guest, two network namespaces):
#
#   init netns: nfsd, exports $EXPORT (ext4/xfs on null_blk, or tmpfs)   10.9.0.1  veth "srv"
#   netns "cli": the NFS client                                           10.9.0.2  veth "cli"
#
# netem sits on the egress of both veth ends, so a one-way delay D gives an RTT of about 2*D.
# The client mounts from inside netns "cli" with nsenter --net, which keeps the mount in the
# guest's one mount namespace (ip netns exec would hide it in a private one), while its RPC
# transport lives in netns "cli" and crosses the veth pair.

SRV_IP=10.9.0.1
CLI_IP=10.9.0.2
EXPORT=/srv/export
MNT=/srv/nfs
NULLB=/sys/kernel/config/nullb
LAB_GUEST=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

lab_die() { echo "lab: $*" >&2; exit 1; }

# Run a command in the client's network namespace (same mount namespace).
in_cli() { nsenter --net=/run/netns/cli "$@"; }

lab_mounts() {
	mountpoint -q /sys/kernel/config || mount -t configfs none /sys/kernel/config
	mountpoint -q /sys/kernel/debug || mount -t debugfs none /sys/kernel/debug
	mountpoint -q /sys/kernel/tracing || mount -t tracefs none /sys/kernel/tracing
}

# lab_nullb NAME SIZE_MB [COMPLETION_NSEC [MBPS [QUEUE_DEPTH]]]: memory-backed null_blk device /dev/NAME
# (optionally with a per-I/O latency and a bandwidth cap, for an HDD-like server).
lab_nullb() {
	local name=$1 size=$2 lat=${3:-0} mbps=${4:-0} depth=${5:-0} d=$NULLB/$1
	lab_mounts
	mkdir "$d" || lab_die "cannot create null_blk device $name"
	echo 1 >"$d/memory_backed"
	echo "$size" >"$d/size"
	echo 4096 >"$d/blocksize"
	# 1280 KiB per request like a SATA disk, not null_blk's 255 sectors (see env.py Disk.create)
	echo 2560 >"$d/max_sectors"
	if [ "$lat" -gt 0 ]; then
		echo 2 >"$d/irqmode"
		echo "$lat" >"$d/completion_nsec"
	fi
	[ "$mbps" -gt 0 ] && echo "$mbps" >"$d/mbps"
	[ "$depth" -gt 0 ] && echo "$depth" >"$d/hw_queue_depth"
	echo 1 >"$d/power"
	[ -b "/dev/$name" ] || lab_die "null_blk device /dev/$name did not appear"
}

# lab_storage FSTYPE SIZE_MB [COMPLETION_NSEC [MBPS]]
# FSTYPE ext4|xfs: a filesystem on null_blk device "labdisk" (lab_nullb); tmpfs: no block
# device at all.
lab_storage() {
	local fstype=$1 size=$2
	lab_mounts
	mkdir -p "$EXPORT"
	if [ "$fstype" = tmpfs ]; then
		mount -t tmpfs -o size="${size}m" tmpfs "$EXPORT"
		return
	fi
	lab_nullb labdisk "$size" "${3:-0}" "${4:-0}"
	case "$fstype" in
	ext4) mkfs.ext4 -q -F /dev/labdisk ;;
	xfs) mkfs.xfs -q -f /dev/labdisk ;;
	*) lab_die "unknown filesystem '$fstype' (ext4, xfs or tmpfs)" ;;
	esac
	mount -t "$fstype" /dev/labdisk "$EXPORT"
}

# lab_link [DELAY_MS [RATE [LIMIT]]]: veth pair between init netns and "cli", netem both ways.
lab_link() {
	local delay=${1:-0} rate=${2:-1gbit} limit=${3:-20000} dev
	ip netns add cli
	ip link add srv type veth peer name cli netns cli
	ip addr add "$SRV_IP/24" dev srv
	ip link set srv up
	ip link set lo up
	in_cli ip addr add "$CLI_IP/24" dev cli
	in_cli ip link set cli up
	in_cli ip link set lo up
	for dev in srv cli; do
		local args=(delay "${delay}ms" limit "$limit")
		[ "$rate" != none ] && args+=(rate "$rate")
		if [ $dev = srv ]; then
			tc qdisc add dev srv root netem "${args[@]}"
		else
			in_cli tc qdisc add dev cli root netem "${args[@]}"
		fi
	done
}

# lab_rtt: measured RTT in ms (average of 5 pings from the client, 50 ms apart).
lab_rtt() {
	in_cli ping -q -c 5 -i 0.05 "$SRV_IP" | awk -F/ '/^rtt|^round-trip/ { print $5 }'
}

# lab_nfsd [THREADS]: start rpcbind, mountd and nfsd exporting $EXPORT (fsid=0 for v4).
# max_block_size is set to 1 MiB so rsize 1 MiB is on offer whatever the guest's RAM.
lab_nfsd() {
	local threads=${1:-8}
	mkdir -p /var/lib/nfs /run/rpcbind
	mountpoint -q /var/lib/nfs || mount -t tmpfs tmpfs /var/lib/nfs
	touch /var/lib/nfs/etab /var/lib/nfs/rmtab
	mountpoint -q /proc/fs/nfsd || mount -t nfsd nfsd /proc/fs/nfsd
	echo 1048576 >/proc/fs/nfsd/max_block_size
	rpcbind -w
	# /16: with several clients each sits in its own 10.9.K.0/24 behind the router namespace
	echo "$EXPORT 10.9.0.0/16(rw,no_root_squash,insecure,no_subtree_check,fsid=0)" >/etc/exports
	exportfs -ra
	# mountd's stderr goes to a file: a daemon holding our stdout or stderr would keep a
	# caller that captures them waiting forever. (Its complaints about udp6/tcp6 are noise.)
	rpc.mountd 2>/run/lab-mountd.log || { cat /run/lab-mountd.log >&2; lab_die "rpc.mountd failed"; }
	rpc.nfsd -L 10 -G 10 "$threads"
}

# lab_mount VERS [OPTS]: mount the export at $MNT from netns "cli"; prints nothing.
lab_mount() {
	local vers=$1 opts=${2:-} src
	mkdir -p "$MNT"
	case "$vers" in
	3) src=$SRV_IP:$EXPORT opts=vers=3,nolock${opts:+,$opts} ;;
	4*) src=$SRV_IP:/ opts=vers=$vers${opts:+,$opts} ;;
	*) lab_die "unknown NFS version '$vers'" ;;
	esac
	in_cli mount -t nfs -o "$opts" "$src" "$MNT"
}

# lab_bdi PATH: the bdi directory (/sys/class/bdi/MAJ:MIN) of the filesystem holding PATH.
lab_bdi() {
	local dev
	dev=$(mountpoint -d "$1") || lab_die "$1 is not a mount point"
	echo "/sys/class/bdi/$dev"
}

# lab_used FILE: the bytes FILE takes on disk (its blocks, not its size).
lab_used() { echo $(( $(stat -c %b "$1") * 512 )); }

# lab_wait_used FILE BYTES [TRIES]: wait, 0.5 s a try (60 tries unless told), until FILE takes
# at most BYTES on disk, as a file does once nfsd has closed it and given back what it
# preallocated (NFSv3: nfsd's file cache lets go within seconds); prints what it takes.
lab_wait_used() {
	local used
	for _ in $(seq "${3:-60}"); do
		used=$(lab_used "$1")
		[ "$used" -le "$2" ] && break
		sleep 0.5
	done
	echo "$used"
}

# lab_mount_budget VERS BYTES [OPTS]: lab_mount, with the client's dirty threshold BYTES on the
# mount's bdi (strict_limit, min_bytes = max_bytes) and the server's own writeback idle (global
# thresholds of 8 GiB, the export disk's bdi guaranteed 2 GiB), as the nfs-writeback family
# sets them (lab/families/nfs_writeback.py); prints nothing.
lab_mount_budget() {
	local vers=$1 bytes=$2 opts=${3:-}
	lab_dirty_global
	echo $((2 << 30)) >"$(lab_bdi "$EXPORT")/min_bytes"
	lab_mount "$vers" "$opts"
	lab_bdi_budget "$(lab_bdi "$MNT")" "$bytes"
}

# lab_dirty_global: global dirty thresholds of 8 GiB (background 4 GiB), far above what any
# lab guest dirties, so that only the limits a bdi is given apply.
lab_dirty_global() {
	echo $((8 << 30)) >/proc/sys/vm/dirty_bytes
	echo $((4 << 30)) >/proc/sys/vm/dirty_background_bytes
}

# lab_bdi_budget BDI BYTES: a dirty threshold of BYTES on the bdi whose sysfs directory is BDI
# (strict_limit, min_bytes = max_bytes = BYTES), under lab_dirty_global's thresholds.
lab_bdi_budget() {
	lab_dirty_global
	echo "$2" >"$1/min_bytes"
	echo "$2" >"$1/max_bytes"
	echo 1 >"$1/strict_limit"
}

# lab_nfs_ops MNT: the counts of READ, WRITE and COMMIT RPCs of the mount at MNT, on one
# line (lab/guest/nfswrite.py, the benchmark's mountstats parser).
lab_nfs_ops() {
	python3 "$LAB_GUEST/nfswrite.py" ops "$1"
}

# lab_mount_opt PATH OPT: the value of a mount option (e.g. rsize) as the kernel reports it.
lab_mount_opt() {
	awk -v m="$1" -v o="$2" '$2 == m { n = split($4, a, ","); for (i = 1; i <= n; i++)
		if (split(a[i], kv, "=") == 2 && kv[1] == o) print kv[2] }' /proc/mounts | tail -n 1
}

# lab_file PATH SIZE_MB: a file of random data (written on the server side, not over NFS).
lab_file() {
	head -c "$(( $2 * 1048576 ))" /dev/urandom >"$1"
}

# lab_memcg NAME [BYTES]: the cgroup v2 memory cgroup /sys/fs/cgroup/NAME (cgroup2 mounted and
# the memory controller enabled as needed), memory.max set to BYTES if given.
lab_memcg() {
	local cg=/sys/fs/cgroup/$1
	mkdir -p /sys/fs/cgroup
	mountpoint -q /sys/fs/cgroup || mount -t cgroup2 none /sys/fs/cgroup
	echo +memory >/sys/fs/cgroup/cgroup.subtree_control
	mkdir -p "$cg"
	[ -z "${2:-}" ] || echo "$2" >"$cg/memory.max"
}

# in_memcg NAME CMD...: run CMD in the memory cgroup NAME (lab_memcg).
in_memcg() {
	local cg=/sys/fs/cgroup/$1
	shift
	sh -c 'echo $$ >"$0/cgroup.procs" && exec "$@"' "$cg" "$@"
}

lab_drop_caches() {
	sync
	echo 3 >/proc/sys/vm/drop_caches
}

# lab_trace_on CLOCK KB EVENT...: trace EVENTs (SYSTEM/NAME, or SYSTEM for all of its events)
# into an emptied buffer of KB KiB per CPU, stamped by CLOCK ("mono" gives CLOCK_MONOTONIC,
# the clock of user space's samples; "local" is the default). lab_trace_off stops tracing and
# disables the events, leaving the buffer ($LAB_TRACE/trace) to read; lab_trace_clear empties
# it and puts the default clock back.
LAB_TRACE=/sys/kernel/tracing
LAB_TRACE_EVENTS=()
lab_trace_on() {
	local clock=$1 kb=$2 e
	shift 2
	[ $# -gt 0 ] || lab_die "lab_trace_on: no event to trace"
	lab_mounts
	echo "$clock" >$LAB_TRACE/trace_clock || lab_die "no trace clock $clock"
	echo "$kb" >$LAB_TRACE/buffer_size_kb || lab_die "cannot size the trace buffer to $kb KiB"
	echo >$LAB_TRACE/trace
	for e; do
		echo 1 >"$LAB_TRACE/events/$e/enable" || lab_die "no trace event $e"
	done
	LAB_TRACE_EVENTS=("$@")
	echo 1 >$LAB_TRACE/tracing_on
}
lab_trace_off() {
	local e
	echo 0 >$LAB_TRACE/tracing_on
	for e in "${LAB_TRACE_EVENTS[@]}"; do
		echo 0 >"$LAB_TRACE/events/$e/enable"
	done
	LAB_TRACE_EVENTS=()
}
lab_trace_clear() {
	echo local >$LAB_TRACE/trace_clock	# setting the clock empties the buffer
	echo 1 >$LAB_TRACE/tracing_on
}
