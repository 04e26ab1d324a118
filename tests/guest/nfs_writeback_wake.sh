#!/bin/bash
# Patch 38: a writer held at its dirty limit is woken when an NFS COMMIT makes its pages clean,
# instead of sleeping out its whole pause. Two writers over NFSv4.2 with a 1 MiB dirty budget on
# the mount's bdi (strict_limit; seed 004's 1M row), the server idle. The writers' stops in
# balance_dirty_pages() are traced (writeback:balance_dirty_pages). A stop at the hard limit
# (task_ratelimit=0) sleeps `pause` ms; the same task's next event comes after that sleep. The
# timer of a sleep of n jiffies fires no sooner than n - 1 jiffies later, so a next event
# sooner than that means the task was woken. Stock 6.12 never wakes it (no signals here): 0 of
# the hard-limit sleeps end early. With the patch, the COMMITs that complete during a sleep end
# it. The test counts the sleeps that ended more than half a jiffy before their timer could
# fire, and wants some (at least 5, and 5 % of the sleeps).
set -u
. "$(dirname "$0")/../../lab/guest/lib.sh"
. "$(dirname "$0")/../../lab/guest/tap.sh"

lab_storage ext4 3072 4000000 150
lab_link 0
lab_nfsd
lab_mount_budget 4.2 $((1 << 20)) rsize=1048576,wsize=1048576
hz=$(zcat /proc/config.gz | sed -n 's/^CONFIG_HZ=//p')
[ -n "$hz" ] || lab_die "no CONFIG_HZ in /proc/config.gz"

lab_trace_on mono 16384 writeback/balance_dirty_pages
read -r _ _ c0 < <(lab_nfs_ops "$MNT")
fio --name=w --directory="$MNT" --filename_format='wk.$jobnum' --numjobs=2 --rw=write --bs=1m \
	--size=1024m --ioengine=psync --time_based --runtime=10 --end_fsync=1 >/tmp/wk-fio.txt 2>&1
ok $? "two writers wrote for 10 s and fsync()ed: $(grep -o 'bw=[^,]*' /tmp/wk-fio.txt | head -1)"
read -r _ _ c1 < <(lab_nfs_ops "$MNT")
lab_trace_off

# Hard-limit sleeps of the writers followed by another event of the task, and of them those
# whose next event came more than half a jiffy before the earliest their timer could fire.
read -r hard early < <(python3 - "$LAB_TRACE/trace" "$hz" <<-'PY'
import re, sys
jiffy = 1000.0 / int(sys.argv[2])
last, hard, early = {}, 0, 0
for line in open(sys.argv[1]):
    m = re.search(r'-(\d+)\s+\[\d+\].*?\s(\d+\.\d+): balance_dirty_pages: .*'
                  r'task_ratelimit=(\d+) .*\spause=(-?\d+)', line)
    if not m:
        continue
    pid, t, rate, pause = m.group(1), float(m.group(2)) * 1000, int(m.group(3)), int(m.group(4))
    prev = last.get(pid)
    if prev is not None:
        hard += 1
        if t - prev[0] < prev[1] - 1.5 * jiffy:
            early += 1
    last[pid] = (t, pause) if rate == 0 and pause > 0 else None
print(hard, early)
PY
)
lab_trace_clear
diag "COMMITs: $((c1 - c0)); hard-limit sleeps followed by another stop: ${hard:-0}, ended early: ${early:-0}"
[ "${hard:-0}" -ge 20 ] || lab_die "only ${hard:-0} hard-limit sleeps: the test did not reach its case"
[ "$early" -ge 5 ] && [ $((early * 20)) -ge "$hard" ]
ok $? "a COMMIT's completion ended $early of $hard hard-limit sleeps early (at least 5 and 5 %)"
umount "$MNT"
rm -f "$EXPORT"/wk.*
no_splat
tap_done
