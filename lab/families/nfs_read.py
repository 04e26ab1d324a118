"""nfs-read: read files over NFS from one or more clients (sequential, random, mmap, small files).

The family every scenario had before families existed; its numbers and method are the ones
results/reference and results/seed000 were measured with: the data file's pages are dropped
on both sides before each point (fadvise, checked with mincore), RTT is pinged, the link
ceiling measured by iperf3 once per delay, and a sequential point after a delay change
follows a 2 s untimed read (see results/wan-fresh).
"""

import math
import mmap
import os
import random
import threading
import time
from collections import defaultdict
from pathlib import Path

from families import (LINK, Bool, Choice, Int, Size, above_link, bytes_of, client_params, disk_params, largest,
                      mount_checked, read_ahead_kb_param)

NAME = "nfs-read"
NEEDS = ("disk", "nfs", "link")
WORKLOADS = ("seqread", "randread", "mmapread", "mmaprand", "smallfiles", "mmapfiles", "willneed")
TREE_WORKLOADS = ("smallfiles", "mmapfiles")
TABLES = {
    "server": {
        **disk_params(),
        "file_mb": Int(1024, 1, 16384, axis=False, doc="size of each client's data file, MiB"),
        "sparse": Bool(False, axis=False, doc="the data file is one hole"),
        "threads": Int(8, 1, 256, axis=False, doc="nfsd threads"),
        "small_files": Int(2000, 1, 100000, axis=False, doc="files in the small-file tree"),
        "small_file_max_kb": Int(1024, 4, 65536, axis=False, doc="largest small file (sizes log-uniform)"),
    },
    "link": LINK,
    "client": {
        **client_params(),
        "read_ahead_kb": read_ahead_kb_param(),
    },
    "workload": {
        "type": Choice("seqread", WORKLOADS, axis=False),
        "bs": Size("4k", 512, 16 << 20, doc="application read size"),
        "runtime_s": Int(8, 1, 600, axis=False),
        "ios": Int(0, 0, 10000000, axis=False, doc="random workloads: stop after this many reads"),
    },
}
# Mounts change least often, then the delay (each change costs an iperf3 and a warm-up).
AXIS_ORDER = ("client.nfs_version", "client.rsize_kb", "client.count", "link.delay_ms", "client.read_ahead_kb",
              "workload.bs")
SAMPLE_MS = 0
PRIMARY = "mbps"
AB_EXTRA = ("ra_kb", "read_amp")
PLOT_X = {"client.read_ahead_kb": "log2", "link.delay_ms": "linear"}
METRICS = {
    "mbps": "MB/s (10^6 bytes/s) the application read, all clients together",
    "mbps_client_min": "MB/s of the slowest client (several clients)",
    "mbps_client_max": "MB/s of the fastest client (several clients)",
    "rtt_ms": "RTT pinged from client 0 before the point",
    "ra_kb": "read_ahead_kb of client 0's mount during the point",
    "window_kb": "readahead window a reader of this size gets (ractl_max_pages())",
    "bound_mbps": "min(link ceiling, clients x 2 x window / RTT)",
    "mean_read_kb": "mean READ size, KiB",
    "read_amp": "bytes READ from the server / bytes the application read",
    "wire_ratio": "bytes the server sent on the link / bytes the application read",
    "link_mbps": "iperf3 server-to-client ceiling at this delay",
    "calls": "willneed: fadvise(WILLNEED) calls made",
    "read_kb_per_call": "willneed: KiB READ from the server per call",
}


def check(c, doc):
    wl = doc["workload"]
    if wl["ios"] and wl["type"] not in ("randread", "mmaprand"):
        c.fail("workload.ios", "only randread and mmaprand stop after a number of reads")
    counts = doc["client"]["count"]
    if wl["type"] in TREE_WORKLOADS and counts != 1:
        c.fail("client.count", f"{wl['type']} reads the small-file tree from one client only")


def data_mb(doc, points=()):
    """MiB of file data on the server: one data file per client and, if used, the tree."""
    s = doc["server"]
    mb = s["file_mb"] * largest(doc["client"]["count"])
    if doc["workload"]["type"] in TREE_WORKLOADS:
        hi = s["small_file_max_kb"]
        mean_kb = (hi - 1) / math.log(hi) if hi > 1 else 1
        mb += math.ceil(s["small_files"] * mean_kb / 1024)
    return mb


def disk_mb(doc, points=()):
    return data_mb(doc) + 256


def guest_memory_mb(doc):
    """The null_blk disk and both page caches (client and server share the guest)."""
    return max(5120, 2048 + 3 * data_mb(doc))


def point_seconds(cfg):
    return cfg["workload"]["runtime_s"] + 20 + cfg["link"]["delay_ms"] // 5 + 10 * (cfg["client"]["count"] - 1)


def data_name(i):
    return "data" if i == 0 else f"data{i + 1}"


# ---------------------------------------------------------------- guest side

def setup(env, plan):
    from guest.env import fill_file, log, run  # noqa: PLC0415 - guest only

    doc = plan["setup"]
    srv = doc["server"]
    t0 = time.monotonic()
    n = max(p["cfg"]["client"]["count"] for p in plan["points"])
    for i in range(n):
        fill_file(env.server.path(data_name(i)), srv["file_mb"], sparse=srv["sparse"], seed=i)
    if doc["workload"]["type"] in TREE_WORKLOADS:
        # Sizes log-uniform between 1 KiB and small_file_max_kb, like the binaries,
        # libraries and configuration files a diskless client reads at boot.
        rnd = random.Random(42)
        d = Path(env.server.path("small"))
        d.mkdir()
        hi = math.log2(srv["small_file_max_kb"] * 1024)
        for i in range(srv["small_files"]):
            Path(d, f"f{i:06d}").write_bytes(os.urandom(int(2 ** rnd.uniform(10, hi))))
    run(["sync"])
    env.server.start(srv["threads"])
    log(f"nfs-read: data written and nfsd started in {time.monotonic() - t0:.0f}s")


def fio_read(filename, rw, bs, runtime, engine="psync", ios=0):
    """fio arguments reading filename once (no wrap-around), without fadvise hints; random
    jobs stop after ios reads if ios is set (fixed work, for amplification)."""
    a = ["--name", rw, "--filename", filename, "--rw", rw, "--bs", bs, "--ioengine", engine,
         "--runtime", str(runtime), "--fadvise_hint=0", "--invalidate=1"]
    if rw.startswith("rand"):
        a += ["--norandommap", "--randrepeat=0"]
    if ios:
        a += [f"--number_ios={ios}"]
    return a


def parallel(fns):
    """Run the callables at once (one thread each; each runs a process) and return results."""
    res, errs = [None] * len(fns), []

    def go(i, fn):
        try:
            res[i] = fn()
        except Exception as e:  # reported below, after every thread is done
            errs.append(e)
    ts = [threading.Thread(target=go, args=(i, fn)) for i, fn in enumerate(fns)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    if errs:
        raise errs[0]
    return res


def smallfiles(root, bs, runtime):
    """Read every file under root whole, like cat, until done or runtime is up."""
    chunk, total, n, t0 = bytes_of(bs), 0, 0, time.monotonic()
    for p in sorted(Path(root).iterdir()):
        with open(p, "rb", buffering=0) as f:
            while b := f.read(chunk):
                total += len(b)
        n += 1
        if time.monotonic() - t0 > runtime:
            break
    return {"app_bytes": total, "secs": time.monotonic() - t0, "files": n}


def mmapfiles(root, runtime):
    """Map each file under root and touch a few random pages of it, like a program loader
    faulting in parts of binaries and libraries; app_bytes counts touched pages."""
    rnd, touched, n, t0 = random.Random(7), 0, 0, time.monotonic()
    for p in sorted(Path(root).iterdir()):
        with open(p, "rb") as f:
            size = os.fstat(f.fileno()).st_size
            pages = (size + 4095) // 4096
            with mmap.mmap(f.fileno(), size, prot=mmap.PROT_READ) as m:
                for _ in range(max(1, pages // 16)):
                    m[rnd.randrange(pages) * 4096 % size]
                    touched += 1
        n += 1
        if time.monotonic() - t0 > runtime:
            break
    return {"app_bytes": touched * 4096, "secs": time.monotonic() - t0, "files": n}


def willneed(path, bs, runtime):
    """What stress-ng's readahead stressor does: drop the file's pages, ask for all of it with
    fadvise(WILLNEED) (the kernel clamps the request to the readahead window, or to rsize),
    read bs at offset 0; repeat. app_bytes counts what was read, `calls` the requests."""

    n, app, t0 = 0, 0, time.monotonic()
    fd = os.open(path, os.O_RDONLY)
    try:
        size = os.fstat(fd).st_size
        while time.monotonic() - t0 < runtime:
            os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
            os.posix_fadvise(fd, 0, size, os.POSIX_FADV_WILLNEED)
            app += len(os.pread(fd, bytes_of(bs), 0))
            n += 1
    finally:
        os.close(fd)
    return {"app_bytes": app, "secs": time.monotonic() - t0, "calls": n}


def read_one(env, client, wl, bs):
    """One client's workload; returns app_bytes and secs (and files)."""
    kind, rt, data = wl["type"], wl["runtime_s"], client.path(data_name(client.index))
    if kind == "willneed":
        return willneed(data, bs, rt)
    if kind in TREE_WORKLOADS:
        root = client.path("small")
        return smallfiles(root, bs, rt) if kind == "smallfiles" else mmapfiles(root, rt)
    args = {
        "seqread": fio_read(data, "read", bs, rt),
        "randread": fio_read(data, "randread", bs, rt, ios=wl["ios"]),
        "mmapread": fio_read(data, "read", bs, rt, engine="mmap"),
        "mmaprand": fio_read(data, "randread", bs, rt, engine="mmap", ios=wl["ios"]),
    }[kind]
    job = env.fio(args)["jobs"][0]["read"]
    return {"app_bytes": job["io_bytes"], "secs": job["runtime"] / 1000.0}


def window_kb(ra_kb, bs_bytes, rsize_kb):
    """The readahead window a sequential reader gets (mm/readahead.c ractl_max_pages())."""
    bs_kb = bs_bytes // 1024
    if bs_kb > ra_kb and rsize_kb > ra_kb:
        return max(ra_kb, min(bs_kb, rsize_kb))
    return ra_kb


def run_point(env, cfg):

    cl, lk, wl = cfg["client"], cfg["link"], cfg["workload"]
    bs, ra, n = cfg["workload"]["bs"], cl["read_ahead_kb"], cl["count"]
    t0 = time.monotonic()
    clients = env.clients[:n]
    for c in env.clients[n:]:
        c.umount()
    for c in clients:
        mount_checked(c, cl, fresh=(ra == "default"))
    if env.link.set_delay(lk["delay_ms"]) and wl["type"] == "seqread":
        # The first point after a delay change (after iperf3, on a fresh mount) ran far slower
        # than the same point later at 100 ms RTT: 2.4-7.1 against 27-29 MB/s for 4 KiB reads
        # (results/wan-fresh). Points measure the steady state, so read for 2 s first, untimed;
        # the cache is dropped again below.
        parallel([lambda c=c: env.fio(fio_read(c.path(data_name(c.index)), "read", "1m", 2)) for c in clients])
    for c in clients:
        if ra != "default":
            env.write(f"{c.bdi()}/read_ahead_kb", ra)
    ra_eff = int(env.read(f"{clients[0].bdi()}/read_ahead_kb"))
    if wl["type"] in TREE_WORKLOADS:
        # The tree workloads start cold in the dentry and attribute caches too.
        env.drop_caches()
        cli_cached = srv_cached = 0
    else:
        left = env.uncache([c.path(data_name(c.index)) for c in clients] +
                           [env.server.path(data_name(c.index)) for c in clients])
        cli_cached, srv_cached = sum(left[:n]), sum(left[n:])
    rtt = env.link.rtt()
    prep = time.monotonic() - t0
    with env.measure() as d:
        ws = parallel([lambda c=c: read_one(env, c, wl, bs) for c in clients])
    app = sum(w["app_bytes"] for w in ws)
    per = [w["app_bytes"] / w["secs"] / 1e6 if w["secs"] > 0 else 0.0 for w in ws]
    mbps = sum(per)
    win = window_kb(ra_eff, bytes_of(bs), cl["rsize_kb"])
    ceiling = env.link.ceiling.get(lk["delay_ms"])
    # Readahead keeps at most two windows in flight: the one being read and the async one
    # its PG_readahead marker started. So a reader cannot beat 2 * window / RTT, or the link.
    bound = n * 2 * win * 1024 / (rtt / 1000) / 1e6
    if ceiling:
        bound = min(bound, ceiling)
    ops = d.get("nfs_read_ops", 0)
    row = dict(d)
    row.update({
        "mbps": round(mbps, 2),
        "app_bytes": app,
        "secs": round(max(w["secs"] for w in ws), 3),
        "rtt_ms": round(rtt, 3),
        "ra_kb": ra_eff,
        "window_kb": win,
        "mean_read_kb": round(d.get("nfs_server_read_bytes", 0) / ops / 1024, 1) if ops else 0,
        "read_amp": round(d.get("nfs_server_read_bytes", 0) / app, 3) if app else None,
        "wire_ratio": round(d.get("net_tx_bytes", 0) / app, 3) if app else None,
        "client_cached_pages": cli_cached,
        "server_cached_pages": srv_cached,
        "link_mbps": ceiling,
        "bound_mbps": round(bound, 1),
        "prep_s": round(prep, 1),
    })
    if n > 1:
        row.update(mbps_client_min=round(min(per), 2), mbps_client_max=round(max(per), 2),
                   mbps_clients=" ".join(f"{x:.2f}" for x in per))
    if "files" in ws[0]:
        row["files"] = ws[0]["files"]
    if "calls" in ws[0]:
        calls = sum(w["calls"] for w in ws)
        row.update(calls=calls, read_kb_per_call=round(d.get("nfs_server_read_bytes", 0) / calls / 1024, 1)
                   if calls else None)
    # Validation, reported with the point: RTT at least the netem delay both ways, no
    # throughput above what the link carried (that would be a cache hit, not the network).
    checks = []
    if rtt < 2 * lk["delay_ms"]:
        checks.append(f"rtt {rtt} < 2x{lk['delay_ms']} ms")
    if above_link(mbps, ceiling, lk["rate"]):
        checks.append(f"{mbps:.1f} MB/s above the link ceiling {ceiling}")
    if d.get("net_drops"):
        checks.append(f"{d['net_drops']} netem drops")
    if cli_cached:
        checks.append(f"{cli_cached} pages of the file cached on the client at the start")
    # Server pages are served without disk I/O: past 1 % of what was read, say so.
    if srv_cached * 4096 > 0.01 * app:
        checks.append(f"{srv_cached} pages of the file cached on the server at the start")
    row["checks"] = checks
    return row


# ---------------------------------------------------------------- report

def report(summ, rep):
    """Seed 000's sweep tables (read_ahead_kb down, delay across, and the share of the bound)
    and its plots, where read_ahead_kb is an axis; the RTT plot where the delay is."""
    out = []
    if len({rep.param(s, "client.read_ahead_kb") for s in summ}) > 1:
        out += sweep_tables(summ, rep)
    return out


def _ra_key(v):
    return -1 if v == "default" else int(v)


def _cell(rep, s):
    return rep.cell(s, PRIMARY)


def sweep_tables(summ, rep):
    out = []
    rtts = rep.rtt_by_delay(summ)
    by = defaultdict(dict)
    for s in summ:
        key = (s["kind"], *(rep.param(s, k) for k in ("client.nfs_version", "client.rsize_kb", "workload.bs")))
        by[key][(rep.param(s, "client.read_ahead_kb"), rep.param(s, "link.delay_ms"))] = s
    for (kind, vers, rsize, bs), cells in sorted(by.items(), key=lambda kv: str(kv[0])):
        ras = sorted({k[0] for k in cells}, key=_ra_key)
        delays = sorted({k[1] for k in cells})
        header = ["read_ahead_kb"] + [f"{d} ms (RTT {rtts.get(d, 0):.1f})" for d in delays]
        rows = [[ra] + [_cell(rep, cells.get((ra, d))) for d in delays] for ra in ras]
        out.append(f"**{kind}**, NFSv{vers}, rsize {rsize} KiB, application reads of {bs} "
                   f"(MB/s, median [min–max] of the repetitions)\n\n" + rep.md_table(header, rows))
        rows = [[ra] + [pct_cell(cells.get((ra, d))) for d in delays] for ra in ras]
        out.append("The same cells as a share of their bound (median MB/s ÷ bound MB/s)\n\n"
                   + rep.md_table(header, rows))
    return out


def pct_cell(s):
    if s is None or not s.get("bound_mbps") or s.get("mbps") is None:
        return "—"
    pct, b = round(100 * s["mbps"] / s["bound_mbps"]), s["bound_mbps"]
    return f"{pct} % of {b:.0f}" if b >= 10 else f"{pct} % of {b:.2g}"


def changelog_table(summ, rep):
    """Stock against patched in the fixed-width shape of the changelogs: RTT (stock's
    measured median), read size, MB/s median [min-max] of each kernel, and the ratio."""

    by = defaultdict(dict)
    for s in summ:
        if s.get("mbps") is not None:
            by[s["id"]][s["kind"]] = s
    pairs = [(k["stock"], k["patched"]) for k in by.values() if "stock" in k and "patched" in k]
    pairs.sort(key=lambda p: (bytes_of(rep.param(p[0], "workload.bs")), str(rep.param(p[0], "client.nfs_version")),
                              rep.param(p[0], "client.rsize_kb"), rep.param(p[0], "link.delay_ms"),
                              _ra_key(rep.param(p[0], "client.read_ahead_kb"))))

    def mb(s):
        return f"{s['mbps']:.1f} [{s['mbps_min']:.1f}-{s['mbps_max']:.1f}]"

    lines = [f"  {'RTT ms':>6}  {'read':>4}  {'stock 6.12':<18}  {'patched':<18}  ratio"]
    for st, pa in pairs:
        ratio = f"{pa['mbps'] / st['mbps']:.1f}x" if st["mbps"] else "-"
        bs = rep.param(st, "workload.bs")
        lines.append(f"  {st['rtt_ms']:>6.1f}  {bs:>4}  {mb(st):<18}  {mb(pa):<18}  {ratio:>5}")
    return "\n".join(lines)
