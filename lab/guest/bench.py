#!/usr/bin/python3
"""In-guest benchmark runner: set up server, link and client once, then run every point.

    bench.py OUTDIR        (reads OUTDIR/plan.json, appends to OUTDIR/results.jsonl)

Each point's result is appended (and fsync'ed) as soon as it is measured, so a crash or a
timeout loses nothing that was measured; a rerun skips the points already in results.jsonl.
Runs under the guest's /usr/bin/python3 with the standard library only.
"""

import ctypes
import json
import math
import mmap
import os
import random
import re
import shlex
import subprocess
import sys
import time
from pathlib import Path

LIB = Path(__file__).resolve().parent / "lib.sh"
MNT = "/srv/nfs"
EXPORT = "/srv/export"
RA_STATS = "/sys/kernel/debug/readahead/stats"


def log(msg):
    print(f"[bench {time.strftime('%H:%M:%S')}] {msg}", flush=True)


def run(argv, check=True, what=None):
    """Run a command directly (no shell: under TCG every bash costs a tenth of a second);
    return its stdout. A failure raises, naming the command as `what` or argv."""
    r = subprocess.run(argv, capture_output=True, text=True)
    if check and r.returncode != 0:
        raise RuntimeError(f"`{what or ' '.join(argv)}` failed ({r.returncode}): {r.stderr.strip()[-2000:]}")
    return r.stdout


def sh(cmd, check=True):
    """Run a bash command with lab/guest/lib.sh loaded; return its stdout."""
    return run(["bash", "-c", f". {shlex.quote(str(LIB))}; {cmd}"], check, what=cmd).strip()


def size_bytes(s):
    n, unit = int(s[:-1]), s[-1].lower()
    return n * (1024 if unit == "k" else 1048576)


# ---------------------------------------------------------------- counters

def mountstats(mnt=MNT, path="/proc/self/mountstats"):
    """READ(+READ_PLUS) ops and bytes, and the server read bytes, for the mount at mnt."""
    out = {"read_ops": 0, "read_rpc_bytes": 0, "server_read_bytes": 0}
    cur = False
    with open(path) as f:
        for line in f:
            if line.startswith("device "):
                cur = f" mounted on {mnt} with fstype nfs" in line
                continue
            if not cur:
                continue
            w = line.split()
            if not w:
                continue
            if w[0] == "bytes:":
                out["server_read_bytes"] = int(w[5])
            elif w[0] in ("READ:", "READ_PLUS:"):
                out["read_ops"] += int(w[1])
                out["read_rpc_bytes"] += int(w[5])
    return out


def cpu_times():
    with open("/proc/stat") as f:
        v = [int(x) for x in f.readline().split()[1:]]
    idle = v[3] + v[4]
    return sum(v), idle


CLI_NET = ["nsenter", "--net=/run/netns/cli"]  # lib.sh's in_cli
SRV_IP = "10.9.0.1"  # lib.sh's SRV_IP


def netem_drops():
    """Packets netem dropped on both veth ends."""
    out = run(["tc", "-s", "qdisc", "show", "dev", "srv"]) + run(CLI_NET + ["tc", "-s", "qdisc", "show", "dev", "cli"])
    return sum(int(n) for n in re.findall(r"dropped (\d+)", out))


def measure_rtt():
    """Mean RTT in ms of 5 pings from the client, 50 ms apart (lab_rtt, without the shell)."""
    out = run(CLI_NET + ["ping", "-q", "-c", "5", "-i", "0.05", SRV_IP])
    m = re.search(r"= [0-9.]+/([0-9.]+)/", out)
    if not m:
        raise RuntimeError(f"no RTT in ping's output: {out.strip()[-300:]}")
    return float(m.group(1))


def counters():
    c = mountstats()
    c["wire_bytes"] = int(Path("/sys/class/net/srv/statistics/tx_bytes").read_text())
    c["drops"] = netem_drops()
    c["cpu_total"], c["cpu_idle"] = cpu_times()
    c["t"] = time.monotonic()
    return c


# ---------------------------------------------------------------- page cache

_libc = ctypes.CDLL(None, use_errno=True)
_libc.mmap.restype = ctypes.c_void_p
_libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_long]
_libc.mincore.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_char_p]
_libc.munmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t]
MAP_FAILED = ctypes.c_void_p(-1).value


def cached_pages(path):
    """Pages of path in the page cache (mincore(2) on a mapping; nothing is faulted in)."""
    fd = os.open(path, os.O_RDONLY)
    try:
        size = os.fstat(fd).st_size
        if not size:
            return 0
        addr = _libc.mmap(None, size, mmap.PROT_READ, mmap.MAP_SHARED, fd, 0)
        if addr in (None, MAP_FAILED):
            raise OSError(ctypes.get_errno(), f"mmap {path}")
        try:
            vec = ctypes.create_string_buffer((size + mmap.PAGESIZE - 1) // mmap.PAGESIZE)
            if _libc.mincore(addr, size, vec) != 0:
                raise OSError(ctypes.get_errno(), f"mincore {path}")
            return len(vec.raw) - vec.raw.count(0)
        finally:
            _libc.munmap(addr, size)
    finally:
        os.close(fd)


def uncache(client_path, server_path, tries=10):
    """Drop a file's pages from the client's and the server's page cache; return how many
    are still cached on each side. fadvise(DONTNEED), up to `tries` times 0.1 s apart while
    either side still has pages: readahead I/O of the previous point may still be landing on
    the client, and the server's last READ replies stay pinned by the socket until the client
    acknowledges them. If the client still has pages, drop_caches is the last resort. Unlike
    drop_caches, fadvise leaves the guest's binaries and libraries cached: under TCG,
    reloading them over 9p cost seconds per point."""
    paths = (client_path, server_path)
    for _ in range(tries):
        for p in paths:
            fd = os.open(p, os.O_RDONLY)
            try:
                os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
            finally:
                os.close(fd)
        left = [cached_pages(p) for p in paths]
        if not any(left):
            break
        time.sleep(0.1)
    if left[0]:
        log(f"fadvise(DONTNEED) left {left[0]} pages of {client_path} cached; dropping all caches")
        sh("lab_drop_caches")
        left = [cached_pages(p) for p in paths]
    return left[0], left[1]


# ---------------------------------------------------------------- workloads

def fio(name, filename, rw, bs, runtime, engine="psync", ios=0):
    """One fio job reading filename once (no wrap-around), without fadvise hints; random
    jobs stop after ios reads if ios is set (fixed work, for amplification)."""
    cmd = ["fio", "--name", name, "--filename", filename, "--rw", rw, "--bs", bs,
           "--ioengine", engine, "--runtime", str(runtime), "--fadvise_hint=0",
           "--invalidate=1", "--output-format=json"]
    if rw.startswith("rand"):
        cmd += ["--norandommap", "--randrepeat=0"]
    if ios:
        cmd += [f"--number_ios={ios}"]
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        raise RuntimeError(f"fio failed: {r.stderr.strip()[-2000:]}")
    job = json.loads(r.stdout[r.stdout.index("{"):])["jobs"][0]["read"]
    return {"app_bytes": job["io_bytes"], "secs": job["runtime"] / 1000.0}


def smallfiles(bs, runtime):
    """Read every file under MNT/small whole, like cat, until done or runtime is up."""
    files = sorted(Path(MNT, "small").iterdir())
    chunk = size_bytes(bs)
    total = 0
    n = 0
    t0 = time.monotonic()
    for p in files:
        with open(p, "rb", buffering=0) as f:
            while True:
                b = f.read(chunk)
                if not b:
                    break
                total += len(b)
        n += 1
        if time.monotonic() - t0 > runtime:
            break
    return {"app_bytes": total, "secs": time.monotonic() - t0, "files": n}


def mmapfiles(runtime):
    """Map each file under MNT/small and touch a few random pages of it, like a program
    loader faulting in parts of binaries and libraries; app_bytes counts touched pages."""
    files = sorted(Path(MNT, "small").iterdir())
    rnd = random.Random(7)
    touched = 0
    n = 0
    t0 = time.monotonic()
    for p in files:
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


def run_workload(wl, point):
    bs, rt, data = point["bs"], wl["runtime_s"], f"{MNT}/data"
    kind = wl["type"]
    if kind == "seqread":
        return fio("seqread", data, "read", bs, rt)
    if kind == "randread":
        return fio("randread", data, "randread", bs, rt, ios=wl["ios"])
    if kind == "mmapread":
        return fio("mmapread", data, "read", bs, rt, engine="mmap")
    if kind == "mmaprand":
        return fio("mmaprand", data, "randread", bs, rt, engine="mmap", ios=wl["ios"])
    if kind == "smallfiles":
        return smallfiles(bs, rt)
    if kind == "mmapfiles":
        return mmapfiles(rt)
    raise ValueError(kind)


# ---------------------------------------------------------------- setup

def make_data(server, workload):
    """The data file (random bytes, or sparse) and the small-file tree, on the server side."""
    if server["sparse"]:
        with open(f"{EXPORT}/data", "wb") as f:
            f.truncate(server["file_mb"] << 20)
    else:
        # 1 MiB of random bytes, made unique per MiB by a counter: incompressible, and far
        # faster than /dev/urandom under TCG.
        block = bytearray(os.urandom(1 << 20))
        with open(f"{EXPORT}/data", "wb") as f:
            for i in range(server["file_mb"]):
                block[:8] = i.to_bytes(8, "little")
                f.write(block)
    if server["tree"]:
        # Sizes log-uniform between 1 KiB and small_file_max_kb, like the binaries,
        # libraries and configuration files a diskless client reads at boot.
        rnd = random.Random(42)
        d = Path(EXPORT, "small")
        d.mkdir()
        hi = math.log2(server["small_file_max_kb"] * 1024)
        for i in range(server["small_files"]):
            size = int(2 ** rnd.uniform(10, hi))
            Path(d, f"f{i:06d}").write_bytes(os.urandom(size))
    sh("sync")


class Link:
    """netem on both veth ends; the link ceiling is measured once per delay with iperf3."""

    def __init__(self, cfg):
        self.rate, self.limit = cfg["rate"], cfg["limit"]
        self.delay = None
        self.ceiling = {}

    def set_delay(self, d):
        """Change the delay on both ends; True if it changed."""
        if d == self.delay:
            return False
        args = f"delay {d}ms limit {self.limit}" + ("" if self.rate == "none" else f" rate {self.rate}")
        sh(f"tc qdisc change dev srv root netem {args} && in_cli tc qdisc change dev cli root netem {args}")
        self.delay = d
        if d not in self.ceiling:
            self.ceiling[d] = self.measure_ceiling()
        return True

    def measure_ceiling(self):
        """Server-to-client TCP throughput in MB/s (the direction NFS READ data flows)."""
        out = sh("in_cli iperf3 -c $SRV_IP -R -t 4 -O 1 -J", check=False)
        try:
            bps = json.loads(out)["end"]["sum_received"]["bits_per_second"]
            return round(bps / 8 / 1e6, 1)
        except (ValueError, KeyError):
            log(f"iperf3 gave no result at delay {d_str(self.delay)}")
            return None


def d_str(d):
    return f"{d} ms"


class Client:
    def __init__(self):
        self.key = None

    def mount(self, vers, rsize_kb, fresh=False):
        key = (vers, rsize_kb)
        if key == self.key and not fresh:
            return
        if self.key is not None:
            sh(f"umount {MNT}")
        sh(f"lab_mount {vers} rsize={rsize_kb * 1024}")
        self.key = key
        got = int(sh(f"lab_mount_opt {MNT} rsize"))
        if got != rsize_kb * 1024:
            raise RuntimeError(f"asked for rsize {rsize_kb * 1024}, the mount has {got}")

    def bdi(self):
        dev = os.stat(MNT).st_dev
        return f"/sys/class/bdi/{os.major(dev)}:{os.minor(dev)}"


def window_kb(ra_kb, bs_bytes, rsize_kb):
    """The readahead window a sequential reader gets (mm/readahead.c ractl_max_pages())."""
    bs_kb = bs_bytes // 1024
    if bs_kb > ra_kb and rsize_kb > ra_kb:
        return max(ra_kb, min(bs_kb, rsize_kb))
    return ra_kb


# ---------------------------------------------------------------- main

def main(outdir):
    out = Path(outdir)
    plan = json.loads((out / "plan.json").read_text())
    res_path = out / "results.jsonl"
    done = set()
    if res_path.exists():
        for line in res_path.read_text().splitlines():
            try:
                done.add(json.loads(line)["id"])
            except (ValueError, KeyError):
                pass
    todo = [p for p in plan["points"] if p["id"] not in done]
    log(f"{plan['scenario']}: {len(todo)} of {len(plan['points'])} points to run")
    if not todo:
        return 0

    srv, wl = plan["server"], plan["workload"]
    sh(f"lab_storage {srv['fs']} {srv['disk_mb']} {srv['disk_latency_us'] * 1000} {srv['disk_mbps']}")
    t0 = time.monotonic()
    make_data(srv, wl)
    log(f"data written in {time.monotonic() - t0:.0f}s")
    sh(f"lab_link 0 {plan['link']['rate']} {plan['link']['limit']}")
    sh(f"lab_nfsd {srv['threads']}")
    sh("iperf3 -s -D -B $SRV_IP </dev/null >/dev/null 2>&1")
    if os.path.exists(RA_STATS):
        Path(RA_STATS).write_text("0\n")

    link, client = Link(plan["link"]), Client()
    failures = 0
    with open(res_path, "a") as res:
        for p in todo:
            try:
                row = run_point(p, wl, link, client, srv["tree"])
            except Exception as e:  # record the failure and go on with the next point
                failures += 1
                log(f"{p['id']}: FAILED: {e}")
                row = dict(p, error=str(e)[-500:])
            res.write(json.dumps(row) + "\n")
            res.flush()
            os.fsync(res.fileno())
    if os.path.exists(RA_STATS):
        (out / "rastats.txt").write_text(Path(RA_STATS).read_text())
    (out / "dmesg.txt").write_text(subprocess.run(["dmesg"], capture_output=True, text=True).stdout)
    log(f"done; {failures} point(s) failed")
    return 1 if failures else 0


def run_point(p, wl, link, client, tree):
    t0 = time.monotonic()
    ra = p["read_ahead_kb"]
    client.mount(p["nfs_version"], p["rsize_kb"], fresh=(ra == "default"))
    if link.set_delay(p["delay_ms"]) and wl["type"] == "seqread":
        # The first point after a delay change (after iperf3, on a fresh mount) ran far slower
        # than the same point later at 100 ms RTT: 2.4-7.1 against 27-29 MB/s for 4 KiB reads
        # (results/wan-fresh). Points measure the steady state, so read for 2 s first, untimed;
        # the cache is dropped again below.
        fio("warmup", f"{MNT}/data", "read", "1m", 2)
    bdi = client.bdi()
    if ra != "default":
        Path(bdi, "read_ahead_kb").write_text(f"{ra}\n")
    ra_eff = int(Path(bdi, "read_ahead_kb").read_text())
    if tree:
        # The tree workloads start cold in the dentry and attribute caches too.
        sh("lab_drop_caches")
        cli_cached = srv_cached = 0
    else:
        cli_cached, srv_cached = uncache(f"{MNT}/data", f"{EXPORT}/data")
    rtt = measure_rtt()
    before = counters()
    prep = before["t"] - t0
    w = run_workload(wl, p)
    after = counters()
    d = {k: after[k] - before[k] for k in before}
    app = w["app_bytes"]
    busy = d["cpu_total"] - d["cpu_idle"]
    mbps = app / w["secs"] / 1e6 if w["secs"] > 0 else 0.0
    win = window_kb(ra_eff, size_bytes(p["bs"]), p["rsize_kb"])
    ceiling = link.ceiling.get(p["delay_ms"])
    # Readahead keeps at most two windows in flight: the one being read and the async one
    # its PG_readahead marker started. So a reader cannot beat 2 * window / RTT, or the link.
    bound = 2 * win * 1024 / (rtt / 1000) / 1e6
    if ceiling:
        bound = min(bound, ceiling)
    row = dict(p)
    row.update({
        "mbps": round(mbps, 2),
        "app_bytes": app,
        "secs": round(w["secs"], 3),
        "rtt_ms": round(rtt, 3),
        "ra_kb": ra_eff,
        "window_kb": win,
        "read_ops": d["read_ops"],
        "mean_read_kb": round(d["server_read_bytes"] / d["read_ops"] / 1024, 1) if d["read_ops"] else 0,
        "server_read_bytes": d["server_read_bytes"],
        "wire_bytes": d["wire_bytes"],
        "read_amp": round(d["server_read_bytes"] / app, 3) if app else None,
        "wire_ratio": round(d["wire_bytes"] / app, 3) if app else None,
        "cpu_pct": round(100.0 * busy / d["cpu_total"], 1) if d["cpu_total"] else None,
        "drops": d["drops"],
        "client_cached_pages": cli_cached,
        "server_cached_pages": srv_cached,
        "link_mbps": ceiling,
        "bound_mbps": round(bound, 1),
    })
    if "files" in w:
        row["files"] = w["files"]
    # Validation, reported with the point: RTT at least the netem delay both ways, no
    # throughput above what the link carried (that would be a cache hit, not the network).
    checks = []
    if rtt < 2 * p["delay_ms"]:
        checks.append(f"rtt {rtt} < 2x{p['delay_ms']} ms")
    if ceiling and mbps > ceiling * 1.15:
        checks.append(f"{mbps:.1f} MB/s above the link ceiling {ceiling}")
    if d["drops"]:
        checks.append(f"{d['drops']} netem drops")
    if cli_cached:
        checks.append(f"{cli_cached} pages of the file cached on the client at the start")
    # Server pages are served without disk I/O: past 1 % of what was read, say so.
    if srv_cached * 4096 > 0.01 * app:
        checks.append(f"{srv_cached} pages of the file cached on the server at the start")
    row["checks"] = "; ".join(checks) or "ok"
    log(f"{p['id']}: {mbps:.1f} MB/s rtt {rtt:.2f} ms ra {ra_eff} KiB reads {d['read_ops']} "
        f"amp {row['read_amp']} prep {prep:.1f}s fio {after['t'] - before['t']:.1f}s [{row['checks']}]")
    return row


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
