"""lab/guest/ns-ssh: NFStest's `ssh` to the lab's second client refuses what it cannot reach."""
import os
import subprocess
from pathlib import Path

import pytest

NS_SSH = Path(__file__).resolve().parents[2] / "lab" / "guest" / "ns-ssh"


def ns_ssh(*args, **env):
    e = {k: v for k, v in os.environ.items() if not k.startswith("LAB_NS_")}
    e.update(env)
    return subprocess.run([str(NS_SSH), *args], capture_output=True, text=True, env=e, timeout=30)


@pytest.mark.parametrize("args", [("-t", "-t", "10.9.9.9", "true"), ("-o", "BatchMode=yes", "root@10.9.9.9", "true")])
def test_another_host_is_refused_as_ssh_refuses_it(args):
    r = ns_ssh(*args, LAB_NS_HOST="10.9.2.2")
    assert r.returncode == 255
    assert "10.9.9.9 is not the lab's second client (10.9.2.2)" in r.stderr


def test_no_host_and_no_second_client_are_refused():
    assert ns_ssh("-t").returncode == 255
    r = ns_ssh("-t", "-t", "10.9.2.2", "true")
    assert r.returncode == 255 and "(none)" in r.stderr


def test_missing_namespaces_are_named(tmp_path):
    r = ns_ssh("-t", "-t", "10.9.2.2", "true", LAB_NS_HOST="10.9.2.2", LAB_NS_NET="no-such-netns",
               LAB_NS_MNT=str(tmp_path / "none"))
    assert r.returncode == 255
    assert "no namespaces for 10.9.2.2" in r.stderr
