#!/bin/bash
# The readahead events work from the usual tools: trace-cmd records and reports them with
# their fields (the waits for a readahead turn too), and perf counts them.
set -u
. "$(dirname "$0")/../../lab/guest/lib.sh"
. "$(dirname "$0")/../../lab/guest/tap.sh"

lab_storage ext4 256
head -c $((32 << 20)) /dev/urandom >"$EXPORT/f"
sync
cd /tmp || exit 1

lab_drop_caches
trace-cmd record -q -o /tmp/ra.dat -e readahead:page_cache_ra_pattern -e readahead:page_cache_sync_ra \
	dd if="$EXPORT/f" of=/dev/null bs=4k status=none >/tmp/rec.log 2>&1
ok $? "trace-cmd record -e readahead:page_cache_ra_pattern"
trace-cmd report -i /tmp/ra.dat >/tmp/report.txt 2>&1
n=$(grep -c 'page_cache_ra_pattern:.*pattern=subsequent req=[0-9]*+[0-9]* ra=[0-9]*+[0-9]*-[0-9]* async=1 mmap=0 actual=[0-9]' /tmp/report.txt)
[ "$n" -ge 8 ]
ok $? "trace-cmd report shows the subsequent windows of dd with their fields ($n)"
grep -q 'page_cache_sync_ra:.*index=0 req_count=' /tmp/report.txt
ok $? "trace-cmd report shows page_cache_sync_ra in the mainline format"
grep -m3 page_cache_ra_pattern /tmp/report.txt | sed 's/^/# /'

if command -v perf >/dev/null; then
	lab_drop_caches
	perf stat -x, -e readahead:page_cache_ra_pattern -e readahead:page_cache_async_ra \
		-o /tmp/perf.txt dd if="$EXPORT/f" of=/dev/null bs=4k status=none
	ok $? "perf stat -e readahead:page_cache_ra_pattern"
	cnt=$(awk -F, '/readahead:page_cache_ra_pattern/ { print $1 }' /tmp/perf.txt)
	async=$(awk -F, '/readahead:page_cache_async_ra/ { print $1 }' /tmp/perf.txt)
	diag "perf counted $cnt page_cache_ra_pattern and $async page_cache_async_ra events"
	[ "${cnt:-0}" -ge 8 ] && [ "${async:-0}" -ge 8 ] && [ "$cnt" -ge "$async" ]
	ok $? "perf counts the events of a 32 MiB sequential read"
else
	skip "perf is not installed"
fi
# Readers that wait for a readahead turn (readahead:page_cache_ra_turn_wait): a null_blk
# device that serves one request at a time in 100 ms, and 16 readers of it at once. The
# first windows wait for the request, which starts the turns; the readers after them wait
# for a turn, and trace-cmd decodes how each wait ended.
lab_nullb turnsdisk 64 100000000 0 1
[ "$(cat "$NULLB/turnsdisk/hw_queue_depth")" = 1 ]
ok $? "a null_blk device that serves one request at a time"
# shellcheck disable=SC2016 # expanded by the inner bash
trace-cmd record -q -o /tmp/turns.dat -e readahead:page_cache_ra_turn_wait bash -c \
	'for i in $(seq 0 15); do dd if=/dev/turnsdisk of=/dev/null bs=4k count=64 skip=$((i * 256)) status=none & done; wait' \
	>/tmp/rec-turns.log 2>&1
ok $? "trace-cmd record -e readahead:page_cache_ra_turn_wait"
trace-cmd report -i /tmp/turns.dat >/tmp/turns.txt 2>&1
n=$(grep -c 'page_cache_ra_turn_wait: dev=[0-9]*:[0-9]* ino=[0-9a-f]* index=[0-9]* waited_us=[0-9]* turn=\(got\|none\)$' /tmp/turns.txt)
[ "$n" -ge 4 ]
ok $? "trace-cmd report decodes the waits of readers for a turn ($n)"
grep -m3 page_cache_ra_turn_wait /tmp/turns.txt | sed 's/^/# /'
echo 0 >"$NULLB/turnsdisk/power" && rmdir "$NULLB/turnsdisk"
tap_done
