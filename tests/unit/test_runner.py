"""The runners' bookkeeping: resume, retries, torn lines; and the guest's counter parsers."""

import json

import pytest

import bench as host_bench
from guest import bench as guest_bench
from guest import env as genv


def test_guest_runner_cuts_a_torn_line_and_retries_failures(tmp_path):
    res = tmp_path / "results.jsonl"
    res.write_text(json.dumps({"id": "a", "mbps": 1}) + "\n" + json.dumps({"id": "b", "error": "x"}) + "\n"
                   + '{"id": "c", "mb')
    assert guest_bench.measured(res) == {"a"}           # b failed: retried; c was torn
    assert res.read_text().endswith('"error": "x"}\n')   # the torn line is gone, the rest kept


def test_host_reads_results_and_appends_after_a_torn_line(tmp_path):
    res = tmp_path / "results.jsonl"
    res.write_text(json.dumps({"id": "a", "error": "x"}) + "\n" + json.dumps({"id": "a", "mbps": 2}) + "\n"
                   + json.dumps({"id": "b", "error": "y"}) + "\n" + '{"id": "c"')
    assert host_bench.read_results(res) == {"a": "ok", "b": "error"}
    host_bench.append_row(res, {"id": "c", "error": "guest timed out during this point"})
    assert host_bench.read_results(res) == {"a": "ok", "b": "error", "c": "error"}


def test_host_finds_the_splat_in_a_console_log(tmp_path):
    log = tmp_path / "console.log"
    log.write_text("boot\n[   12.3] BUG: kernel NULL pointer dereference, address: 0000\nmore\n")
    assert host_bench.splat(log).startswith("[   12.3] BUG: kernel NULL pointer")
    log.write_text("all well\n")
    assert host_bench.splat(log) is None


def test_mountstats_sums_read_and_read_plus_and_counts_writes():
    text = """device 10.9.0.1:/ mounted on /other with fstype nfs4 statvers=1.1
\tbytes:\t1 2 3 4 999 6 7 8
\t   READ: 50 50 0 100 100 0 0 0 0
device 10.9.0.1:/ mounted on /srv/nfs with fstype nfs4 statvers=1.1
\tbytes:\t10 0 0 0 4096000 2048000 1000 0
\t   READ: 3 3 0 300 3000 0 0 0 0
\t   READ_PLUS: 7 7 0 700 7000 0 0 0 0
\t   WRITE: 2 2 0 2000000 300 0 0 0 0
\t   COMMIT: 1 1 0 100 100 0 0 0 0
"""
    got = genv.parse_mountstats(text, "/srv/nfs")
    assert got == {"nfs_read_ops": 10, "nfs_read_rpc_bytes": 10000, "nfs_write_ops": 2,
                   "nfs_write_rpc_bytes": 2000000, "nfs_commit_ops": 1, "nfs_server_read_bytes": 4096000,
                   "nfs_server_write_bytes": 2048000}


def test_counter_parsers():
    assert genv.parse_diskstats(" 252 0 labdisk 10 0 80 5 20 0 160 7 0 0 0\n 8 0 vda 1 0 8 0 0 0 0 0 0 0 0",
                                "labdisk") == {"disk_read_ios": 10, "disk_read_bytes": 40960,
                                               "disk_write_ios": 20, "disk_write_bytes": 81920}
    assert genv.parse_psi("some avg10=0.00 avg60=0.00 avg300=0.00 total=2500\n"
                          "full avg10=0.00 avg60=0.00 avg300=0.00 total=1000\n", "psi_mem") == {
        "psi_mem_some_ms": 2.5, "psi_mem_full_ms": 1.0}
    assert genv.parse_seekdisk("requests 9\nseeks 4\nskips 2\nread_bytes 1\nwrite_bytes 0\nbusy_us 123456\n") == {
        "disk_seeks": 4, "disk_skips": 2, "disk_busy_ms": 123}
    with pytest.raises(ValueError):      # a read that caught a rewrite half done: read again
        genv.parse_seekdisk("requests 9\nseeks")
    vm = genv.parse_vmstat("nr_dirty 5\nworkingset_refault_file 7\npgmajfault 3\n")
    assert vm["vm_workingset_refault_file"] == 7 and vm["vm_pgmajfault"] == 3 and vm["vm_pgscan_direct"] == 0
    stats = genv.parse_rastats(
        "pattern readahead eof_hit cache_hit io sync_io mmap_io size async_size io_size\n"
        "initial 4 0 0 4 4 0 32 8 32\nthrash 2 0 0 2 2 0 8 0 8\nrandom 0 0 0 0 0 0 0 0 0\n"
        "all 6 0 0 6 6 0 24 5 24\n")
    assert genv.rastats_metrics(stats) == {"ra_windows": 6, "ra_io": 6, "ra_sync_io": 6, "ra_mmap_io": 0,
                                           "ra_initial": 4, "ra_thrash": 2}


def test_the_page_cache_budget_follows_fio_s_own_memory_up_never_down():
    stat = ("anon {a}\nfile {f}\nkernel 9000000\nkernel_stack {k}\npagetables 8192\nshmem {s}\n"
            "slab 5000000\ninactive_file 1000\n")
    # own memory: anon + shmem + kernel stacks + page tables; not the page cache, not slab
    assert genv.own_memory(stat.format(a=4096, f=50 << 20, k=16384, s=1 << 20)) == 4096 + 16384 + 8192 + (1 << 20)
    assert genv.own_memory("") == 0
    now, writes, info = {}, [], {}
    f = genv.CgroupFollower("/cg", 96, info, read_fn=lambda path: now["stat"],
                            write_fn=lambda path, v: writes.append((path, v)))
    now["stat"] = stat.format(a=0, f=0, k=0, s=17 << 20)        # right after the move
    f.follow()
    assert writes == [("/cg/memory.max", (96 << 20) + (17 << 20) + 8192)]
    now["stat"] = stat.format(a=25 << 20, f=90 << 20, k=5 << 20, s=36 << 20)   # the jobs started
    f.follow()
    top = (96 << 20) + (25 << 20) + (5 << 20) + (36 << 20) + 8192
    assert writes[-1] == ("/cg/memory.max", top) and len(writes) == 2
    now["stat"] = stat.format(a=1 << 20, f=90 << 20, k=0, s=36 << 20)          # they ended
    f.follow()
    assert len(writes) == 2 and info == {"own_max": top - (96 << 20), "memory_max": top}
    with pytest.raises(ValueError, match="page_cache_mb"):
        genv.fio(["--name=x"], page_cache_mb=96)


def test_cached_pages_counts_what_mincore_sees(tmp_path):
    f = tmp_path / "f"
    f.write_bytes(b"x" * (3 * 4096 + 1))
    assert genv.cached_pages(str(f)) == 4  # just written: every page is cached
    e = tmp_path / "e"
    e.write_bytes(b"")
    assert genv.cached_pages(str(e)) == 0


def test_urgent_runs_the_block_at_real_time_priority_and_restores_the_policy():
    import os

    before = os.sched_getscheduler(0), os.sched_getparam(0).sched_priority
    with genv.urgent():
        assert os.sched_getscheduler(0) == os.SCHED_FIFO
        assert os.sched_getparam(0).sched_priority == 1
    assert (os.sched_getscheduler(0), os.sched_getparam(0).sched_priority) == before
    # restored when the block fails too
    with pytest.raises(RuntimeError, match="snapshot failed"), genv.urgent():
        raise RuntimeError("snapshot failed")
    assert (os.sched_getscheduler(0), os.sched_getparam(0).sched_priority) == before


def test_a_hung_guest_is_named_recorded_and_the_rest_rerun(tmp_path, monkeypatch, capsys):
    import scenario

    p = tmp_path / "s.toml"
    p.write_text('description = "x"\nkernels = ["stock"]\n[link]\ndelay_ms = [0, 5, 10]\n')
    sc = scenario.load(str(p))
    boots = []

    def fake_vm_run(kernel, d, argv, what, **env):
        skip = json.loads((d / "skip.json").read_text())
        boots.append(skip)
        res = d / "results.jsonl"
        if len(boots) == 1:     # first boot: point 0 measured, the guest hangs in point 1
            res.write_text(json.dumps({"id": "delay_ms=0", "mbps": 1.0}) + "\n")
            (d / "current.json").write_text(json.dumps({"id": "delay_ms=5"}))
            (d / "console.log").write_text("[ 99.0] INFO: task nfsd:123 blocked for more than 120 seconds.\n")
            (d / "vm.err").write_text("error: guest timed out after 600s\n")
            return False
        with open(res, "a") as f:   # second boot: the guest runs what is left
            for pid in ("delay_ms=5", "delay_ms=10"):
                if pid not in skip:
                    f.write(json.dumps({"id": pid, "mbps": 2.0}) + "\n")
        (d / "rc").write_text("0\n")
        return True
    monkeypatch.setattr(host_bench, "vm_run", fake_vm_run)
    ok = host_bench.run_boot(sc, "stock", 0, 1, tmp_path / "out")
    err = capsys.readouterr().err
    d = tmp_path / "out" / "raw" / "s" / "stock-1"
    assert "error: s: stock repetition 1: the guest kernel splat: [ 99.0] INFO: task nfsd:123 blocked" in err
    assert "during point delay_ms=5" in err and "console-1.log" in err
    assert boots == [[], ["delay_ms=5"]]            # the hung point is not run again in this run
    assert host_bench.read_results(d / "results.jsonl") == {"delay_ms=0": "ok", "delay_ms=5": "error",
                                                             "delay_ms=10": "ok"}
    assert (d / "console-1.log").exists() and not (d / "skip.json").exists()
    assert ok is False                               # one point failed


def test_a_udev_boot_gets_the_udev_dir_and_old_plans_still_match(tmp_path, monkeypatch):
    import scenario

    p = tmp_path / "s.toml"
    p.write_text('description = "x"\nkernels = ["stock"]\n[guest]\nudev = ["off", "companion"]\n')
    sc = scenario.load(str(p))
    monkeypatch.setattr(host_bench, "udev_dir", lambda: "/cache/udev")
    monkeypatch.setattr(host_bench, "vm_run", lambda kernel, d, argv, what, **env: (d / "rc").write_text("0\n") or True)
    host_bench.run_boot(sc, "stock", 0, 1, tmp_path / "out")
    host_bench.run_boot(sc, "stock", 1, 1, tmp_path / "out")
    off = json.loads((tmp_path / "out/raw/s/stock-g1-1/plan.json").read_text())
    comp = json.loads((tmp_path / "out/raw/s/stock-g2-1/plan.json").read_text())
    assert "udev_dir" not in off and comp["udev_dir"] == "/cache/udev"
    assert comp["guest"]["udev"] == "companion"
    # A plan written before [guest] udev existed is the same setup as udev = "off".
    old = {**off, "guest": {k: v for k, v in off["guest"].items() if k != "udev"}}
    assert host_bench.same_setup(old, off) and not host_bench.same_setup(old, comp)
