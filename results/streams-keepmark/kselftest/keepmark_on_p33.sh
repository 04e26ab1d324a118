#!/bin/bash
# The 34-patch series' readahead_stats_test binary (its keep_mark_halfway case) on the kernel
# under test, on ext4 and NFS: to show that the case fails without patch 34. Not part of the suite.
set -u
. /work/main/lab/guest/lib.sh
. /work/main/lab/guest/tap.sh
. "$LAB_OUT/kernel.env"
lab_storage ext4 512
lab_link 1
lab_nfsd
lab_mount 4.2 rsize=1048576
for where in "ext4:$EXPORT" "nfs:$MNT"; do
	name=${where%%:*} d=${where#*:}
	diag "keep_mark_halfway (34 patches' binary) on $name"
	run_ks "keep_mark_halfway on $name" env READAHEAD_TEST_DIR="$d" /work/main/out/keepmark/readahead_stats_test.p34 -t keep_mark_halfway
done
tap_done
