"""nfs-mount: the read_ahead_kb an NFS mount ends up with, once udev has had its say.

Patch 7 gives a new NFS mount max(128 KiB, 4 x rsize). On Debian (and every distribution
that ships nfs-utils' 99-nfs.rules) udev runs nfsrahead for the mount's new bdi a moment
later and writes its answer into read_ahead_kb. Run with [guest] udev = "debian" or
"companion" this family shows what a user gets, case by case:

    new       a fresh mount
    second    a second mount of the same export (same superblock, so the same bdi: no event)
    remount   mount -o remount of a mount udev has already handled
    early     mounted before udevd runs, as an NFS root is: udevd then starts and replays
              the add events of every device already there (coldplug)

read_ahead_kb is read after `udevadm settle`. [mount] nfsrahead_kb puts an explicit
[nfsrahead] nfs= / nfs4= setting in the guest's /etc/nfs.conf.d (0: none, the default).
"""

import time

from families import LINK, Choice, Int, client_params, disk_params, mount_opts

NAME = "nfs-mount"
NEEDS = ("disk", "nfs", "link")
CASES = ("new", "second", "remount", "early")
TABLES = {
    "server": {**disk_params(fs=("tmpfs", "ext4", "xfs"))},
    "link": LINK,
    "client": {k: v for k, v in client_params().items() if k != "count"},
    "mount": {
        "case": Choice("new", CASES, doc="new | second | remount | early (see the family's doc)"),
        "nfsrahead_kb": Int(0, 0, 1048576, doc="explicit [nfsrahead] nfs= and nfs4= in nfs.conf.d, KiB "
                            "(0: none)"),
    },
}
TABLES["server"]["fs"] = Choice("tmpfs", ("tmpfs", "ext4", "xfs"), axis=False, doc="filesystem on the disk")
AXIS_ORDER = ("mount.nfsrahead_kb", "client.nfs_version", "client.rsize_kb", "mount.case")
SAMPLE_MS = 0
PRIMARY = "ra_kb"
AB_EXTRA = ("rsize_kb",)
PLOT_X = {}
METRICS = {
    "ra_kb": "read_ahead_kb of the mount's bdi once udev has settled",
    "ra_kb_mount": "read_ahead_kb read the moment mount(8) returned (udev may not have run yet)",
    "rsize_kb": "rsize the mount got, KiB",
    "same_bdi": "second: the second mount shares the first one's bdi (1) or has its own (0)",
    "settle_ms": "from the start of mount(8) until udev had handled its events",
}
MNT2 = "/srv/nfs-second"


def guest_memory_mb(doc):
    return 2048


def disk_mb(doc, points=()):
    return 64


def point_seconds(cfg):
    return 40


# ---------------------------------------------------------------- guest side

def setup(env, plan):
    env.server.start(8)


def run_point(env, cfg):
    from guest.env import bdi_of  # noqa: PLC0415 - guest only

    cl, mo = cfg["client"], cfg["mount"]
    c = env.clients[0]
    udev = env.udev
    env.link.set_delay(cfg["link"]["delay_ms"])
    c.umount()
    if _mounted(env, MNT2):
        env.run(["umount", MNT2])
    udev.nfs_conf(mo["nfsrahead_kb"])
    row, checks = {}, []
    t0 = time.monotonic()
    case = mo["case"]
    if case == "early":
        # Mounted before udevd exists; udevd then starts and replays every add event.
        mode = udev.mode
        udev.stop()
        c.mount(cl["nfs_version"], mount_opts(cl), fresh=True)
        row["ra_kb_mount"] = _ra(env, c.bdi())
        udev.start(mode, coldplug=True)
    else:
        c.mount(cl["nfs_version"], mount_opts(cl), fresh=True)
        row["ra_kb_mount"] = _ra(env, c.bdi())
    bdi = c.bdi()
    if case == "second":
        env.run(["mkdir", "-p", MNT2])
        env.run(c.net(c.mount_argv(cl["nfs_version"], mount_opts(cl), MNT2)))
        udev.settle()
        bdi2 = bdi_of(MNT2)
        row["same_bdi"] = int(bdi2 == bdi)
        bdi = bdi2
    elif case == "remount":
        env.run(c.net(["mount", "-o", "remount," + mount_opts(cl), c.mnt]))
        udev.settle()
    row["settle_ms"] = round((time.monotonic() - t0) * 1000)
    row["ra_kb"] = _ra(env, bdi)
    got = c.option("rsize")
    row["rsize_kb"] = int(got) // 1024 if got else None
    if row["rsize_kb"] != cl["rsize_kb"]:
        checks.append(f"asked for rsize {cl['rsize_kb']} KiB, the mount has {row['rsize_kb']}")
    if case == "second":
        env.run(["umount", MNT2])
    row["checks"] = checks
    return row


def _ra(env, bdi):
    return int(env.read(f"{bdi}/read_ahead_kb"))


def _mounted(env, path):
    return any(line.split()[1] == path for line in env.read("/proc/mounts").splitlines())
