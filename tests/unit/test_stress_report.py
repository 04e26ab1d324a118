"""lab/stress_report.py: what a `make stress` run counts and when it fails."""
import os
import subprocess
from pathlib import Path

import pytest

import stress_report

STRESS = Path(__file__).resolve().parents[2] / "lab" / "stress.sh"


def boot(out, kernel, test, log, rc=0, splats=None, build=None, lab=None):
    d = out / kernel / test
    d.mkdir(parents=True)
    if build:
        (d / ".build").write_text(f"{build}\n")
    if lab:
        (d / "lab-commit").write_text(f"{lab}\n")
    (d / "guest.log").write_text(log)
    (d / "rc").write_text(f"{rc}\n")
    if splats:
        (d / "splats.log").write_text(splats)


PEER = """ok 1 - NFSv3 fsx seed 1
    ok 1 - an indented kselftest line is its parent's
not ok 2 - NFSv3 stress-ng --mmap
ok 3 - # SKIP NFSv3 stress-ng --fiemap: not supported
# peer: fsx 3 pass=3 fail=0 skip=0
# peer: stress-ng 3 pass=PASS fail=FAIL skip=1
1..3
"""


def test_counts_and_peer_comparison(tmp_path):
    boot(tmp_path, "stock", "peer_tools", PEER.replace("PASS", "4").replace("FAIL", "0"))
    boot(tmp_path, "patched", "peer_tools", PEER.replace("PASS", "3").replace("FAIL", "1"), rc=1)
    boot(tmp_path, "patched-debug", "nfs_faults", "ok 1 - x\n# bytes verified: 1048576\n# bytes lost: 0\n1..1\n",
         splats="# 2 kernel report line(s) in dmesg.log, the first:\n")
    doc = stress_report.write(tmp_path)
    t = doc["totals"]
    p = t["patched"]
    assert (p["run"], p["passed"], p["failed"], p["skipped"]) == (3, 1, 1, 1)
    assert t["patched"]["boots_failed"] == 1
    assert (t["patched-debug"]["splats"], t["patched-debug"]["verified"]) == (2, 1048576)
    assert doc["peer"]["stress-ng v3"] == {"stock": [4, 0, 1], "patched": [3, 1, 1]}
    assert doc["peer_below_stock"] == ["stress-ng v3 on patched"]
    md = (tmp_path / "report.md").read_text()
    assert "3/1/1 **below stock**" in md and "patched-debug/nfs_faults/splats.log" in md


def test_a_tool_two_boots_of_one_kernel_counted_is_named(tmp_path):
    """A suite moved to another boot (nfstest_alloc from peer_tools to peer_nfstest) while the
    OUT keeps a boot of the old layout: the later boot's counts stand, and both are named."""
    boot(tmp_path, "stock", "peer_nfstest", "# peer: nfstest_alloc 4.2 pass=289 fail=0 skip=0\n")
    boot(tmp_path, "stock", "peer_tools", "# peer: nfstest_alloc 4.2 pass=280 fail=9 skip=0\n")
    boot(tmp_path, "patched", "peer_nfstest", "# peer: nfstest_alloc 4.2 pass=289 fail=0 skip=0\n")
    doc = stress_report.write(tmp_path)
    assert doc["peer"]["nfstest_alloc v4.2"]["stock"] == [280, 9, 0]
    assert doc["peer_counted_twice"] == ["nfstest_alloc v4.2 on stock: peer_nfstest, peer_tools"]
    md = (tmp_path / "report.md").read_text()
    assert "- nfstest_alloc v4.2 on stock: peer_nfstest, peer_tools" in md
    boot(tmp_path, "patched", "other", "# peer: fsx 3 pass=3 fail=0 skip=0\n")
    twice = stress_report.write(tmp_path)["peer_counted_twice"]
    assert twice == ["nfstest_alloc v4.2 on stock: peer_nfstest, peer_tools"]


def test_stock_failures_alone_do_not_fail_the_run(tmp_path):
    boot(tmp_path, "stock", "peer_tools", "not ok 1 - x\n1..1\n", rc=1)
    boot(tmp_path, "patched", "peer_tools", "ok 1 - x\n1..1\n")
    assert stress_report.main([str(tmp_path)]) == 0
    boot(tmp_path, "patched-debug", "t", "ok 1 - x\n1..1\n", splats="# 1 kernel report line(s)\n")
    assert stress_report.main([str(tmp_path)]) == 1


def test_builds_are_named_and_a_mixed_run_is_flagged(tmp_path):
    boot(tmp_path, "patched", "a", "ok 1 - x\n1..1\n", build="cfg-aaa")
    boot(tmp_path, "patched", "b", "ok 1 - x\n1..1\n", build="cfg-aaa")
    boot(tmp_path, "stock", "a", "ok 1 - x\n1..1\n", build="cfg-s1")
    boot(tmp_path, "stock", "b", "ok 1 - x\n1..1\n", build="cfg-s2")
    doc = stress_report.write(tmp_path)
    assert doc["totals"]["patched"]["builds"] == ["cfg-aaa"]
    assert doc["boots"]["stock"][1]["build"] == "cfg-s2"
    md = (tmp_path / "report.md").read_text()
    assert "Builds of patched: `cfg-aaa`\n" in md
    assert "Builds of stock: `cfg-s1`, `cfg-s2` (**mixed**" in md


def test_the_lab_commit_of_each_boot_is_named(tmp_path):
    boot(tmp_path, "patched", "a", "ok 1 - x\n1..1\n", lab="0123456789ab")
    boot(tmp_path, "patched", "b", "ok 1 - x\n1..1\n", lab="ba9876543210+changes")
    boot(tmp_path, "patched", "c", "ok 1 - x\n1..1\n")
    boot(tmp_path, "stock", "a", "ok 1 - x\n1..1\n")
    doc = stress_report.write(tmp_path)
    assert doc["totals"]["patched"]["labs"] == ["0123456789ab", "ba9876543210+changes"]
    assert doc["totals"]["patched"]["boots_without_lab"] == 1
    assert doc["boots"]["patched"][2]["lab"] is None
    md = (tmp_path / "report.md").read_text()
    assert ("Lab commits of patched: `0123456789ab`, `ba9876543210+changes` (1 boot(s) not recorded)\n"
            in md)
    assert "Lab commits of stock: not recorded\n" in md
    assert "| patched | a | 0 | 1 | 1 | 0 | 0 | 0 | 0 MiB | 0 | - | 0123456789ab |" in md
    assert "| stock | a | 0 | 1 | 1 | 0 | 0 | 0 | 0 MiB | 0 | - | - |" in md


@pytest.mark.parametrize("var, value, bad, good", [
    ("STRESS_ONLY", "nfs_writeback no_such_test", "no_such_test", "nfs_writeback"),
    ("STRESS_KERNELS", "stock debug", "debug", "stock"),
])
def test_stress_names_that_are_wrong_are_refused_before_anything_runs(tmp_path, var, value, bad, good):
    """lab/stress.sh: a STRESS_ONLY name that is no test, or a STRESS_KERNELS name that is no
    kernel of the run, stops it before it builds, boots or deletes anything (STRESS_FRESH=1
    included), with the wrong name in the message and not the right one."""
    out = tmp_path / "out"
    (out / "stock" / "peer_tools").mkdir(parents=True)
    env = dict(os.environ, **{var: value}, STRESS_FRESH="1")
    r = subprocess.run([str(STRESS), str(out)], capture_output=True, text=True, env=env, timeout=60)
    assert r.returncode != 0
    assert f"'{bad}'" in r.stderr and f"'{good}'" not in r.stderr
    assert (out / "stock" / "peer_tools").is_dir()


# A peer suite's log as the guest writes it: a tool's TAP lines, then its count line.
POSIX = """ok 1 - NFSv3 fsx seed 1
# peer: fsx 3 pass=1 fail=0 skip=0
not ok 2 - NFSv3 nfstest_posix: 461 tests (459 passed, 2 failed)
# FAIL: open - O_EXCL|O_CREAT|O_DIRECTORY should fail with EEXIST
# peer: nfstest_posix 3 pass=PASS fail=FAIL skip=0
LAST
1..3
"""


def posix(pass_=459, fail=2, last="ok 3 - no kernel splat"):
    return POSIX.replace("PASS", str(pass_)).replace("FAIL", str(fail)).replace("LAST", last)


def test_peer_failures_shared_with_stock_do_not_fail_the_run(tmp_path):
    """nfstest_posix fails two checks on stock and on patched alike: the run passes, and both
    boots may be kept by a rerun."""
    boot(tmp_path, "stock", "peer_tools", posix(), rc=1)
    boot(tmp_path, "patched", "peer_tools", posix(), rc=1)
    doc = stress_report.write(tmp_path)
    assert doc["boots"]["patched"][0]["peer_failed"] == 1
    assert doc["verdict_failures"] == [] and doc["peer_below_stock"] == [] and doc["fails_run"] == []
    assert stress_report.main([str(tmp_path)]) == 0
    assert "Fails the run: nothing." in (tmp_path / "report.md").read_text()
    for k in ("stock", "patched"):
        assert stress_report.main(["--keep", str(tmp_path / k / "peer_tools")]) == 0


@pytest.mark.parametrize("log, why", [
    (posix(458, 3), "below stock"),       # one more failed check than stock
    (posix(last="not ok 3 - no kernel splat"), "1 failed test"),   # not a peer tool's line
])
def test_a_patched_peer_boot_worse_than_stock_fails(tmp_path, log, why):
    boot(tmp_path, "stock", "peer_tools", posix(), rc=1)
    boot(tmp_path, "patched", "peer_tools", log, rc=1)
    assert stress_report.main([str(tmp_path)]) == 1
    assert why in (tmp_path / "report.md").read_text()


def test_peer_failures_with_no_stock_to_compare_fail_the_run(tmp_path):
    boot(tmp_path, "patched", "peer_tools", posix(), rc=1)
    doc = stress_report.write(tmp_path)
    assert doc["peer_uncompared"] == ["nfstest_posix v3 on patched"]
    why = "nfstest_posix v3 on patched: no stock count (run stock's peer suites into the same OUT)"
    assert doc["fails_run"] == [why]
    assert stress_report.main([str(tmp_path)]) == 1
    assert f"Fails the run: \n\n- {why}\n" in (tmp_path / "report.md").read_text()


def test_boots_a_rerun_may_keep(tmp_path):
    """Kept: a boot that passed, or that ran to its plan's end with only peer-tool failures.
    Run again: one with a kernel report, another failed line, or cut short (a timeout)."""
    cases = {
        "passed": ("ok 1 - x\n1..1\n", 0, None, True),
        "peer-only": (posix(), 1, None, True),
        "splat": ("ok 1 - x\n1..1\n", 0, "# 1 kernel report line(s)\n", False),
        "other-failure": (posix(last="not ok 3 - no kernel splat"), 1, None, False),
        "cut-short": (posix().replace("ok 3 - no kernel splat\n", ""), 1, None, False),
        "no-plan": (posix().replace("1..3\n", ""), 1, None, False),
    }
    for name, (log, rc, sp, _) in cases.items():
        boot(tmp_path, "patched", name, log, rc=rc, splats=sp)
    for name, (*_, kept) in cases.items():
        assert (stress_report.main(["--keep", str(tmp_path / "patched" / name)]) == 0) is kept, name
    assert stress_report.main(["--keep", str(tmp_path / "patched" / "missing")]) == 1


def test_a_patched_boot_cut_short_fails_the_run(tmp_path):
    boot(tmp_path, "patched", "nfs_load", "ok 1 - x\n", rc=1)   # no plan: the guest stopped
    doc = stress_report.write(tmp_path)
    assert doc["verdict_failures"] == ["patched nfs_load: exit status 1 before the end of its TAP plan"]
    assert stress_report.main([str(tmp_path)]) == 1


def test_boot_times_are_shown_and_summed_over_the_boots_that_have_one(tmp_path):
    """lab/vm.sh leaves each boot's wall time in its seconds file; a
    boot from before that (or a garbage file) has none and is counted as not timed."""
    boot(tmp_path, "patched-debug", "nfs_load", "ok 1 - x\n1..1\n")
    boot(tmp_path, "patched-debug", "nfs_faults", "ok 1 - x\n1..1\n")
    boot(tmp_path, "patched-debug", "old", "ok 1 - x\n1..1\n")
    boot(tmp_path, "patched-debug", "torn", "ok 1 - x\n1..1\n")
    (tmp_path / "patched-debug" / "nfs_load" / "seconds").write_text("1563\n")
    (tmp_path / "patched-debug" / "nfs_faults" / "seconds").write_text("4815\n")
    (tmp_path / "patched-debug" / "torn" / "seconds").write_text("12x\n")
    boot(tmp_path, "stock", "peer_tools", "ok 1 - x\n1..1\n")
    doc = stress_report.write(tmp_path)
    t = doc["totals"]["patched-debug"]
    assert (t["seconds"], t["boots_timed"]) == (1563 + 4815, 2)
    assert [b["seconds"] for b in doc["boots"]["patched-debug"]] == [4815, 1563, None, None]
    md = (tmp_path / "report.md").read_text()
    assert "| 1 h 46 min (2 boot(s) not timed) |" in md
    assert "| patched-debug | nfs_load | 0 | 1 | 1 | 0 | 0 | 0 | 0 MiB | 0 | 26 min 3 s |" in md
    assert "| patched-debug | old | 0 | 1 | 1 | 0 | 0 | 0 | 0 MiB | 0 | - |" in md
    assert "| stock | 1 (0) | 1 | 1 | 0 | 0 | 0 | 0 MiB | 0 | - |" in md


def test_the_run_s_time_reads_in_hours_past_one(tmp_path):
    """make stress runs for hours: "Took 447 min 0 s" is written "Took 7 h 27 min"."""
    boot(tmp_path, "patched", "nfs_load", "ok 1 - x\n1..1\n")
    stress_report.write(tmp_path, seconds=7 * 3600 + 27 * 60)
    assert "Took 7 h 27 min." in (tmp_path / "report.md").read_text()
    stress_report.write(tmp_path, seconds=125)
    assert "Took 2 min 5 s." in (tmp_path / "report.md").read_text()


@pytest.mark.parametrize("kernels, builds", [
    ("patched", ["patched"]),
    ("stock", ["stock"]),
    ("patched-debug", ["patched debug"]),
    ("patched-debug patched stock", ["stock", "patched", "patched debug"]),
])
def test_stress_builds_only_the_kernels_it_boots(tmp_path, kernels, builds):
    """STRESS_KERNELS=patched on a fresh machine builds the patched kernel and neither the 14 min
    stock kernel nor the 28 min debug one. lab/stress.sh runs in a copy of the lab whose build,
    boot and dependency steps only log their arguments."""
    import shutil
    repo = tmp_path / "repo"
    shutil.copytree(STRESS.parent, repo / "lab")
    shutil.copytree(STRESS.parents[1] / "tests", repo / "tests")
    shutil.copytree(STRESS.parents[1] / "patches", repo / "patches")
    calls = tmp_path / "calls"
    for step in ("deps.sh", "build.sh", "peer-tools.sh", "guest-tests.sh"):
        (repo / "lab" / step).write_text(f'#!/bin/bash\necho "{step} $*" >>"{calls}"\n')
    with open(repo / "lab" / "guest-tests.sh", "a") as f:
        f.write('mkdir -p "$2/$(basename "$3" .sh)"\n')
    cache = tmp_path / "cache"
    for kind in ("stock", "patched", "patched-debug"):
        (cache / kind / "build").mkdir(parents=True)
        (cache / kind / "build" / ".lab-config").write_text(f"cfg-{kind}\n")
    (cache / "venv" / "bin").mkdir(parents=True)
    (cache / "venv" / "bin" / "python").symlink_to(Path(os.sys.executable))
    env = dict(os.environ, LAB_CACHE=str(cache), STRESS_KERNELS=kernels, STRESS_ONLY="peer_tools",
               STRESS_BENCH="0")
    r = subprocess.run([str(repo / "lab" / "stress.sh"), str(tmp_path / "out")], capture_output=True,
                       text=True, env=env, timeout=60)
    assert r.returncode in (0, 1), r.stderr
    log = calls.read_text().splitlines()
    assert [c.removeprefix("build.sh ") for c in log if c.startswith("build.sh")] == builds
    booted = [c.split()[1] for c in log if c.startswith("guest-tests.sh")]
    assert booted == [k for k in ("patched-debug", "patched", "stock") if k in kernels.split()]


def fake_repo(root):
    """A repository with two in-guest tests (and a short form), two stress suites, a scenario
    that boots the patched kernel and one that boots stock only."""
    for f in ("tests/guest/a.sh", "tests/guest/a_short.sh", "tests/guest/b.sh", "tests/stress/peer_x.sh",
              "tests/stress/nfs_y.sh"):
        (root / f).parent.mkdir(parents=True, exist_ok=True)
        (root / f).write_text("#!/bin/bash\n")
    (root / "lab" / "scenarios").mkdir(parents=True)
    (root / "lab" / "scenarios" / "s1.toml").write_text('description = "x"\nkernels = ["stock", "patched"]\n')
    (root / "lab" / "scenarios" / "s2.toml").write_text('description = "x"\nkernels = ["stock"]\n')
    (root / "lab" / "scenarios" / "s3.toml").write_text('description = "x"\nfamily = "nfs-read"\n')
    return root


def bench_boot(out, scenario):
    d = out / "bench" / "raw" / scenario / "patched-1"
    d.mkdir(parents=True)
    (d / "rc").write_text("0\n")
    (d / "results.jsonl").write_text('{"id": "p1"}\n')


def test_the_boots_a_full_run_still_lacks_are_named(tmp_path):
    repo, out = fake_repo(tmp_path / "repo"), tmp_path / "out"
    assert stress_report.expected(repo) == {
        "patched-debug": ["a", "b", "nfs_y", "peer_x", "bench s1", "bench s3"],
        "patched": ["nfs_y", "peer_x"], "stock": ["peer_x"]}
    ok = "ok 1 - x\n1..1\n"
    boot(out, "patched-debug", "a", ok, build="d1")
    boot(out, "patched", "nfs_y", ok, build="p1")
    bench_boot(out, "s1")
    doc = stress_report.write(out, repo=repo)
    assert doc["not_run"] == {"patched-debug": ["b", "nfs_y", "peer_x", "bench s3"],
                              "patched": ["peer_x"], "stock": ["peer_x"]}
    assert not doc["complete"] and doc["fails_run"] == []
    md = (out / "report.md").read_text()
    assert "Complete: no." in md
    assert "- patched-debug: b, nfs_y, peer_x, bench s3\n" in md and "- stock: peer_x\n" in md
    # what is left out does not fail the run: STRESS_ONLY and STRESS_KERNELS do it on purpose
    assert stress_report.main([str(out)]) == 0


def test_a_run_is_complete_only_with_every_boot_on_one_build(tmp_path):
    repo, out = fake_repo(tmp_path / "repo"), tmp_path / "out"
    ok = "ok 1 - x\n1..1\n"
    for t in ("a", "b", "nfs_y", "peer_x"):
        boot(out, "patched-debug", t, ok, build="d1" if t != "b" else "d0")
    for t in ("nfs_y", "peer_x"):
        boot(out, "patched", t, ok, build="p1")
    boot(out, "stock", "peer_x", ok, build="s1")
    for s in ("s1", "s3"):
        bench_boot(out, s)
    doc = stress_report.write(out, repo=repo)
    assert doc["not_run"] == {}
    bench = ["bench s1 patched-1", "bench s3 patched-1"]
    assert doc["mixed"] == {"patched-debug": {"d0": ["b"], "d1": ["a", "nfs_y", "peer_x"], None: bench}}
    assert not doc["complete"]
    md = (out / "report.md").read_text()
    assert "- patched-debug `d0`: b\n" in md and "- patched-debug `not recorded`: bench s1" in md
    boot(out, "patched-debug", "b2", ok, build="d1")
    (out / "patched-debug" / "b").rename(out / "old-b")
    (out / "patched-debug" / "b2").rename(out / "patched-debug" / "b")
    doc = stress_report.write(out, repo=repo)
    assert doc["mixed"] == {} and doc["complete"]  # benchmark boots record no build stamp
    assert "Complete: yes" in (out / "report.md").read_text()
