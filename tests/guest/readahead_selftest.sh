#!/bin/bash
# The series' readahead kselftest (tools/testing/selftests/readahead), on ext4 and on NFS.
set -u
. "$(dirname "$0")/../../lab/guest/lib.sh"
. "$(dirname "$0")/../../lab/guest/tap.sh"
. "$LAB_OUT/kernel.env"

bin=$KSELFTEST_DIR/readahead/readahead_stats_test
[ -x "$bin" ] || { echo "not ok 1 - $bin was not built"; echo "1..1"; exit 1; }

lab_storage ext4 512
lab_link 1
lab_nfsd
lab_mount 4.2 rsize=1048576

for where in "ext4:$EXPORT" "nfs:$MNT"; do
	name=${where%%:*} dir=${where#*:}
	diag "readahead_stats_test on $name ($dir)"
	READAHEAD_TEST_DIR=$dir "$bin" >/tmp/ks.out 2>&1
	rc=$?
	sed 's/^/    /' /tmp/ks.out
	ok "$rc" "readahead_stats_test on $name"
	grep -qE "^# Totals: pass:[1-9][0-9]* fail:0 .*skip:0 error:0" /tmp/ks.out
	ok $? "$name: every test ran (none skipped)"
done
tap_done
