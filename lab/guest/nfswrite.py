"""Writers for the NFS writeback guest tests, and the mount's RPC counts around them.

    nfswrite.py ops MNT                  the mount's READ WRITE COMMIT counts (one line)
    nfswrite.py stream MNT SRC           write SRC into MNT/f in 1 MiB writes, then fsync()
                                         while the file is open (close() would flush it by
                                         itself); prints the COMMIT counts before the writes,
                                         before the fsync and after it, and the fsync's seconds
    nfswrite.py scatter MNT RUNS RUN_KB STRIDE_KB
                                         a file of RUNS * STRIDE_KB, RUNS runs of RUN_KB
                                         written one every STRIDE_KB, then fsync(); prints the
                                         COMMIT counts before and after the fsync

The counts come from /proc/self/mountstats, parsed by env.parse_mountstats (the benchmark's
own parser).
"""

import os
import sys
import time
from pathlib import Path

if __package__:
    from .env import parse_mountstats
else:   # run as a script: its directory is on sys.path
    from env import parse_mountstats


def ops(mnt):
    st = parse_mountstats(Path("/proc/self/mountstats").read_text(), mnt)
    return st["nfs_read_ops"], st["nfs_write_ops"], st["nfs_commit_ops"]


def commits(mnt):
    return ops(mnt)[2]


def stream(mnt, src):
    c0 = commits(mnt)
    fd = os.open(f"{mnt}/f", os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    with open(src, "rb") as f:
        while b := f.read(1 << 20):
            os.write(fd, b)
    c1 = commits(mnt)
    t0 = time.monotonic()
    os.fsync(fd)
    secs = time.monotonic() - t0
    c2 = commits(mnt)
    os.close(fd)
    print(c0, c1, c2, round(secs, 2))


def scatter(mnt, runs, run_kb, stride_kb):
    if not 0 < run_kb <= stride_kb:
        sys.exit(f"nfswrite: scatter wants 0 < RUN_KB <= STRIDE_KB, not {run_kb} and {stride_kb}")
    fd = os.open(f"{mnt}/s", os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    os.ftruncate(fd, runs * stride_kb << 10)
    data = os.urandom(run_kb << 10)
    for i in range(runs):
        os.pwrite(fd, data, i * stride_kb << 10)
    c1 = commits(mnt)
    os.fsync(fd)
    c2 = commits(mnt)
    os.close(fd)
    print(c1, c2)


def main(argv):
    usage = __doc__.split("\n\n")[1]
    if len(argv) < 2 or argv[0] not in ("ops", "stream", "scatter"):
        sys.exit(f"usage:\n{usage}")
    mnt = argv[1].rstrip("/") or "/"
    if argv[0] == "ops" and len(argv) == 2:
        print(*ops(mnt))
    elif argv[0] == "stream" and len(argv) == 3:
        stream(mnt, argv[2])
    elif argv[0] == "scatter" and len(argv) == 5:
        try:
            runs, run_kb, stride_kb = (int(a) for a in argv[2:])
        except ValueError:
            sys.exit(f"nfswrite: scatter wants numbers, not {argv[2:]}")
        scatter(mnt, runs, run_kb, stride_kb)
    else:
        sys.exit(f"usage:\n{usage}")


if __name__ == "__main__":
    main(sys.argv[1:])
