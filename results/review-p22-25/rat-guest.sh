#!/bin/bash
# One-off (results/review-p22-25): the series' read_around_test, built by hand from the dev tree
# (gcc -O2 -o /tmp/rat-new tools/testing/selftests/readahead/read_around_test.c), on ext4 and
# NFSv4.2 on the kernel booted. lab/vm.sh KIND OUT bash $PWD/results/review-p22-25/rat-guest.sh OUT
set -u
out=$1
. /work/main/lab/guest/lib.sh
lab_storage ext4 512
lab_link 1
lab_nfsd
lab_mount 4.2 rsize=1048576
uname -r
for d in "$EXPORT" "$MNT"; do
	echo "== $d"
	env READAHEAD_TEST_DIR="$d" ${RAT:-/tmp/rat-new} 2>&1 | grep -v '^# *$' | tail -25
done
