#!/usr/bin/python3
"""In-guest overhead probe: how long readahead-heavy reads take on a fast local device.

    overhead.py OUTDIR ITERATIONS

On ext4 over a memory-backed null_blk (no device latency, so the CPU cost of the page cache
path is what is timed), appends one JSON line per measurement to OUTDIR/results.jsonl:
  cached_seq     4 KiB reads of a cached 256 MiB file (no readahead decisions at all)
  uncached_seq   the same after dropping caches (one decision per readahead window)
  uncached_rand  20000 random 4 KiB preads after dropping caches (one decision per read)
"""

import json
import os
import random
import subprocess
import sys
import time
from pathlib import Path

LIB = Path(__file__).resolve().parent / "lib.sh"
FILE = "/srv/export/overhead"
SIZE = 256 << 20
STATS = "/sys/kernel/debug/readahead/stats"


def sh(cmd):
    subprocess.run(["bash", "-c", f". {LIB}; {cmd}"], check=True, capture_output=True)


def decisions():
    """Readahead decisions counted so far (the "all" row), or None without the stats."""
    try:
        for line in Path(STATS).read_text().splitlines():
            if line.startswith("all "):
                return int(line.split()[1])
    except OSError:
        return None
    return None


def seq(fd):
    buf = bytearray(4096)
    off = 0
    while off < SIZE:
        n = os.preadv(fd, [buf], off)
        if n <= 0:
            break
        off += n


def rand(fd):
    rnd = random.Random(1)
    pages = SIZE // 4096
    for _ in range(20000):
        os.pread(fd, 4096, rnd.randrange(1, pages) * 4096)


def main(outdir, iterations):
    sh("lab_storage ext4 512")
    block = bytearray(os.urandom(1 << 20))
    with open(FILE, "wb") as f:
        for i in range(SIZE >> 20):
            block[:8] = i.to_bytes(8, "little")
            f.write(block)
    sh("sync")
    fd = os.open(FILE, os.O_RDONLY)
    with open(Path(outdir, "results.jsonl"), "a") as res:
        for it in range(iterations):
            for test, drop, fn in (("cached_seq", False, seq), ("uncached_seq", True, seq),
                                   ("uncached_rand", True, rand)):
                if drop:
                    sh("lab_drop_caches")
                else:
                    seq(fd)  # warm
                d0 = decisions()
                t0 = time.perf_counter()
                fn(fd)
                secs = time.perf_counter() - t0
                d1 = decisions()
                row = {"test": test, "iteration": it, "secs": round(secs, 4),
                       "decisions": None if d0 is None else d1 - d0}
                res.write(json.dumps(row) + "\n")
                res.flush()
                print(row, flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], int(sys.argv[2])))
