#!/bin/bash
# Patch 17: the COMMIT of WRITEs that completed does not wait behind the WRITEs queued after
# them. Two writers over NFSv4.2 with a 1 GiB dirty budget on the mount's bdi (strict_limit),
# the server idle (its own thresholds far above): background writeback queues more WRITEs
# than the session has slots, and COMMITs are sent while most of them wait for a slot. At
# normal priority such a COMMIT waits in the slot table behind the WRITEs queued before it
# (the flusher's and the completions' kworkers are the same threads, so it even joins their
# batch); in a traced run of patch 16 alone: COMMITs 1.05 s median, WRITEs 2.5 s. Patch
# 17 sends it at high priority. Measured with the sunrpc trace events (rpc_task_sleep/wakeup
# on the "ForeChannel Slot table" queue). (An fsync() pass does not show it: its WRITEs
# belong to the process that called fsync and the COMMITs get their own batch.)
set -u
. "$(dirname "$0")/../../lab/guest/lib.sh"
. "$(dirname "$0")/../../lab/guest/tap.sh"

lab_storage ext4 3072 4000000 150
lab_link 0
lab_nfsd
lab_mount_budget 4.2 $((1 << 30)) rsize=1048576,wsize=1048576
lab_trace_on local 65536 sunrpc/rpc_request sunrpc/rpc_task_sleep sunrpc/rpc_task_wakeup
fio --name=w --directory="$MNT" --filename_format='cp.$jobnum' --numjobs=2 --rw=write --bs=1m \
	--size=1024m --ioengine=psync --time_based --runtime=10 --end_fsync=1 >/tmp/cp-fio.txt 2>&1
ok $? "two writers wrote for 10 s and fsync()ed: $(grep -o 'bw=[^,]*' /tmp/cp-fio.txt | head -1)"
lab_trace_off
# The slot waits of the WRITEs, and of the COMMITs that started while WRITEs were waiting for a
# slot (0 for one that found a slot): count, median, 90th percentile in seconds. A task names its
# procedure at call_start, after the slot it waited for: two passes.
read -r nw mw xw nc mc xc < <(python3 - "$LAB_TRACE/trace" <<'PY'
import re, sys
evs, proc = [], {}
for line in open(sys.argv[1]):
    m = re.search(r'\s(\d+\.\d+): (rpc_request|rpc_task_sleep|rpc_task_wakeup): task:(\S+) (.*)', line)
    if not m:
        continue
    t, ev, task, rest = float(m.group(1)), m.group(2), m.group(3), m.group(4)
    if ev == 'rpc_request':
        proc.setdefault(task, rest.split()[1])
    evs.append((t, ev, task, 'queue=ForeChannel Slot table' in rest))
asleep, seen, waits = {}, set(), {'WRITE': [], 'COMMIT': []}
for t, ev, task, slotq in evs:
    p = proc.get(task)
    if p == 'COMMIT' and task not in seen:
        seen.add(task)
        if any(proc.get(x) == 'WRITE' for x in asleep):
            asleep_first = ev == 'rpc_task_sleep' and slotq
            if not asleep_first:
                waits['COMMIT'].append(0.0)
            else:
                asleep[task] = t
            continue
    if not slotq:
        continue
    if ev == 'rpc_task_sleep':
        asleep.setdefault(task, t)
    elif task in asleep and p in waits:
        waits[p].append(t - asleep.pop(task))
out = []
for p in ('WRITE', 'COMMIT'):
    w = sorted(waits[p]) or [0.0]
    out += [len(waits[p]), round(w[len(w) // 2], 3), round(w[int(len(w) * 0.9)], 3)]
print(*out)
PY
)
lab_trace_clear
[ "${nw:-0}" -ge 20 ] && awk -v m="$mw" 'BEGIN { exit !(m >= 0.05) }'
ok $? "WRITEs waited for a session slot: ${nw:-0} waits, median ${mw:-?} s, p90 ${xw:-?} s (the case is exercised)"
[ "${nc:-0}" -ge 1 ]
ok $? "COMMITs were sent while WRITEs waited for slots: ${nc:-0}, their slot wait median ${mc:-?} s"
awk -v c="$xc" -v w="$mw" 'BEGIN { exit !(c <= w / 4) }'
ok $? "nine COMMITs in ten waited at most ${xc:-?} s for a slot, a quarter of a WRITE's median wait (${mw:-?} s) or less"
umount "$MNT"
rm -f "$EXPORT"/cp.*
no_splat
tap_done
