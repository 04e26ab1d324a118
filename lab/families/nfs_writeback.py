"""nfs-writeback: dd-like writers over NFS at a client dirty threshold, with timelines (seed 004).

Seed 004 measured NFS write bandwidth at client dirty thresholds of 1M, 10M, 100M and 1G with
1, 2 and 10 dd writers, and plotted network and server-disk throughput over time: the 2011
kernel alternated between the network and the disk, and at the 1M threshold its writers
starved. Each point here writes for workload.seconds, then fsyncs: MB/s counts every byte
until it is on the server's disk. The time series (sample_ms) shows the link, the server disk
and the client's dirty and writeback pages; from it each point gets the seconds the link and
the disk sat idle while the client still had data waiting.

One guest kernel is both the client and the server, so vm.dirty_bytes cannot be the client's
alone. The lab gives each side its own limits with the per-bdi knobs of
Documentation/ABI/testing/sysfs-class-bdi:

client  the mount's bdi: strict_limit = 1, min_bytes = max_bytes = client.dirty. The writers
        are throttled on the mount's own dirty and unstable pages against that threshold and
        its background writeback stops at half of it, as on a client whose vm.dirty_bytes is
        client.dirty (background at half). One difference: on a real client background
        writeback also starts at half; here it starts when the writers are first throttled
        (three quarters) or at the flusher's next periodic wakeup (client.writeback_cs:
        vm.dirty_writeback_centisecs for the point; 1 wakes the flusher every 10 ms, which
        then starts it within 10 ms of crossing half, as a global threshold would).
server  server.dirty_mb = 0 ("idle"): global vm.dirty_bytes 8 GiB, background 4 GiB, and the
        disk's bdi gets min_bytes 2 GiB, so its background threshold stays above anything a
        client sends between COMMITs: only COMMITs (and the 30 s expiry) write the disk, as on
        the seed's 32 GiB server. N > 0 ("active"): the disk's bdi gets strict_limit and
        min_bytes = max_bytes = N MiB: nfsd is throttled at N MiB of dirty data and background
        writeback runs from N/2 on, as on a server whose vm.dirty_bytes is N MiB (the seed's
        second run: 100M).
"""

import csv
import statistics
import time

from families import LINK, Choice, Int, Size, bytes_of, disk_params, largest, nfs_write_sizes

NAME = "nfs-writeback"
NEEDS = ("disk", "nfs", "link")
PATTERNS = ("write", "randwrite")
GLOBAL_DIRTY = 8 << 30          # vm.dirty_bytes while the lab runs: the server's, when idle
GLOBAL_BG = 4 << 30             # vm.dirty_background_bytes
WRITEBACK_CS = 500              # vm.dirty_writeback_centisecs between points (the kernel's default)
IDLE_SERVER_MIN = 2 << 30       # min_bytes of the disk's bdi when the server is idle
IDLE_BPS = 1e6                  # a link or disk moving less than this is idle
TABLES = {
    "server": {
        **disk_params(fs=("ext4", "xfs")),
        "threads": Int(8, 1, 256, axis=False, doc="nfsd threads"),
        "dirty_mb": Int(0, 0, 4096, doc="the server's dirty limit on its disk, MiB (background at half); "
                        "0: idle, above anything the client sends between COMMITs (see the family's doc)"),
    },
    "link": LINK,
    "client": {
        "nfs_version": Choice("4.2", ("3", "4.0", "4.1", "4.2"), doc="NFS version of the mount"),
        "wsize_kb": Choice(1024, (4, 8, 16, 32, 64, 128, 256, 512, 1024), doc="wsize (and rsize), KiB"),
        "dirty": Size("100m", 256 << 10, 4 << 30, doc="the client's dirty threshold (the seed's vm.dirty_bytes; "
                      "background at half): dirty plus unstable pages of the mount"),
        "writeback_cs": Int(WRITEBACK_CS, 1, 6000, doc="vm.dirty_writeback_centisecs while the point runs (500, "
                            "the kernel's default): the flusher's periodic wakeup, which on the lab's strict-limit "
                            "mount is also when its background writeback starts below the writers' freerun "
                            "ceiling; 1 (every 10 ms) starts it near half the threshold, as a client's global "
                            "threshold does"),
    },
    "workload": {
        "writers": Int(1, 1, 64, doc="concurrent writers, each of its own file (the seed's dd processes)"),
        "bs": Size("1m", 512, 16 << 20, doc="application write size"),
        "pattern": Choice("write", PATTERNS, doc="write: sequential (dd); randwrite: random offsets in the "
                          "file (Jan Kara's fio case)"),
        "seconds": Int(30, 2, 3600, doc="how long the writers write; then they fsync"),
        "data_mb": Int(2048, 8, 16384, axis=False, doc="the data set, split among the writers: each file is "
                       "data_mb / writers, written over again while time remains"),
    },
}
AXIS_ORDER = ("server.dirty_mb", "link.delay_ms", "workload.pattern", "workload.bs", "client.dirty",
              "workload.writers")
SAMPLE_MS = 250
PRIMARY = "write_mbps"
AB_EXTRA = ("net_gap_s", "disk_gap_s")
PLOT_X = {"workload.writers": "log2"}
METRICS = {
    "write_mbps": "MB/s written, all writers together, from their start until their fsync returned",
    "nfs_write_ops": "WRITE RPCs",
    "mean_write_kb": "mean WRITE size, KiB",
    "nfs_commit_ops": "COMMIT RPCs",
    "mean_commit_kb": "KiB written per COMMIT (bytes WRITE carried / COMMITs)",
    "net_idle_s": "seconds the link carried < 1 MB/s while the client had dirty or unstable pages",
    "net_gap_s": "the longest such stretch, seconds (the seed's zero-traffic periods); both counted "
                 "from the first WRITE on",
    "disk_idle_s": "seconds the server disk wrote < 1 MB/s while the client had dirty or unstable pages",
    "disk_gap_s": "the longest such stretch, seconds",
    "first_write_s": "when the link first carried data, seconds into the point",
    "client_dirty_peak_kb": "the most dirty + writeback (incl. unstable) KiB the mount held",
    "server_dirty_peak_kb": "the most dirty + writeback KiB the server disk held",
}


def check(c, doc):
    if largest(doc["workload"]["writers"]) > doc["workload"]["data_mb"]:
        c.fail("workload.data_mb", "must give every writer at least 1 MiB")


def file_mb(wl):
    return max(1, wl["data_mb"] // wl["writers"])


def disk_mb(doc, points=()):
    return doc["workload"]["data_mb"] * 5 // 4 + 512


def guest_memory_mb(doc):
    """The memory-backed disk, both page caches' worth of data, and room for 1 GiB of dirty
    data on each side."""
    return disk_mb(doc) + doc["workload"]["data_mb"] + 3072


def point_seconds(cfg):
    # The writers' time, their fsync at the slowest (1M threshold, ~5 MB/s) and the setup.
    return 60 + cfg["workload"]["seconds"] + bytes_of(cfg["client"]["dirty"]) // (5 << 20)


def file_name(i):
    return f"wb.{i}"


# ---------------------------------------------------------------- guest side

def setup(env, plan):
    env.server.start(plan["setup"]["server"]["threads"])


def bdi_reset(env, bdi):
    for f, v in (("strict_limit", 0), ("min_ratio", 0), ("max_ratio", 100)):
        env.write(f"{bdi}/{f}", v)


def bdi_limit(env, bdi, nbytes, strict):
    """min_bytes = max_bytes = nbytes (a share of the global threshold, converted by the
    kernel with the global thresholds in force), strict_limit as asked. Returns what the bdi
    reads back for max_bytes."""
    env.write(f"{bdi}/min_bytes", nbytes)
    env.write(f"{bdi}/max_bytes", nbytes)
    env.write(f"{bdi}/strict_limit", 1 if strict else 0)
    return int(env.read(f"{bdi}/max_bytes"))


def set_limits(env, cfg, nfs_bdi, disk_bdi):
    """The point's dirty limits: global thresholds first (the bdi byte knobs are converted
    against them), then the server disk's bdi, then the mount's."""
    bdi_reset(env, disk_bdi)
    env.write("/proc/sys/vm/dirty_bytes", GLOBAL_DIRTY)
    env.write("/proc/sys/vm/dirty_background_bytes", GLOBAL_BG)
    srv = cfg["server"]["dirty_mb"] << 20
    got_srv = bdi_limit(env, disk_bdi, srv or IDLE_SERVER_MIN, strict=bool(srv))
    got_cli = bdi_limit(env, nfs_bdi, bytes_of(cfg["client"]["dirty"]), strict=True)
    env.write("/proc/sys/vm/dirty_writeback_centisecs", cfg["client"]["writeback_cs"])
    return got_cli, got_srv


def fio_write(path, wl):
    return ["--name=writers", f"--directory={path}", "--filename_format=wb.$jobnum", f"--numjobs={wl['writers']}",
            "--group_reporting", f"--rw={wl['pattern']}", f"--bs={wl['bs']}", f"--size={file_mb(wl)}m",
            "--ioengine=psync", "--time_based", f"--runtime={wl['seconds']}", "--end_fsync=1",
            "--fallocate=none", "--create_on_open=1", "--randrepeat=0"]


def timeline(rows, idle_bps=IDLE_BPS):
    """From the sampler's rows (t and cumulative byte counters, the mount's dirty and writeback
    KiB): the seconds the link and the server disk were idle while the client had data
    waiting, in total and the longest stretch; and the peaks of dirty data on both sides.
    Counting starts once the link first carried data: before that the writers are filling
    the client's cache up to its background threshold, which is how dirty limits batch
    writes (the first WRITE's start is `first_write_s`)."""
    out = {"net_idle_s": 0.0, "net_gap_s": 0.0, "disk_idle_s": 0.0, "disk_gap_s": 0.0}
    run = {"net": 0.0, "disk": 0.0}
    started = None

    def num(r, k):
        return float(r.get(k) or 0)

    def waiting(r):
        return num(r, "nfs_dirty_kb") + num(r, "nfs_writeback_kb") > 0

    for a, b in zip(rows, rows[1:], strict=False):
        dt = num(b, "t") - num(a, "t")
        if dt <= 0:
            continue
        rate = {"net": (num(b, "net_tx_bytes") + num(b, "net_rx_bytes") - num(a, "net_tx_bytes")
                        - num(a, "net_rx_bytes")) / dt,
                "disk": (num(b, "disk_write_bytes") - num(a, "disk_write_bytes")) / dt}
        if started is None:
            if rate["net"] < idle_bps:
                continue
            started = num(a, "t")
        for k, r in rate.items():
            if waiting(a) and waiting(b) and r < idle_bps:
                run[k] += dt
                out[f"{k}_idle_s"] += dt
                out[f"{k}_gap_s"] = max(out[f"{k}_gap_s"], run[k])
            else:
                run[k] = 0.0
    out = {k: round(v, 2) for k, v in out.items()}
    out["first_write_s"] = started
    out["client_dirty_peak_kb"] = max((num(r, "nfs_dirty_kb") + num(r, "nfs_writeback_kb") for r in rows), default=0)
    out["server_dirty_peak_kb"] = max((num(r, "disk_dirty_kb") + num(r, "disk_writeback_kb") for r in rows),
                                      default=0)
    return out


def clean_start(env, n_old):
    """No files of an earlier point, nothing dirty anywhere, both page caches empty."""
    if n_old:
        env.run(["rm", "-f", *(env.server.path(file_name(i)) for i in range(n_old))])
    env.run(["sync"])
    env.drop_caches()


def run_point(env, cfg):
    wl, cl, lk = cfg["workload"], cfg["client"], cfg["link"]
    n = wl["writers"]
    c = env.clients[0]
    c.umount()
    clean_start(env, max(n, getattr(env, "wb_files", 0)))
    env.wb_files = n
    wsize = cl["wsize_kb"] * 1024
    c.mount(cl["nfs_version"], f"rsize={wsize},wsize={wsize}", fresh=True)
    env.link.set_delay(lk["delay_ms"])
    rtt = env.link.rtt()
    bdis = env.bdis()
    got_cli, got_srv = set_limits(env, cfg, c.bdi(), f"/sys/class/bdi/{bdis['disk']}")
    t0 = time.monotonic()
    try:
        with env.measure() as d:
            job = env.fio(fio_write(c.mnt, wl), cgroup=False)["jobs"][0]["write"]
    finally:
        env.write("/proc/sys/vm/dirty_writeback_centisecs", WRITEBACK_CS)
    wall = time.monotonic() - t0
    total = job["io_bytes"]
    row = dict(d)
    row.update({
        "write_mbps": round(total / wall / 1e6, 2) if wall else 0.0,
        "app_bytes": total,
        "secs": round(wall, 3),
        "rtt_ms": round(rtt, 3),
        **nfs_write_sizes(d),
        "client_dirty_bytes": got_cli,
        "server_dirty_bytes": got_srv,
        "link_mbps": env.link.ceiling.get(lk["delay_ms"]),
    })
    series = getattr(env, "last_series", None)
    if series:
        with open(series) as f:
            row.update(timeline(list(csv.DictReader(f))))
    checks = []
    want = bytes_of(cl["dirty"])
    if abs(got_cli - want) > max(want // 50, 64 << 10):
        checks.append(f"the mount's max_bytes reads {got_cli}, not {want}")
    if d.get("net_drops"):
        checks.append(f"{d['net_drops']} netem drops")
    row["checks"] = checks
    c.umount()
    return row


# ---------------------------------------------------------------- report

def report(summ, rep):
    """Issue 15's measure and the lab's ceiling: per kernel, the sum of the points' median
    write MB/s over the points both kernels measured, the link ceiling iperf3 measured on the
    same boots, and each point as a share of that ceiling."""
    by = {}
    for s in summ:
        if s.get(PRIMARY) is not None:
            by.setdefault(s["id"], {})[s["kind"]] = s
    pairs = [k for k in by.values() if "stock" in k and "patched" in k]
    if not pairs:
        return []
    rows = []
    total = {}
    for kind in ("stock", "patched"):
        pts = [k[kind] for k in pairs]
        total[kind] = sum(s[PRIMARY] for s in pts)
        ceiled = [s for s in pts if s.get("link_mbps")]
        row = [kind, len(pts), f"{total[kind]:.1f}", "—", "—"]
        if ceiled:
            med = statistics.median(s["link_mbps"] for s in ceiled)
            lo, hi = min(s["link_mbps_min"] for s in ceiled), max(s["link_mbps_max"] for s in ceiled)
            share = [100 * s[PRIMARY] / s["link_mbps"] for s in ceiled]
            row[3:] = [f"{med:.1f} [{lo:.1f}–{hi:.1f}]", f"{min(share):.0f}–{max(share):.0f} %"]
        rows.append(row)
    ratio = total["patched"] / total["stock"] if total["stock"] else float("inf")
    return ["### Totals and the link ceiling",
            "Sum of the points' median write MB/s (the points both kernels measured), the link "
            "ceiling iperf3 measured on the same boots (median [min–max]), and the points' medians "
            "as a share of their ceiling:",
            rep.md_table(["kernel", "points", "sum of medians, MB/s", "link ceiling, MB/s",
                          "points / ceiling"], rows),
            f"patched/stock over the sum: {ratio:.3f}× ({100 * (ratio - 1):+.1f} %)"]
