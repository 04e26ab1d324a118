import subprocess

import checkconfig


def write(tmp_path, name, text):
    p = tmp_path / name
    p.write_text(text)
    return str(p)


def test_parse_reads_set_and_unset_options(tmp_path):
    p = write(tmp_path, "c", "CONFIG_A=y\n# CONFIG_B is not set\nCONFIG_C=\"x\"\n# comment\n")
    assert checkconfig.parse(p) == {"CONFIG_A": "y", "CONFIG_B": "n", "CONFIG_C": '"x"'}


def test_dropped_option_is_reported(tmp_path):
    dot = write(tmp_path, ".config", "CONFIG_A=y\n# CONFIG_B is not set\n")
    frag = write(tmp_path, "lab.config", "CONFIG_A=y\nCONFIG_B=y\nCONFIG_C=n\n")
    bad = checkconfig.mismatches(dot, str(tmp_path), "patched", [frag])
    assert bad == ["CONFIG_B: lab.config asks for y, .config has n"]


def test_series_option_may_be_missing_from_a_stock_tree_only(tmp_path):
    tree = tmp_path / "tree"
    tree.mkdir()
    subprocess.run(["git", "init", "-q", str(tree)], check=True)
    dot = write(tmp_path, ".config", "CONFIG_A=y\n")
    frag = write(tmp_path, "series.config", "CONFIG_NEW_THING=y\n")
    assert checkconfig.mismatches(dot, str(tree), "stock", [frag]) == []
    assert checkconfig.mismatches(dot, str(tree), "patched", [frag]) != []
    # A stock tree that does define the symbol must honour it.
    (tree / "Kconfig").write_text("config NEW_THING\n\tbool\n")
    subprocess.run(["git", "-C", str(tree), "add", "Kconfig"], check=True)
    assert checkconfig.mismatches(dot, str(tree), "stock", [frag]) != []


def test_a_later_fragment_overrides_an_earlier_one(tmp_path):
    dot = write(tmp_path, ".config", "# CONFIG_A is not set\n")
    series = write(tmp_path, "series.config", "CONFIG_A=y\n")
    variant = write(tmp_path, "variant-x.config", "CONFIG_A=n\n")
    assert checkconfig.mismatches(dot, str(tmp_path), "patched", [series, variant]) == []
    assert checkconfig.mismatches(dot, str(tmp_path), "patched", [variant, series]) != []
