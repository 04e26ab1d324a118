#!/usr/bin/env python3
"""gaps.py OUT: from probe.sh's samples.txt, the stretches of at least MIN seconds (default
0.5) where no WRITE was sent and the server disk wrote nothing while the mount held dirty or
unstable data; with each, the trace events inside it (trace.txt or trace.txt.gz, mono clock)."""
import gzip
import os
import sys

out = sys.argv[1]
mn = float(sys.argv[2]) if len(sys.argv) > 2 else 0.5
rows = [list(map(float, line.split())) for line in open(f"{out}/samples.txt") if len(line.split()) == 6]
gaps, start = [], None
for a, b in zip(rows, rows[1:], strict=False):
    waiting = a[1] + a[2] > 0 and b[1] + b[2] > 0
    still = b[3] == a[3] and b[5] == a[5]
    if waiting and still:
        start = a[0] if start is None else start
    else:
        if start is not None and a[0] - start >= mn:
            gaps.append((start, a[0]))
        start = None
first = next((r[0] for r in rows if r[3] > 0), None)
last = next((r[0] for r in reversed(rows) if r[1] + r[2] > 0), None)
print(f"samples {len(rows)}, first WRITE by {first}, data waiting until {last}")
for r in rows[::20]:
    print(f"  t={r[0]:.2f} dirty={r[1] / 1024:.0f}M wb={r[2] / 1024:.0f}M writes={r[3]:.0f} "
          f"commits={r[4]:.0f} diskMB={r[5] / 2048:.0f}")
ev = []
trace = f"{out}/trace.txt"
for line in open(trace) if os.path.exists(trace) else gzip.open(trace + ".gz", "rt"):
    try:
        t = float(line.split("]")[1].split()[1].rstrip(":"))
    except (IndexError, ValueError):
        continue
    ev.append((t, line.rstrip()))
for s, e in gaps:
    print(f"gap {s:.2f}-{e:.2f} ({e - s:.2f} s)")
    near = [x for x in ev if s - 0.3 <= x[0] <= e + 0.1]
    for _t, line in near[:60]:
        print("   ", line[:260])
    if len(near) > 60:
        print(f"    ... {len(near) - 60} more")
