#!/usr/bin/env python3
"""The last six readahead decisions of a stream before each of its thrash windows.

    examples.py TRACE [AFTER_S [COUNT]]    (probe.sh's trace.txt, or xz-compressed; thrash
                                            windows AFTER_S seconds after the first event
                                            on, default 20; COUNT of them, default 6)

A decision's time is when its event was emitted: after the window's I/O was submitted, so
after any wait for a request slot (on the one-request disk, seconds).
"""
import collections
import lzma
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "../../lab/guest"))
import ra_events  # noqa: E402
name = sys.argv[1]
with (lzma.open(name, "rt") if name.endswith(".xz") else open(name)) as f:
    evs = ra_events.parse(f, name)
evs.sort(key=lambda e: float(e["timestamp"]))
t0 = float(evs[0]["timestamp"])
after = float(sys.argv[2]) if len(sys.argv) > 2 else 20
by = collections.defaultdict(list)
shown = 0
for e in evs:
    by[e["ino"]].append(e)
    t = float(e["timestamp"]) - t0
    if e["pattern"] == "thrash" and t > after and shown < int(sys.argv[3] if len(sys.argv) > 3 else 6):
        shown += 1
        print(f"--- ino {e['ino']} pid {e['pid']}")
        for x in by[e["ino"]][-6:]:
            print(f"  {float(x['timestamp'])-t0:8.3f} {x['pattern']:10s} req={x['req_index']}+{x['req_count']} ra={x['ra_start']}+{x['ra_size']}-{x['ra_async_size']} actual={x['actual']} async={x['async']}")
