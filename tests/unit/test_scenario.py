from pathlib import Path

import pytest

import scenario

SCENARIOS = sorted((Path(__file__).resolve().parents[2] / "lab" / "scenarios").glob("*.toml"))


def load_text(tmp_path, text, quick=False):
    p = tmp_path / "s.toml"
    p.write_text(text)
    return scenario.load(str(p), quick=quick)


@pytest.mark.parametrize("path", SCENARIOS, ids=lambda p: p.name)
def test_shipped_scenarios_validate_full_and_quick(path):
    for quick in (False, True):
        sc = scenario.load(str(path), quick=quick)
        assert sc.points, path
        assert len({p["id"] for p in sc.points}) == len(sc.points)


def test_matrix_expands_every_list_axis(tmp_path):
    sc = load_text(tmp_path, """
description = "x"
[link]
delay_ms = [0, 5]
[client]
rsize_kb = [512, 1024]
read_ahead_kb = ["default", 128, 4096]
[workload]
bs = ["4k", "1M"]
""")
    assert len(sc.points) == 2 * 2 * 3 * 2
    # Ids name the axes present, in the family's order (mounts change least often).
    assert sc.points[0]["id"] == "rsize_kb=512/delay_ms=0/read_ahead_kb=default/bs=4k"
    assert sc.points[1]["id"] == "rsize_kb=512/delay_ms=0/read_ahead_kb=default/bs=1m"
    assert {p["cfg"]["workload"]["bs"] for p in sc.points} == {"4k", "1m"}
    assert sc.points[0]["axes"] == {"client.rsize_kb": 512, "link.delay_ms": 0, "client.read_ahead_kb": "default",
                                    "workload.bs": "4k"}
    assert sc.points[0]["cfg"]["client"]["nfs_version"] == "4.2"    # fixed fields too


def test_quick_overrides_apply_only_with_quick(tmp_path):
    text = """
description = "x"
repetitions = 3
[link]
delay_ms = [0, 1, 5]
[quick]
repetitions = 1
[quick.link]
delay_ms = 5
"""
    assert len(load_text(tmp_path, text).points) == 3
    q = load_text(tmp_path, text, quick=True)
    assert (q.repetitions, [p["cfg"]["link"]["delay_ms"] for p in q.points]) == (1, [5])
    assert q.points[0]["id"] == "all"    # no axis left: one point


@pytest.mark.parametrize("text, field", [
    ('description = "x"\n[link]\ndelay = 5\n', "link.delay"),
    ('description = "x"\nbogus = 1\n', "bogus"),
    ('description = "x"\n[link]\ndelay_ms = -1\n', "link.delay_ms"),
    ('description = "x"\n[link]\ndelay_ms = [1, 1]\n', "link.delay_ms"),
    ('description = "x"\n[link]\ndelay_ms = []\n', "link.delay_ms"),
    ('description = "x"\n[link]\nrate = "fast"\n', "link.rate"),
    ('description = "x"\n[client]\nread_ahead_kb = "lots"\n', "client.read_ahead_kb"),
    ('description = "x"\n[client]\nrsize_kb = 1000\n', "client.rsize_kb"),
    ('description = "x"\n[client]\nnfs_version = "5"\n', "client.nfs_version"),
    ('description = "x"\n[workload]\nbs = "4q"\n', "workload.bs"),
    ('description = "x"\n[workload]\ntype = "write"\n', "workload.type"),
    ('description = "x"\n[server]\nsparse = "yes"\n', "server.sparse"),
    ('description = "x"\n[server]\nfs = "tmpfs"\ndisk_mbps = 50\n', "server.fs"),
    ('description = "x"\n[server]\nfs = "tmpfs"\ndisk_seek_us = 8000\n', "server.fs"),
    ('description = "x"\n[server]\ndisk_write_cache = true\n', "server.disk_seek_us"),
    ('description = "x"\n[server]\ndisk_track_kb = 64\n', "server.disk_seek_us"),
    ('description = "x"\n[server]\ndisk_ncq = 1\n', "server.disk_seek_us"),
    ('description = "x"\n[server]\ndisk_seek_us = 8000\ndisk_ncq = 0\n', "server.disk_ncq"),
    ('description = "x"\n[server]\ndisk_seek_us = -1\n', "server.disk_seek_us"),
    ('description = "x"\n[server]\ndisk_write_cache = "yes"\n', "server.disk_write_cache"),
    ('description = "x"\nfamily = "local-streams"\n[disk]\ndisk_seek_us = 8000\nqueue_depth = 1\n',
     "disk.queue_depth"),
    ('description = "x"\nfamily = "local-streams"\n[disk]\nscheduler = "bfq"\n', "disk.scheduler"),
    ('description = "x"\nfamily = "local-streams"\n[disk]\nnr_requests = 64\n', "disk.nr_requests"),
    ('description = "x"\nfamily = "local-streams"\n[disk]\nscheduler = "mq-deadline"\nnr_requests = 999\n',
     "disk.nr_requests"),
    ('description = "x"\nkernels = ["mine"]\n', "kernels"),
    ('description = "x"\nrepetitions = true\n', "repetitions"),
    ('description = "x"\n[quick.link]\ndelay = 1\n', "quick.link.delay"),
    ('[link]\ndelay_ms = 1\n', "description"),
    ('description = "x"\n[link\n', "not valid TOML"),
    ('description = "x"\nfamily = "nfs-raed"\n', "family"),
    ('description = "x"\n[server]\nfile_mb = [1, 2]\n', "server.file_mb: takes one value"),
    ('description = "x"\nfamily = "local-streams"\n[link]\ndelay_ms = 1\n', "link"),
    ('description = "x"\n[knobs]\n"vm/dirty_bytes" = 1\n', "knobs"),
    ('description = "x"\n[knobs]\n"/etc/passwd" = 1\n', "knobs"),
    ('description = "x"\n[knobs]\n"/proc/sys/../x" = 1\n', "knobs"),
    ('description = "x"\n[knobs]\n"/proc/sys/vm/x" = 1.5\n', "knobs"),
    ('description = "x"\n[knobs]\n"/proc/sys/vm/x" = []\n', "knobs"),
    ('description = "x"\n[guest]\nmemory_mb = 1024\n', "guest.memory_mb"),
    ('description = "x"\n[guest]\ncpus = 0\n', "guest.cpus"),
    ('description = "x"\n[guest]\nram = 1\n', "guest.ram"),
    ('description = "x"\n[cgroup]\nmemory_max_mb = -1\n', "cgroup.memory_max_mb"),
    ('description = "x"\nsample_ms = 5\n', "sample_ms"),
    ('description = "x"\n[client]\ncount = 2\n[workload]\ntype = "smallfiles"\n', "client.count"),
])
def test_mistakes_name_the_field(tmp_path, text, field):
    with pytest.raises(scenario.ScenarioError) as e:
        load_text(tmp_path, text)
    assert field in str(e.value)


def test_missing_file_is_a_clear_error(tmp_path):
    with pytest.raises(scenario.ScenarioError, match="no such scenario file"):
        scenario.load(str(tmp_path / "nope.toml"))


def test_knobs_cgroup_and_guest_lists(tmp_path):
    sc = load_text(tmp_path, """
description = "x"
[knobs]
"/proc/sys/vm/dirty_bytes" = [1048576, 10485760]
"/sys/module/nfs/parameters/readahead_rsize_multiple" = 4
[cgroup]
memory_max_mb = [64, 128]
[guest]
memory_mb = [6144, 8192]
cmdline = "nfs.readahead_rsize_multiple=8"
""")
    # Knob and cgroup lists are axes; [guest] lists are boots.
    assert len(sc.points) == 4
    assert sc.points[0]["id"] == "memory_max_mb=64/vm.dirty_bytes=1048576"
    assert sc.points[0]["cfg"]["knobs"] == {"/proc/sys/vm/dirty_bytes": 1048576,
                                            "/sys/module/nfs/parameters/readahead_rsize_multiple": 4}
    assert [g["memory_mb"] for g in sc.guests] == [6144, 8192]
    assert sc.guests[0]["cmdline"] == "nfs.readahead_rsize_multiple=8"
    assert sc.plan(sc.guests[1])["guest"]["memory_mb"] == 8192


def test_guest_memory_defaults_to_what_the_family_needs_and_is_honoured_when_given(tmp_path):
    assert load_text(tmp_path, 'description = "x"\n').guests[0]["memory_mb"] == 5120
    assert load_text(tmp_path, 'description = "x"\n[server]\nfile_mb = 256\n[guest]\nmemory_mb = 2048\n'
                     ).guests[0]["memory_mb"] == 2048


def test_knob_names():
    assert scenario.knob_name("/proc/sys/vm/dirty_bytes") == "vm.dirty_bytes"
    assert scenario.knob_name("/sys/module/nfsd/parameters/nfsd_prealloc") == "nfsd.nfsd_prealloc"
    assert scenario.knob_name("/sys/block/labdisk/queue/read_ahead_kb") == "block/labdisk/queue/read_ahead_kb"


def test_families_have_their_own_tables(tmp_path):
    sc = load_text(tmp_path, """
description = "x"
family = "nfs-write"
[server]
fs = ["ext4", "xfs"]
[workload]
writers = [1, 4]
""")
    assert [p["id"] for p in sc.points] == ["fs=ext4/writers=1", "fs=ext4/writers=4", "fs=xfs/writers=1",
                                            "fs=xfs/writers=4"]
    assert sc.family == "nfs-write" and sc.sample_ms == 1000
    with pytest.raises(scenario.ScenarioError, match="workload.type"):
        load_text(tmp_path, 'description = "x"\nfamily = "nfs-write"\n[workload]\ntype = "seqread"\n')


def test_guest_udev_modes_are_boots_and_checked(tmp_path):
    sc = load_text(tmp_path, """
description = "x"
family = "nfs-mount"
[guest]
udev = ["off", "debian", "companion"]
[mount]
case = ["new", "early"]
nfsrahead_kb = [0, 2048]
""")
    assert [g["udev"] for g in sc.guests] == ["off", "debian", "companion"]
    assert [p["id"] for p in sc.points][:2] == ["nfsrahead_kb=0/case=new", "nfsrahead_kb=0/case=early"]
    assert load_text(tmp_path, 'description = "x"\n').guests[0]["udev"] == "off"
    with pytest.raises(scenario.ScenarioError, match="guest.udev"):
        load_text(tmp_path, 'description = "x"\n[guest]\nudev = "systemd"\n')
    with pytest.raises(scenario.ScenarioError, match="mount.nfsrahead_kb"):
        load_text(tmp_path, 'description = "x"\nfamily = "nfs-mount"\n[mount]\nnfsrahead_kb = "16M"\n')
