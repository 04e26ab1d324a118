"""lab/vm.sh's boot watchdog, with a stand-in for virtme-ng: a guest that never starts its
command is stopped after LAB_BOOT_TIMEOUT seconds and named a boot hang; a guest that has
started it may run longer."""
import os
import subprocess
import time
from pathlib import Path

LAB = Path(__file__).resolve().parents[2] / "lab"

# The stand-in: "hang" sleeps without starting the command; "run" does what the guest's
# run.sh does (guest.log first, dmesg.log and rc at the end) and takes 3 s for it.
FAKE_VNG = """#!/bin/bash
while [ $# -gt 0 ]; do [ "$1" = --rwdir ] && out=$2; shift; done
echo $$ >"$out/../vng.pid"
if [ "$MODE" = hang ]; then exec sleep 60; fi
: >"$out/guest.log"
sleep 3
echo '[    0.000000] Linux version 6.12' >"$out/dmesg.log"
echo 0 >"$out/rc"
"""


def run_vm(tmp_path, mode, boot_timeout):
    venv = tmp_path / "cache" / "venv" / "bin"
    venv.mkdir(parents=True, exist_ok=True)
    (venv / "vng").write_text(FAKE_VNG)
    (venv / "vng").chmod(0o755)
    (tmp_path / "bzImage").write_text("")
    env = dict(os.environ, LAB_CACHE=str(tmp_path / "cache"), LAB_ACCEL="tcg", MODE=mode,
               LAB_BOOT_TIMEOUT=boot_timeout)
    t0 = time.monotonic()
    r = subprocess.run([str(LAB / "vm.sh"), str(tmp_path / "bzImage"), str(tmp_path / "out"), "true"],
                       capture_output=True, text=True, env=env, timeout=60)
    return r, time.monotonic() - t0


def test_a_boot_that_hangs_is_stopped_and_named(tmp_path):
    r, took = run_vm(tmp_path, "hang", "1")
    assert r.returncode == 1
    assert "did not start its command within 1s: its boot hung" in r.stderr
    assert took < 15, took
    pid = int((tmp_path / "vng.pid").read_text())
    time.sleep(0.5)
    assert not Path(f"/proc/{pid}").exists(), "the hung guest was left running"
    assert int((tmp_path / "out" / "seconds").read_text()) >= 1, "the hung boot was not timed"


def test_a_started_command_may_outlast_the_boot_timeout(tmp_path):
    r, took = run_vm(tmp_path, "run", "1")
    assert r.returncode == 0, r.stderr
    assert took >= 3


def test_a_boot_timeout_that_is_not_a_number_is_refused(tmp_path):
    r, _ = run_vm(tmp_path, "run", "soon")
    assert r.returncode == 1
    assert "LAB_BOOT_TIMEOUT must be a number of seconds, not 'soon'" in r.stderr
    assert not (tmp_path / "vng.pid").exists(), "a guest was started"


def test_each_boot_adds_its_wall_time_to_the_directory_s_seconds(tmp_path):
    """make stress's report sums the boots' times: a directory booted twice (a bench boot
    resumed after a hang) holds the time of both; a torn seconds file counts as none."""
    r, _ = run_vm(tmp_path, "run", "10")
    assert r.returncode == 0, r.stderr
    first = int((tmp_path / "out" / "seconds").read_text())
    assert 3 <= first < 30, first
    r, _ = run_vm(tmp_path, "run", "10")
    assert r.returncode == 0, r.stderr
    both = int((tmp_path / "out" / "seconds").read_text())
    assert both >= first + 3, (first, both)
    (tmp_path / "out" / "seconds").write_text("12x\n")
    r, _ = run_vm(tmp_path, "run", "10")
    assert r.returncode == 0, r.stderr
    assert 3 <= int((tmp_path / "out" / "seconds").read_text()) < 30


def test_guest_tests_record_the_lab_commit_of_each_boot(tmp_path):
    """lab/guest-tests.sh writes the lab's commit into each boot's directory (lab-commit), with
    "+changes" when lab/ or tests/ differ from it, for the stress report to name. It runs in a git
    copy of the lab whose boot and udev steps are stand-ins."""
    import shutil
    repo = tmp_path / "repo"
    shutil.copytree(LAB, repo / "lab")
    shutil.copytree(LAB.parent / "patches", repo / "patches")
    (repo / "tests").mkdir()
    (repo / "tests" / "t.sh").write_text("#!/bin/bash\n")
    (repo / "lab" / "vm.sh").write_text('#!/bin/bash\necho "ok 1 - x" >"$2/guest.log"\n')
    (repo / "lab" / "udev.sh").write_text("#!/bin/bash\necho /nowhere\n")
    gen = tmp_path / "cache" / "patched" / "build" / "include" / "generated"
    gen.mkdir(parents=True)
    (gen / "utsrelease.h").write_text('#define UTS_RELEASE "6.12.117"\n')
    (gen / "utsversion.h").write_text('#define UTS_VERSION "#1"\n')
    git = ["git", "-C", str(repo), "-c", "user.name=lab", "-c", "user.email=lab@localhost"]
    subprocess.run(git + ["init", "-q"], check=True)
    subprocess.run(git + ["add", "-A"], check=True)
    subprocess.run(git + ["commit", "-q", "-m", "lab"], check=True)
    head = subprocess.run(git + ["rev-parse", "--short=12", "HEAD"], capture_output=True, text=True,
                          check=True).stdout.strip()
    env = dict(os.environ, LAB_CACHE=str(tmp_path / "cache"))

    def run():
        r = subprocess.run([str(repo / "lab" / "guest-tests.sh"), "patched", str(tmp_path / "out"),
                            str(repo / "tests" / "t.sh")], capture_output=True, text=True, env=env,
                           timeout=60)
        assert r.returncode == 0, r.stderr
        return (tmp_path / "out" / "t" / "lab-commit").read_text().strip()

    assert run() == head
    (repo / "tests" / "t.sh").write_text("#!/bin/bash\ntrue\n")
    assert run() == f"{head}+changes"
