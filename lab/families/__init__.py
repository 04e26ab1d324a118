"""Workload families: one module per kind of benchmark.

A family module declares, with the standard library only (the guest imports it too):

    NAME        the name scenario files use (`family = "nfs-read"`)
    TABLES      {table: {field: Param}}: the scenario tables it reads, with defaults and checks
    NEEDS       what the guest must set up: subset of {"disk", "nfs", "link"}
    METRICS     {metric: "what it is, with its unit"}; PRIMARY names the one for tables/plots
    SAMPLE_MS   default interval of the time-series sampler (0: off)
    check(c, doc)            optional cross-field checks (c.fail(field, msg) to refuse)
    guest_memory_mb(doc)     the guest memory the family needs when [guest] does not say
    disk_mb(doc, points)     size of the server disk (if NEEDS has "disk")
    point_seconds(cfg)       a generous estimate of one point's guest time (for timeouts)
    setup(env, boot)         in the guest, once per boot, before the first point
    run_point(env, cfg)      in the guest: measure one point, return {metric: value, "checks": [...]}
    report(summ)             optional: extra markdown sections for the report

`cfg` is the point's resolved scenario: {"server": {...}, "link": {...}, ...} with every
axis at this point's value. See Documentation/lab.md, "Families".
"""

import importlib
import re
from dataclasses import dataclass, field

FAMILIES = ("nfs-read", "local-streams", "nfs-write", "nfs-mount", "nfs-mmap", "nfs-writeback")


def get(name):
    """The family module for a scenario's `family` name."""
    if name not in FAMILIES:
        raise KeyError(name)
    return importlib.import_module(f"families.{name.replace('-', '_')}")


SIZE_RE = re.compile(r"^([0-9]+)([kKmMgG]?)$")
RATE_RE = re.compile(r"^([0-9]+)(bit|kbit|mbit|gbit)$")
RATE_UNIT = {"bit": 1, "kbit": 10**3, "mbit": 10**6, "gbit": 10**9}


def rate_mbps(rate):
    """A tc rate ('1gbit') in MB/s (10^6 bytes/s); None for 'none' or anything else."""
    m = RATE_RE.match(str(rate))
    return int(m.group(1)) * RATE_UNIT[m.group(2)] / 8 / 1e6 if m else None


def above_link(mbps, ceiling, rate):
    """Whether a point read faster than its link can carry: more than 15 % above the iperf3
    ceiling measured in the same guest, and above the link's nominal rate. Under TCG one iperf3
    run gives 86-114 MB/s on the same 1 Gbit link, so the ceiling alone flagged honest reads of
    105-110 MB/s; a page-cache hit, what the check is for, reads far faster than either."""
    if not ceiling:
        return False
    return mbps > max(ceiling * 1.15, rate_mbps(rate) or 0)


def largest(v):
    """The largest value of a field that may be an axis (a list) or a single value."""
    return max(v) if isinstance(v, list) else v


def bytes_of(size):
    """'4k' -> 4096, '1m' -> 1048576, '2g', or a plain number of bytes."""
    m = SIZE_RE.match(str(size))
    if not m:
        raise ValueError(size)
    return int(m.group(1)) * {"": 1, "k": 1 << 10, "m": 1 << 20, "g": 1 << 30}[m.group(2).lower()]


@dataclass
class Param:
    """One scenario field: its default and how to check one value.

    kind: "int" (lo..hi), "choice" (choices), "bool", "size" (bytes lo..hi, written "4k"),
    "rate" (a tc rate or "none"), "str". axis: whether a list of values is allowed (a matrix
    axis). `special` values are accepted as they are (e.g. read_ahead_kb = "default")."""
    default: object
    kind: str = "int"
    lo: int = 0
    hi: int = 0
    choices: tuple = ()
    axis: bool = True
    special: tuple = ()
    doc: str = ""
    extra: dict = field(default_factory=dict)

    def check(self, v):
        """None if v is a valid single value, else what is wrong with it."""
        if v in self.special:
            return None
        if self.kind == "int":
            if isinstance(v, bool) or not isinstance(v, int) or not self.lo <= v <= self.hi:
                extra = f" or {', '.join(map(repr, self.special))}" if self.special else ""
                return f"must be an integer in [{self.lo}, {self.hi}]{extra}, not {v!r}"
        elif self.kind == "choice":
            if v not in self.choices:
                return f"must be one of {', '.join(map(str, self.choices))}, not {v!r}"
        elif self.kind == "bool":
            if not isinstance(v, bool):
                return f"must be true or false, not {v!r}"
        elif self.kind == "size":
            try:
                b = bytes_of(v)
            except ValueError:
                return f"must be a size like '4k' or '1m', not {v!r}"
            if not self.lo <= b <= self.hi:
                return f"{v!r} is outside {self.lo} .. {self.hi} bytes"
        elif self.kind == "rate":
            if v != "none" and not (isinstance(v, str) and RATE_RE.match(v)):
                return f"must be a tc rate like '1gbit' or 'none', not {v!r}"
        elif self.kind == "str":
            if not isinstance(v, str):
                return f"must be a string, not {v!r}"
        else:
            raise ValueError(f"unknown Param kind {self.kind!r}")
        return None

    def normal(self, v):
        """The value as points carry it (sizes lower-case, NFS versions as strings)."""
        if self.kind == "size" and v not in self.special:
            return str(v).lower()
        if self.kind == "choice" and not isinstance(v, bool):
            return str(v) if all(isinstance(c, str) for c in self.choices) else v
        return v


def Int(default, lo, hi, **kw):  # noqa: N802 - reads like a type in the declarations
    return Param(default, "int", lo=lo, hi=hi, **kw)


def Choice(default, choices, **kw):  # noqa: N802
    return Param(default, "choice", choices=tuple(choices), **kw)


def Bool(default, **kw):  # noqa: N802
    return Param(default, "bool", **kw)


def Size(default, lo, hi, **kw):  # noqa: N802
    return Param(default, "size", lo=lo, hi=hi, **kw)


def Rate(default, **kw):  # noqa: N802
    return Param(default, "rate", **kw)


# Tables shared by the families that use the NFS server, the link and the client mount.
FILESYSTEMS = ("ext4", "xfs", "tmpfs")
NFS_VERSIONS = ("3", "4.0", "4.1", "4.2")
RSIZES = (4, 8, 16, 32, 64, 128, 256, 512, 1024)


def disk_params(fs=("ext4", "xfs", "tmpfs"), axis=False):
    """The server's (or the local workload's) disk: a memory-backed null_blk with an optional
    per-request latency and bandwidth cap (an HDD-like device), or, with disk_seek_us, the
    seeking disk (lab/guest/seekdisk.c: requests that do not follow the last one pay a seek),
    or tmpfs."""
    return {
        "fs": Choice("ext4", fs, axis=axis, doc="filesystem on the disk"),
        "disk_latency_us": Int(0, 0, 1000000, axis=False, doc="time every request costs (null_blk: its "
                               "completion time; seeking disk: command overhead)"),
        "disk_mbps": Int(0, 0, 40960, axis=False, doc="bandwidth cap, MB/s (0: none)"),
        "disk_seek_us": Int(0, 0, 1000000, axis=False,
                            doc="0: null_blk (no position: every request costs the same); N: the seeking "
                            "disk, one request at a time in arrival order, N us for one that does not start "
                            "where the last ended (or up to disk_track_kb after it: the gap at disk_mbps)"),
        "disk_track_kb": Int(1024, 0, 1 << 20, axis=False,
                             doc="seeking disk: a forward gap up to this is passed over at disk_mbps, not sought"),
        "disk_ncq": Int(32, 1, 256, axis=False,
                        doc="seeking disk: requests it may reorder, nearest at or after the head first (C-LOOK), "
                        "like a SATA disk's command queue; 1: strictly in arrival order"),
        "disk_write_cache": Bool(False, axis=False,
                                 doc="seeking disk: writes go to a write-back cache that destages for free "
                                 "(they cost disk_latency_us + bytes at disk_mbps and do not move the head); "
                                 "reads pay as usual"),
    }


LINK = {
    "delay_ms": Int(0, 0, 1000, doc="netem delay, one way, on both ends"),
    "rate": Rate("1gbit", axis=False, doc="netem rate on both ends, or 'none'"),
    "limit": Int(20000, 100, 1000000, axis=False, doc="netem queue limit, packets"),
}


def check_disk(c, table, t):
    """Refuse a disk model on tmpfs (c.fail names `table`.fs), and a null_blk queue depth on the
    seeking disk (it serves one request at a time)."""
    fss = t["fs"] if isinstance(t["fs"], list) else [t["fs"]]
    if "tmpfs" in fss and (t["disk_latency_us"] or t["disk_mbps"] or t["disk_seek_us"]):
        c.fail(f"{table}.fs", "tmpfs has no disk: disk_latency_us, disk_mbps and disk_seek_us need ext4 or xfs")
    if not t["disk_seek_us"] and (t["disk_write_cache"] or t["disk_track_kb"] != 1024 or t["disk_ncq"] != 32):
        c.fail(f"{table}.disk_seek_us", "disk_write_cache, disk_track_kb and disk_ncq are the seeking disk's: "
               "set disk_seek_us too")
    if t["disk_seek_us"] and t.get("queue_depth"):
        c.fail(f"{table}.queue_depth", "the seeking disk (disk_seek_us) serves one request at a time: "
               "queue_depth is null_blk's")


def read_ahead_kb_param():
    """[client] read_ahead_kb of the families that read over NFS."""
    return Int("default", 0, 1048576, special=("default",),
               doc="written to the mount's bdi before the point ('default': what the kernel chose)")


def mount_checked(client, cl, fresh):
    """Mount as the [client] table says and refuse a mount without the rsize asked for
    (the server may grant less)."""
    client.mount(cl["nfs_version"], mount_opts(cl), fresh=fresh)
    got = int(client.option("rsize"))
    if got != cl["rsize_kb"] * 1024:
        raise RuntimeError(f"asked for rsize {cl['rsize_kb'] * 1024}, the mount has {got}")


def mount_opts(cl):
    """The mount options a [client] table asks for: rsize, then its extra mount_opts."""
    return f"rsize={cl['rsize_kb'] * 1024}" + (f",{cl['mount_opts']}" if cl["mount_opts"] else "")


def nfs_write_sizes(d):
    """Mean WRITE and COMMIT sizes in KiB from a measure() block's NFS counter deltas: the
    bytes the WRITEs carried, per WRITE and per COMMIT (None without a COMMIT)."""
    wbytes, ops, commits = (d.get(k, 0) for k in ("nfs_server_write_bytes", "nfs_write_ops", "nfs_commit_ops"))
    return {"mean_write_kb": round(wbytes / ops / 1024, 1) if ops else 0,
            "mean_commit_kb": round(wbytes / commits / 1024, 1) if commits else None}


def client_params():
    return {
        "nfs_version": Choice("4.2", NFS_VERSIONS, doc="NFS version of the mount"),
        "rsize_kb": Choice(1024, RSIZES, doc="rsize (and wsize) of the mount, KiB"),
        "count": Int(1, 1, 32, doc="client network namespaces, each with its own mount, "
                     "behind one shared bottleneck link"),
        "mount_opts": Param("", "str", axis=False, doc="extra mount options, comma-separated"),
    }
