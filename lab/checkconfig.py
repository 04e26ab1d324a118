#!/usr/bin/env python3
"""checkconfig: verify that every option a lab config fragment asks for is in the final .config.

Kconfig silently drops an option whose dependencies are missing; this turns that into an error
naming the option. Later fragments override earlier ones. Options from fragments other than
lab.config (series.config, variant-*.config) may be absent from a stock tree that does not
define them at all.

usage: checkconfig.py DOTCONFIG SRCTREE KIND FRAGMENT...
"""
import re
import subprocess
import sys

LINE = re.compile(r"^(CONFIG_[A-Za-z0-9_]+)=(.*)$")
UNSET = re.compile(r"^# (CONFIG_[A-Za-z0-9_]+) is not set$")


def parse(path):
    """Return {option: value} for a config file or fragment ("n" for unset options)."""
    opts = {}
    with open(path) as f:
        for raw in f:
            line = raw.strip()
            m = LINE.match(line)
            if m:
                opts[m.group(1)] = m.group(2)
                continue
            m = UNSET.match(line)
            if m:
                opts[m.group(1)] = "n"
    return opts


def defined_in_tree(srctree, option):
    sym = option[len("CONFIG_"):]
    r = subprocess.run(
        ["git", "-C", srctree, "grep", "-qE", rf"^\s*(menu)?config\s+{sym}\s*$", "--", "*Kconfig*"],
        check=False,
    )
    return r.returncode == 0


def mismatches(dotconfig, srctree, kind, fragments):
    final = parse(dotconfig)
    # Later fragments override earlier ones, as merge_config.sh does.
    wanted = {}
    for frag in fragments:
        for opt, want in parse(frag).items():
            wanted[opt] = (want, frag)
    bad = []
    for opt, (want, frag) in wanted.items():
        got = final.get(opt, "n")
        if got == want:
            continue
        if kind == "stock" and not frag.endswith("lab.config") and not defined_in_tree(srctree, opt):
            continue
        bad.append(f"{opt}: {frag.rsplit('/', 1)[-1]} asks for {want}, .config has {got}")
    return bad


def main(argv):
    if len(argv) < 5:
        print(__doc__, file=sys.stderr)
        return 2
    bad = mismatches(argv[1], argv[2], argv[3], argv[4:])
    for b in bad:
        print(f"error: {b} (a dependency is missing?)", file=sys.stderr)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
