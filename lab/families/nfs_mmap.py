"""nfs-mmap: read an NFS file through a mapping (page faults) and through read(), one client.

Seed 003 (FreeBSD, 2016): page-ins of NFS files went out as one-page READs, and mmap reads
ran at a third of read(). This family measures what Linux does with the same workloads:
every workload is lab/guest/mmapscan.c (built in the guest from the host's gcc), so read()
and the mapped scans run the same loop and differ only in how they reach the data:

  read     pread() bs at a time (the baseline a mapped scan is compared with)
  seq      touch the mapping bs at a time from the start (memcpy), no madvise()
  seq-sequential, seq-willneed
           the same after madvise(MADV_SEQUENTIAL) of the mapping, or with each willneed_kb
           of it advised MADV_WILLNEED one chunk before the scan gets there
  stride   touch bs every stride_kb of the mapping
  random   touch bs at `ios` random places
  copy     write() the mapping into a local file bs at a time (cp through mmap: the faults
           are taken inside the kernel's copy from the mapping)
  threads  (read and seq types) N threads through one open file and one mapping, each reading
           its own part: streams that share the file's readahead state, interleaved
  exec     run a large binary from the mount (`binary`, default gcc's cc1, 33 MB) on a small
           generated C file: a loader's faults, many pages touched once

Caches: the client's copy of the file is dropped before each point (fadvise, checked with
mincore); the server's is left warm (the file was just written there), so the points
measure the client's readahead and the link, not the server's disk.
"""

import os
import subprocess
import time
from collections import defaultdict
from pathlib import Path

from families import (LINK, Choice, Int, Param, Size, above_link, bytes_of, client_params, disk_params, largest,
                      mount_checked, read_ahead_kb_param)

NAME = "nfs-mmap"
NEEDS = ("disk", "nfs", "link")
TYPES = ("read", "seq", "seq-sequential", "seq-willneed", "stride", "random", "copy", "exec")
SCANS = ("seq", "seq-sequential", "seq-willneed", "copy")    # compared with read()
THREADED = ("read", "seq", "seq-sequential", "seq-willneed")
TABLES = {
    "server": {
        **disk_params(),
        "file_mb": Int(1024, 1, 16384, axis=False, doc="size of the data file, MiB"),
        "threads": Int(8, 1, 256, axis=False, doc="nfsd threads"),
    },
    "link": LINK,
    "client": {
        **client_params(),
        "read_ahead_kb": read_ahead_kb_param(),
    },
    "workload": {
        "type": Choice("seq", TYPES, doc="what is read and how (see the module's docstring)"),
        "bs": Size("4k", 4096, 16 << 20, doc="bytes per access"),
        "stride_kb": Int(64, 4, 1 << 20, doc="stride: distance between accesses, KiB"),
        "willneed_kb": Int(4096, 4, 1 << 20, axis=False,
                           doc="seq-willneed: the scan advises each chunk of this size one chunk ahead"),
        "ios": Int(1000, 1, 10000000, axis=False, doc="random: accesses"),
        "threads": Int(1, 1, 64, doc="read, seq, seq-*: threads through one open file and mapping, "
                       "each reading its own equal part"),
        "runtime_s": Int(6, 1, 600, axis=False, doc="stop a scan after this long (exec runs to the end)"),
        "binary": Param("/usr/lib/gcc/x86_64-linux-gnu/12/cc1", "str", axis=False,
                        doc="exec: the program copied to the export and run from the mount"),
        "functions": Int(60, 1, 100000, axis=False, doc="exec: functions in the C file cc1 compiles"),
    },
}
AXIS_ORDER = ("client.nfs_version", "client.rsize_kb", "link.delay_ms", "client.read_ahead_kb",
              "workload.threads", "workload.type", "workload.bs", "workload.stride_kb")
SAMPLE_MS = 0
PRIMARY = "mbps"
AB_EXTRA = ("mean_read_kb", "read_amp", "majflt")
METRICS = {
    "mbps": "MB/s (10^6 bytes/s) the program used; exec: the binary's size / run time",
    "secs": "seconds the workload ran",
    "rtt_ms": "RTT pinged from the client before the point",
    "ra_kb": "read_ahead_kb of the mount during the point",
    "around_kb": "read_around_kb of the mount (patched kernels; 0: follows read_ahead_kb)",
    "bound_mbps": "min(link ceiling, 2 x read_ahead_kb / RTT): what a reader kept one window ahead gets",
    "read_ops": "READ RPCs (mountstats)",
    "mean_read_kb": "mean READ size, KiB",
    "read_amp": "bytes READ from the server / bytes the program used (exec: / the binary's size)",
    "wire_ratio": "bytes the server sent on the link / bytes the program used",
    "majflt": "major faults of the workload (getrusage)",
    "link_mbps": "iperf3 server-to-client ceiling at this delay",
}
EXEC_SRC = "exec-src.c"


def check(c, doc):
    wl = doc["workload"]
    types = wl["type"] if isinstance(wl["type"], list) else [wl["type"]]
    if largest(wl["threads"]) > 1 and any(t not in THREADED for t in types):
        c.fail("workload.threads", f"several threads need types among {', '.join(THREADED)}")
    cl = doc["client"]
    if cl["count"] != 1:
        c.fail("client.count", "nfs-mmap runs one client")


def data_mb(doc):
    return doc["server"]["file_mb"] + 64


def disk_mb(doc, points=()):
    return data_mb(doc) + 256


def guest_memory_mb(doc):
    """Both page caches (client and server share the guest) and the null_blk disk."""
    return max(5120, 2048 + 3 * data_mb(doc))


def point_seconds(cfg):
    wl = cfg["workload"]
    return wl["runtime_s"] + 40 + cfg["link"]["delay_ms"] // 2 + (240 if wl["type"] == "exec" else 0)


# ---------------------------------------------------------------- guest side

def tool_path(env):
    return Path(env.out) / "mmapscan"


def setup(env, plan):
    from guest.env import fill_file, log, run  # noqa: PLC0415 - guest only

    doc = plan["setup"]
    srv, wl = doc["server"], doc["workload"]
    t0 = time.monotonic()
    src = Path(__file__).resolve().parent.parent / "guest" / "mmapscan.c"
    run(["gcc", "-O2", "-pthread", "-o", str(tool_path(env)), str(src)], what="gcc mmapscan.c")
    fill_file(env.server.path("data"), srv["file_mb"], seed=0)
    types = {p["cfg"]["workload"]["type"] for p in plan["points"]}
    if "exec" in types:
        binary = wl["binary"]
        if not os.access(binary, os.X_OK):
            raise RuntimeError(f"workload.binary {binary} is not an executable file on this machine")
        run(["cp", binary, env.server.path("prog")])
        Path(env.server.path(EXEC_SRC)).write_text(exec_source(wl["functions"]))
    run(["sync"])
    env.server.start(srv["threads"])
    log(f"nfs-mmap: data written and nfsd started in {time.monotonic() - t0:.0f}s")


def exec_source(n):
    """A C file with n functions and no #include, so cc1 needs no include directories."""
    body = [f"int f{i}(int *a, int n) {{ int s = {i}; for (int j = 0; j < n; j++) "
            f"s = s * 31 + a[j] / (j + {i + 1}); return s; }}" for i in range(n)]
    return "\n".join(body + ["int main(void) { return 0; }", ""])


def scan_args(tool, cfg, path, dst):
    wl = cfg["workload"]
    mode, _, advice = wl["type"].partition("-")
    a = [str(tool), mode, path, "--bs", str(bytes_of(wl["bs"])), "--runtime", str(wl["runtime_s"])]
    if advice:
        a += ["--advice", advice, "--willneed-kb", str(wl["willneed_kb"])]
    if mode == "copy":
        a += ["--dst", dst]
    if wl.get("threads", 1) > 1:
        a += ["--threads", str(wl["threads"])]
    if wl["type"] == "stride":
        a += ["--stride", str(wl["stride_kb"] * 1024)]
    if wl["type"] == "random":
        a += ["--ios", str(wl["ios"])]
    return a


def run_scan(env, argv):
    import json  # noqa: PLC0415

    out = env.run(argv, timeout=900)
    return json.loads(out.strip().splitlines()[-1])


def run_exec(env, prog, src):
    """Run prog (cc1) on src; its time and major faults (wait4's rusage)."""
    t0 = time.monotonic()
    p = subprocess.Popen([prog, "-quiet", "-O2", src, "-o", "/dev/null"], stdout=subprocess.DEVNULL,
                         stderr=subprocess.PIPE)
    _, status, ru = os.wait4(p.pid, 0)
    secs = time.monotonic() - t0
    p.returncode = os.waitstatus_to_exitcode(status)
    err = p.stderr.read().decode(errors="replace")
    p.stderr.close()
    if p.returncode:
        raise RuntimeError(f"`{prog} {src}` failed ({p.returncode}): {err.strip()[-500:]}")
    return {"bytes": os.stat(prog).st_size, "secs": secs, "majflt": ru.ru_majflt, "minflt": ru.ru_minflt}


def run_point(env, cfg):
    cl, lk, wl = cfg["client"], cfg["link"], cfg["workload"]
    ra = cl["read_ahead_kb"]
    c = env.clients[0]
    mount_checked(c, cl, fresh=(ra == "default"))
    tool = tool_path(env)
    data = c.path("data")
    if env.link.set_delay(lk["delay_ms"]):
        # The first stream after a delay change is slow for reasons of its own (see
        # results/wan-fresh): read for 2 s, untimed; the client's cache is dropped below.
        run_scan(env, [str(tool), "read", data, "--bs", "1m", "--runtime", "2"])
    if ra != "default":
        env.write(f"{c.bdi()}/read_ahead_kb", ra)
    ra_eff = int(env.read(f"{c.bdi()}/read_ahead_kb"))
    around = env.read(f"{c.bdi()}/read_around_kb") if os.path.exists(f"{c.bdi()}/read_around_kb") else None
    target = c.path("prog") if wl["type"] == "exec" else data
    cached = env.uncache([target])[0]
    rtt = env.link.rtt()
    with env.measure() as d:
        if wl["type"] == "exec":
            w = run_exec(env, target, c.path(EXEC_SRC))
        else:
            # copy writes to a local file (the server's disk, not NFS), 1 MiB at most
            w = run_scan(env, scan_args(tool, cfg, target, env.server.path("copy-dst")))
    used, secs = w["bytes"], w["secs"]
    ops, srv = d.get("nfs_read_ops", 0), d.get("nfs_server_read_bytes", 0)
    ceiling = env.link.ceiling.get(lk["delay_ms"])
    bound = 2 * ra_eff * 1024 / (rtt / 1000) / 1e6 if rtt else 0
    if ceiling:
        bound = min(bound, ceiling)
    row = dict(d)
    row.update({
        "mbps": round(used / secs / 1e6, 2) if secs > 0 else 0.0,
        "app_bytes": used,
        "secs": round(secs, 3),
        "rtt_ms": round(rtt, 3),
        "ra_kb": ra_eff,
        "around_kb": int(around) if around is not None else None,
        "bound_mbps": round(bound, 1),
        "read_ops": ops,
        "mean_read_kb": round(srv / ops / 1024, 1) if ops else 0,
        "read_amp": round(srv / used, 3) if used else None,
        "wire_ratio": round(d.get("net_tx_bytes", 0) / used, 3) if used else None,
        "majflt": w["majflt"],
        "minflt": w["minflt"],
        "link_mbps": ceiling,
        "client_cached_pages": cached,
    })
    checks = []
    if rtt < 2 * lk["delay_ms"]:
        checks.append(f"rtt {rtt} < 2x{lk['delay_ms']} ms")
    if cached:
        checks.append(f"{cached} pages of the file cached on the client at the start")
    if d.get("net_drops"):
        checks.append(f"{d['net_drops']} netem drops")
    if wl["type"] != "exec" and above_link(row["mbps"], ceiling, lk["rate"]):
        checks.append(f"{row['mbps']:.1f} MB/s above the link ceiling {ceiling}")
    row["checks"] = checks
    return row


# ---------------------------------------------------------------- report

def report(summ, rep):
    """Each mapped sequential scan (SCANS) as a share of read() of the same file at the same
    delay and access size, per kernel: seed 003's question."""
    reads = {}
    for s in summ:
        if rep.param(s, "workload.type") == "read" and s.get("mbps") is not None:
            reads[(s["kind"], rep.param(s, "link.delay_ms"), rep.param(s, "workload.bs"))] = s
    cols, cells = [], defaultdict(dict)
    for s in summ:
        t = rep.param(s, "workload.type")
        if t not in SCANS or s.get("mbps") is None:
            continue
        r = reads.get((s["kind"], rep.param(s, "link.delay_ms"), rep.param(s, "workload.bs")))
        if not r or not r["mbps"]:
            continue
        col = f"{t} {rep.param(s, 'workload.bs')}"
        if col not in cols:
            cols.append(col)
        cells[(s["kind"], rep.param(s, "link.delay_ms"))][col] = (
            f"{s['mbps'] / r['mbps']:.2f} ({s['mbps']:.1f} / {r['mbps']:.1f}; READ {s.get('mean_read_kb', 0):.0f} KiB)")
    if not cells:
        return []
    rtts = rep.rtt_by_delay(summ)
    rows = [[kind, f"{dl} ms (RTT {rtts.get(dl, 0):.1f})"] + [cells[(kind, dl)].get(c, "—") for c in cols]
            for kind, dl in sorted(cells, key=lambda k: (k[0] != "stock", k[1]))]
    return ["### Mapped scans as a share of read() of the same file (median MB/s mapped / read; mean READ size)",
            rep.md_table(["kernel", "delay each way"] + cols, rows)]

