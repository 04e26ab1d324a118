import json
import sys
from pathlib import Path

import report

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "lab" / "guest"))
import bench as guest_bench  # noqa: E402


def point(pid, ra, delay, mbps, **kw):
    r = {"id": pid, "nfs_version": "4.2", "rsize_kb": 1024, "delay_ms": delay, "read_ahead_kb": ra,
         "bs": "4k", "mbps": mbps, "rtt_ms": 2 * delay + 0.5, "ra_kb": ra if ra != "default" else 128,
         "read_amp": 1.0, "checks": "ok", "bound_mbps": 100.0}
    r.update(kw)
    return r


def make_run(tmp_path, rows_by_boot):
    for (sc, kind, rep), rows in rows_by_boot.items():
        d = tmp_path / "raw" / sc / f"{kind}-{rep}"
        d.mkdir(parents=True)
        (d / "accel").write_text("tcg\n")
        (d / "results.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows) + '{"id": "cut sho')
    return tmp_path


def test_report_summarises_repetitions_and_keeps_failures(tmp_path):
    boots = {}
    for rep, v in ((1, 10.0), (2, 30.0), (3, 20.0)):
        boots[("sw", "stock", rep)] = [point("a", 128, 5, v), point("b", 2048, 5, 3 * v),
                                       {"id": "c", "nfs_version": "4.2", "rsize_kb": 1024, "delay_ms": 10,
                                        "read_ahead_kb": 128, "bs": "4k", "error": "fio failed"}]
    d = make_run(tmp_path, boots)
    report.write(d)
    summ = {s["id"]: s for s in report.summarise(report.load(d))}
    a = summ["a"]
    assert (a["mbps"], a["mbps_min"], a["mbps_max"], a["n"]) == (20.0, 10.0, 30.0, 3)
    assert summ["c"]["n"] == 0 and "fio failed" in summ["c"]["checks"]
    md = (d / "report.md").read_text()
    assert "20.0 [10.0–30.0]" in md and "fio failed" in md
    assert (d / "plots" / "sw-v4.2-r1024-bs4k-sweep.png").stat().st_size > 1000
    assert len((d / "results.csv").read_text().splitlines()) == 1 + 9


def test_ab_table_flags_a_regression_beyond_the_spread(tmp_path):
    boots = {}
    for rep in (1, 2, 3):
        boots[("ab", "stock", rep)] = [point("x", "default", 10, 50.0 + rep), point("y", "default", 0, 100.0 + rep)]
        boots[("ab", "patched", rep)] = [point("x", "default", 10, 200.0 + rep), point("y", "default", 0, 80.0 + rep)]
    d = make_run(tmp_path, boots)
    md = report.write(d).read_text()
    assert "better" in md and "WORSE" in md
    assert (d / "plots" / "ab-v4.2-r1024-bs4k-ab.png").exists()


def test_window_follows_ractl_max_pages():
    # Small reads get read_ahead_kb; a read larger than it gets up to rsize (bdi io_pages).
    assert guest_bench.window_kb(128, 4096, 1024) == 128
    assert guest_bench.window_kb(128, 1 << 20, 1024) == 1024
    assert guest_bench.window_kb(128, 1 << 20, 512) == 512
    assert guest_bench.window_kb(4096, 1 << 20, 1024) == 4096


def test_mountstats_sums_read_and_read_plus(tmp_path):
    text = """device 10.9.0.1:/ mounted on /other with fstype nfs4 statvers=1.1
\tbytes:\t1 2 3 4 999 6 7 8
\t   READ: 50 50 0 100 100 0 0 0 0
device 10.9.0.1:/ mounted on /srv/nfs with fstype nfs4 statvers=1.1
\tbytes:\t10 0 0 0 4096000 0 1000 0
\t   READ: 3 3 0 300 3000 0 0 0 0
\t   READ_PLUS: 7 7 0 700 7000 0 0 0 0
"""
    f = tmp_path / "ms"
    f.write_text(text)
    want = {"read_ops": 10, "read_rpc_bytes": 10000, "server_read_bytes": 4096000}
    assert guest_bench.mountstats("/srv/nfs", str(f)) == want


def test_changelog_table_pairs_stock_and_patched(tmp_path):
    boots = {}
    for rep in (1, 2, 3):
        boots[("ab", "stock", rep)] = [point("x", "default", 10, 10.0 * rep)]
        boots[("ab", "patched", rep)] = [point("x", "default", 10, 40.0 + rep), point("z", "default", 0, 1.0)]
    d = make_run(tmp_path, boots)
    out = report.changelog_table(report.summarise(report.load(d)))
    lines = out.splitlines()
    assert len(lines) == 2, out  # "z" has no stock result: no row
    assert lines[1].split() == ["20.5", "4k", "20.0", "[10.0-30.0]", "42.0", "[41.0-43.0]", "2.1x"]
    assert report.main(["--changelog", "nope", str(d)]) == 2


def test_sweep_reports_the_share_of_the_bound(tmp_path):
    boots = {("sw", "stock", 1): [point("a", 128, 5, 25.0), point("b", 256, 5, 50.0, bound_mbps=200.0)]}
    d = make_run(tmp_path, boots)
    md = report.write(d).read_text()
    assert "25 % of 100" in md and "25 % of 200" in md


def test_cached_pages_counts_what_mincore_sees(tmp_path):
    f = tmp_path / "f"
    f.write_bytes(b"x" * (3 * 4096 + 1))
    assert guest_bench.cached_pages(str(f)) == 4  # just written: every page is cached
    e = tmp_path / "e"
    e.write_bytes(b"")
    assert guest_bench.cached_pages(str(e)) == 0
