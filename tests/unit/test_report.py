import csv
import json

import families
import report


def point(pid, ra, delay, mbps, **kw):
    r = {"id": pid, "nfs_version": "4.2", "rsize_kb": 1024, "delay_ms": delay, "read_ahead_kb": ra,
         "bs": "4k", "mbps": mbps, "rtt_ms": 2 * delay + 0.5, "ra_kb": ra if ra != "default" else 128,
         "read_amp": 1.0, "checks": "ok", "bound_mbps": 100.0}
    r.update(kw)
    return r


def make_run(tmp_path, rows_by_boot):
    """A results directory as the lab wrote it before families: no plan, no axes."""
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
    assert (d / "plots" / "sw-mbps-client.read_ahead_kb.png").stat().st_size > 1000
    assert len((d / "results.csv").read_text().splitlines()) == 1 + 9


def test_ab_table_flags_a_regression_beyond_the_spread(tmp_path):
    boots = {}
    for rep in (1, 2, 3):
        boots[("ab", "stock", rep)] = [point("x", "default", 10, 50.0 + rep), point("y", "default", 0, 100.0 + rep)]
        boots[("ab", "patched", rep)] = [point("x", "default", 10, 200.0 + rep), point("y", "default", 0, 80.0 + rep)]
    d = make_run(tmp_path, boots)
    md = report.write(d).read_text()
    assert "better" in md and "WORSE" in md
    assert (d / "plots" / "ab-mbps-link.delay_ms.png").exists()


def test_changelog_table_pairs_stock_and_patched(tmp_path):
    boots = {}
    for rep in (1, 2, 3):
        boots[("ab", "stock", rep)] = [point("x", "default", 10, 10.0 * rep)]
        boots[("ab", "patched", rep)] = [point("x", "default", 10, 40.0 + rep), point("z", "default", 0, 1.0)]
    d = make_run(tmp_path, boots)
    out = families.get("nfs-read").changelog_table(report.summarise(report.load(d)), report)
    lines = out.splitlines()
    assert len(lines) == 2, out  # "z" has no stock result: no row
    assert lines[1].split() == ["20.5", "4k", "20.0", "[10.0-30.0]", "42.0", "[41.0-43.0]", "2.1x"]
    assert report.main(["--changelog", "nope", str(d)]) == 2


def test_sweep_reports_the_share_of_the_bound(tmp_path):
    boots = {("sw", "stock", 1): [point("a", 128, 5, 25.0), point("b", 256, 5, 50.0, bound_mbps=200.0)]}
    d = make_run(tmp_path, boots)
    md = report.write(d).read_text()
    assert "25 % of 100" in md and "25 % of 200" in md




def new_run(tmp_path, family, rows_by_boot, setup=None):
    """A results directory as the family runner writes it: plan.json, boot.json, rows."""
    for (sc, kind, rep), rows in rows_by_boot.items():
        d = tmp_path / "raw" / sc / f"{kind}-{rep}"
        d.mkdir(parents=True)
        (d / "accel").write_text("tcg\n")
        (d / "plan.json").write_text(json.dumps({"family": family, "setup": setup or {}, "description": "d"}))
        (d / "boot.json").write_text(json.dumps({"kind": kind, "rep": rep, "guest": {"memory_mb": 4096}}))
        (d / "results.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    return tmp_path


def wrow(n, mbps, **kw):
    return {"id": f"writers={n}", "axes": {"workload.writers": n}, "write_mbps": mbps, "extents": 4 * n,
            "checks": "ok", **kw}


def test_any_family_gets_medians_ab_table_and_plot(tmp_path):
    boots = {}
    for rep in (1, 2, 3):
        boots[("w", "stock", rep)] = [wrow(1, 50.0 + rep), wrow(4, 40.0 + rep, only_stock=rep)]
        boots[("w", "patched", rep)] = [wrow(1, 80.0 + rep, readback_mbps=9.5), wrow(4, 30.0 + rep)]
    d = new_run(tmp_path, "nfs-write", boots, {"server": {"fs": "ext4"}})
    md = report.write(d).read_text()
    summ = {(s["kind"], s["id"]): s for s in report.summarise(report.load(d))}
    s = summ[("stock", "writers=4")]
    assert (s["write_mbps"], s["write_mbps_min"], s["write_mbps_max"]) == (42.0, 41.0, 43.0)
    assert (s["only_stock"], s["only_stock_min"], s["only_stock_max"]) == (2, 1, 3)   # every numeric metric
    assert "| 1 | 52.0 [51.0–53.0] | 82.0 [81.0–83.0] | 1.58× | better |" in md
    assert "| 4 | 42.0 [41.0–43.0] | 32.0 [31.0–33.0] | 0.76× | WORSE |" in md
    assert (d / "plots" / "w-write_mbps-workload.writers.png").stat().st_size > 1000
    # CSV columns are the union of what the points returned: nothing is dropped.
    cols = next(csv.reader(open(d / "results.csv")))
    assert {"only_stock", "readback_mbps", "workload.writers", "extents"} <= set(cols)
    scols = next(csv.reader(open(d / "summary.csv")))
    assert {"only_stock_max", "readback_mbps_min", "extents"} <= set(scols)


def test_a_retried_point_replaces_its_failure(tmp_path):
    rows = [{"id": "writers=1", "axes": {"workload.writers": 1}, "error": "guest timed out during this point"},
            wrow(1, 10.0), {"id": "writers=4", "axes": {"workload.writers": 4}, "error": "fio failed"}]
    d = new_run(tmp_path, "nfs-write", {("w", "stock", 1): rows})
    summ = {s["id"]: s for s in report.summarise(report.load(d))}
    assert summ["writers=1"]["n"] == 1 and summ["writers=1"]["errors"] == 0
    assert summ["writers=4"]["n"] == 0 and "fio failed" in summ["writers=4"]["checks"]


def test_guest_variants_are_part_of_the_point(tmp_path):
    d = new_run(tmp_path, "nfs-write", {("w", "stock", 1): [wrow(1, 10.0)]})
    b2 = tmp_path / "raw" / "w" / "stock-g2-1"
    b2.mkdir()
    for f in ("accel", "plan.json"):
        (b2 / f).write_text((tmp_path / "raw" / "w" / "stock-1" / f).read_text())
    (b2 / "boot.json").write_text(json.dumps({"kind": "stock", "rep": 1, "guest": {"memory_mb": 8192}}))
    (b2 / "results.jsonl").write_text(json.dumps(wrow(1, 20.0)) + "\n")
    ids = sorted(s["id"] for s in report.summarise(report.load(d)))
    assert ids == ["memory_mb=4096/writers=1", "memory_mb=8192/writers=1"]


def test_series_are_plotted(tmp_path):
    d = new_run(tmp_path, "nfs-write", {("w", "stock", 1): [wrow(1, 10.0)], ("w", "patched", 1): [wrow(1, 12.0)]})
    for kind in ("stock", "patched"):
        s = tmp_path / "raw" / "w" / f"{kind}-1" / "series"
        s.mkdir()
        lines = ["t,net_tx_bytes,net_rx_bytes,disk_read_bytes,disk_write_bytes,nr_dirty_kb,nr_writeback_kb"]
        lines += [f"{t},{t * 1000},{t * 9000000},0,{t * 8000000},{1000 * t},{500}" for t in range(5)]
        (s / "writers=1.csv").write_text("\n".join(lines) + "\n")
    md = report.write(d).read_text()
    assert "w-series-writers=1.png" in md
    assert (d / "plots" / "w-series-writers=1.png").stat().st_size > 1000


def test_compare_matches_points_across_the_old_and_new_layouts(tmp_path):
    old = make_run(tmp_path / "old", {("ab", "stock", r): [point("v4.2/r1024/d10/radefault/bs4k", "default", 10, v)]
                                      for r, v in ((1, 10.0), (2, 12.0), (3, 14.0))})
    setup = {"server": {"fs": "ext4"}, "client": {"nfs_version": "4.2", "rsize_kb": 1024, "read_ahead_kb": "default"},
             "link": {"delay_ms": 10}, "workload": {"bs": "4k"}}
    rows = {("ab", "stock", 1): [{"id": "delay_ms=10", "axes": {"link.delay_ms": 10}, "mbps": 13.0, "checks": "ok"},
                                 {"id": "delay_ms=99", "axes": {"link.delay_ms": 99}, "mbps": 1.0, "checks": "ok"}]}
    new = new_run(tmp_path / "new", "nfs-read", rows, setup)
    out = report.compare(old, new)
    assert out.startswith(f"1 of 1 points of {new} have their median inside")
    assert "| ab | stock | v4.2/r1024/d10/radefault/bs4k | 12.0 [10.0–14.0] (n=3) | 13.0 (n=1) | 1.08 | inside |" in out


def test_nfs_writeback_report_sums_the_paired_points_against_the_ceiling(tmp_path):
    def row(n, mbps, ceil):
        return {"id": f"writers={n}", "axes": {"workload.writers": n}, "write_mbps": mbps, "link_mbps": ceil,
                "checks": "ok"}
    boots = {}
    for rep, ceil in ((1, 90.0), (2, 100.0), (3, 110.0)):
        boots[("wb", "stock", rep)] = [row(1, 40.0, ceil), row(2, 50.0, ceil), row(10, 60.0, ceil)]
        boots[("wb", "patched", rep)] = [row(1, 50.0, ceil), row(2, 55.0, ceil)]   # no 10-writer point
    d = new_run(tmp_path, "nfs-writeback", boots)
    md = report.write(d).read_text()
    assert "| stock | 2 | 90.0 | 100.0 [90.0–110.0] | 40–50 % |" in md, md
    assert "| patched | 2 | 105.0 | 100.0 [90.0–110.0] | 50–55 % |" in md
    assert "patched/stock over the sum: 1.167× (+16.7 %)" in md


def test_missing_matplotlib_is_named_before_anything_runs(monkeypatch):
    import builtins
    assert report.missing_deps() is None  # the lab venv has it
    real = builtins.__import__

    def no_mpl(name, *a, **k):
        if name == "matplotlib" or name.startswith("matplotlib."):
            raise ImportError("No module named 'matplotlib'")
        return real(name, *a, **k)
    monkeypatch.setattr(builtins, "__import__", no_mpl)
    msg = report.missing_deps()
    assert msg and "matplotlib" in msg and "make bench" in msg


def test_report_names_the_lab_commit_of_each_run(tmp_path):
    """bench.py records the lab's commit (lib.sh's lab_commit) with each run in meta.json; the
    report names it, and a run recorded before that has no lab commit in its line."""
    import bench
    d = make_run(tmp_path, {("sw", "stock", 1): [point("a", 128, 5, 10.0)]})
    run = {"started": "2026-12-06 03:00:00 UTC", "command": "bench.py x.toml", "quick": False}
    commit = bench.lab_commit()
    assert commit == "unknown" or len(commit.split("+")[0]) == 12
    (d / "meta.json").write_text(json.dumps({"runs": [dict(run, lab_commit=commit), run]}))
    md = report.write(d).read_text()
    assert f"`bench.py x.toml`, lab commit {commit}\n" in md
    assert md.count("lab commit") == 1
