#!/usr/bin/env python3
"""Compare the pages of cc1 each kernel READ (nfs:nfs_initiate_read) in each pass of probe.sh:
totals, and the ranges patched read that stock did not (with the readahead events that read
them, where patched has them)."""
import re
import sys
from pathlib import Path

READ = re.compile(r"nfs_initiate_read: .*?offset=(\d+) count=(\d+)")
RA = re.compile(r"page_cache_ra_pattern: .*ino=(\w+) pattern=(\w+) req=(\d+)\+(\d+) ra=(\d+)\+(\d+)-(\d+) "
                r"async=(\d) mmap=(\d) actual=(\d+)")


def pages(path):
    got, reads, ras = set(), [], []
    for line in Path(path).read_text().splitlines():
        m = READ.search(line)
        if m:
            off, cnt = int(m[1]), int(m[2])
            reads.append((off >> 12, (cnt + 4095) >> 12))
            got.update(range(off >> 12, (off + cnt + 4095) >> 12))
        m = RA.search(line)
        if m:
            ras.append((m[1], m[2], int(m[3]), int(m[4]), int(m[5]), int(m[6]), int(m[7]),
                        int(m[8]), int(m[9]), int(m[10])))
    # cc1's own events: those of the inode with the most (the C file it compiles has a few)
    inos = [r[0] for r in ras]
    ino = max(set(inos), key=inos.count) if inos else None
    return got, reads, [r[1:] for r in ras if r[0] == ino]


def runs(s):
    out, start, prev = [], None, None
    for p in sorted(s):
        if start is None:
            start = prev = p
        elif p == prev + 1:
            prev = p
        else:
            out.append((start, prev))
            start = prev = p
    if start is not None:
        out.append((start, prev))
    return out


def main():
    d = Path(sys.argv[1])
    for pas in (1, 2, 3):
        st, pa = d / "stock" / f"trace.{pas}.txt", d / "patched" / f"trace.{pas}.txt"
        if not st.exists() or not pa.exists():
            continue
        sp, sr, _ = pages(st)
        pp, pr, pra = pages(pa)
        print(f"pass {pas}: stock {len(sr)} READs {len(sp)} pages; patched {len(pr)} READs "
              f"{len(pp)} pages; only patched {len(pp - sp)} pages, only stock {len(sp - pp)}")
        pats = {}
        for r in pra:
            pats.setdefault(r[0], [0, 0])
            pats[r[0]][0] += 1
            pats[r[0]][1] += r[8]
        print("  patched readahead events (pattern: count, pages read):", pats)
        for a, b in runs(pp - sp):
            why = [r for r in pra if r[8] and r[3] <= b and r[3] + r[4] > a]
            print(f"  only patched: {a}-{b} ({b - a + 1} pages) by {why[:3]}")
        for a, b in runs(sp - pp):
            print(f"  only stock: {a}-{b} ({b - a + 1} pages)")


if __name__ == "__main__":
    main()
