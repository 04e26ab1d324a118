"""Benchmark scenarios: one TOML file per benchmark, validated before anything boots.

A scenario fixes the server (filesystem, data file), the link (netem), the client mount and
the workload; list-valued fields on the matrix axes expand into points. `load()` returns a
Scenario or raises ScenarioError naming the file and the field at fault.

    description = "..."
    kernels = ["stock", "patched"]
    repetitions = 3
    [server]   fs, file_mb, sparse, disk_latency_us, disk_mbps, threads, small_files,
               small_file_max_kb
    [link]     delay_ms*, rate, limit
    [client]   nfs_version*, rsize_kb*, read_ahead_kb*   (read_ahead_kb: KiB or "default")
    [workload] type, bs*, runtime_s, ios (random workloads: stop after this many reads)
    [quick]    the same tables again, overriding the above for `make bench QUICK=1`
    (* = may be a list: a matrix axis)
"""

import itertools
import math
import re
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

KINDS = ("stock", "patched")
WORKLOADS = ("seqread", "randread", "mmapread", "mmaprand", "smallfiles", "mmapfiles")
TREE_WORKLOADS = ("smallfiles", "mmapfiles")  # workloads that read the tree of small files
FILESYSTEMS = ("ext4", "xfs", "tmpfs")
NFS_VERSIONS = ("3", "4.0", "4.1", "4.2")
SIZE_RE = re.compile(r"^([0-9]+)([kKmM])$")
RATE_RE = re.compile(r"^[0-9]+(bit|kbit|mbit|gbit)$")

# Matrix axes, in the order points are enumerated (mounts change least often).
AXES = (
    ("client", "nfs_version"),
    ("client", "rsize_kb"),
    ("link", "delay_ms"),
    ("client", "read_ahead_kb"),
    ("workload", "bs"),
)

DEFAULTS = {
    "kernels": ["stock", "patched"],
    "repetitions": 3,
    "server": {
        "fs": "ext4",
        "file_mb": 1024,
        "sparse": False,
        "disk_latency_us": 0,
        "disk_mbps": 0,
        "threads": 8,
        "small_files": 2000,
        "small_file_max_kb": 1024,
    },
    "link": {"delay_ms": 0, "rate": "1gbit", "limit": 20000},
    "client": {"nfs_version": "4.2", "rsize_kb": 1024, "read_ahead_kb": "default"},
    "workload": {"type": "seqread", "bs": "4k", "runtime_s": 8, "ios": 0},
}


class ScenarioError(ValueError):
    pass


@dataclass
class Scenario:
    name: str
    path: str
    description: str
    kernels: list
    repetitions: int
    server: dict
    link: dict
    client: dict
    workload: dict
    points: list = field(default_factory=list)

    def uses_tree(self):
        return self.workload["type"] in TREE_WORKLOADS

    def data_mb(self):
        """MiB of file data on the server: the data file and, if used, the small-file tree."""
        mb = self.server["file_mb"]
        if self.uses_tree():
            # File sizes are log-uniform between 1 KiB and small_file_max_kb.
            hi = self.server["small_file_max_kb"]
            mean_kb = (hi - 1) / math.log(hi) if hi > 1 else 1
            mb += math.ceil(self.server["small_files"] * mean_kb / 1024)
        return mb

    def plan(self):
        """What the guest needs: the fixed setup and the points to run."""
        return {
            "scenario": self.name,
            "server": dict(self.server, disk_mb=self.data_mb() + 256, tree=self.uses_tree()),
            "link": {k: v for k, v in self.link.items() if k != "delay_ms"},
            "workload": {k: v for k, v in self.workload.items() if k != "bs"},
            "points": self.points,
        }


def bytes_of(size):
    """'4k' -> 4096, '1m' -> 1048576."""
    m = SIZE_RE.match(str(size))
    if not m:
        raise ValueError(size)
    return int(m.group(1)) * (1024 if m.group(2) in "kK" else 1048576)


def _merge(base, over):
    out = dict(base)
    for k, v in over.items():
        out[k] = _merge(out[k], v) if isinstance(v, dict) and isinstance(out.get(k), dict) else v
    return out


def _as_list(v):
    return v if isinstance(v, list) else [v]


class _Checker:
    def __init__(self, path):
        self.path = path

    def fail(self, where, msg):
        raise ScenarioError(f"{self.path}: {where}: {msg}")

    def int_in(self, where, v, lo, hi):
        if isinstance(v, bool) or not isinstance(v, int) or not lo <= v <= hi:
            self.fail(where, f"must be an integer in [{lo}, {hi}], not {v!r}")

    def one_of(self, where, v, choices):
        if v not in choices:
            self.fail(where, f"must be one of {', '.join(map(str, choices))}, not {v!r}")

    def axis(self, where, v, check_one):
        values = _as_list(v)
        if not values:
            self.fail(where, "is an empty list")
        for x in values:
            check_one(where, x)
        if len(set(map(str, values))) != len(values):
            self.fail(where, f"has duplicate values {values!r}")
        return values


def _check_keys(c, where, table, allowed):
    if not isinstance(table, dict):
        c.fail(where, "must be a table")
    for k in table:
        if k not in allowed:
            c.fail(f"{where}.{k}" if where else k, f"unknown field (allowed: {', '.join(sorted(allowed))})")


def validate(raw, path, quick=False):
    """Check a parsed TOML document and return a Scenario with its points."""
    c = _Checker(path)
    top = {"description", "kernels", "repetitions", "server", "link", "client", "workload", "quick"}
    _check_keys(c, "", raw, top)
    for t in ("server", "link", "client", "workload"):
        if t in raw:
            _check_keys(c, t, raw[t], DEFAULTS[t])
    if "quick" in raw:
        _check_keys(c, "quick", raw["quick"], top - {"quick", "description"})
        for t in ("server", "link", "client", "workload"):
            if t in raw["quick"]:
                _check_keys(c, f"quick.{t}", raw["quick"][t], DEFAULTS[t])
    if not isinstance(raw.get("description"), str) or not raw["description"].strip():
        c.fail("description", "is required (one line saying what the scenario measures)")
    doc = _merge(DEFAULTS, {k: v for k, v in raw.items() if k != "quick"})
    if quick:
        doc = _merge(doc, raw.get("quick", {}))

    kernels = _as_list(doc["kernels"])
    if not kernels:
        c.fail("kernels", "is an empty list")
    for k in kernels:
        c.one_of("kernels", k, KINDS)
    c.int_in("repetitions", doc["repetitions"], 1, 50)

    s = doc["server"]
    c.one_of("server.fs", s["fs"], FILESYSTEMS)
    c.int_in("server.file_mb", s["file_mb"], 1, 16384)
    if not isinstance(s["sparse"], bool):
        c.fail("server.sparse", f"must be true or false, not {s['sparse']!r}")
    c.int_in("server.disk_latency_us", s["disk_latency_us"], 0, 1000000)
    c.int_in("server.disk_mbps", s["disk_mbps"], 0, 40960)
    c.int_in("server.threads", s["threads"], 1, 256)
    c.int_in("server.small_files", s["small_files"], 1, 100000)
    c.int_in("server.small_file_max_kb", s["small_file_max_kb"], 4, 65536)
    if s["fs"] == "tmpfs" and (s["disk_latency_us"] or s["disk_mbps"]):
        c.fail("server.fs", "tmpfs has no disk: disk_latency_us and disk_mbps need ext4 or xfs")

    lk = doc["link"]
    c.axis("link.delay_ms", lk["delay_ms"], lambda w, x: c.int_in(w, x, 0, 1000))
    if lk["rate"] != "none" and not (isinstance(lk["rate"], str) and RATE_RE.match(lk["rate"])):
        c.fail("link.rate", f"must be a tc rate like '1gbit' or 'none', not {lk['rate']!r}")
    c.int_in("link.limit", lk["limit"], 100, 1000000)

    cl = doc["client"]
    c.axis("client.nfs_version", cl["nfs_version"], lambda w, x: c.one_of(w, str(x), NFS_VERSIONS))
    c.axis("client.rsize_kb", cl["rsize_kb"], lambda w, x: c.one_of(w, x, (4, 8, 16, 32, 64, 128, 256, 512, 1024)))

    def ra_ok(w, x):
        if x == "default":
            return
        c.int_in(w, x, 0, 1048576)

    c.axis("client.read_ahead_kb", cl["read_ahead_kb"], ra_ok)

    wl = doc["workload"]
    c.one_of("workload.type", wl["type"], WORKLOADS)

    def bs_ok(w, x):
        try:
            b = bytes_of(x)
        except ValueError:
            c.fail(w, f"must be a size like '4k' or '1m', not {x!r}")
        if not 512 <= b <= 16 << 20:
            c.fail(w, f"{x!r} is outside 512 bytes .. 16m")

    c.axis("workload.bs", wl["bs"], bs_ok)
    c.int_in("workload.runtime_s", wl["runtime_s"], 1, 600)
    c.int_in("workload.ios", wl["ios"], 0, 10000000)
    if wl["ios"] and wl["type"] not in ("randread", "mmaprand"):
        c.fail("workload.ios", "only randread and mmaprand stop after a number of reads")

    points = []
    for combo in itertools.product(*(_as_list(doc[t][k]) for t, k in AXES)):
        p = {k: v for (_, k), v in zip(AXES, combo, strict=True)}
        p["nfs_version"] = str(p["nfs_version"])
        p["bs"] = str(p["bs"]).lower()
        p["id"] = "v{nfs_version}/r{rsize_kb}/d{delay_ms}/ra{read_ahead_kb}/bs{bs}".format(**p)
        points.append(p)
    return Scenario(
        name=Path(path).stem,
        path=str(path),
        description=raw["description"].strip(),
        kernels=kernels,
        repetitions=doc["repetitions"],
        server=s,
        link=lk,
        client=cl,
        workload=wl,
        points=points,
    )


def load(path, quick=False):
    try:
        with open(path, "rb") as f:
            raw = tomllib.load(f)
    except FileNotFoundError:
        raise ScenarioError(f"{path}: no such scenario file") from None
    except tomllib.TOMLDecodeError as e:
        raise ScenarioError(f"{path}: not valid TOML: {e}") from None
    return validate(raw, path, quick)
