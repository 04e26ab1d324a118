"""nfs-write: N writers of their own files over NFS, then the server's extents and a read-back.

Seed 001's question: do files written over NFS land fragmented on the server, and what does
that cost when they are read back? Every point starts from a freshly made filesystem (or one
aged by a fragmenting fill-and-delete pass), writes writers x file_mb through the client
(buffered: unstable WRITEs and COMMIT; sync: a `sync` mount; dsync: O_DSYNC writers), closes
and fsyncs, then counts the extents of each file on the server (FIEMAP, `filefrag`), the
space it takes against its size, and reads every file back over NFS after dropping it from
both page caches.
"""

import random

from families import LINK, Bool, Choice, Int, Size, client_params, disk_params, largest, nfs_write_sizes

NAME = "nfs-write"
NEEDS = ("disk", "nfs", "link")
MODES = ("buffered", "sync", "dsync")
TABLES = {
    "server": {
        **disk_params(fs=("ext4", "xfs"), axis=True),
        "threads": Int(8, 1, 256, axis=False, doc="nfsd threads"),
        "age_pct": Int(0, 0, 80, doc="before writing, fill this % of the disk with 64 KiB-1 MiB files and "
                       "delete every other one (a fragmented free space); 0: a fresh filesystem"),
        "disk_mb": Int(0, 0, 16384, axis=False, doc="disk size, MiB (0: the data plus a quarter, at least 1 GiB)"),
        "prealloc_kb": Int(-1, -1, 1 << 20, doc="nfsd write preallocation (the series' nfsd.nfsd_prealloc): "
                           "0 off, N > 0 on with nfsd_prealloc_len N KiB, -1 the kernel's defaults; a kernel "
                           "without the parameters (stock) runs as it is and records prealloc_kb = -2"),
    },
    "link": LINK,
    "client": {**client_params(), "wsize_kb": Choice(1024, (4, 8, 16, 32, 64, 128, 256, 512, 1024))},
    "workload": {
        "writers": Int(1, 1, 64, doc="concurrent writers, each of its own file"),
        "file_mb": Int(256, 1, 8192, doc="bytes each writer writes, MiB"),
        "bs": Size("1m", 512, 16 << 20, doc="application write size"),
        "mode": Choice("buffered", MODES, doc="buffered (unstable WRITE + COMMIT), sync (mount -o sync), "
                       "dsync (O_DSYNC writers)"),
        "readback": Bool(True, axis=False, doc="read every file back over NFS after the write"),
    },
}
AXIS_ORDER = ("server.fs", "server.age_pct", "client.nfs_version", "link.delay_ms", "workload.mode",
              "workload.writers")
SAMPLE_MS = 1000
PRIMARY = "write_mbps"
AB_EXTRA = ("extents_per_gib", "readback_mbps")
PLOT_X = {"workload.writers": "log2", "link.delay_ms": "linear"}
METRICS = {
    "write_mbps": "MB/s written, all writers together, until every file is closed and fsync'ed",
    "readback_mbps": "MB/s reading every file back over NFS, one after another, cold caches",
    "extents": "extents of all files on the server (FIEMAP)",
    "extents_per_gib": "extents per GiB written",
    "space_ratio": "blocks the files take on the server / their size",
    "mean_write_kb": "mean WRITE size, KiB",
    "nfs_write_ops": "WRITE RPCs",
    "nfs_commit_ops": "COMMIT RPCs",
    "mean_commit_kb": "KiB written per COMMIT (server write bytes / COMMITs)",
    "rb_disk_read_ios": "read requests the server disk served during the read-back",
    "rb_disk_seeks": "seeking disk (disk_seek_us): read-back requests that paid a seek",
    "rb_disk_skips": "seeking disk: read-back requests after a short forward gap (passed over, not sought)",
    "rb_disk_busy_ms": "seeking disk: ms its head was busy during the read-back",
    "disk_seeks": "seeking disk (disk_seek_us): requests during the write that paid a seek",
    "extents_per_gib_closed": "extents per GiB once the client unmounted and nfsd closed the files",
    "space_ratio_closed": "blocks the files take / their size, once nfsd closed them (and XFS gave back "
                          "its speculative preallocation)",
    "prealloc_kb": "nfsd write preallocation in force (0 off, -2 a kernel without it)",
    "xfs_eofblocks_freed": "bytes of XFS's own speculative preallocation still past EOF after close, "
                           "given back before space_ratio_closed (empty: none was left)",
}


def check(c, doc):
    if doc["client"]["count"] != 1:
        c.fail("client.count", "nfs-write writes from one client (count = 1)")


def data_mb(doc, points=()):
    if points:
        return max(p["cfg"]["workload"]["writers"] * p["cfg"]["workload"]["file_mb"] for p in points)
    return largest(doc["workload"]["writers"]) * largest(doc["workload"]["file_mb"])


def disk_mb(doc, points=()):
    """The data plus a quarter, at least 1 GiB, on top of what aging leaves: age() fills
    age_pct % of the disk and deletes every other file, so about age_pct / 2 % stays."""
    if doc["server"]["disk_mb"]:
        return doc["server"]["disk_mb"]
    ages = [p["cfg"]["server"]["age_pct"] for p in points] or [largest(doc["server"]["age_pct"])]
    free = 1 - max(ages) / 200
    return max(1024, int((data_mb(doc, points) * 5 // 4 + 128) / free))


def guest_memory_mb(doc):
    return disk_mb(doc) + 2 * data_mb(doc) + 2048


def point_seconds(cfg):
    wl = cfg["workload"]
    mb = wl["writers"] * wl["file_mb"]
    slow = 20 if wl["mode"] != "buffered" else 4    # MB/s a slow cell still manages under TCG
    return 60 + mb // slow + (mb // 10 if wl["readback"] else 0) + cfg["link"]["delay_ms"]


def file_name(i):
    return f"w.{i}"


# ---------------------------------------------------------------- guest side

def setup(env, plan):
    env.server.start(plan["setup"]["server"]["threads"])
    env.fresh = True   # the disk was just made


def age(env, pct, seed=1):
    """Fill pct % of the disk with files of 64 KiB..1 MiB, then delete every other one: free
    space in holes of the sizes files had, as on a filesystem that lived for a while."""
    import os  # noqa: PLC0415

    st = os.statvfs(env.disk.path)
    target = st.f_blocks * st.f_frsize * pct // 100
    rnd = random.Random(seed)
    d = f"{env.disk.path}/age"
    os.makedirs(d)
    block = os.urandom(1 << 20)
    written, i = 0, 0
    while written < target:
        size = rnd.randrange(64, 1025) << 10
        with open(f"{d}/a{i}", "wb") as f:
            f.write(block[:size])
        written += size
        i += 1
    env.run(["sync"])
    for j in range(0, i, 2):
        os.unlink(f"{d}/a{j}")
    env.run(["sync"])
    return i


def prepare_disk(env, cfg):
    """A fresh filesystem for the point: clients unmounted, nfsd's open files closed (it
    keeps them a few seconds after the last use), mkfs, aged if asked, exported again."""
    import time  # noqa: PLC0415

    for c in env.clients:
        c.umount()
    if not getattr(env, "fresh", False) or env.disk.fs != cfg["server"]["fs"]:
        env.server.unexport()
        for tries in range(40):
            try:
                env.disk.format(cfg["server"]["fs"])
                break
            except RuntimeError:
                if tries == 39:
                    raise
                time.sleep(0.5)   # nfsd's file cache still holds a file of the old filesystem
        env.server.reexport()
    env.fresh = False
    cfg_prealloc(env, cfg["server"]["prealloc_kb"])
    if cfg["server"]["age_pct"]:
        age(env, cfg["server"]["age_pct"])
    env.run(["sync"])


PREALLOC = "/sys/module/nfsd/parameters/nfsd_prealloc"
CLOSED_SLACK = 16 * 4096    # bytes a closed file may take beyond its size (metadata blocks)


def cfg_prealloc(env, kb):
    """Set nfsd's write preallocation for the point (env.prealloc_kb: the KiB in force, 0
    off, -2 a kernel without it)."""
    try:
        env.read(PREALLOC)
    except OSError:
        env.prealloc_kb = -2
        return
    if kb > 0:
        env.write(PREALLOC + "_len", kb * 1024)
        env.write(PREALLOC, "1")
    elif kb == 0:
        env.write(PREALLOC, "0")
    on = env.read(PREALLOC) in ("Y", "1")
    env.prealloc_kb = int(env.read(PREALLOC + "_len")) // 1024 if on else 0


def settle_closed(env, paths, secs=15):
    """Wait until nfsd has closed the files for good (the client unmounted; NFSv3 files stay
    open a few seconds): until they take no more than their size (plus a little), or for
    secs. On XFS, blocks still past EOF may be XFS's own speculative preallocation, which it
    keeps on files closed more than once and gives back after speculative_prealloc_lifetime
    (300 s): the first time the files take too much, XFS is asked to give it back now
    (`xfs_spaceman prealloc -s`, what its background scan does; it leaves fallocate()d space
    alone, so what nfsd preallocated still counts). Returns (extents, used, size, seconds
    waited, bytes XFS gave back)."""
    import time  # noqa: PLC0415

    t0 = time.monotonic()
    xfs_freed = None
    while True:
        n_ext, used, size = extents(env, paths)
        limit = size + len(paths) * CLOSED_SLACK
        if used > limit and env.disk.fs == "xfs" and xfs_freed is None:
            env.server.run(["xfs_spaceman", "-c", "prealloc -s", env.disk.path])
            before = used
            n_ext, used, size = extents(env, paths)
            xfs_freed = before - used
        waited = time.monotonic() - t0
        if used <= limit or waited >= secs:
            return n_ext, used, size, round(waited, 1), xfs_freed
        time.sleep(1)


def fio_write(path, wl):
    a = ["--name=writers", f"--directory={path}", "--filename_format=w.$jobnum", f"--numjobs={wl['writers']}",
         "--group_reporting", "--rw=write", f"--bs={wl['bs']}", f"--size={wl['file_mb']}m", "--ioengine=psync",
         "--end_fsync=1", "--fallocate=none", "--create_on_open=1"]
    if wl["mode"] == "dsync":
        a.append("--sync=dsync")
    return a


def fio_readback(path, n):
    files = ":".join(f"{path}/{file_name(i)}".replace(":", "\\:") for i in range(n))
    return ["--name=readback", f"--filename={files}", "--file_service_type=sequential", "--rw=read", "--bs=1m",
            "--ioengine=psync", "--fadvise_hint=0", "--invalidate=1"]


def extents(env, paths):
    """Extents and allocated bytes of the files on the server (filefrag: FIEMAP)."""
    import os  # noqa: PLC0415
    import re  # noqa: PLC0415

    out = env.server.run(["filefrag", *paths])
    n = sum(int(x) for x in re.findall(r": (\d+) extents? found", out))
    st = [os.stat(p) for p in paths]
    return n, sum(s.st_blocks * 512 for s in st), sum(s.st_size for s in st)


def run_point(env, cfg):
    wl, cl, lk = cfg["workload"], cfg["client"], cfg["link"]
    n = wl["writers"]
    prepare_disk(env, cfg)
    c = env.clients[0]
    opts = f"rsize={cl['rsize_kb'] * 1024},wsize={cl['wsize_kb'] * 1024}"
    if wl["mode"] == "sync":
        opts += ",sync"
    if cl["mount_opts"]:
        opts += "," + cl["mount_opts"]
    c.mount(cl["nfs_version"], opts, fresh=True)
    env.link.set_delay(lk["delay_ms"])
    rtt = env.link.rtt()
    with env.measure() as d:
        job = env.fio(fio_write(c.mnt, wl))["jobs"][0]["write"]
    total = job["io_bytes"]
    secs = job["runtime"] / 1000.0
    env.server.run(["sync"])
    srv_paths = [env.server.path(file_name(i)) for i in range(n)]
    n_ext, used, size = extents(env, srv_paths)
    row = dict(d)
    row.update({
        "write_mbps": round(total / secs / 1e6, 2) if secs else 0.0,
        "app_bytes": total,
        "secs": round(secs, 3),
        "rtt_ms": round(rtt, 3),
        "extents": n_ext,
        "extents_per_gib": round(n_ext / (size / 2**30), 1) if size else None,
        "space_ratio": round(used / size, 4) if size else None,
        **nfs_write_sizes(d),
        "link_mbps": env.link.ceiling.get(lk["delay_ms"]),
    })
    checks = []
    if size != n * wl["file_mb"] << 20:
        checks.append(f"files hold {size} bytes, not {n * wl['file_mb'] << 20}")
    if wl["readback"]:
        left = env.uncache([c.path(file_name(i)) for i in range(n)] + srv_paths)
        if any(left):
            checks.append(f"{sum(left)} pages cached before the read-back")
        env.point_tag = "readback"
        with env.measure() as r:
            rj = env.fio(fio_readback(c.mnt, n))["jobs"][0]["read"]
        env.point_tag = None
        rsecs = rj["runtime"] / 1000.0
        row["readback_mbps"] = round(rj["io_bytes"] / rsecs / 1e6, 2) if rsecs else 0.0
        for k in ("disk_read_ios", "disk_read_bytes", "disk_seeks", "disk_skips", "disk_busy_ms", "nfs_read_ops",
                  "vm_pgmajfault"):
            if k in r:
                row[f"rb_{k}"] = r[k]
    # What the files take once nfsd closed them for good (preallocation given back).
    c.umount()
    c_ext, c_used, c_size, waited, xfs_freed = settle_closed(env, srv_paths)
    row.update({
        "prealloc_kb": getattr(env, "prealloc_kb", -2),
        "extents_closed": c_ext,
        "extents_per_gib_closed": round(c_ext / (c_size / 2**30), 1) if c_size else None,
        "space_ratio_closed": round(c_used / c_size, 4) if c_size else None,
        "close_wait_s": waited,
        "xfs_eofblocks_freed": xfs_freed,
    })
    if c_size and c_used > c_size + n * CLOSED_SLACK:
        checks.append(f"after close the files take {c_used} bytes for {c_size}")
    if d.get("net_drops"):
        checks.append(f"{d['net_drops']} netem drops")
    row["checks"] = checks
    return row
