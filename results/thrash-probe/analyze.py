#!/usr/bin/env python3
"""Summarise probe.sh's trace: windows by pattern and size, and how long a thrashed page lived.

    analyze.py TRACE [AFTER_S]   (trace.txt as probe.sh wrote it, or xz-compressed)

AFTER_S: count only the windows decided that many seconds after the first one (the streams
long under way, as local-streams-steady.toml measures them after its warm-up); the windows
before it still say what a thrashed page was read in.

A thrashed page in a window read two windows ahead is also classed by what the stream decided
at that window's marker (its first page): turned short of memory there (and read its next
window one ahead while this one waited unread), stayed two ahead, or never got there.
"""
import collections
import lzma
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "../../lab/guest"))
import ra_events  # noqa: E402


def main():
    name = sys.argv[1]
    with (lzma.open(name, "rt") if name.endswith(".xz") else open(name)) as f:
        evs = ra_events.parse(f, sys.argv[1])
    t0 = min(float(e["timestamp"]) for e in evs)
    after = t0 + (float(sys.argv[2]) if len(sys.argv) > 2 else 0.0)
    history = evs
    evs = [e for e in evs if float(e["timestamp"]) >= after]
    by = collections.Counter()
    sizes = collections.defaultdict(collections.Counter)
    pages = collections.Counter()
    for e in evs:
        by[e["pattern"]] += 1
        sizes[e["pattern"]][e["ra_size"]] += 1
        pages[e["pattern"]] += e["actual"]
    print(f"{len(evs)} events over {max(float(e['timestamp']) for e in evs) - after:.1f} s"
          f"{f' from {after - t0:.0f} s on' if after > t0 else ''}")
    for p, c in by.most_common():
        top = ", ".join(f"{s}:{n}" for s, n in sorted(sizes[p].items()))
        print(f"  {p:11s} {c:6d} windows, {pages[p]:7d} pages read; sizes {top}")
    # Thrash: when was the window that held the page submitted (last event of the stream whose
    # window covered it), and how long ago.
    # A window read two ahead whose page thrashed is also classed by what the stream decided at
    # that window's own marker (its first page), where the reader submitted the next window and
    # waited for the disk with this one cached and unread.
    last = collections.defaultdict(list)
    ages = []
    kinds = collections.Counter()
    at_marker = collections.Counter()
    for e in sorted(history, key=lambda e: float(e["timestamp"])):
        k = e["ino"]
        t = float(e["timestamp"])
        if e["pattern"] == "thrash" and t >= after:
            idx = e["req_index"]
            for j in range(len(last[k]) - 1, -1, -1):
                ts, st, sz, asz, pat, _ = last[k][j]
                if st <= idx < st + sz:
                    ages.append(t - ts)
                    kinds[(pat, "lookahead 1" if asz == 1 else "lookahead > 1",
                           "first page" if idx == st else "later page")] += 1
                    if asz != 1 and sz > 1:
                        d = next((x for x in last[k][j + 1:] if x[5] == st and x[4] != "thrash"), None)
                        if d is None:
                            at_marker["(none: not reached before the miss)"] += 1
                        elif d[3] == 1 and d[2] > 1:
                            at_marker["the stream turned short of memory"] += 1
                        else:
                            at_marker["the stream stayed two windows ahead"] += 1
                    break
        last[k].append((t, e["ra_start"], e["ra_size"], e["ra_async_size"], e["pattern"],
                        e["req_index"]))
    if ages:
        ages.sort()
        q = lambda p: ages[min(len(ages) - 1, int(p * len(ages)))]  # noqa: E731
        print(f"thrashed pages: submitted {q(0.1):.1f} / {q(0.5):.1f} / {q(0.9):.1f} s (p10/p50/p90) "
              f"before the miss, {len(ages)} of {by['thrash']} matched")
    for k, n in kinds.most_common():
        print(f"  thrashed page in a {k[0]} window, {k[1]}, {k[2]}: {n}")
    for k, n in at_marker.most_common():
        print(f"  thrashed in a window read two ahead; at its marker {k}: {n}")
    # Time between a stream's consecutive async submissions (its cycle).
    gaps = []
    for k, lst in last.items():
        for a, b in zip(lst, lst[1:]):
            if b[0] >= after:
                gaps.append(b[0] - a[0])
    gaps.sort()
    if gaps:
        q = lambda p: gaps[min(len(gaps) - 1, int(p * len(gaps)))]  # noqa: E731
        print(f"decision gaps per stream: p10 {q(0.1):.2f} p50 {q(0.5):.2f} p90 {q(0.9):.2f} p99 {q(0.99):.2f} s")


main()
