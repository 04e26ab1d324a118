#!/usr/bin/env python3
"""Compare probe-many.sh's READ traces: analyze-many.py DIR [DIR...], one DIR per boot, named
KIND.REP (run-many.sh: stock.1, patched.1, ...; the first KIND is the reference). Per program
and kernel: pages READ and seconds, median [min-max] over the boots, READs (median), and the
median pages against the reference's."""
import re
import statistics
import sys
from collections import defaultdict
from pathlib import Path

READ = re.compile(r"nfs_initiate_read: fileid=\S+:(\d+) .*?offset=(\d+) count=(\d+)")


def load(d, name):
    """(READs, pages READ, seconds) of program name in boot directory d, or None."""
    trace, tm = d / f"{name}.txt", d / f"{name}.time"
    if not trace.exists():
        return None
    files = {}
    for line in trace.read_text().splitlines():
        m = READ.search(line)
        if m:
            off, cnt = int(m[2]), int(m[3])
            f = files.setdefault(m[1], [0, set()])
            f[0] += 1
            f[1].update(range(off >> 12, (off + cnt + 4095) >> 12))
    # the program's own file is the one most pages were READ from (cc1's C file has a few)
    reads, pages = max(files.values(), key=lambda f: len(f[1])) if files else (0, set())
    secs = float(tm.read_text().split()[-2]) if tm.exists() else float("nan")
    return reads, len(pages), secs


def spread(xs, fmt):
    return f"{fmt.format(statistics.median(xs))} [{fmt.format(min(xs))}-{fmt.format(max(xs))}]"


def main():
    dirs = [Path(a) for a in sys.argv[1:]]
    kinds = defaultdict(list)
    for d in dirs:
        kinds[d.name.split(".")[0]].append(d)
    names = sorted({p.stem for d in dirs for p in d.glob("*.txt")} - {"guest"})
    ref = next(iter(kinds))
    total = defaultdict(int)
    print(f"{'program':11} {'kernel':8} {'boots':>5} {'READs':>6} {'pages READ':>20} {'vs ' + ref:>8} {'seconds':>20}")
    for n in names:
        med = {}
        for k, ds in kinds.items():
            rows = [r for r in (load(d, n) for d in ds) if r]
            if not rows:
                continue
            med[k] = statistics.median(r[1] for r in rows)
            total[k] += med[k]
            rel = f"{100.0 * (med[k] - med[ref]) / med[ref]:+.1f}%" if ref in med and med[ref] else ""
            print(f"{n:11} {k:8} {len(rows):5d} {statistics.median(r[0] for r in rows):6.0f} "
                  f"{spread([r[1] for r in rows], '{:.0f}'):>20} {rel:>8} {spread([r[2] for r in rows], '{:.2f}'):>20}")
    for k, t in total.items():
        print(f"all programs, {k}: {t:.0f} pages READ (medians), {100.0 * (t - total[ref]) / total[ref]:+.2f}% "
              f"against {ref}")


if __name__ == "__main__":
    main()
