#!/bin/bash
# The 36-patch series' readahead_stats_test binary (its turn_short_marks_halfway case) on the kernel
# under test, on ext4 and NFS: to show that the case fails without patch 36. Not part of the suite.
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
	diag "turn_short_marks_halfway (36 patches' binary) on $name"
	run_ks "turn_short_marks_halfway on $name" env READAHEAD_TEST_DIR="$d" /work/main/out/turnshort/readahead_stats_test.p36 -t turn_short_marks_halfway
done
tap_done
