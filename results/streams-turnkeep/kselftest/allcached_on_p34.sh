#!/bin/bash
# The 35-patch series' readahead_stats_test binary (its short_window_all_cached case) on the kernel
# under test, on ext4 and NFS: to show that the case fails without patch 35. Not part of the suite.
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
	diag "short_window_all_cached (35 patches' binary) on $name"
	run_ks "short_window_all_cached on $name" env READAHEAD_TEST_DIR="$d" /work/main/out/allcached/readahead_stats_test.p35 -t short_window_all_cached
done
tap_done
