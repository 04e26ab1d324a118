"""lab/stress_report.py: what a `make stress` run counts and when it fails."""
import os
import subprocess
from pathlib import Path

import pytest

import stress_report

STRESS = Path(__file__).resolve().parents[2] / "lab" / "stress.sh"


def boot(out, kernel, test, log, rc=0, splats=None, build=None):
    d = out / kernel / test
    d.mkdir(parents=True)
    if build:
        (d / ".build").write_text(f"{build}\n")
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
