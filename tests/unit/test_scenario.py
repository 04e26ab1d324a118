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
    assert sc.points[0]["id"] == "v4.2/r512/d0/radefault/bs4k"
    assert {p["bs"] for p in sc.points} == {"4k", "1m"}


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
    assert (q.repetitions, [p["delay_ms"] for p in q.points]) == (1, [5])


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
    ('description = "x"\nkernels = ["mine"]\n', "kernels"),
    ('description = "x"\nrepetitions = true\n', "repetitions"),
    ('description = "x"\n[quick.link]\ndelay = 1\n', "quick.link.delay"),
    ('[link]\ndelay_ms = 1\n', "description"),
    ('description = "x"\n[link\n', "not valid TOML"),
])
def test_mistakes_name_the_field(tmp_path, text, field):
    with pytest.raises(scenario.ScenarioError) as e:
        load_text(tmp_path, text)
    assert field in str(e.value)


def test_missing_file_is_a_clear_error(tmp_path):
    with pytest.raises(scenario.ScenarioError, match="no such scenario file"):
        scenario.load(str(tmp_path / "nope.toml"))
