#!/usr/bin/env python3
"""Which windows thrashed in traced local-streams runs, and how many streams started over.

    thrash_windows.py TRACE...

TRACE: /sys/kernel/tracing/trace with readahead:page_cache_ra_pattern enabled (gzip or not),
as results/streams-snapshot/trace-bench.sh writes it. Times are seconds since the first
readahead event on the streams' disk (254:1). Per trace: windows, thrash decisions (and how many
in the first 3 s), restarts (an `initial` window past offset 0: a stream that ran off the end of
its cached pages and started over), and the windows that held the missed pages by the pattern
and size they were read with, read two ahead (async_size = size) or one ahead (async_size 1),
in the first 3 s or later.
"""
import os
import sys
from collections import Counter, defaultdict

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "streams-snapshot"))
from thrash_times import events  # noqa: E402


def ahead(size, async_size):
    return "two ahead" if async_size == size else ("one ahead" if async_size == 1 else "other")


def main(paths):
    for path in paths:
        windows, held_by = defaultdict(list), Counter()
        t0, n, thrashed, early, restarts = None, 0, 0, 0, 0
        for t, ino, pattern, req, start, size, async_size in events(path):
            t0 = t if t0 is None else t0
            t -= t0
            n += 1
            restarts += pattern == "initial" and req > 0
            if pattern == "thrash":
                thrashed += 1
                early += t < 3
                held = [w for w in windows[ino] if w[0] <= req < w[0] + w[1]]
                if held:
                    w = held[-1]
                    held_by[(w[2], w[1], ahead(w[1], w[3]), "first 3 s" if t < 3 else "later")] += 1
            windows[ino].append((start, size, pattern, async_size))
        print(f"{path}: {n} windows, {thrashed} thrashed ({100 * thrashed / max(n, 1):.2f} %), "
              f"{early} in the first 3 s; restarts {restarts}")
        for (pattern, size, how, when), count in held_by.most_common():
            print(f"    {count:5d} in {pattern} windows of {size} pages, read {how}, {when}")


if __name__ == "__main__":
    main(sys.argv[1:])
