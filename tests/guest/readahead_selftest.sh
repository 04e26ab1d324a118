#!/bin/bash
# The series' readahead kselftests (tools/testing/selftests/readahead) on the kernel under test:
# readahead_stats_test and read_around_test on ext4 and on NFS, nfs_readahead_test with an
# export to mount (from the client's netns, across the veth pair), bdi_default_test on null_blk
# devices of 1 MiB to 64 TiB, slow_submit_test on null_blk devices that serve one request at a
# time in 1 s (in a memory cgroup) and in 500 ms (with readahead trace events). Every test must
# run: a skip here means the kernel or the lab lost something.
#
# RA_SELFTEST_BIN=FILE RA_SELFTEST_CASE=NAME (set on the host, passed by lab/guest-tests.sh)
# run instead only that case of that readahead_stats_test binary on ext4 and NFS: a new case's
# binary on the series without the patch it tests, to show that the case fails there.
set -u
. "$(dirname "$0")/../../lab/guest/lib.sh"
. "$(dirname "$0")/../../lab/guest/tap.sh"
. "$LAB_OUT/kernel.env"

dir=$KSELFTEST_DIR/readahead
bin=${RA_SELFTEST_BIN:-} case=${RA_SELFTEST_CASE:-}
if [ -n "$bin" ]; then
	[ -n "$case" ] || { echo "not ok 1 - RA_SELFTEST_BIN is set without RA_SELFTEST_CASE"; echo "1..1"; exit 1; }
	[ -x "$bin" ] || { echo "not ok 1 - RA_SELFTEST_BIN=$bin is not an executable file"; echo "1..1"; exit 1; }
else
	for t in readahead_stats_test read_around_test nfs_readahead_test bdi_default_test slow_submit_test; do
		[ -x "$dir/$t" ] || { echo "not ok 1 - $dir/$t was not built"; echo "1..1"; exit 1; }
	done
fi

lab_storage ext4 512
lab_link 1
lab_nfsd
lab_mount 4.2 rsize=1048576

if [ -n "$bin" ]; then
	for where in "ext4:$EXPORT" "nfs:$MNT"; do
		name=${where%%:*} d=${where#*:}
		diag "$case ($bin) on $name"
		run_ks "$case on $name" env READAHEAD_TEST_DIR="$d" "$bin" -t "$case"
	done
	tap_done
	exit
fi

for where in "ext4:$EXPORT" "nfs:$MNT"; do
	name=${where%%:*} d=${where#*:}
	for t in readahead_stats_test read_around_test; do
		diag "$t on $name ($d)"
		run_ks "$t on $name" env READAHEAD_TEST_DIR="$d" "$dir/$t"
	done
done
diag "nfs_readahead_test: new mounts of $SRV_IP:/ from netns cli"
run_ks nfs_readahead_test in_cli env NFS_READAHEAD_TEST_EXPORT="$SRV_IP:/" NFS_READAHEAD_TEST_OPTS=vers=4.2 \
	"$dir/nfs_readahead_test"
diag "bdi_default_test: the default window of null_blk disks by size"
run_ks bdi_default_test "$dir/bdi_default_test"
diag "slow_submit_test: a window that waited for a request slot ages from its submission; windows take turns while the device is short of requests"
run_ks slow_submit_test "$dir/slow_submit_test"
tap_done
