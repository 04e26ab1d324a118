"""The guest's test environment: roles (disk, NFS server, link, clients) and what the runner
measures around every point (counters, knobs, the workload's memory cgroup, time series).

Families never touch the machine directly: they call these objects, so a unit test can hand
them a fake environment (tests/unit/fakeenv.py) and check what they compute.

Topology, one guest (lab/guest/lib.sh draws the one-client case):

    init netns: nfsd exporting EXPORT (disk "labdisk")    10.9.0.1, veth "srv"
    1 client:   netns "cli", veth "cli" (10.9.0.2), netem on both ends of the pair
    N clients:  netns "rtr" routes between "srv" (its end "rsrv") and one veth per client
                (netns cliK, 10.9.K.2 <-> 10.9.K.1); netem on "srv" and "rsrv" only, so
                every client shares that one bottleneck link to the server.

Server and Client are roles with their own run(): a two-guest topology (client and server
kernels in separate guests) would replace their run() and paths, not the families.
Standard library only (the guest runs the host's /usr/bin/python3).
"""

import ctypes
import gzip
import json
import mmap
import os
import re
import shutil
import subprocess
import threading
import tempfile
import time
from contextlib import contextmanager, nullcontext
from pathlib import Path

EXPORT = "/srv/export"
MNT = "/srv/nfs"
SRV_IP = "10.9.0.1"
NULLB = "/sys/kernel/config/nullb"
MAX_SECTORS = 2560       # 512-byte sectors per request: 1280 KiB (see Disk.create)
DISK = "labdisk"
NBD = "nbd0"              # the seeking disk (Disk.create_seeking)
SEEKDISK_STATS = "/run/seekdisk.stats"
RA_STATS = "/sys/kernel/debug/readahead/stats"
CGROOT = "/sys/fs/cgroup"
WORK_CG = f"{CGROOT}/lab-work"
VMSTAT_KEYS = ("workingset_refault_file", "workingset_activate_file", "pgmajfault", "pgpgin", "pgpgout",
               "pgscan_kswapd", "pgscan_direct", "pgscan_file", "pgsteal_kswapd", "pgsteal_direct",
               "pgsteal_file", "nr_dirtied", "nr_written")


def log(msg):
    print(f"[guest {time.strftime('%H:%M:%S')}] {msg}", flush=True)


def run(argv, check=True, what=None, cgroup=None, timeout=None, **kw):
    """Run a command without a shell (under TCG every bash costs a tenth of a second) and
    return its stdout. cgroup: a cgroup directory the command runs in. A failure raises,
    naming the command."""
    pre = None
    if cgroup:
        procs = f"{cgroup}/cgroup.procs"

        def pre():
            with open(procs, "w") as f:
                f.write(str(os.getpid()))
    r = subprocess.run(argv, capture_output=True, text=True, preexec_fn=pre, timeout=timeout, **kw)
    if check and r.returncode != 0:
        raise RuntimeError(f"`{what or ' '.join(map(str, argv))}` failed ({r.returncode}): {r.stderr.strip()[-2000:]}")
    return r.stdout


def write(path, value):
    with open(path, "w") as f:
        f.write(f"{value}\n")


def read(path):
    with open(path) as f:
        return f.read().strip()


# ---------------------------------------------------------------- counters

def parse_mountstats(text, mnt):
    """NFS ops and bytes of the mount at mnt: READ (+READ_PLUS), WRITE, COMMIT ops, their
    wire bytes, and the bytes the server read and wrote (the `bytes:` line)."""
    out = {"nfs_read_ops": 0, "nfs_read_rpc_bytes": 0, "nfs_write_ops": 0, "nfs_write_rpc_bytes": 0,
           "nfs_commit_ops": 0, "nfs_server_read_bytes": 0, "nfs_server_write_bytes": 0}
    cur = False
    for line in text.splitlines():
        if line.startswith("device "):
            cur = f" mounted on {mnt} with fstype nfs" in line
            continue
        if not cur:
            continue
        w = line.split()
        if not w:
            continue
        if w[0] == "bytes:":
            out["nfs_server_read_bytes"] = int(w[5])
            out["nfs_server_write_bytes"] = int(w[6])
        elif w[0] in ("READ:", "READ_PLUS:"):
            out["nfs_read_ops"] += int(w[1])
            out["nfs_read_rpc_bytes"] += int(w[5])
        elif w[0] == "WRITE:":
            out["nfs_write_ops"] += int(w[1])
            out["nfs_write_rpc_bytes"] += int(w[4])
        elif w[0] == "COMMIT:":
            out["nfs_commit_ops"] += int(w[1])
    return out


def parse_vmstat(text):
    v = dict(line.split() for line in text.splitlines() if line.strip())
    return {f"vm_{k}": int(v.get(k, 0)) for k in VMSTAT_KEYS}


def parse_seekdisk(text):
    """The seeking disk's counters (lab/guest/seekdisk.c's STATS file): requests that paid a
    seek, forward gaps passed over, and the time its head was busy."""
    v = dict(line.split() for line in text.splitlines() if line.strip())
    return {"disk_seeks": int(v["seeks"]), "disk_skips": int(v["skips"]),
            "disk_busy_ms": int(v["busy_us"]) // 1000}


def seekdisk_counters(tries=5):
    """The seeking disk's counters, read again if a read caught the file mid-rewrite."""
    for _ in range(tries - 1):
        try:
            return parse_seekdisk(read(SEEKDISK_STATS))
        except (KeyError, ValueError):
            time.sleep(0.01)
    return parse_seekdisk(read(SEEKDISK_STATS))


def parse_diskstats(text, dev):
    """Bytes and requests read and written by block device dev (/proc/diskstats)."""
    for line in text.splitlines():
        w = line.split()
        if len(w) > 10 and w[2] == dev:
            return {"disk_read_ios": int(w[3]), "disk_read_bytes": int(w[5]) * 512,
                    "disk_write_ios": int(w[7]), "disk_write_bytes": int(w[9]) * 512}
    return {}


def parse_psi(text, prefix):
    """Total stall time in ms from a PSI file ("some ... total=US", "full ... total=US")."""
    out = {}
    for line in text.splitlines():
        m = re.match(r"^(some|full) .*total=(\d+)", line)
        if m:
            out[f"{prefix}_{m.group(1)}_ms"] = int(m.group(2)) / 1000.0
    return out


def parse_rastats(text):
    """/sys/kernel/debug/readahead/stats -> {pattern: {column: value}}."""
    lines = [ln.split() for ln in text.splitlines() if ln.strip()]
    if not lines or lines[0][0] != "pattern":
        return {}
    cols = lines[0][1:]
    return {w[0]: dict(zip(cols, map(int, w[1:]), strict=False)) for w in lines[1:]}


def rastats_metrics(stats):
    """The per-point readahead statistics as row fields: windows per pattern, and the totals."""
    out = {}
    for pat, row in stats.items():
        if pat == "all":
            out.update(ra_windows=row.get("readahead", 0), ra_io=row.get("io", 0), ra_sync_io=row.get("sync_io", 0),
                       ra_mmap_io=row.get("mmap_io", 0))
        elif row.get("readahead"):
            out[f"ra_{pat}"] = row["readahead"]
    return out


# ---------------------------------------------------------------- page cache

_libc = ctypes.CDLL(None, use_errno=True)
_libc.mmap.restype = ctypes.c_void_p
_libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_long]
_libc.mincore.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_char_p]
_libc.munmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t]
MAP_FAILED = ctypes.c_void_p(-1).value


def cached_map(path, first=0, count=None):
    """The file's page cache residency, one byte per page (mincore(2) on a mapping: bit 0 set
    for a cached page; nothing is faulted in), of pages first to first + count (to the end of
    the file without count; cut there)."""
    fd = os.open(path, os.O_RDONLY)
    try:
        size = os.fstat(fd).st_size
        off = first * mmap.PAGESIZE
        end = size if count is None else min(size, off + count * mmap.PAGESIZE)
        if end <= off:
            return b""
        addr = _libc.mmap(None, end - off, mmap.PROT_READ, mmap.MAP_SHARED, fd, off)
        if addr in (None, MAP_FAILED):
            raise OSError(ctypes.get_errno(), f"mmap {path}")
        try:
            vec = ctypes.create_string_buffer((end - off + mmap.PAGESIZE - 1) // mmap.PAGESIZE)
            if _libc.mincore(addr, end - off, vec) != 0:
                raise OSError(ctypes.get_errno(), f"mincore {path}")
            return vec.raw
        finally:
            _libc.munmap(addr, end - off)
    finally:
        os.close(fd)


def cached_in(vec, start=0):
    """Pages cached from page index start on, in a cached_map() vector."""
    tail = vec[max(start, 0):]
    return len(tail) - tail.count(0)


def cached_pages(path, start=0):
    """Pages of path in the page cache from page index start on."""
    return cached_in(cached_map(path), start)


def drop_caches():
    run(["sync"])
    write("/proc/sys/vm/drop_caches", 3)


def uncache(paths, tries=10):
    """Drop the files' pages from the page cache; return how many are still cached, per path.
    fadvise(DONTNEED), up to `tries` times 0.1 s apart while pages remain: readahead I/O of the
    previous point may still be landing on an NFS client, and the server's last READ replies
    stay pinned by the socket until the client acknowledges them. If any path still has
    pages, drop_caches is the last resort. Unlike drop_caches, fadvise leaves the guest's
    binaries cached: under TCG, reloading them over 9p cost seconds per point."""
    left = []
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
    if any(left):
        i = next(i for i, n in enumerate(left) if n)
        log(f"fadvise(DONTNEED) left {left[i]} pages of {paths[i]} cached; dropping all caches")
        drop_caches()
        left = [cached_pages(p) for p in paths]
    return left


def fill_file(path, mb, sparse=False, seed=0):
    """A file of mb MiB: random bytes made unique per MiB by a counter (incompressible, far
    faster than /dev/urandom under TCG), or a hole."""
    with open(path, "wb") as f:
        if sparse:
            f.truncate(mb << 20)
            return
        block = bytearray(os.urandom(1 << 20))
        for i in range(mb):
            block[:8] = (seed << 32 | i).to_bytes(8, "little")
            f.write(block)


# ---------------------------------------------------------------- fio

def fio(args, cgroup=None, timeout=None, threads=0, fmt="json", setup_s=None, at=None, page_cache_mb=0):
    """Run fio with args (a list of --options), return its parsed JSON output (fmt "json+"
    adds each job's latency histogram, clat_ns.bins). setup_s: seconds fio may take to set up
    its jobs before they start (threads=N only; default 5 + N/50, stretched on a debug kernel).

    at=(seconds, fn) (threads=N only): fn(pid) is called with fio's pid that many seconds
    after all the jobs have started (thread_reads(pid) says how far each job has read).

    threads=N (fio --thread with N jobs, in a cgroup): fio starts outside the cgroup and moves
    into it once it has attached its job state (a SysV shared memory segment of about 200 KiB
    per job), before its jobs start (--startdelay: fio creates a job's thread when its delay
    is over). The cgroup is meant for the page cache of the reads, but what fio touches of its
    segment after the move, its job threads' stacks and heap, their kernel stacks and page
    tables are charged there too, and grow as the jobs start: 300 jobs, 65 of 96 MiB
    (results/memstart). With page_cache_mb, the cgroup's memory.max follows page_cache_mb plus
    that memory of fio's own (own_memory()), raised as it grows (every poll, 0.2 s, at
    real-time priority so that hundreds of readers cannot starve it), never lowered while the
    jobs run: the reads' page cache gets page_cache_mb, however fast fio sets up. The result
    then carries "lab_cgroup": the most own memory seen and the last memory.max, bytes."""
    argv = ["fio", f"--output-format={fmt}", *args]
    what = "fio " + " ".join(args[:6])
    if at and not (cgroup and threads):
        raise ValueError("fio(at=...) needs threads and a cgroup")
    if page_cache_mb and not (cgroup and threads):
        raise ValueError("fio(page_cache_mb=...) needs threads and a cgroup")
    info = {}
    if cgroup and threads:
        try:
            out = _fio_reads_in_cgroup(argv, what, cgroup, threads, timeout, setup_s, at, page_cache_mb, info)
        except SlowFioSetup as e:
            # A starved guest (the host's cores shared with other guests) can take longer
            # than the deadline to start fio: once more, with three times the time.
            log(f"{e}; running it again with {3 * e.delay} s to set up")
            out = _fio_reads_in_cgroup(argv, what, cgroup, threads, timeout, 3 * e.delay, at, page_cache_mb,
                                       info)
    else:
        out = run(argv, cgroup=cgroup, timeout=timeout, what=what)
    res = json.loads(out[out.index("{"):])
    if info:
        res["lab_cgroup"] = info
    return res


# A process's own memory in its cgroup's memory.stat: heap and stacks (anon), shared memory
# it touched (shmem: fio's job segment), its threads' kernel stacks and page tables. Not the
# page cache, nor the kernel's objects for it (slab: inodes, dentries, xarray nodes).
OWN_MEMORY_KEYS = ("anon", "shmem", "kernel_stack", "pagetables")


def own_memory(stat_text):
    """Bytes of a cgroup's memory.stat (its text) that are its processes' own memory."""
    st = dict(line.split()[:2] for line in stat_text.splitlines() if line.strip())
    return sum(int(st.get(k, 0)) for k in OWN_MEMORY_KEYS)


class CgroupFollower:
    """Keeps memory.max of cgroup at page_cache_mb MiB plus own_memory() of what is in it:
    raised when that grows by a page or more, never lowered (lowering would reclaim the page
    cache it measures). follow() reads memory.stat once; info gets own_max and memory_max."""

    def __init__(self, cgroup, page_cache_mb, info, read_fn=None, write_fn=None):
        self.cgroup, self.budget, self.info = cgroup, page_cache_mb << 20, info
        self.read, self.write = read_fn or read, write_fn or write
        self.limit = None
        info.setdefault("own_max", 0)

    def follow(self):
        own = own_memory(self.read(f"{self.cgroup}/memory.stat"))
        self.info["own_max"] = max(self.info["own_max"], own)
        want = self.budget + own
        if self.limit is None or want >= self.limit + 4096:
            self.write(f"{self.cgroup}/memory.max", want)
            self.limit = want
            self.info["memory_max"] = want


class SlowFioSetup(RuntimeError):
    """fio did not attach its job state before its jobs were due to start."""

    def __init__(self, what, delay):
        super().__init__(f"`{what}`: fio attached no job state within {delay - 2} s")
        self.delay = delay


def debug_kernel():
    """True on a kernel built with KASAN or lockdep (make stress's debug variant), where
    everything takes several times longer: setup deadlines stretch, measurements do not."""
    try:
        cfg = gzip.decompress(Path("/proc/config.gz").read_bytes()).decode()
    except OSError:
        return False
    return "CONFIG_KASAN=y" in cfg or "CONFIG_PROVE_LOCKING=y" in cfg


SLOW = 4 if debug_kernel() else 1


def _fio_reads_in_cgroup(argv, what, cgroup, threads, timeout, setup_s=None, at=None, page_cache_mb=0,
                         info=None):
    """fio's stdout; fio is moved into cgroup once its job segment is attached and back out once
    its jobs have ended, so that its report (json+ histograms of hundreds of jobs: tens of
    MiB) is not charged to the workload either (see fio()). at, page_cache_mb: see fio();
    info gets CgroupFollower's numbers."""
    delay = setup_s or (5 + threads // 50) * SLOW
    attach_by = time.monotonic() + delay - 2    # 2 s to spare before the jobs start
    end_by = time.monotonic() + timeout if timeout else None
    home = CGROOT + read("/proc/self/cgroup").strip().partition("::")[2]
    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
        # before any --name: a global option, for every job
        p = subprocess.Popen([*argv[:2], f"--startdelay={delay}", *argv[2:]], stdout=out, stderr=err,
                             text=True)
        try:
            while p.poll() is None and not _has_sysv_segment(p.pid):
                if time.monotonic() >= attach_by:
                    raise SlowFioSetup(what, delay)
                time.sleep(0.1)
            time.sleep(0.5)
            base, running = _threads(p.pid), False
            at_s, at_fn = at or (0, None)
            due = None      # when at_fn is due (monotonic), 0 once it was called
            follower = CgroupFollower(cgroup, page_cache_mb, info if info is not None else {}) \
                if page_cache_mb else None
            if p.poll() is None:
                write(f"{cgroup}/cgroup.procs", p.pid)
            with urgent() if follower else nullcontext():
                while p.poll() is None:
                    if follower:
                        follower.follow()
                    n = _threads(p.pid)
                    if n >= base + threads:
                        if at_fn and due is None:
                            # seen within a poll (0.2 s) of fio starting them: aim at its clock
                            due = time.monotonic() + at_s - 0.1
                        running = True
                    elif running and n <= base + 1:     # every job has ended (a helper may remain)
                        write(f"{home}/cgroup.procs", p.pid)
                        running = False
                    if due and running and time.monotonic() >= due:
                        due = 0
                        at_fn(p.pid)
                    if end_by and time.monotonic() > end_by:
                        raise RuntimeError(f"`{what}` did not finish within {timeout} s")
                    time.sleep(0.2)
        except BaseException:
            if p.poll() is None:
                p.kill()
                p.wait()
            raise
        out.seek(0)
        err.seek(0)
        if p.returncode != 0:
            raise RuntimeError(f"`{what}` failed ({p.returncode}): {err.read().strip()[-2000:]}")
        return out.read()


def thread_reads(pid):
    """[(tid, bytes read)] of each thread of process pid, in the order the threads were
    created (/proc/PID/task/TID/io rchar: every read(2)-family call, pread included; fio
    creates its --thread jobs in job order, after its helper threads)."""
    out = []
    for t in os.listdir(f"/proc/{pid}/task"):
        try:
            with open(f"/proc/{pid}/task/{t}/io") as f:
                rchar = next(int(line.split()[1]) for line in f if line.startswith("rchar:"))
        except (FileNotFoundError, ProcessLookupError, StopIteration):
            continue
        out.append((int(t), rchar))
    return sorted(out)


def task_stat(path):
    """(comm, state) from a /proc/PID/stat or /proc/PID/task/TID/stat file, None once the
    task is gone (comm may hold spaces and parentheses: it ends at the last ')')."""
    try:
        stat = Path(path).read_text()
    except OSError:
        return None
    return stat[stat.index("(") + 1:stat.rindex(")")], stat[stat.rindex(")") + 2]


@contextmanager
def urgent():
    """The calling thread at real-time priority (SCHED_FIFO 1) inside the block, its own
    policy back after it whatever happened: a snapshot taken while hundreds of reader
    threads share two CPUs gets one of them as soon as it is runnable."""
    policy, param = os.sched_getscheduler(0), os.sched_getparam(0)
    os.sched_setscheduler(0, os.SCHED_FIFO, os.sched_param(1))
    try:
        yield
    finally:
        os.sched_setscheduler(0, policy, param)


def _threads(pid):
    """Threads of process pid (0 once it is gone)."""
    try:
        with open(f"/proc/{pid}/status") as f:
            return next(int(line.split()[1]) for line in f if line.startswith("Threads:"))
    except (FileNotFoundError, ProcessLookupError):
        return 0


def _has_sysv_segment(pid):
    try:
        with open(f"/proc/{pid}/maps") as f:
            return "SYSV" in f.read()
    except FileNotFoundError:
        return True     # gone: nothing to wait for; communicate() reports how it ended


# ---------------------------------------------------------------- roles

class Disk:
    """The memory-backed null_blk device (optionally HDD-like) with a filesystem, mounted at
    a path, or tmpfs there."""

    def __init__(self, path=EXPORT):
        self.path = path
        self.fs = None
        self.dev = None
        self.proc = None     # the seeking disk's server

    def create(self, fs, size_mb, latency_us=0, mbps=0, queue_depth=0, seek_us=0, track_kb=1024, wcache=False, ncq=32,
               scheduler="default", nr_requests=0):
        os.makedirs(self.path, exist_ok=True)
        self.fs = fs
        if fs == "tmpfs":
            run(["mount", "-t", "tmpfs", "-o", f"size={size_mb}m", "tmpfs", self.path])
            return
        if seek_us:
            self.create_seeking(size_mb, latency_us, mbps, seek_us, track_kb, wcache, ncq)
        else:
            self.create_null_blk(size_mb, latency_us, mbps, queue_depth)
        self.set_queue(scheduler, nr_requests)
        self.format(fs)

    def set_queue(self, scheduler, nr_requests):
        """The disk's I/O scheduler and request pool, as asked ('default' and 0: the kernel's
        choice; null_blk with one hardware queue slot gets none, and a pool of one request)."""
        q = f"/sys/block/{self.dev}/queue"
        if scheduler != "default":
            write(f"{q}/scheduler", scheduler)
            if f"[{scheduler}]" not in read(f"{q}/scheduler"):
                raise RuntimeError(f"{self.dev}: scheduler {scheduler} not taken: {read(f'{q}/scheduler').strip()}")
        if nr_requests:
            write(f"{q}/nr_requests", nr_requests)
            got = int(read(f"{q}/nr_requests"))
            if got != nr_requests:
                raise RuntimeError(f"{self.dev}: nr_requests {nr_requests} asked, the queue has {got}")

    def create_null_blk(self, size_mb, latency_us, mbps, queue_depth):
        """The memory-backed null_blk device, with the completion time, bandwidth cap and queue
        depth asked for (an HDD-like disk)."""
        d = f"{NULLB}/{DISK}"
        os.mkdir(d)
        write(f"{d}/memory_backed", 1)
        write(f"{d}/size", size_mb)
        write(f"{d}/blocksize", 4096)
        # A request up to 1280 KiB, what the block layer gives a SATA disk (max_sectors_kb,
        # BLK_DEF_MAX_SECTORS_CAP). null_blk's own default is BLK_SAFE_MAX_SECTORS, 255 sectors:
        # every 128 KiB readahead would go out as 127.5 KiB + 512 bytes, two requests that each
        # pay the completion time, halving what an HDD-like disk serves.
        write(f"{d}/max_sectors", MAX_SECTORS)
        if latency_us:
            write(f"{d}/irqmode", 2)
            write(f"{d}/completion_nsec", latency_us * 1000)
        if mbps:
            write(f"{d}/mbps", mbps)
        if queue_depth:
            write(f"{d}/hw_queue_depth", queue_depth)
        write(f"{d}/power", 1)
        if not os.path.exists(f"/dev/{DISK}"):
            raise RuntimeError(f"null_blk device /dev/{DISK} did not appear")
        self.dev = DISK

    def create_seeking(self, size_mb, latency_us, mbps, seek_us, track_kb, wcache, ncq):
        """The seeking disk: /dev/nbd0 served from this guest's memory by lab/guest/seekdisk.c
        (built here with the host's gcc), which charges a seek to every request that does not
        start where the last one ended. It runs until the guest powers off."""
        exe = "/tmp/seekdisk"
        src = Path(__file__).resolve().parent / "seekdisk.c"
        run(["gcc", "-O2", "-Wall", "-o", exe, str(src)], what="gcc seekdisk.c")
        argv = [exe, f"/dev/{NBD}", size_mb, seek_us, latency_us, mbps, track_kb, int(wcache), ncq, SEEKDISK_STATS]
        self.proc = subprocess.Popen([str(a) for a in argv], stdin=subprocess.DEVNULL, stderr=subprocess.PIPE,
                                     text=True)
        size = f"/sys/block/{NBD}/size"
        for _ in range(200):
            if self.proc.poll() is not None:
                raise RuntimeError(f"seekdisk exited {self.proc.returncode}: {self.proc.stderr.read().strip()}")
            if os.path.exists(size) and read(size).strip() not in ("", "0"):
                break
            time.sleep(0.05)
        else:
            self.proc.kill()
            raise RuntimeError(f"/dev/{NBD} did not come up under seekdisk")
        # the same request size as the null_blk disk (see create)
        write(f"/sys/block/{NBD}/queue/max_sectors_kb", MAX_SECTORS // 2)
        self.dev = NBD

    def format(self, fs):
        """A fresh filesystem (umount, mkfs, mount): every point of a write benchmark starts
        from the same empty disk."""
        if fs == "tmpfs" or self.fs == "tmpfs":
            raise RuntimeError("tmpfs is not reformatted; use ext4 or xfs")
        if os.path.ismount(self.path):
            run(["umount", self.path])
        # ext4 without lazy init: its background inode-table zeroing would write to the disk
        # during the first points.
        mkfs = {"ext4": ["mkfs.ext4", "-q", "-F", "-E", "lazy_itable_init=0,lazy_journal_init=0"],
                "xfs": ["mkfs.xfs", "-q", "-f"]}[fs]
        run([*mkfs, f"/dev/{self.dev}"])
        run(["mount", "-t", fs, f"/dev/{self.dev}", self.path])
        self.fs = fs

    def counters(self):
        c = parse_diskstats(read("/proc/diskstats"), self.dev) if self.dev else {}
        if self.dev == NBD:
            if self.proc.poll() is not None:
                raise RuntimeError(f"seekdisk (/dev/{NBD}) exited {self.proc.returncode}: "
                                   f"{self.proc.stderr.read().strip()}")
            c.update(seekdisk_counters())
        return c


class Server:
    """nfsd in the init netns exporting EXPORT."""

    ip = SRV_IP
    export = EXPORT

    def __init__(self):
        self.started = False

    def start(self, threads=8):
        run(["bash", "-c", f". {Path(__file__).parent}/lib.sh; lab_nfsd {int(threads)}"], what="lab_nfsd")
        self.started = True

    def reexport(self):
        """After the exported filesystem changed under nfsd (a new mkfs)."""
        run(["exportfs", "-ra"])

    def unexport(self):
        run(["exportfs", "-ua"])

    def path(self, name):
        return f"{EXPORT}/{name}"

    def run(self, argv, **kw):
        return run(argv, **kw)


class Client:
    """One NFS client: a network namespace with its own veth and mount point. With udev
    running ([guest] udev), mount() returns once udev has handled the mount's new bdi."""

    udev = None

    def __init__(self, index, netns, ip):
        self.index = index
        self.netns = netns
        self.ip = ip
        self.mnt = MNT if index == 0 else f"{MNT}{index + 1}"
        self.key = None

    def net(self, argv):
        return ["nsenter", f"--net=/run/netns/{self.netns}", *argv]

    def run(self, argv, **kw):
        return run(argv, **kw)

    def mount(self, vers, opts, fresh=False):
        """Mount the export at self.mnt (from the client's netns); a no-op if it is already
        mounted with the same version and options, unless fresh."""
        key = (vers, opts)
        if key == self.key and not fresh:
            return False
        self.umount()
        os.makedirs(self.mnt, exist_ok=True)
        run(self.net(self.mount_argv(vers, opts, self.mnt)))
        self.key = key
        if self.udev:
            self.udev.settle()
        return True

    @staticmethod
    def mount_argv(vers, opts, mnt):
        """mount(8) of the export at mnt (to run in the client's netns)."""
        if vers == "3":
            src, o = f"{SRV_IP}:{EXPORT}", f"vers=3,nolock{',' + opts if opts else ''}"
        else:
            src, o = f"{SRV_IP}:/", f"vers={vers}{',' + opts if opts else ''}"
        return ["mount", "-t", "nfs", "-o", o, src, mnt]

    def umount(self):
        if self.key is not None:
            run(["umount", self.mnt])
            self.key = None

    def option(self, name):
        """A mount option's value as the kernel reports it (/proc/mounts)."""
        val = None
        for line in read("/proc/mounts").splitlines():
            w = line.split()
            if w[1] == self.mnt:
                for o in w[3].split(","):
                    k, _, v = o.partition("=")
                    if k == name:
                        val = v
        return val

    def bdi(self):
        return bdi_of(self.mnt)

    def path(self, name):
        return f"{self.mnt}/{name}"

    def counters(self):
        return parse_mountstats(read("/proc/self/mountstats"), self.mnt) if self.key else {}


class Link:
    """The network between the server and the clients; netem on the shared bottleneck. The
    link ceiling (iperf3, server to client 0) is measured once per delay."""

    def __init__(self, n_clients, rate, limit):
        self.rate, self.limit = rate, limit
        self.delay = None
        self.ceiling = {}
        self.clients = []
        self.routed = n_clients > 1
        if not self.routed:
            run(["bash", "-c", f". {Path(__file__).parent}/lib.sh; lab_link 0 {rate} {limit}"], what="lab_link")
            self.clients = [Client(0, "cli", "10.9.0.2")]
            self.qdiscs = [(None, "srv"), ("cli", "cli")]
        else:
            self._routed(n_clients)
        run(["iperf3", "-s", "-D", "-B", SRV_IP], stdin=subprocess.DEVNULL)

    def _routed(self, n):
        sh = []
        sh += ["ip netns add rtr", "ip link add srv type veth peer name rsrv netns rtr",
               f"ip addr add {SRV_IP}/24 dev srv", "ip link set srv up", "ip link set lo up",
               "ip netns exec rtr sysctl -q -w net.ipv4.ip_forward=1",
               "ip -n rtr addr add 10.9.0.254/24 dev rsrv", "ip -n rtr link set rsrv up",
               "ip -n rtr link set lo up", "ip route add 10.9.0.0/16 via 10.9.0.254"]
        for i in range(n):
            ns = "cli" if i == 0 else f"cli{i + 1}"
            net = i + 1
            sh += [f"ip netns add {ns}", f"ip link add r{net} netns rtr type veth peer name cli netns {ns}",
                   f"ip -n rtr addr add 10.9.{net}.1/24 dev r{net}", f"ip -n rtr link set r{net} up",
                   f"ip -n {ns} addr add 10.9.{net}.2/24 dev cli", f"ip -n {ns} link set cli up",
                   f"ip -n {ns} link set lo up", f"ip -n {ns} route add default via 10.9.{net}.1",
                   # Every namespace has the guest's hostname: without an identifier of its own
                   # each would present the same NFSv4 client owner, and the server would take
                   # them for one client whose sessions keep replacing each other (seen: one
                   # of three clients read, the others stalled). `ip netns exec` mounts the
                   # namespace's own /sys, where this file is per namespace.
                   f"ip netns exec {ns} sh -c 'echo lab-{ns} >/sys/fs/nfs/net/nfs_client/identifier'"]
            self.clients.append(Client(i, ns, f"10.9.{net}.2"))
        # The shared bottleneck carries wire-sized packets: with segmentation offloads a veth
        # queues 64 KiB super-packets, netem's `limit` then holds seconds of data and the first
        # TCP flow to fill it starves the others (seen: 3 clients, one read 8 MB/s, two ~0).
        sh += ["ethtool -K srv gso off tso off gro off >/dev/null",
               "ip netns exec rtr ethtool -K rsrv gso off tso off gro off >/dev/null"]
        args = self._netem_args(0)
        sh += [f"tc qdisc add dev srv root netem {args}", f"ip netns exec rtr tc qdisc add dev rsrv root netem {args}"]
        run(["bash", "-ec", "\n".join(sh)], what="routed topology")
        self.qdiscs = [(None, "srv"), ("rtr", "rsrv")]

    def _netem_args(self, d):
        return f"delay {d}ms limit {self.limit}" + ("" if self.rate == "none" else f" rate {self.rate}")

    def _tc(self, ns, argv):
        return run((["nsenter", f"--net=/run/netns/{ns}"] if ns else []) + ["tc", *argv])

    def set_delay(self, d):
        """Change the delay on the bottleneck's both ends; True if it changed."""
        if d == self.delay:
            return False
        for ns, dev in self.qdiscs:
            self._tc(ns, ["qdisc", "change", "dev", dev, "root", "netem", *self._netem_args(d).split()])
        self.delay = d
        if d not in self.ceiling:
            self.ceiling[d] = self.measure_ceiling()
        return True

    def measure_ceiling(self):
        """Server-to-client TCP throughput in MB/s (the direction NFS READ data flows)."""
        out = run(self.clients[0].net(["iperf3", "-c", SRV_IP, "-R", "-t", "4", "-O", "1", "-J"]), check=False)
        try:
            return round(json.loads(out)["end"]["sum_received"]["bits_per_second"] / 8 / 1e6, 1)
        except (ValueError, KeyError):
            log(f"iperf3 gave no result at delay {self.delay} ms")
            return None

    def rtt(self, client=0):
        """Mean RTT in ms of 5 pings from a client to the server, 50 ms apart."""
        out = run(self.clients[client].net(["ping", "-q", "-c", "5", "-i", "0.05", SRV_IP]))
        m = re.search(r"= [0-9.]+/([0-9.]+)/", out)
        if not m:
            raise RuntimeError(f"no RTT in ping's output: {out.strip()[-300:]}")
        return float(m.group(1))

    def drops(self):
        out = "".join(self._tc(ns, ["-s", "qdisc", "show", "dev", dev]) for ns, dev in self.qdiscs)
        return sum(int(n) for n in re.findall(r"dropped (\d+)", out))

    def counters(self):
        s = "/sys/class/net/srv/statistics"
        return {"net_tx_bytes": int(read(f"{s}/tx_bytes")), "net_rx_bytes": int(read(f"{s}/rx_bytes")),
                "net_drops": self.drops()}


# ---------------------------------------------------------------- udev

NFSRAHEAD = "/usr/libexec/nfsrahead"
NFSRAHEAD_CONF = "/etc/nfs.conf.d/lab-nfsrahead.conf"
UDEV_RULES = "/run/udev/rules.d"


class Udev:
    """[guest] udev: udevd as a Debian 12 machine runs it, in this guest only.

    debian:    Debian's udevd (the udev package unpacked by lab/udev.sh; the host has none
               installed) with the rules of the host's packages (/usr/lib/udev/rules.d, where
               nfs-common's 99-nfs.rules runs /usr/libexec/nfsrahead for every new bdi and
               writes its answer to read_ahead_kb) and the udev package's own rules (copied to
               this guest's /run/udev/rules.d).
    companion: the same, with nfsrahead built from patches/nfs-utils bind-mounted over
               /usr/libexec/nfsrahead in this guest (the host's root is read-only to the
               guest; its file never changes).
    off:       no udevd: the kernel's value stands (the lab's default).
    """

    MODES = ("off", "debian", "companion")

    def __init__(self, root):
        self.root = root
        self.mode = "off"

    def udevadm(self, *args, **kw):
        return run([f"{self.root}/bin/udevadm", *args], **kw)

    def start(self, mode, coldplug=True):
        """Start udevd in this mode (stopping one already running) and, as a booting machine
        does, replay the add events of every device already there (coldplug)."""
        if mode not in self.MODES:
            raise RuntimeError(f"udev mode must be one of {', '.join(self.MODES)}, not {mode!r}")
        self.stop()
        if mode == "off":
            return
        if not self.root or not os.path.exists(f"{self.root}/bin/udevadm"):
            raise RuntimeError(f"[guest] udev = {mode!r} needs lab/udev.sh's output on the host, "
                               f"not found at {self.root!r}")
        os.makedirs(UDEV_RULES, exist_ok=True)
        for f in Path(self.root, "rules.d").glob("*.rules"):
            shutil.copy(f, UDEV_RULES)
        if mode == "companion":
            run(["mount", "--bind", f"{self.root}/nfsrahead", NFSRAHEAD])
        run([f"{self.root}/bin/systemd-udevd", "--daemon"], what="systemd-udevd --daemon")
        self.mode = mode
        if coldplug:
            self.udevadm("trigger", "--type=subsystems", "--action=add")
            self.udevadm("trigger", "--type=devices", "--action=add")
        self.settle()

    def stop(self):
        """Stop udevd and wait until it and its workers are gone: a worker still running
        would handle the next mount's event (with the installed nfsrahead, once the
        companion's bind mount is gone), which made "udev off" cases flaky."""
        if self.mode == "off":
            return
        self.udevadm("control", "--exit", check=False)

        def alive():
            """udevd processes that still run (the guest's init does not reap, so the ones
            that exited stay as zombies, which pgrep would count)."""
            n = 0
            for pid in filter(str.isdigit, os.listdir("/proc")):
                st = task_stat(f"/proc/{pid}/stat")
                n += st is not None and st[0] == "systemd-udevd" and st[1] != "Z"
            return n

        def gone(secs):
            end = time.monotonic() + secs
            while alive():
                if time.monotonic() > end:
                    return False
                time.sleep(0.1)
            return True
        if not gone(2):
            run(["pkill", "-9", "-x", "systemd-udevd"], check=False)
            if not gone(5):
                raise RuntimeError("systemd-udevd does not go away, even with SIGKILL")
        if self.mode == "companion":
            run(["umount", NFSRAHEAD])
        self.mode = "off"

    def settle(self):
        """Wait until udev has handled every event queued so far (the mount's new bdi). A
        settle that loses its control connection ("Broken pipe", seen once on the debug
        kernel right after udevd started) is asked again, twice at most."""
        if self.mode == "off":
            return
        for attempt in range(3):
            try:
                self.udevadm("settle", "--timeout=60")
                return
            except RuntimeError as e:
                if attempt == 2 or "Broken pipe" not in str(e):
                    raise
                log(f"udevadm settle lost its connection, asking again: {e}")
                time.sleep(1)

    def nfs_conf(self, kb):
        """An explicit [nfsrahead] setting for every NFS mount (nfs= and nfs4=), in a file of
        this guest's /etc/nfs.conf.d; kb 0 removes it (nothing set, the distribution's
        default configuration)."""
        if kb:
            os.makedirs(os.path.dirname(NFSRAHEAD_CONF), exist_ok=True)
            Path(NFSRAHEAD_CONF).write_text(f"[nfsrahead]\nnfs={kb}\nnfs4={kb}\n")
        else:
            Path(NFSRAHEAD_CONF).unlink(missing_ok=True)


# ---------------------------------------------------------------- knobs, cgroup

class Knobs:
    """[knobs]: /proc/sys and /sys files written before a point and read back."""

    def apply(self, knobs):
        """Write each knob, read it back; returns {"knob.<name>": value read back} and a list
        of mismatches. A write the kernel refuses fails the point, naming the knob."""
        from scenario import knob_name  # noqa: PLC0415 - lab/ is on the guest's path

        got, bad = {}, []
        for path, v in knobs.items():
            try:
                write(path, v)
            except OSError as e:
                raise RuntimeError(f"knob {path} = {v!r}: {e.strerror}") from None
            back = read(path)
            got[f"knob.{knob_name(path)}"] = int(back) if re.fullmatch(r"-?\d+", back) else back
            if str(v).strip() != back:
                bad.append(f"knob {knob_name(path)}: wrote {v!r}, reads {back!r}")
        return got, bad


class Cgroup:
    """The workload's memory cgroup (cgroup v2): memory.max per point, PSI from memory.pressure."""

    def __init__(self):
        self.path = None

    def setup(self):
        """Mount cgroup2 and create the workload's cgroup; without a memory controller (a
        kernel built without CONFIG_MEMCG) the lab runs on, and a point that asks for a
        memory limit fails naming the reason."""
        try:
            os.makedirs(CGROOT, exist_ok=True)
            if not os.path.ismount(CGROOT):
                run(["mount", "-t", "cgroup2", "none", CGROOT])
            write(f"{CGROOT}/cgroup.subtree_control", "+memory")
            os.makedirs(WORK_CG, exist_ok=True)
            self.path = WORK_CG
        except (OSError, RuntimeError) as e:
            log(f"no memory cgroup for the workload: {e}")

    def limit(self, mb):
        if not self.path:
            if mb:
                raise RuntimeError("cgroup.memory_max_mb needs the memory cgroup controller (CONFIG_MEMCG)")
            return
        write(f"{self.path}/memory.max", f"{mb << 20}" if mb else "max")

    def counters(self):
        if not self.path:
            return {}
        out = parse_psi(read(f"{self.path}/memory.pressure"), "psi_mem")
        ev = dict(line.split() for line in read(f"{self.path}/memory.events").splitlines())
        out["cg_oom_kill"] = int(ev.get("oom_kill", 0))
        return out


# ---------------------------------------------------------------- sampler

class Sampler:
    """Samples cumulative counters every interval_ms into a CSV during a point: network bytes
    on the server's link, server disk bytes, dirty and writeback pages (global and per bdi)."""

    def __init__(self, env, interval_ms, path):
        self.env, self.interval, self.path = env, interval_ms / 1000.0, path
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._loop, daemon=True)

    def sample(self):
        s = {"t": round(time.monotonic() - self.t0, 3)}
        if self.env.link:
            st = "/sys/class/net/srv/statistics"
            s["net_tx_bytes"], s["net_rx_bytes"] = int(read(f"{st}/tx_bytes")), int(read(f"{st}/rx_bytes"))
        if self.env.disk:
            d = self.env.disk.counters()
            s["disk_read_bytes"], s["disk_write_bytes"] = d.get("disk_read_bytes", 0), d.get("disk_write_bytes", 0)
        v = dict(line.split() for line in read("/proc/vmstat").splitlines())
        s["nr_dirty_kb"], s["nr_writeback_kb"] = int(v["nr_dirty"]) * 4, int(v["nr_writeback"]) * 4
        for name, bdi in self.bdis.items():
            try:
                st = dict(re.findall(r"^(\w+):\s+(\d+) kB", read(f"/sys/kernel/debug/bdi/{bdi}/stats"), re.M))
                s[f"{name}_dirty_kb"] = int(st.get("BdiReclaimable", 0))
                s[f"{name}_writeback_kb"] = int(st.get("BdiWriteback", 0))
            except OSError:
                pass
        return s

    def _loop(self):
        with open(self.path, "w") as f:
            cols = None
            while True:
                s = self.sample()
                if cols is None:
                    cols = list(s)
                    f.write(",".join(cols) + "\n")
                f.write(",".join(str(s.get(c, "")) for c in cols) + "\n")
                f.flush()
                if self.stop.wait(self.interval):
                    break

    def __enter__(self):
        self.t0 = time.monotonic()
        self.bdis = self.env.bdis()    # fixed for the point: not stat'ed again every sample
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.stop.set()
        self.thread.join()


# ---------------------------------------------------------------- the environment

class Env:
    """What a family sees: the roles it asked for (NEEDS), and measure() around its timed part."""

    def __init__(self, outdir, plan):
        self.out = Path(outdir)
        self.plan = plan
        self.disk = self.server = self.link = None
        self.clients = []
        self.knobs = Knobs()
        self.cgroup = Cgroup()
        self.udev = Udev(plan.get("udev_dir"))
        self.point_id = None
        self.point_tag = None     # a second measured phase of a point (e.g. "readback")
        self.series_dir = self.out / "series"
        self.last_series = None   # the time series of the last measure() block, if sampled
        self.restart_measure = None  # inside a measure() block: start its deltas over

    # setup, called by the runner from the family's NEEDS
    def build(self, needs, setup):
        run(["bash", "-c", f". {Path(__file__).parent}/lib.sh; lab_mounts"], what="lab_mounts")
        self.cgroup.setup()
        # udevd runs before anything is mounted, as on a booted machine.
        self.udev.start(self.plan.get("guest", {}).get("udev", "off"))
        if "disk" in needs:
            srv = setup.get("server", setup.get("disk", {}))
            fs = srv["fs"][0] if isinstance(srv["fs"], list) else srv["fs"]
            self.disk = Disk(EXPORT if "nfs" in needs else "/srv/local")
            self.disk.create(fs, self.plan["disk_mb"], srv.get("disk_latency_us", 0), srv.get("disk_mbps", 0),
                             srv.get("queue_depth", 0), srv.get("disk_seek_us", 0), srv.get("disk_track_kb", 1024),
                             srv.get("disk_write_cache", False), srv.get("disk_ncq", 32),
                             srv.get("scheduler", "default"), srv.get("nr_requests", 0))
        if "nfs" in needs:
            self.server = Server()
        if "link" in needs:
            count = max(p["cfg"]["client"].get("count", 1) for p in self.plan["points"])
            lk = setup["link"]
            self.link = Link(count, lk["rate"], lk["limit"])
            self.clients = self.link.clients
            for c in self.clients:
                c.udev = self.udev

    # side effects families use, here so a fake environment can stand in for them
    def fio(self, args, cgroup=True, timeout=None, threads=0, fmt="json", at=None, page_cache_mb=0):
        """fio, in the workload's cgroup ([cgroup] memory_max_mb) unless cgroup=False; with
        threads=N (N --thread jobs) only the jobs' reads are charged there, not fio's setup.
        at=(seconds, fn), page_cache_mb: see fio()."""
        return fio(args, cgroup=self.cgroup.path if cgroup else None, timeout=timeout, threads=threads,
                   fmt=fmt, at=at, page_cache_mb=page_cache_mb)

    def run(self, argv, cgroup=False, **kw):
        return run(argv, cgroup=self.cgroup.path if cgroup else None, **kw)

    def read(self, path):
        return read(path)

    def write(self, path, value):
        write(path, value)

    def uncache(self, paths):
        return uncache(paths)

    def cached_pages(self, path, start=0):
        return cached_pages(path, start)

    def cached_map(self, path, first=0, count=None):
        return cached_map(path, first, count)

    def read_ahead_kb(self):
        """The disk's readahead window, KiB."""
        return int(read(f"/sys/block/{self.disk.dev}/queue/read_ahead_kb"))

    def cached_in(self, vec, start=0):
        return cached_in(vec, start)

    def thread_reads(self, pid):
        return thread_reads(pid)

    def urgent(self):
        """See urgent(): this thread ahead of the workload's."""
        return urgent()

    def disk_read_bytes(self):
        """Bytes the disk has read since boot (0 without a disk)."""
        return self.disk.counters().get("disk_read_bytes", 0) if self.disk else 0

    def drop_caches(self):
        drop_caches()

    def bdis(self):
        """The bdis worth watching: the server disk and the first client's mount."""
        out = {}
        if self.disk and self.disk.dev:
            st = os.stat(f"/dev/{self.disk.dev}").st_rdev
            out["disk"] = f"{os.major(st)}:{os.minor(st)}"
        if self.clients and self.clients[0].key:
            out["nfs"] = self.clients[0].bdi().rsplit("/", 1)[1]
        return out

    def counters(self):
        c = parse_vmstat(read("/proc/vmstat"))
        if os.path.exists("/proc/pressure/memory"):
            c.update(parse_psi(read("/proc/pressure/memory"), "psi_sys"))
        c.update(self.cgroup.counters())
        if self.disk:
            c.update(self.disk.counters())
        if self.link:
            c.update(self.link.counters())
        for cl in self.clients:
            for k, v in cl.counters().items():
                c[k] = c.get(k, 0) + v
        c["cpu_busy_s"] = cpu_busy()
        c["t"] = time.monotonic()
        return c

    @contextmanager
    def measure(self):
        """Around the timed part of a point: counter deltas (vmstat, PSI, disk, link, NFS
        ops), the readahead statistics of this window alone, and the time series if the
        scenario samples. Yields a dict that holds the deltas once the block is done. Inside
        the block, self.restart_measure() starts the deltas and the statistics over (a
        point's warm-up ends); the time series keeps its start."""
        res = {}
        state = {}

        def start():
            if os.path.exists(RA_STATS):
                write(RA_STATS, 0)
            state["before"] = self.counters()

        start()
        self.restart_measure = start
        sampler = None
        self.last_series = None
        if self.plan.get("sample_ms"):
            self.series_dir.mkdir(exist_ok=True)
            name = safe_name(self.point_id) + (f"@{self.point_tag}" if self.point_tag else "")
            self.last_series = self.series_dir / f"{name}.csv"
            sampler = Sampler(self, self.plan["sample_ms"], self.last_series)
            sampler.__enter__()
        try:
            yield res
        finally:
            self.restart_measure = None
            if sampler:
                sampler.__exit__()
        after, before = self.counters(), state["before"]
        res.update({k: round(after[k] - before[k], 3) for k in after if k in before})
        res["window_s"] = round(res.pop("t"), 3)
        busy = res.pop("cpu_busy_s")
        res["cpu_pct"] = round(100 * busy / (res["window_s"] * os.cpu_count()), 1) if res["window_s"] else None
        if os.path.exists(RA_STATS):
            st = parse_rastats(read(RA_STATS))
            res.update(rastats_metrics(st))
            (self.out / "rastats").mkdir(exist_ok=True)
            name = safe_name(self.point_id) + (f"@{self.point_tag}" if self.point_tag else "")
            (self.out / "rastats" / f"{name}.txt").write_text(read(RA_STATS) + "\n")


def bdi_of(path):
    """The bdi directory of the filesystem holding path."""
    dev = os.stat(path).st_dev
    return f"/sys/class/bdi/{os.major(dev)}:{os.minor(dev)}"


def cpu_busy():
    """Seconds all CPUs were busy since boot (/proc/stat), for guest CPU %."""
    with open("/proc/stat") as f:
        v = [int(x) for x in f.readline().split()[1:]]
    hz = os.sysconf("SC_CLK_TCK")
    return (sum(v) - v[3] - v[4]) / hz


def safe_name(pid):
    return re.sub(r"[^A-Za-z0-9_.=-]+", "_", pid or "point")
