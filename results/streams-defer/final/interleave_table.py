#!/usr/bin/env python3
"""interleave_table.py OUT: medians [min-max] per kernel of interleave.sh's boots in OUT."""
import json
import statistics
import sys
from pathlib import Path

KEYS = ["mbps", "dev_amp", "refaults", "thrash_pct", "p99_ms", "ra_windows"]


def main(out):
    rows = {}
    for f in sorted(Path(out).glob("*-*/raw/*/patched-1/results.jsonl")):
        kernel = f.parts[-5].rsplit("-", 1)[0]
        for line in f.read_text().splitlines():
            r = json.loads(line)
            m = r.get("metrics", r)
            rows.setdefault((kernel, r.get("id", "?")), []).append(m)
    print("| kernel | point | boots | " + " | ".join(KEYS) + " |")
    print("|---|---|---|" + "---|" * len(KEYS))
    for (kernel, point), ms in sorted(rows.items()):
        cells = []
        for k in KEYS:
            v = [m[k] for m in ms if m.get(k) is not None]
            cells.append(f"{statistics.median(v):g} [{min(v):g}-{max(v):g}]" if v else "-")
        print(f"| {kernel} | {point} | {len(ms)} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main(sys.argv[1])
