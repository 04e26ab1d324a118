#!/usr/bin/env python3
"""For each thrash decision after AFTER_S: the window that held the missed page (its event is
written once the window is submitted, after any wait for a request slot), when that page was
added to and deleted from the page cache after it, and what the reader's thread did in the
block layer meanwhile (bio queued, request got, issued, completed); then a count of the
cases, and how long the thrashed pages had been cached when reclaim took them.

    timeline.py TRACE [AFTER_S [N_PRINTED]]   (the trace.txt of probe.sh run with BLK=1)"""
import collections, re, sys, lzma

LINE = re.compile(r"^\s*(\S+)-(\d+)\s+\[\d+\]\s+\S+\s+([\d.]+):\s+(\w+):\s+(.*)$")
def opener(n): return lzma.open(n, "rt") if n.endswith(".xz") else open(n)

ra = collections.defaultdict(list)      # ino -> [(t, pid, pattern, req, start, size)]
add = collections.defaultdict(list)     # (ino, idx) -> [t]
dele = collections.defaultdict(list)    # (ino, idx) -> [(t, comm)]
blk = collections.defaultdict(list)     # pid -> [(t, ev, sector, n)]
done = {}                               # sector -> [t complete]
thr = []
for line in opener(sys.argv[1]):
    m = LINE.match(line)
    if not m:
        continue
    comm, pid, t, ev, rest = m.group(1), int(m.group(2)), float(m.group(3)), m.group(4), m.group(5)
    if ev == "page_cache_ra_pattern":
        f = dict(kv.split("=", 1) for kv in rest.split() if "=" in kv)
        req = int(f["req"].split("+")[0]); s, rest2 = f["ra"].split("+"); sz = int(rest2.split("-")[0])
        ino = int(f["ino"], 16)
        ra[ino].append((t, pid, f["pattern"], req, int(s), sz))
        if f["pattern"] == "thrash":
            thr.append((t, ino, req, pid))
    elif ev in ("mm_filemap_add_to_page_cache", "mm_filemap_delete_from_page_cache"):
        mm = re.search(r"ino (\w+) .*ofs=(\d+)", rest)
        key = (int(mm.group(1), 16), int(mm.group(2)) >> 12)
        (add[key].append(t) if ev.endswith("cache") and "add" in ev else dele[key].append((t, f"{comm}-{pid}")))
    elif ev.startswith("block_"):
        mm = re.search(r"(\d+) \+ (\d+)", rest)
        if not mm:
            continue
        sec = int(mm.group(1))
        if ev == "block_rq_complete":
            done.setdefault(sec, []).append(t)
        else:
            blk[pid].append((t, ev[6:], sec, int(mm.group(2))))
t0 = min(v[0][0] for v in ra.values())
after = t0 + float(sys.argv[2]) if len(sys.argv) > 2 else 0
n = 0
summary = collections.Counter()
# The copy of each thrashed page that reclaim took: how long it had been in the page cache
# (added -> deleted) and how long before the miss it went (deleted -> miss).
lived, before = [], []
for t, ino, req, pid in thr:
    if t < after:
        continue
    dl = [d for d in dele[(ino, req)] if d[0] < t]
    if not dl:
        continue
    td_ = dl[-1][0]
    ad = [a for a in add[(ino, req)] if a < td_]
    if ad:
        lived.append(td_ - ad[-1])
    before.append(t - td_)


def pct(v, q):
    v = sorted(v)
    return v[min(len(v) - 1, int(q * len(v)))] if v else float("nan")


print(f"thrashed pages: in the page cache {pct(lived, .1):.3f} / {pct(lived, .5):.3f} / {pct(lived, .9):.3f} s "
      f"(p10/p50/p90) before reclaim took them, which was {pct(before, .1):.3f} / {pct(before, .5):.3f} / "
      f"{pct(before, .9):.3f} s before the miss ({len(before)} pages)")
for t, ino, req, pid in thr:
    if t < after:
        continue
    w = None
    for e in reversed(ra[ino]):
        if e[0] < t and e[4] <= req < e[4] + e[5]:
            w = e; break
    if not w:
        summary["no window"] += 1
        continue
    td = w[0]
    ta = [x for x in add[(ino, req)] if td - 0.001 <= x <= t]
    tdl = [x for x in dele[(ino, req)] if td - 0.001 <= x[0] <= t]
    bl = [x for x in blk[w[1]] if td <= x[0] <= t]
    comp = []
    for b in bl:
        if b[1] == "rq_issue":
            comp += [c for c in done.get(b[2], []) if b[0] <= c <= t][:1]
    kind = ("added " if ta else "not added ") + ("deleted" if tdl else "not deleted")
    nq = sum(1 for b in bl if b[1] == "bio_queue")
    summary[f"{kind}, {nq} bio(s) by the reader"] += 1
    if n < int(sys.argv[3] if len(sys.argv) > 3 else 12):
        n += 1
        print(f"--- ino {ino:x} page {req}: window {w[2]} {w[4]}+{w[5]} reported {td - t0:.3f} by {w[1]}, thrash {t - t0:.3f} by {pid}")
        for x in ta: print(f"   {x - td:8.3f} add")
        for b in bl: print(f"   {b[0] - td:8.3f} {b[1]} {b[2]}+{b[3]}")
        for c in comp: print(f"   {c - td:8.3f} rq_complete")
        for x in tdl: print(f"   {x[0] - td:8.3f} delete by {x[1]}")
for k, v in summary.most_common():
    print(f"{v:5d}  {k}")
