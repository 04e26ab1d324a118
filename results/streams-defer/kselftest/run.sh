#!/bin/bash
# reclaim_behind from the deferral's kselftest, on ext4 and NFS, on whatever kernel booted.
set -u
out=$1
. /work/main/lab/guest/lib.sh
lab_storage ext4 512
lab_link 1
lab_nfsd
lab_mount 4.2 rsize=1048576
uname -v
for d in "$EXPORT" "$MNT"; do
	echo "== $d"
	READAHEAD_TEST_DIR="$d" ${KS:-/work/main/out/ks-rb/defer}/readahead_stats_test -t reclaim_behind 2>&1 | tail -8
done
