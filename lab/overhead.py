#!/usr/bin/env python3
"""overhead: what the readahead statistics and events cost, stock vs patched vs patched
without CONFIG_READAHEAD_STATS, on the same machine in one run.

    overhead.py [--out DIR] [--repetitions N] [--iterations N]

Builds the three kernels (the third is `build.sh patched nostats`), then boots them in turn
for each repetition, each boot timing lab/guest/overhead.py's reads ITERATIONS times. Writes
DIR/results.csv (every measurement) and DIR/report.md (median, min, max per kernel and test).
"""

import argparse
import csv
import json
import statistics
import subprocess
import sys
import time
from pathlib import Path

from bench import vm_run

LAB = Path(__file__).resolve().parent
KERNELS = (("stock", ["stock"]), ("patched", ["patched"]), ("patched-nostats", ["patched", "nostats"]))
TESTS = ("cached_seq", "uncached_seq", "uncached_rand")


def log(msg):
    print(f"[{time.strftime('%H:%M:%S')}] overhead: {msg}", file=sys.stderr, flush=True)


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", default=str(LAB.parent / "out" / "overhead" / time.strftime("%Y%m%d-%H%M%S")))
    ap.add_argument("--repetitions", type=int, default=3)
    ap.add_argument("--iterations", type=int, default=5)
    args = ap.parse_args(argv)
    if args.repetitions < 1 or args.iterations < 1:
        ap.error("--repetitions and --iterations must be at least 1")
    out = Path(args.out).resolve()
    out.mkdir(parents=True, exist_ok=True)

    images = {}
    for name, build in KERNELS:
        images[name] = subprocess.run([str(LAB / "build.sh"), *build], check=True, capture_output=True,
                                      text=True).stdout.strip().splitlines()[-1]
    rows = []
    for rep in range(1, args.repetitions + 1):
        for name, _ in KERNELS:
            d = out / "raw" / f"{name}-{rep}"
            if not (d / "results.jsonl").exists():
                log(f"{name} repetition {rep}")
                d.mkdir(parents=True, exist_ok=True)
                vm_run(images[name], d, ["overhead.py", str(d), str(args.iterations)], f"{name} repetition {rep}")
            if (d / "results.jsonl").exists():
                for line in (d / "results.jsonl").read_text().splitlines():
                    rows.append(dict(json.loads(line), kernel=name, rep=rep))

    with open(out / "results.csv", "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=["kernel", "rep", "iteration", "test", "secs", "decisions"])
        w.writeheader()
        w.writerows(rows)
    accel_f = out / "raw" / "stock-1" / "accel"
    accel = accel_f.read_text().strip() if accel_f.exists() else "?"
    md = ["# Cost of the readahead statistics and events", "",
          f"`{' '.join(sys.argv)}`: {args.repetitions} repetitions x {args.iterations} iterations per "
          f"kernel, kernels booted in turn, accelerator {accel}.",
          "Seconds per run: median [min-max], and the median relative to stock's.", "",
          "| test | kernel | seconds | vs stock | readahead decisions per run |", "|---|---|---|---|---|"]
    for test in TESTS:
        base = None
        for name, _ in KERNELS:
            v = [r["secs"] for r in rows if r["kernel"] == name and r["test"] == test]
            if not v:
                continue
            med = statistics.median(v)
            if name == "stock":
                base = med
            rel = f"{(med / base - 1) * 100:+.1f} %" if base else "—"
            dec = [r["decisions"] for r in rows
                   if r["kernel"] == name and r["test"] == test and r["decisions"] is not None]
            ndec = statistics.median(dec) if dec else "—"
            md.append(f"| {test} | {name} | {med:.3f} [{min(v):.3f}-{max(v):.3f}] | {rel} | {ndec} |")
    (out / "report.md").write_text("\n".join(md) + "\n")
    log(f"report: {out}/report.md")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
