#!/bin/bash
# The text of readahead:page_cache_ra_pattern is what Documentation/trace/events-readahead.rst
# says it is: lab/guest/ra_events.py, written for the documented format, parses every line of
# the event that trace-cmd report and /sys/kernel/tracing/trace print for a sequential, a
# random and an mmap read on ext4, and finds the patterns those reads must show.
set -u
. "$(dirname "$0")/../../lab/guest/lib.sh"
. "$(dirname "$0")/../../lab/guest/tap.sh"
RA_EVENTS=$(cd "$(dirname "$0")/../../lab/guest" && pwd)/ra_events.py
T=/sys/kernel/tracing

lab_storage ext4 256
lab_file "$EXPORT/f" 32
sync
cd /tmp || exit 1

# The random and mmap reads: 256 one-page pread()s at random pages, and one byte read through
# a shared mapping from every 64th page in random order (each fault misses the page cache).
cat >/tmp/ra_work.py <<'EOF'
import mmap, os, random, sys
mode, path = sys.argv[1], sys.argv[2]
fd = os.open(path, os.O_RDONLY)
psize = os.sysconf("SC_PAGE_SIZE")
pages = os.fstat(fd).st_size // psize
rng = random.Random(17)
if mode == "random":
    for _ in range(256):
        os.pread(fd, psize, rng.randrange(pages) * psize)
else:
    m = mmap.mmap(fd, 0, prot=mmap.PROT_READ)
    idx = list(range(0, pages, 64))
    rng.shuffle(idx)
    print(sum(m[i * psize] for i in idx) >= 0)
EOF

# The three reads, each from a cold page cache.
workload() {
	lab_drop_caches
	dd if="$EXPORT/f" of=/dev/null bs=4k status=none || return 1
	lab_drop_caches
	python3 /tmp/ra_work.py random "$EXPORT/f" || return 1
	lab_drop_caches
	python3 /tmp/ra_work.py mmap "$EXPORT/f" >/dev/null
}
export EXPORT
export -f workload lab_drop_caches

# count SUMMARY PATTERN: events of PATTERN in a ra_events.py --summary output
count() { awk -v p="$2" '$1 == p { print $2 }' "$1"; }

# check_trace FILE WHAT: every event line of FILE parses, and the reads show their patterns.
check_trace() {
	local f=$1 what=$2 n parsed
	n=$(grep -c ' page_cache_ra_pattern: ' "$f")
	python3 "$RA_EVENTS" --check --summary "$f" >"$f.summary" 2>"$f.err"
	ok $? "$what: every page_cache_ra_pattern line parses as documented (and --check holds)"
	sed 's/^/# /' "$f.err"
	parsed=$(count "$f.summary" all)
	is "$parsed" "$n" "$what: the parser read every line of the event"
	[ "${parsed:-0}" -ge 1 ]
	ok $? "$what: at least one event (${parsed:-none} parsed)"
	grep -m3 ' page_cache_ra_pattern: ' "$f" | sed 's/^/# /'

	python3 "$RA_EVENTS" --summary --file "$EXPORT/f" "$f" >"$f.file" 2>&1
	sed 's/^/# /' "$f.file"
	[ "$(count "$f.file" initial)" -ge 1 ] 2>/dev/null && [ "$(count "$f.file" subsequent)" -ge 8 ] 2>/dev/null
	ok $? "$what: the sequential read shows initial and subsequent windows"
	[ "$(count "$f.file" random)" -ge 1 ] 2>/dev/null
	ok $? "$what: the random read shows random decisions"
	[ "$(count "$f.file" around)" -ge 1 ] 2>/dev/null
	ok $? "$what: the mmap read shows read-around"
}

# trace-cmd
trace-cmd record -q -o /tmp/ev.dat -e readahead:page_cache_ra_pattern bash -c workload \
	>/tmp/ev-record.log 2>&1
ok $? "trace-cmd record -e readahead:page_cache_ra_pattern (sequential, random and mmap reads)"
[ -s /tmp/ev-record.log ] && sed 's/^/# record: /' /tmp/ev-record.log
trace-cmd report -i /tmp/ev.dat >/tmp/ev-report.txt 2>/tmp/ev-report.err
ok $? "trace-cmd report"
[ -s /tmp/ev-report.err ] && sed 's/^/# report: /' /tmp/ev-report.err
check_trace /tmp/ev-report.txt "trace-cmd report"

# /sys/kernel/tracing/trace, the same reads
echo 0 >"$T/tracing_on"
echo nop >"$T/current_tracer"
echo 0 >"$T/events/enable"
echo 8192 >"$T/buffer_size_kb"
echo >"$T/trace"
echo 1 >"$T/events/readahead/page_cache_ra_pattern/enable"
echo 1 >"$T/tracing_on"
workload
rc=$?
echo 0 >"$T/tracing_on"
echo 0 >"$T/events/readahead/page_cache_ra_pattern/enable"
ok $rc "the reads ran with the event enabled in tracefs"
cat "$T/trace" >/tmp/ev-ftrace.txt
diag "$(grep -m1 'entries-in-buffer' /tmp/ev-ftrace.txt)"
check_trace /tmp/ev-ftrace.txt "/sys/kernel/tracing/trace"
tap_done
