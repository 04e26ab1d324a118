"""lab/guest/peer.sh: NFStest's summary line read into the counts and verdicts the peer
suites report (tests/stress/peer_*.sh), run with bash as the guest runs it."""
import subprocess
from pathlib import Path

import pytest

GUEST = Path(__file__).resolve().parents[2] / "lab" / "guest"


def run(tmp_path, log_text, rc, fn="nfstest_verdict"):
    log = tmp_path / "peer" / "nfstest_x-v3.log"
    log.parent.mkdir(exist_ok=True)
    log.write_text(log_text)
    script = f"""set -u
. {GUEST}/tap.sh
. {GUEST}/peer.sh
{fn} nfstest_x 3 {log} {rc}
tap_done
"""
    env = {"PATH": "/usr/bin:/bin", "LAB_CACHE": str(tmp_path), "LAB_OUT": str(tmp_path)}
    return subprocess.run(["bash", "-c", script], capture_output=True, text=True, env=env, timeout=30)


SUMMARY = "    PASS: a\n    FAIL: b went wrong\n    SKIP: c\n\n3 tests (1 passed, 1 failed)\n"


def test_counts_and_fail_lines(tmp_path):
    r = run(tmp_path, SUMMARY, 1)
    assert r.returncode == 1
    assert "not ok 1 - NFSv3 nfstest_x: 3 tests (1 passed, 1 failed) (log peer/nfstest_x-v3.log)" in r.stdout
    assert "#     FAIL: b went wrong" in r.stdout
    assert "# peer: nfstest_x 3 pass=1 fail=1 skip=1" in r.stdout


def test_all_passed(tmp_path):
    r = run(tmp_path, "    PASS: a\n\n1 test (1 passed, 0 failed)\n", 0)
    assert r.returncode == 0, r.stdout
    assert "ok 1 - NFSv3 nfstest_x: 1 test (1 passed, 0 failed)" in r.stdout
    assert "# peer: nfstest_x 3 pass=1 fail=0 skip=0" in r.stdout


@pytest.mark.parametrize("text,rc", [
    ("Traceback (most recent call last):\n  boom\n", 0),       # no summary at all
    ("    PASS: a\n\n1 test (1 passed, 0 failed)\n", 124),      # killed by timeout after it
    ("\n0 tests (0 passed, 0 failed)\n", 0),                    # ran nothing
])
def test_strict_verdict_fails_what_proves_nothing(tmp_path, text, rc):
    r = run(tmp_path, text, rc)
    assert r.returncode == 1
    assert "not ok 1 - NFSv3 nfstest_x" in r.stdout


def test_no_summary_names_the_exit_status_and_shows_the_tail(tmp_path):
    r = run(tmp_path, "Traceback (most recent call last):\n  boom\n", 137)
    assert "not ok 1 - NFSv3 nfstest_x: no summary (rc 137)" in r.stdout
    assert "#   boom" in r.stdout
    assert "# peer: nfstest_x 3 pass=0 fail=0 skip=0" in r.stdout
