"""A fake guest environment: what lab/guest/env.py offers families, without a guest.

It records what a family asked for (mounts, writes, fio arguments, commands) and answers
with canned results, so a family's run_point() can be tested for what it computes."""

from contextlib import contextmanager

from guest import env as genv


def fio_json(read=None, write=None):
    jobs = {}
    if read:
        jobs["read"] = read
    if write:
        jobs["write"] = write
    return {"jobs": [jobs]}


class FakeClient:
    def __init__(self, index, rsize=None):
        self.index = index
        self.mnt = "/srv/nfs" if index == 0 else f"/srv/nfs{index + 1}"
        self.key = None
        self.mounts = []
        self.rsize = rsize

    def mount(self, vers, opts, fresh=False):
        self.mounts.append((vers, opts, fresh))
        self.key = (vers, opts)
        return True

    def umount(self):
        self.key = None

    def option(self, name):
        opts = dict(o.partition("=")[::2] for o in self.key[1].split(","))
        return self.rsize if name == "rsize" and self.rsize else opts.get(name)

    def bdi(self):
        return f"/sys/class/bdi/0:{50 + self.index}"

    def path(self, name):
        return f"{self.mnt}/{name}"


class FakeLink:
    def __init__(self, ceiling=100.0, rtt=10.0):
        self.delay = None
        self.ceiling = {}
        self._ceiling, self._rtt = ceiling, rtt
        self.delays = []

    def set_delay(self, d):
        if d == self.delay:
            return False
        self.delay = d
        self.delays.append(d)
        self.ceiling[d] = self._ceiling
        return True

    def rtt(self, client=0):
        return self._rtt


class FakeServer:
    export = "/srv/export"

    def __init__(self, outputs=None):
        self.commands = []
        self.outputs = outputs or {}
        self.unexports = self.reexports = 0

    def path(self, name):
        return f"{self.export}/{name}"

    def run(self, argv, **kw):
        self.commands.append(argv)
        return self.outputs.get(argv[0], "")

    def unexport(self):
        self.unexports += 1

    def reexport(self):
        self.reexports += 1

    def start(self, threads=8):
        self.threads = threads


class FakeDisk:
    def __init__(self, fs="ext4", path="/srv/export"):
        self.fs, self.path, self.dev = fs, path, "labdisk"
        self.formats = []

    def format(self, fs):
        self.formats.append(fs)
        self.fs = fs


class FakeEnv:
    """fio_results: a list of fio JSON documents returned in turn; deltas: a list of counter
    delta dicts that successive measure() blocks yield."""

    def __init__(self, fio_results, deltas, clients=1, files=None, cached=None, **kw):
        self.fio_results = list(fio_results)
        self.deltas = list(deltas)
        self.fio_calls = []
        self.writes = {}
        self.files = files or {}
        self.cached = cached
        self.uncached = []
        self.commands = []
        self.clients = [FakeClient(i, kw.get("rsize")) for i in range(clients)]
        self.link = FakeLink(kw.get("ceiling", 100.0), kw.get("rtt", 10.0))
        self.server = FakeServer(kw.get("server_outputs"))
        self.disk = FakeDisk(kw.get("fs", "ext4"))
        self.point_tag = None
        self.out = "/out"

    def fio(self, args, cgroup=True, timeout=None, threads=0, fmt="json", at=None, page_cache_mb=0):
        """at=(seconds, fn): fn(pid) is called (pid 4242) before the result is returned."""
        self.fio_calls.append({"args": args, "cgroup": cgroup, "threads": threads, "fmt": fmt, "at": at,
                               "page_cache_mb": page_cache_mb})
        if at:
            at[1](4242)
        return self.fio_results.pop(0)

    def thread_reads(self, pid):
        """self.reads: [(tid, rchar)] of fio's threads."""
        return getattr(self, "reads", [])

    def run(self, argv, cgroup=False, **kw):
        self.commands.append(argv)
        outs = getattr(self, "run_outputs", None)
        return outs.pop(0) if outs else ""

    def read(self, path):
        return str(self.writes.get(path, self.files.get(path, "128")))

    def write(self, path, value):
        self.writes[path] = value

    def uncache(self, paths):
        self.uncached.append(list(paths))
        return self.cached if self.cached is not None else [0] * len(paths)

    def drop_caches(self):
        self.commands.append(["drop_caches"])

    @contextmanager
    def urgent(self):
        """Records that the block ran ahead of the workload; self.restarts and what was read
        are noted inside."""
        self.urgent_blocks = getattr(self, "urgent_blocks", 0) + 1
        self.in_urgent = True
        try:
            yield
        finally:
            self.in_urgent = False

    def disk_read_bytes(self):
        """self.disk_reads: successive values, one per call (0 once they run out)."""
        left = getattr(self, "disk_reads", [])
        return left.pop(0) if left else 0

    def restart_measure(self):
        self.restarted_urgent = getattr(self, "in_urgent", False)
        self.restarts = getattr(self, "restarts", 0) + 1

    def cached_map(self, path, first=0, count=None):
        """self.maps: path -> the whole file's mincore() vector (bytes), cut to what is
        asked; self.mapped records (path, first, count)."""
        self.mapped = getattr(self, "mapped", []) + [(path, first, count)]
        vec = getattr(self, "maps", {}).get(path, b"")
        return vec[first:] if count is None else vec[first:first + count]

    def read_ahead_kb(self):
        return getattr(self, "ra_kb", 128)

    def cached_in(self, vec, start=0):
        return genv.cached_in(vec, start)

    def cached_pages(self, path, start=0):
        """self.tails: path -> pages cached from the reader's position on (asked at start)."""
        self.cached_asked = getattr(self, "cached_asked", []) + [(path, start)]
        return getattr(self, "tails", {}).get(path, 0)

    def bdis(self):
        return {"disk": "254:0", "nfs": "0:50"}

    @contextmanager
    def measure(self):
        d = {}
        yield d
        d.update(self.deltas.pop(0))
