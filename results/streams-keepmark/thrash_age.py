#!/usr/bin/env python3
"""How old the thrashed windows of a traced local-streams run were when they thrashed.

    thrash_age.py TRACE [AFTER_S]

TRACE: /sys/kernel/tracing/trace with readahead:page_cache_ra_pattern enabled (gzip or not),
as results/streams-snapshot/trace-bench.sh writes it. Times are seconds since the first
readahead event on the streams' disk (254:1). For every thrash decision after AFTER_S
(default 3) it finds the window of the same file that held the missed page and prints the
medians of: the seconds since that window was read, how far into it the reader got, its size,
and how many such windows were one ahead of their reader (async_size 1, a stream short of
memory). Also: thrashed windows per second of the run and per stream.
"""
import os
import statistics as st
import sys
from collections import Counter, defaultdict

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "streams-snapshot"))
from thrash_times import events  # noqa: E402


def main(path, after=3.0):
    evs = list(events(path))
    t0 = evs[0][0]
    windows = defaultdict(list)
    rows, per_s, per_stream = [], Counter(), Counter()
    for t, ino, pattern, req, start, size, async_size in evs:
        t -= t0
        if pattern == "thrash":
            per_s[int(t)] += 1
            per_stream[ino] += 1
            held = [w for w in windows[ino] if w[1] <= req < w[1] + w[2]]
            if t > after and held:
                wt, ws, wsize, wasync = held[-1]
                rows.append((t - wt, req - ws, wsize, wasync == 1))
        windows[ino].append((t, start, size, async_size))
    print(f"{path}: {len(evs)} windows, {sum(per_s.values())} thrashed")
    print("thrashed per second:", sorted(per_s.items()))
    print("thrashes per stream:", sorted(Counter(per_stream.values()).items()),
          f"({len(windows) - len(per_stream)} streams none)")
    if rows:
        print(f"after {after} s: {len(rows)} thrashed; median {st.median(r[0] for r in rows):.2f} s "
              f"after the window was read, {st.median(r[1] for r in rows)} pages into it, "
              f"window {st.median(r[2] for r in rows)} pages; one ahead: {sum(r[3] for r in rows)}")
    else:
        print(f"after {after} s: no thrashed window")


if __name__ == "__main__":
    main(sys.argv[1], float(sys.argv[2]) if len(sys.argv) > 2 else 3.0)
