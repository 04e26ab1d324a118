"""local-streams: N rate-limited sequential readers of their own files on a local disk.

Seed 002's workload: many slow streams (the seed's read ~200 KB/s each) in a page cache too
small to keep every stream's readahead window until its reader gets there. The workload runs
in the lab's memory cgroup, so the memory pressure is the workload's own and the lab around it
keeps running. [cgroup] memory_max_mb is the page cache the readers get: fio starts outside the
cgroup and moves in before its jobs read, and the cgroup's memory.max follows memory_max_mb plus
what fio's own memory charged there amounts to (the part of its job segment it touches after
the move, its job threads' stacks and heap, their kernel stacks and page tables: 65 MiB at 300
streams, results/memstart), so that neither fio's setup nor how fast it goes eats the page cache
the scenario gives the streams (guest/env.py fio()). The disk is a null_blk device: with a
completion time per request and queue_depth = 1 it serves one request at a time, like a
disk that seeks, so a stream that falls back to small synchronous reads costs the others.
"""

import time

from families import Choice, Int, Size, bytes_of, disk_params, largest

NAME = "local-streams"
NEEDS = ("disk",)
TABLES = {
    "disk": {
        **disk_params(fs=("ext4", "xfs")),
        "queue_depth": Int(0, 0, 1024, axis=False, doc="null_blk hw_queue_depth (0: null_blk's default, 64); "
                           "1 serves one request at a time, like a disk that seeks"),
        "scheduler": Choice("default", ("default", "none", "mq-deadline", "kyber"), axis=False,
                            doc="the disk's I/O scheduler ('default': the kernel's choice, none for null_blk); "
                            "with queue_depth = 1 and none the disk holds one request and nothing waits behind it, "
                            "with a scheduler the requests a SATA disk's queue would hold wait in its pool"),
        "nr_requests": Int(0, 0, 256, axis=False, doc="the scheduler's request pool (0: the kernel's choice, twice "
                           "queue_depth); needs a scheduler"),
        "file_mb": Int(16, 1, 4096, axis=False, doc="size of each stream's file, MiB"),
    },
    "workload": {
        "streams": Int(1, 1, 2000, doc="concurrent readers, each of its own file"),
        "rate_kb": Int(200, 0, 1048576, doc="each reader's rate, KiB/s (0: as fast as it can)"),
        "bs": Size("4k", 512, 16 << 20, doc="application read size"),
        "runtime_s": Int(30, 1, 3600, axis=False, doc="seconds measured"),
        "warmup_s": Int(0, 0, 3600, axis=False, doc="seconds the streams read before the measured runtime_s: "
                        "throughput, latency, counters and statistics cover only what follows it (the seed "
                        "measured streams long under way); 0: from the streams' first read"),
        "engine": Choice("psync", ("psync", "mmap"), doc="read(2) or faults on a mapping"),
    },
}
AXIS_ORDER = ("workload.streams", "workload.rate_kb")
SAMPLE_MS = 1000
PRIMARY = "mbps"
AB_EXTRA = ("dev_amp", "refaults", "p99_ms")
PLOT_X = {"workload.streams": "log2"}
METRICS = {
    "mbps": "MB/s (10^6 bytes/s) all readers together",
    "offered_mbps": "what the readers asked for: streams x rate",
    "delivered_pct": "mbps / offered_mbps, %",
    "dev_amp": "bytes the disk read / bytes the readers consumed, leaving out the pages read "
               "ahead of each reader still cached, unread, when the point ends (unread_bytes), and "
               "counting in those read in a warm-up and used after it (unread_start_bytes)",
    "dev_amp_raw": "bytes the disk read / bytes the readers consumed, unread pages included",
    "unread_bytes": "pages read ahead of the readers, still cached and unread at the end",
    "unread_start_bytes": "after a warm-up: pages read ahead of the readers, cached and unread when the "
                          "measurement started (read before it, used in it: dev_amp counts them in)",
    "refaults": "workingset_refault_file: pages read again after eviction",
    "thrash_pct": "readahead windows of the thrash pattern / all windows, % (patched, with the stats)",
    "p50_ms": "median read latency (fio clat), ms; after a warm-up, of all reads, the warm-up's too (fio "
              "cannot split its histograms at a moment of our choosing without printing them mid-run)",
    "p99_ms": "99th percentile read latency (fio clat), ms; same reads as p50_ms",
    "psi_mem_some_ms": "memory pressure stall of the workload's cgroup, ms (PSI some)",
    "disk_read_ios": "read requests the disk served",
    "snapshot_s": "after a warm-up: seconds the snapshot of where the readers were and what they had cached "
                  "took at its end (the readers ran on)",
    "snapshot_disk_bytes": "bytes the disk read while that snapshot ran: dev_amp counts them twice at most",
    "cg_own_mb": "fio's own memory charged to the cgroup (anon, shmem, kernel stacks, page tables), "
                 "the most seen, MiB: memory.max is memory_max_mb plus this",
    "cg_max_mb": "the cgroup's memory.max at the end, MiB",
}


def check(c, doc):
    wl = doc["workload"]
    rates = wl["rate_kb"] if isinstance(wl["rate_kb"], list) else [wl["rate_kb"]]
    engines = wl["engine"] if isinstance(wl["engine"], list) else [wl["engine"]]
    if wl["warmup_s"] and "mmap" in engines:
        c.fail("workload.warmup_s", "a warm-up needs engine = \"psync\": where each reader was when it ended is "
               "what its thread had read (rchar), and faults on a mapping are not reads")
    if doc["disk"]["nr_requests"] and doc["disk"]["scheduler"] in ("default", "none"):
        c.fail("disk.nr_requests", "a request pool of its own needs a scheduler (mq-deadline or kyber); "
               "without one the disk's requests are its queue_depth")
    need = max(rates) * (wl["runtime_s"] + wl["warmup_s"])
    if need > doc["disk"]["file_mb"] * 1024:
        c.fail("disk.file_mb", f"{doc['disk']['file_mb']} MiB per stream runs out before warmup_s + runtime_s "
               f"at {max(rates)} KiB/s ({need // 1024 + 1} MiB needed): streams would stop early")


def disk_mb(doc, points=()):
    return largest(doc["workload"]["streams"]) * doc["disk"]["file_mb"] + 256


def guest_memory_mb(doc):
    return disk_mb(doc) + 2048


def point_seconds(cfg):
    wl = cfg["workload"]
    return wl["warmup_s"] + wl["runtime_s"] + 30 + wl["streams"] // 10


def file_name(i):
    return f"streams/s.{i}"


# ---------------------------------------------------------------- guest side

def setup(env, plan):
    import os  # noqa: PLC0415

    from guest.env import fill_file  # noqa: PLC0415

    doc = plan["setup"]
    n = max(p["cfg"]["workload"]["streams"] for p in plan["points"])
    os.makedirs(env.disk.path + "/streams", exist_ok=True)
    for i in range(n):
        fill_file(f"{env.disk.path}/{file_name(i)}", doc["disk"]["file_mb"], seed=i)
    env.run(["sync"])


def fio_args(env, wl, n):
    """One fio job per stream, each named after its file: the per-job results say how far
    each reader got (run_point() needs that to tell unread readahead from waste)."""
    a = [f"--directory={env.disk.path}/streams", "--thread", "--rw=read", f"--bs={wl['bs']}",
         f"--ioengine={wl['engine']}", f"--runtime={wl['warmup_s'] + wl['runtime_s']}", "--fadvise_hint=0",
         "--invalidate=1"]
    # No --ramp_time for a warm-up: fio starts each job's ramp at that job's own start, so
    # what it reports after the ramp and the counters run_point() restarts at the end of the
    # warm-up would cover different seconds (300 jobs start over about a second under TCG:
    # 200 KiB/s x 300 x 0.5 s is 30 MB). fio reads warm-up and runtime; run_point() takes
    # what each reader read since the warm-up's end from its thread's count at that moment.
    if wl["rate_kb"]:
        a.append(f"--rate={wl['rate_kb']}k")
    for i in range(n):
        a += [f"--name=s.{i}", f"--filename=s.{i}"]
    return a


def merged_percentiles(jobs, pcts=(50, 99)):
    """Completion latency percentiles (ns) of all jobs' reads together, from fio's json+
    histograms (clat_ns.bins: latency -> count), the way fio computes them for a group."""
    bins = {}
    for j in jobs:
        for ns, count in j["read"].get("clat_ns", {}).get("bins", {}).items():
            bins[int(ns)] = bins.get(int(ns), 0) + count
    total = sum(bins.values())
    out = dict.fromkeys(pcts, 0)
    if not total:
        return out
    for p in pcts:
        need, seen = total * p / 100.0, 0
        for ns in sorted(bins):
            seen += bins[ns]
            if seen >= need:
                out[p] = ns
                break
    return out


def by_stream(jobs):
    return sorted(jobs, key=lambda j: int(j["jobname"][2:]))


def run_point(env, cfg):
    wl = cfg["workload"]
    n = wl["streams"]
    paths = [f"{env.disk.path}/{file_name(i)}" for i in range(n)]
    left = env.uncache(paths)
    warm = {}

    bs = bytes_of(wl["bs"])
    page = 4096

    def warmed(pid):
        # The warm-up is over: the counters and statistics start over, then each job thread's
        # reads say how far its reader got and the page cache what each had read ahead and not
        # yet used. The readers run on: stopped for the snapshot (SIGSTOP until every thread
        # was back from the kernel and the disk idle, 1-3 s), they came back owing fio's --rate
        # those seconds, read them all at once, and that burst thrashed 1 % of the windows of
        # the minute after, the only thrash of the patched kernel long under way
        # (results/streams-snapshot). The snapshot runs at real-time priority instead, ahead
        # of the readers, and maps only what can be read ahead of each reader: four windows
        # (at least 1 MiB) from where it stands. What the disk reads while it runs is counted
        # twice at most (in the disk's bytes and, still unread, in the maps):
        # snapshot_disk_bytes says how much.
        ahead = max(4 * env.read_ahead_kb(), 1024) * 1024 // page
        t0 = time.monotonic()
        with env.urgent():
            env.restart_measure()
            disk0 = env.disk_read_bytes()
            reads = env.thread_reads(pid)
            # fio's job threads come last, in job order (see below)
            first = [-(-(r - r % bs) // page) for _, r in reads[-n:]] if len(reads) > n else [0] * n
            warm["maps"] = [env.cached_map(p, f, ahead) for p, f in zip(paths, first, strict=True)]
            warm["disk_bytes"] = env.disk_read_bytes() - disk0
        warm["snapshot_s"] = time.monotonic() - t0
        warm["reads"], warm["first"] = reads, first

    at = (wl["warmup_s"], warmed) if wl["warmup_s"] else None
    with env.measure() as d:
        res = env.fio(fio_args(env, wl, n), cgroup=True, timeout=(wl["warmup_s"] + wl["runtime_s"]) * 3 + 120,
                      threads=n, fmt="json+", at=at, page_cache_mb=cfg["cgroup"]["memory_max_mb"])
    jobs = res["jobs"]
    lab_cg = res.get("lab_cgroup", {})
    if len(jobs) != n:
        raise RuntimeError(f"fio reported {len(jobs)} jobs for {n} streams")
    total = [j["read"]["io_bytes"] for j in by_stream(jobs)]
    # After a warm-up, where each reader was when it ended is what its thread had read by
    # then (bytes past the last whole read are not data); what it consumed in the
    # measurement is what it read after that. The disk counters restarted just before.
    start = [0] * n
    if at:
        reads = warm.get("reads", [])
        # fio's main thread comes first, then its helpers, then the jobs, each of which has
        # read something by the end of the warm-up (a helper reads a few hundred bytes)
        if len(reads) < n + 1 or "maps" not in warm or any(r < bs for _, r in reads[-n:]):
            raise RuntimeError(f"fio's {n} job threads were not found at the end of the {wl['warmup_s']} s warm-up "
                               f"({len(reads)} threads, {sum(r >= bs for _, r in reads)} that had read)")
        start = [min(r - r % bs, t) for (_, r), t in zip(reads[-n:], total, strict=True)]
    done = [t - s0 for t, s0 in zip(total, start, strict=True)]
    # Pages read ahead of each reader that it had not reached when the point ended: read,
    # not (yet) used, not wasted either. dev_amp leaves them out: in a short point with many
    # streams they are a large share of what the disk read (results/memdiag). After a warm-up
    # it adds those the readers had not reached when the measurement started: read before it,
    # used in it.
    unread = sum(env.cached_pages(p, -(-t // page)) for p, t in zip(paths, total, strict=True)) * page
    unread_start = 0
    if at:
        unread_start = sum(env.cached_in(m, -(-s0 // page) - f)
                           for m, s0, f in zip(warm["maps"], start, warm["first"], strict=True)) * page
    app = sum(done)
    # each job ran warmup_s + runtime_s; the measurement started warmup_s after the last
    # began, when the snapshot started
    secs = max(max(j["read"]["runtime"] for j in jobs) / 1000.0 - wl["warmup_s"], 0.0)
    mbps = app / secs / 1e6 if secs else 0.0
    pct = merged_percentiles(jobs)
    offered = n * wl["rate_kb"] * 1024 / 1e6 if wl["rate_kb"] else None
    disk = d.get("disk_read_bytes", 0)
    row = dict(d)
    row.update({
        "mbps": round(mbps, 3),
        "app_bytes": app,
        "secs": round(secs, 3),
        "offered_mbps": round(offered, 3) if offered else None,
        "delivered_pct": round(100 * mbps / offered, 1) if offered else None,
        "unread_bytes": unread,
        "unread_start_bytes": unread_start,
        "dev_amp": round(max(disk - unread + unread_start, 0) / app, 3) if app else None,
        "dev_amp_raw": round(disk / app, 3) if app else None,
        "refaults": d.get("vm_workingset_refault_file"),
        "p50_ms": round(pct[50] / 1e6, 3),
        "p99_ms": round(pct[99] / 1e6, 3),
        "cached_pages_at_start": sum(left),
        "snapshot_s": round(warm.get("snapshot_s", 0), 3),
        "snapshot_disk_bytes": warm.get("disk_bytes", 0),
    })
    if lab_cg:
        row["cg_own_mb"] = round(lab_cg["own_max"] / 2**20, 1)
        row["cg_max_mb"] = round(lab_cg.get("memory_max", 0) / 2**20, 1)
    if d.get("ra_windows"):
        row["thrash_pct"] = round(100 * d.get("ra_thrash", 0) / d["ra_windows"], 2)
    checks = []
    if sum(left):
        checks.append(f"{sum(left)} pages of the streams' files cached at the start")
    if d.get("cg_oom_kill"):
        checks.append(f"{d['cg_oom_kill']} OOM kills in the workload's cgroup")
    row["checks"] = checks
    return row
