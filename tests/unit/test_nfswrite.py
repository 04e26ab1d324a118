"""lab/guest/nfswrite.py: the writeback guest tests' writers and RPC counts."""

from pathlib import Path

import pytest

from guest import nfswrite

STATS = """device srv:/srv/export mounted on /srv/nfs with fstype nfs4 statvers=1.1
\tRPC iostats version: 1.1  p/v: 100003/4 (nfs)
\tbytes:\t0 0 0 0 0 0 0 0
\tper-op statistics
\t        READ: 7 7 0 1000 2000 0 0 0 0
\t       WRITE: 12 12 0 3000 1000 0 0 0 0
\t      COMMIT: 3 3 0 300 200 0 0 0 0
device srv:/srv/export mounted on /srv/nfs2 with fstype nfs statvers=1.1
\tper-op statistics
\t      COMMIT: 99 99 0 300 200 0 0 0 0
"""


def test_ops_counts_the_asked_mount_only(monkeypatch):
    monkeypatch.setattr(Path, "read_text", lambda self: STATS)
    assert nfswrite.ops("/srv/nfs") == (7, 12, 3)
    assert nfswrite.ops("/srv/nfs2") == (0, 0, 99)


def test_ops_prints_one_line(monkeypatch, capsys):
    monkeypatch.setattr(Path, "read_text", lambda self: STATS)
    nfswrite.main(["ops", "/srv/nfs/"])
    assert capsys.readouterr().out == "7 12 3\n"


@pytest.mark.parametrize("argv, why", [
    ([], "usage"), (["ops"], "usage"), (["stream", "/m"], "usage"), (["bogus", "/m"], "usage"),
    (["scatter", "/m", "768", "64k", "128"], "numbers"), (["scatter", "/m", "768", "256", "128"], "RUN_KB"),
    (["scatter", "/m", "768", "0", "128"], "RUN_KB"),
])
def test_bad_arguments_are_named(argv, why):
    with pytest.raises(SystemExit, match=why):
        nfswrite.main(argv)
