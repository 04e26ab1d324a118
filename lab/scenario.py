"""Benchmark scenarios: one TOML file per benchmark, validated before anything boots.

    description = "..."            required: what the scenario measures
    family = "nfs-read"            which lab/families module runs it (default nfs-read)
    kernels = ["stock", "patched"]
    repetitions = 3
    sample_ms = 1000               time-series sampler interval during each point (0: off;
                                   default from the family)
    [guest]    memory_mb, cpus, cmdline, udev  per boot; a list makes more boots
    [knobs]    "/proc/sys/..." or "/sys/..." = value   written before each point, read back
    [cgroup]   memory_max_mb                   memory.max of the workload's cgroup (0: none)
    [<table>]  the family's own tables (server, link, client, workload, ...)
    [quick]    the same tables again, overriding the above for `make bench QUICK=1`

Any list-valued field of the family's tables, [knobs] or [cgroup] is a matrix axis: the
points are the product of the axes, in file order, and a point's id names its axis values
("delay_ms=10/bs=4k"). `load()` returns a Scenario or raises ScenarioError naming the file
and the field at fault.
"""

import itertools
import re
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

import families
from families import Choice, Int, Param, check_disk

KINDS = ("stock", "patched")
UDEV_MODES = ("off", "debian", "companion")
GENERIC = {"description", "family", "kernels", "repetitions", "sample_ms", "guest", "knobs", "cgroup", "quick"}
GUEST = {
    "memory_mb": Int(0, 512, 20480, doc="guest memory, MiB (default: what the family needs)"),
    "cpus": Int(2, 1, 8, doc="guest vCPUs"),
    "cmdline": Param("", "str", doc="extra kernel command line (e.g. module parameters)"),
    "udev": Choice("off", UDEV_MODES, doc="udevd in the guest: off (the lab's default), debian (Debian's udev "
                   "and nfs-common's rule and nfsrahead, as installed), companion (the same with nfsrahead "
                   "from patches/nfs-utils)"),
}
CGROUP = {"memory_max_mb": Int(0, 0, 20480, doc="memory.max of the workload's cgroup (0: no limit)")}
KNOB_PATH = re.compile(r"^/(proc/sys|sys)/[A-Za-z0-9_.:,/-]+$")


class ScenarioError(ValueError):
    pass


@dataclass
class Scenario:
    name: str
    path: str
    description: str
    family: str
    kernels: list
    repetitions: int
    sample_ms: int
    doc: dict                       # every table, defaults filled in, lists kept
    guests: list                    # one dict per boot variant
    points: list = field(default_factory=list)
    axes: list = field(default_factory=list)   # ("table", "field") in enumeration order

    @property
    def fam(self):
        return families.get(self.family)

    def plan(self, guest):
        """What the guest runner needs for one boot."""
        return {
            "scenario": self.name,
            "description": self.description,
            "family": self.family,
            "sample_ms": self.sample_ms,
            "guest": guest,
            "setup": self.doc,
            "disk_mb": self.fam.disk_mb(self.doc, self.points) if "disk" in self.fam.NEEDS else 0,
            "points": self.points,
        }

    def point_seconds(self):
        return max(self.fam.point_seconds(p["cfg"]) for p in self.points)


def knob_name(path):
    """A short, readable name for a knob path: /proc/sys/vm/dirty_bytes -> vm.dirty_bytes,
    /sys/module/nfs/parameters/x -> nfs.x, other /sys paths relative to /sys."""
    if path.startswith("/proc/sys/"):
        return path[len("/proc/sys/"):].replace("/", ".")
    m = re.match(r"^/sys/module/([^/]+)/parameters/(.+)$", path)
    if m:
        return f"{m.group(1)}.{m.group(2)}"
    return path[len("/sys/"):]


def axis_label(table, name):
    return knob_name(name) if table == "knobs" else name


def _merge(base, over):
    out = dict(base)
    for k, v in over.items():
        out[k] = _merge(out[k], v) if isinstance(v, dict) and isinstance(out.get(k), dict) else v
    return out


def _as_list(v):
    return v if isinstance(v, list) else [v]


class Checker:
    """Turns a problem into a ScenarioError naming the file and the field."""

    def __init__(self, path):
        self.path = path

    def fail(self, where, msg):
        raise ScenarioError(f"{self.path}: {where}: {msg}")

    def axis(self, where, v):
        """A list-valued field (an axis) must be non-empty, without duplicates."""
        if not v:
            self.fail(where, "is an empty list")
        if len({repr(x) for x in v}) != len(v):
            self.fail(where, f"has duplicate values {v!r}")

    def value(self, where, v, spec):
        """Check a field against its Param; a list only where the Param allows an axis."""
        if isinstance(v, list):
            if not spec.axis:
                self.fail(where, "takes one value, not a list")
            self.axis(where, v)
        for x in _as_list(v):
            err = spec.check(x)
            if err:
                self.fail(where, err)
        return [spec.normal(x) for x in v] if isinstance(v, list) else spec.normal(v)


def _check_keys(c, where, table, allowed):
    if not isinstance(table, dict):
        c.fail(where, "must be a table")
    for k in table:
        if k not in allowed:
            c.fail(f"{where}.{k}" if where else k, f"unknown field (allowed: {', '.join(sorted(allowed))})")


def _check_knobs(c, where, knobs):
    if not isinstance(knobs, dict):
        c.fail(where, "must be a table of \"/proc/sys/...\" or \"/sys/...\" = value")
    out = {}
    for path, v in knobs.items():
        w = f"{where}.\"{path}\""
        if not KNOB_PATH.match(path) or "/../" in path or path.endswith("/.."):
            c.fail(w, "must be an absolute path under /proc/sys/ or /sys/ (quote it in TOML)")
        for x in _as_list(v):
            if isinstance(x, bool) or not isinstance(x, (int, str)) or (isinstance(x, str) and "\n" in x):
                c.fail(w, f"values are integers or one-line strings, not {x!r}")
        if isinstance(v, list):
            c.axis(w, v)
        out[path] = v
    return out


def validate(raw, path, quick=False):
    """Check a parsed TOML document and return a Scenario with its points."""
    c = Checker(path)
    fam_name = raw.get("family", "nfs-read")
    try:
        fam = families.get(fam_name)
    except KeyError:
        c.fail("family", f"must be one of {', '.join(families.FAMILIES)}, not {fam_name!r}")
    tables = {**fam.TABLES, "guest": GUEST, "cgroup": CGROUP}
    _check_keys(c, "", raw, GENERIC | set(fam.TABLES))
    for t, spec in tables.items():
        if t in raw:
            _check_keys(c, t, raw[t], spec)
    if "quick" in raw:
        _check_keys(c, "quick", raw["quick"], (GENERIC | set(fam.TABLES)) - {"quick", "description", "family"})
        for t, spec in tables.items():
            if t in raw["quick"]:
                _check_keys(c, f"quick.{t}", raw["quick"][t], spec)
    if not isinstance(raw.get("description"), str) or not raw["description"].strip():
        c.fail("description", "is required (one line saying what the scenario measures)")

    doc = {k: v for k, v in raw.items() if k != "quick"}
    if quick:
        doc = _merge(doc, raw.get("quick", {}))

    kernels = _as_list(doc.get("kernels", list(KINDS)))
    if not kernels:
        c.fail("kernels", "is an empty list")
    for k in kernels:
        if k not in KINDS:
            c.fail("kernels", f"must be one of {', '.join(KINDS)}, not {k!r}")
    reps = doc.get("repetitions", 3)
    if isinstance(reps, bool) or not isinstance(reps, int) or not 1 <= reps <= 50:
        c.fail("repetitions", f"must be an integer in [1, 50], not {reps!r}")
    sample_ms = doc.get("sample_ms", fam.SAMPLE_MS)
    if isinstance(sample_ms, bool) or not isinstance(sample_ms, int) or not (
            sample_ms == 0 or 100 <= sample_ms <= 60000):
        c.fail("sample_ms", f"must be 0 (off) or an integer in [100, 60000], not {sample_ms!r}")

    # Every table with its defaults; values checked; lists kept (they are axes).
    full = {}
    for t, spec in tables.items():
        given = doc.get(t, {})
        full[t] = {}
        for k, p in spec.items():
            full[t][k] = c.value(f"{t}.{k}", given[k], p) if k in given else p.default
    full["knobs"] = _check_knobs(c, "knobs", doc.get("knobs", {}))
    for t, spec in tables.items():
        if "disk_seek_us" in spec:     # a disk_params() table
            check_disk(c, t, full[t])
    if hasattr(fam, "check"):
        fam.check(c, full)

    # Boot variants: the product of the [guest] lists.
    g = full.pop("guest")
    if not g["memory_mb"]:
        g["memory_mb"] = fam.guest_memory_mb(full)
    gkeys = list(GUEST)
    guests = [dict(zip(gkeys, combo, strict=True)) for combo in itertools.product(*(_as_list(g[k]) for k in gkeys))]

    # Points: the product of every list-valued field, in the family's AXIS_ORDER, then in
    # table and field order.
    axes = [(t, k) for t in full for k in full[t] if isinstance(full[t][k], list)]
    order = list(getattr(fam, "AXIS_ORDER", ()))
    axes.sort(key=lambda a: order.index(f"{a[0]}.{a[1]}") if f"{a[0]}.{a[1]}" in order else len(order))
    points = []
    for combo in itertools.product(*(full[t][k] for t, k in axes)):
        cfg = {t: dict(v) for t, v in full.items()}
        for (t, k), v in zip(axes, combo, strict=True):
            cfg[t][k] = v
        pax = {f"{t}.{k}": v for (t, k), v in zip(axes, combo, strict=True)}
        pid = "/".join(f"{axis_label(t, k)}={v}" for (t, k), v in zip(axes, combo, strict=True)) or "all"
        points.append({"id": pid, "axes": pax, "cfg": cfg})
    if hasattr(fam, "check_point"):
        for p in points:
            fam.check_point(c, p["cfg"])
    if "disk" in fam.NEEDS:
        # The disk is memory-backed: it and the lab itself must fit in the guest.
        need = fam.disk_mb(full, points) + 1024
        for gv in guests:
            if gv["memory_mb"] < need:
                c.fail("guest.memory_mb", f"{gv['memory_mb']} MiB cannot hold the memory-backed disk "
                       f"and the lab ({need} MiB at least)")
    return Scenario(
        name=Path(path).stem,
        path=str(path),
        description=raw["description"].strip(),
        family=fam_name,
        kernels=kernels,
        repetitions=reps,
        sample_ms=sample_ms,
        doc=full,
        guests=guests,
        points=points,
        axes=axes,
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
