"""Where do WRITE and COMMIT RPCs wait? Reads a commit-trace.sh 'slots' trace and prints,
per procedure and wait queue, how many waits and their median / p90 / max seconds."""
import collections, re, sys

proc, asleep, ended = {}, {}, []
waits = collections.defaultdict(list)
for line in open(sys.argv[1]):
    m = re.search(r'\s(\d+\.\d+): (rpc_request|rpc_task_sleep|rpc_task_wakeup): task:(\w+@\w+) (.*)', line)
    if not m:
        continue
    t, ev, task, rest = float(m.group(1)), m.group(2), m.group(3), m.group(4)
    if ev == 'rpc_request':
        proc[task] = rest.split()[1]
        continue
    q = re.search(r'queue=(.*)$', rest).group(1).strip()
    if ev == 'rpc_task_sleep':
        asleep[task] = (t, q)
    elif task in asleep and asleep[task][1] == q:
        ended.append((task, q, t - asleep.pop(task)[0]))
# a task names its procedure at call_start, after the session slot it may have waited for
for task, q, secs in ended:
    waits[(proc.get(task, '?'), q)].append(secs)
for (p, q), w in sorted(waits.items()):
    if p not in ('WRITE', 'COMMIT'):
        continue
    w.sort()
    print(f"{p:7} {q:28} n={len(w):5} median={w[len(w) // 2]:.3f} p90={w[int(len(w) * 0.9)]:.3f} max={w[-1]:.3f} s")
