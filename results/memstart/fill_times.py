#!/usr/bin/env python3
"""When a traced local-streams point's windows thrashed against how much the streams had read.

    fill_times.py TRACE [CGROUP_PAGES]

TRACE: /sys/kernel/tracing/trace with readahead:page_cache_ra_pattern on (gzip or not), times
from the first event on the streams' disk (254:1). Prints when the pages read by all windows
together reached CGROUP_PAGES (default 24576, 96 MiB), when the streams started, per second
the thrashed windows with the age of the window that held the missed page, and the pages
read by then at each quarter second.
"""
import gzip
import re
import sys
from collections import defaultdict

EV = re.compile(r"\s(\d+\.\d+): page_cache_ra_pattern: dev=254:1 ino=(\w+) pattern=(\w+) "
                r"req=(\d+)\+(\d+) ra=(\d+)\+(\d+)-(\d+) .*actual=(\d+)")


def main(path, limit=24576):
    op = gzip.open if path.endswith(".gz") else open
    evs = []
    with op(path, "rt") as f:
        for line in f:
            m = EV.search(line)
            if m:
                evs.append((float(m[1]), m[2], m[3], int(m[4]), int(m[6]), int(m[7]), int(m[8]), int(m[9])))
    t0 = evs[0][0]
    cum, fill, ages, starts, win = 0, None, [], {}, defaultdict(list)
    for t, ino, pattern, req, start, size, async_size, actual in evs:
        t -= t0
        starts.setdefault(ino, t)
        cum += actual
        if fill is None and cum >= limit:
            fill = t
        if pattern == "thrash":
            held = [w for w in win[ino] if w[1] <= req < w[1] + w[2]]
            if held:
                w = held[-1]
                ages.append((t, t - w[0], w[2], req - w[1], t - starts[ino]))
        win[ino].append((t, start, size, async_size))
    print(f"pages read by all windows reach {limit} at {fill if fill is None else round(fill, 2)} s; "
          f"{cum} pages in all")
    st = sorted(starts.values())
    print(f"streams started: first {st[0]:.2f} s, median {st[len(st) // 2]:.2f}, last {st[-1]:.2f}")
    for lo, hi in ((0, 1), (1, 2), (2, 3), (3, 10**6)):
        a = [x for x in ages if lo <= x[0] < hi]
        if a:
            age = sorted(x[1] for x in a)
            print(f"thrashed in [{lo}, {hi}) s: {len(a)}; age of the window that held the page: median "
                  f"{age[len(a) // 2]:.2f} s [{age[0]:.2f}-{age[-1]:.2f}]; window sizes {sorted({x[2] for x in a})}")
    for q in (0.25, 0.5, 0.75, 1, 1.25, 1.5, 2, 3):
        print(f"pages read by {q} s: {sum(e[7] for e in evs if e[0] - t0 < q)}")


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 24576)
