#!/usr/bin/env python3
"""per_second.py OUT: from probe.sh's full trace (OUT/trace.txt, before the WRITE events were
dropped for the commit), per second from the first WRITE: WRITEs sent, their MiB and mean size,
COMMITs sent and completed; then the flusher's calls on the NFS bdi (pages asked and written)
and its writeback works (reason)."""
import collections
import re
import sys

d = sys.argv[1]
ev = []
for line in open(f"{d}/trace.txt"):
    m = re.search(r"\s(\d+\.\d+): (\w+): (.*)", line)
    if m:
        ev.append((float(m.group(1)), m.group(2), m.group(3)))
t0 = next(t for t, n, _ in ev if n == "nfs_initiate_write")
print("first WRITE at", t0)
sec = collections.defaultdict(lambda: [0, 0, 0, 0])
for t, n, r in ev:
    s = sec[int(t - t0)]
    if n == "nfs_initiate_write":
        s[0] += 1
        s[1] += int(re.search(r"count=(\d+)", r).group(1))
    elif n == "nfs_initiate_commit":
        s[2] += 1
    elif n == "nfs_commit_done":
        s[3] += 1
for k in sorted(sec):
    if k < -2:
        continue
    a = sec[k]
    print(f"{k:3d} writes {a[0]:5d} {a[1] >> 20:4d}MiB mean {a[1] / max(a[0], 1) / 1024:5.1f}K "
          f"commits {a[2]} done {a[3]}")
print("single_inode calls:")
for t, n, r in ev:
    if n == "writeback_single_inode" and "bdi 0:" in r:
        m = re.search(r"to_write=(\d+) wrote=(\d+)", r)
        print(f"  {t - t0:7.2f} to_write {m.group(1)} wrote {m.group(2)}")
for t, n, r in ev:
    if n == "writeback_start" and "bdi 0:" in r:
        print(f"  start {t - t0:7.2f} {r[:160]}")
