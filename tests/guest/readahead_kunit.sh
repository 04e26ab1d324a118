#!/bin/bash
# The series' KUnit suites (mm/readahead_kunit.c, CONFIG_READAHEAD_KUNIT_TEST), run during boot
# because of the command line below: readahead_hole_search (page_cache_next_miss() and
# page_cache_prev_miss() give the answers of the slot-by-slot walk they replaced, on random
# layouts, and are at least 2x faster over a cached 1 GiB range) and readahead_default (the
# default window by device size). Every suite must have run and passed.
# lab-append: kunit.enable=1 kunit.filter_glob=readahead_*
set -u
. "$(dirname "$0")/../../lab/guest/lib.sh"
. "$(dirname "$0")/../../lab/guest/tap.sh"

dmesg >/tmp/kunit.log
grep -E 'readahead_|next_miss|prev_miss|# Totals' /tmp/kunit.log | sed 's/^/    /'
for suite in readahead_hole_search readahead_default; do
	grep -qE "\] +ok [0-9]+ $suite\$" /tmp/kunit.log
	ok $? "KUnit suite $suite ran and passed"
done
! grep -qE '\] +not ok ' /tmp/kunit.log
ok $? "no KUnit test case failed"
# The timings the speed check is based on, for the record.
n=$(grep -cE '(next|prev)_miss over [0-9]+ cached pages' /tmp/kunit.log)
is "$n" 2 "hole search timings reported (next_miss, prev_miss)"
tap_done
