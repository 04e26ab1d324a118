#!/usr/bin/env python3
"""When the thrashed readahead windows of a traced local-streams run happened.

    thrash_times.py TRACE [MEASURE_START_S]

TRACE: /sys/kernel/tracing/trace with readahead:page_cache_ra_pattern enabled (gzip or
not). Times are seconds since the first readahead event on the streams' disk (254:1).
Prints the thrash events per 10 s, and, from MEASURE_START_S on (default: the end of the
longest pause of all events after 20 s, which is where a stopped snapshot held the
readers), the thrash events and windows of the first 5 s and of the rest.
"""
import gzip
import re
import sys
from collections import Counter

EV = re.compile(r"\s(\d+\.\d+): page_cache_ra_pattern: dev=254:1 ino=(\w+) pattern=(\w+) "
                r"req=(\d+)\+(\d+) ra=(\d+)\+(\d+)-(\d+) ")


def events(path):
    """(time, inode, pattern, request index, window start, size, async size) of every decision
    on the streams' disk; also used by ../streams-keepmark/thrash_age.py."""
    op = gzip.open if path.endswith(".gz") else open
    with op(path, "rt") as f:
        for line in f:
            m = EV.search(line)
            if m:
                yield (float(m[1]), m[2], m[3], int(m[4]), int(m[6]), int(m[7]), int(m[8]))


def main(path, start=None):
    evs = list(events(path))
    t0 = evs[0][0]
    evs = [(e[0] - t0, e[2]) for e in evs]
    thrash = [t for t, p in evs if p == "thrash"]
    print(f"{path}: {len(evs)} windows, {len(thrash)} thrashed")
    print("thrashed per 10 s:", sorted(Counter(int(t // 10) * 10 for t in thrash).items()))
    if start is None:
        late = [t for t, _ in evs if t > 20]
        gap = max(zip(late, late[1:]), key=lambda p: p[1] - p[0])
        start = gap[1]
        print(f"longest pause after 20 s: {gap[1] - gap[0]:.2f} s, ending at {start:.2f} s")
    for name, lo, hi in (("first 5 s", start, start + 5), ("after", start + 5, float("inf"))):
        w = sum(lo <= t < hi for t, _ in evs)
        th = sum(lo <= t < hi for t in thrash)
        print(f"measured, {name}: {th} of {w} windows thrashed ({100 * th / max(w, 1):.2f} %)")


if __name__ == "__main__":
    main(sys.argv[1], float(sys.argv[2]) if len(sys.argv) > 2 else None)
