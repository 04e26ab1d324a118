#!/usr/bin/env python3
"""stress_report: the counts of a `make stress` run (lab/stress.sh) as report.md and report.json.

    stress_report.py OUT [--seconds N]
    stress_report.py --keep BOOT_DIR    exit 0 if a rerun may keep this boot (lab/stress.sh)

OUT/<kernel>/<test>/ holds one boot: guest.log (TAP), rc, splats.log when the kernel reported a
bug; OUT/bench/raw/ the QUICK benchmarks on the debug kernel (each point a test). Counted per
boot: TAP tests run, passed, failed, skipped (top-level lines only: an indented kselftest's own
lines are its parent's), kernel reports, "# bytes verified: N" and "# bytes lost: N", its wall
time (the boot directory's "seconds" file); per peer tool and NFS version, the "# peer: TOOL
VERS pass=N fail=N skip=N" lines, side by side for every kernel, with the cells where a kernel
passes less than stock marked.

A failed TAP line is a peer tool's when a "# peer:" count line follows it before the next one
(the count line closes the tool's lines). Peer tools fail some checks on stock too, for reasons
the results explain; on a patched kernel such a failure fails the run only where its cell is
below stock's (fewer passed or more failed) or has no stock cell to compare with. Any other
failed line, a kernel report, a lost byte, or a boot that did not run to the end of its TAP
plan fails the run on a patched kernel.

The report also names the boots a full `make stress` makes that OUT does not hold yet, per
kernel (the lists of lab/stress.sh, read from the repository: tests/guest, tests/stress,
lab/scenarios), and, where a kernel's boots ran on more than one build, which boots ran on
which: a run done in parts is complete when nothing is left to run and no kernel is mixed.
These do not change the exit status (STRESS_ONLY and STRESS_KERNELS leave boots out on purpose).
"""
import argparse
import json
import re
import sys
from pathlib import Path

import scenario

TAP = re.compile(r"^(ok|not ok) \d+ - (.*)$")
PLAN = re.compile(r"^1\.\.(\d+)")
PEER = re.compile(r"^# peer: (\S+) (\S+) pass=(\d+) fail=(\d+) skip=(\d+)")
BYTES = re.compile(r"^# bytes (verified|lost): (\d+)")
SPLATS = re.compile(r"^# (\d+) kernel report line")
KERNELS = ("stock", "patched", "patched-debug")
REPO = Path(__file__).resolve().parents[1]


def read(d, name):
    """The stripped text of the boot file d/name, None when the boot has no such file."""
    return (d / name).read_text().strip() if (d / name).exists() else None


def new_boot(d, test):
    """A boot's counts, all zero, and its guest's exit status (None: it never reported one)."""
    rc, secs = read(d, "rc"), read(d, "seconds") or ""
    return {"test": test, "rc": None if rc is None else int(rc or -1), "build": read(d, ".build"),
            "lab": read(d, "lab-commit") or None, "seconds": int(secs) if secs.isdigit() else None,
            "run": 0, "passed": 0, "failed": 0, "skipped": 0, "splats": 0, "verified": 0, "lost": 0,
            "peer": {}, "failures": [], "peer_failed": 0, "plan": None}


def splats(d):
    """Kernel report lines lab/vm.sh found in a boot directory (its splats*.log files)."""
    n = 0
    for sp in d.glob("splats*.log"):
        m = SPLATS.match(sp.read_text(errors="replace"))
        n += int(m.group(1)) if m else 1
    return n


def boot(d):
    """The counts of one boot directory."""
    log = (d / "guest.log").read_text(errors="replace") if (d / "guest.log").exists() else ""
    b = new_boot(d, d.name)
    pending = 0  # failed lines since the last "# peer:" line
    for line in log.splitlines():
        m = TAP.match(line)
        if m:
            b["run"] += 1
            if "# SKIP" in m.group(2):
                b["skipped"] += 1
            elif m.group(1) == "ok":
                b["passed"] += 1
            else:
                b["failed"] += 1
                b["failures"].append(m.group(2))
                pending += 1
            continue
        m = PEER.match(line)
        if m:
            b["peer"][f"{m.group(1)} v{m.group(2)}"] = [int(x) for x in m.group(3, 4, 5)]
            b["peer_failed"] += pending
            pending = 0
            continue
        m = PLAN.match(line)
        if m:
            b["plan"] = int(m.group(1))
            continue
        m = BYTES.match(line)
        if m:
            b[m.group(1)] += int(m.group(2))
    b["splats"] = splats(d)
    return b


def complete(b):
    """The boot ran to the end of its TAP plan (a guest that timed out or crashed did not)."""
    return b["plan"] is not None and b["plan"] == b["run"]


def keep(b):
    """A rerun may keep this boot: it passed, or it ran to its end and every failed line is a
    peer tool's, whose verdict is the comparison with stock that the report makes."""
    if b["splats"]:
        return False
    return b["rc"] == 0 or (complete(b) and b["failed"] > 0 and b["failed"] == b["peer_failed"])


def bench_boot(d):
    """A benchmark boot on the debug kernel (OUT/bench/raw/<scenario>/patched-<rep>): its points
    are its tests (measured, or an error row), plus the kernel reports of its boot."""
    b = new_boot(d, f"bench {d.parent.name} {d.name}")
    res = d / "results.jsonl"
    for line in (res.read_text(errors="replace").splitlines() if res.exists() else []):
        try:
            row = json.loads(line)
        except ValueError:
            continue
        b["run"] += 1
        if row.get("error"):
            b["failed"] += 1
            b["failures"].append(f"{row.get('id')}: {row['error']}")
        else:
            b["passed"] += 1
    b["splats"] = splats(d)
    return b


def collect(out):
    res = {}
    for k in KERNELS:
        kd = out / k
        if kd.is_dir():
            res[k] = [boot(d) for d in sorted(kd.iterdir()) if d.is_dir()]
    raw = out / "bench" / "raw"
    if raw.is_dir():
        res.setdefault("patched-debug", []).extend(bench_boot(d) for d in sorted(raw.glob("*/*")) if d.is_dir())
    return res


def expected(repo=REPO):
    """{kernel: [test]}: the boots of a full `make stress` (lab/stress.sh): on the debug kernel
    every in-guest test but make check's short forms, every stress suite and the QUICK
    benchmark of each scenario that boots the patched kernel ("bench SCENARIO"); on the patched
    kernel the stress suites; on stock the peer tools."""
    guest = sorted(p.stem for p in (repo / "tests" / "guest").glob("*.sh") if not p.stem.endswith("_short"))
    stress = sorted(p.stem for p in (repo / "tests" / "stress").glob("*.sh"))
    bench = []
    for path in sorted((repo / "lab" / "scenarios").glob("*.toml")):
        # As bench.py --quick reads it; one it refuses is left to run (bench.py names the error).
        try:
            kernels = scenario.load(str(path), quick=True).kernels
        except scenario.ScenarioError:
            kernels = ["patched"]
        if "patched" in kernels:
            bench.append(f"bench {path.stem}")
    return {"patched-debug": guest + stress + bench, "patched": stress,
            "stock": [t for t in stress if t.startswith("peer_")]}


def not_run(res, repo=REPO):
    """{kernel: [test]}: what a full run would boot that OUT does not hold."""
    have = {k: {" ".join(b["test"].split()[:2]) for b in res.get(k, [])} for k in KERNELS}
    miss = {k: [t for t in tests if t not in have[k]] for k, tests in expected(repo).items()}
    return {k: v for k, v in miss.items() if v}


def by_build(boots):
    """{build: [test]} of a kernel's boots (None: not recorded)."""
    out = {}
    for b in boots:
        out.setdefault(b["build"], []).append(b["test"])
    return out


def totals(boots):
    keys = ("run", "passed", "failed", "skipped", "splats", "verified", "lost")
    t = {key: sum(b[key] for b in boots) for key in keys}
    t["boots"] = len(boots)
    t["boots_failed"] = sum(1 for b in boots if b["rc"] != 0)
    # the boots' wall time (lab/guest-tests.sh's OUTROOT/<test>/seconds), over those that have it:
    # a run done in parts across sessions has no other total
    timed = [b["seconds"] for b in boots if b["seconds"] is not None]
    t["seconds"], t["boots_timed"] = sum(timed), len(timed)
    # the kernel builds (lab/build.sh's .lab-config stamp) the boots ran on: a run resumed after
    # the series changed mixes them, and its counts are not one kernel's
    t["builds"] = sorted({b["build"] for b in boots if b["build"]})
    # the lab commits (lab/guest-tests.sh's lab-commit) that ran them, and how many boots have none
    t["labs"] = sorted({b["lab"] for b in boots if b["lab"]})
    t["boots_without_lab"] = sum(1 for b in boots if not b["lab"])
    return t


def peer_table(res):
    """{tool-version: {kernel: [pass, fail, skip]}}, the cells below stock, and the cells that
    two boots of one kernel both counted ([(tool, kernel, [tests])]): a suite moved from one
    boot to another while an OUT still holds a boot of the old layout. The last boot in the
    order of its name gives the cell; the report names both."""
    tab, seen = {}, {}
    for k, boots in res.items():
        for b in boots:
            for tool, c in b["peer"].items():
                tab.setdefault(tool, {})[k] = c
                seen.setdefault((tool, k), []).append(b["test"])
    worse = [(tool, k) for tool, row in tab.items() for k, c in row.items()
             if k != "stock" and "stock" in row and (c[0] < row["stock"][0] or c[1] > row["stock"][1])]
    twice = [(tool, k, tests) for (tool, k), tests in seen.items() if len(tests) > 1]
    return tab, worse, twice


def verdict_failures(res):
    """What fails the run on the patched kernels, boot by boot, besides the peer table."""
    bad = []
    for k, boots in res.items():
        if k == "stock":
            continue
        for b in boots:
            why = []
            if b["failed"] > b["peer_failed"]:
                why.append(f"{b['failed'] - b['peer_failed']} failed test(s)")
            if b["splats"]:
                why.append(f"{b['splats']} kernel report line(s)")
            if b["lost"]:
                why.append(f"{b['lost']} bytes lost")
            if b["rc"] != 0 and not keep(b) and not why:
                why.append(f"exit status {b['rc']} before the end of its TAP plan")
            if why:
                bad.append(f"{k} {b['test']}: " + ", ".join(why))
    return bad


def mib(n):
    return f"{n / 2**20:.0f} MiB"


def minutes(s):
    return "-" if s is None else f"{s // 60} min {s % 60} s" if s < 3600 else f"{s // 3600} h {s // 60 % 60} min"


def write(out, seconds=None, repo=REPO):
    res = collect(out)
    tab, worse, twice = peer_table(res)
    summary = {k: totals(v) for k, v in res.items()}
    doc = {"seconds": seconds, "totals": summary, "boots": res, "peer": tab,
           "peer_below_stock": [f"{t} on {k}" for t, k in worse],
           "peer_counted_twice": [f"{t} on {k}: {', '.join(tests)}" for t, k, tests in twice],
           "peer_uncompared": [f"{t} on {k}" for t, row in sorted(tab.items()) for k, c in row.items()
                               if k != "stock" and c[1] and "stock" not in row],
           "verdict_failures": verdict_failures(res)}
    # stock is the reference: its failures are reported; the patched kernels' fail the run, a
    # peer tool's where its cell is below stock's or has nothing to compare with
    doc["fails_run"] = doc["verdict_failures"] + [f"{x}: below stock" for x in doc["peer_below_stock"]] + \
        [f"{x}: no stock count (run stock's peer suites into the same OUT)" for x in doc["peer_uncompared"]]
    doc["not_run"] = not_run(res, repo)
    doc["mixed"] = {k: by_build(v) for k, v in res.items() if len(summary[k]["builds"]) > 1}
    doc["complete"] = not doc["not_run"] and not doc["mixed"]
    (out / "report.json").write_text(json.dumps(doc, indent=1))
    md = ["# make stress", ""]
    if seconds:
        md += [f"Took {minutes(seconds)}.", ""]
    md += ["| kernel | boots (failed) | tests run | passed | failed | skipped | kernel reports | bytes verified "
           "| bytes lost | boot time |",
           "|---|---|---|---|---|---|---|---|---|---|"]
    for k, t in summary.items():
        untimed = t["boots"] - t["boots_timed"]
        md.append(f"| {k} | {t['boots']} ({t['boots_failed']}) | {t['run']} | {t['passed']} | {t['failed']} | "
                  f"{t['skipped']} | {t['splats']} | {mib(t['verified'])} | {t['lost']} | "
                  f"{minutes(t['seconds']) if t['boots_timed'] else '-'}"
                  f"{f' ({untimed} boot(s) not timed)' if untimed and t['boots_timed'] else ''} |")
    md += [""] + [f"Builds of {k}: " + (", ".join(f"`{x}`" for x in t["builds"]) or "not recorded")
                  + (" (**mixed**: boots of different builds)" if len(t["builds"]) > 1 else "")
                  for k, t in summary.items()]
    md += [""] + [f"Lab commits of {k}: " + (", ".join(f"`{x}`" for x in t["labs"]) or "not recorded")
                  + (f" ({t['boots_without_lab']} boot(s) not recorded)"
                     if t["labs"] and t["boots_without_lab"] else "")
                  for k, t in summary.items()]
    md += ["", "## Boots", "", "| kernel | test | rc | run | passed | failed | skipped | reports | verified | lost "
           "| time | lab |", "|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for k, boots in res.items():
        for b in boots:
            md.append(f"| {k} | {b['test']} | {b['rc']} | {b['run']} | {b['passed']} | {b['failed']} | "
                      f"{b['skipped']} | {b['splats']} | {mib(b['verified'])} | {b['lost']} | "
                      f"{minutes(b['seconds'])} | {b['lab'] or '-'} |")
    fails = [(k, b["test"], f) for k, boots in res.items() for b in boots for f in b["failures"]]
    if fails:
        md += ["", "Failed tests (a peer tool's fail the run only where the peer table below marks "
               "its cell):", ""] + [f"- {k} {t}: {f}" for k, t, f in fails]
    md += ["", "Fails the run: " + ("nothing." if not doc["fails_run"] else ""), ""] + \
        [f"- {x}" for x in doc["fails_run"]]
    md += ["", "Complete: " + ("yes: every boot of a full `make stress`, each kernel's on one build."
                               if doc["complete"] else "no.")]
    if doc["not_run"]:
        md += ["", "Not run yet (a full `make stress` boots these; `STRESS_ONLY` or `STRESS_KERNELS` "
               "left them out, or a run stopped before them):", ""]
        md += [f"- {k}: {', '.join(tests)}" for k, tests in doc["not_run"].items()]
    if doc["mixed"]:
        md += ["", "Boots by build, where a kernel's ran on more than one (a full run reruns those not of "
               "the build it boots):", ""]
        md += [f"- {k} `{bd or 'not recorded'}`: {', '.join(tests)}"
               for k, builds in doc["mixed"].items() for bd, tests in builds.items()]
    reps = [(k, b["test"]) for k, boots in res.items() for b in boots if b["splats"]]
    if reps:
        md += ["", "Kernel reports (each boot's splats.log):", ""] + [f"- {k}/{t}/splats.log" for k, t in reps]
    if tab:
        ks = [k for k in KERNELS if any(k in row for row in tab.values())]
        md += ["", "## Peer tools: pass / fail / skip", "", "| tool | " + " | ".join(ks) + " |",
               "|---|" + "---|" * len(ks)]
        for tool in sorted(tab):
            cells = ["/".join(map(str, tab[tool][k])) + (" **below stock**" if (tool, k) in worse else "")
                     if k in tab[tool] else "-" for k in ks]
            md.append(f"| {tool} | " + " | ".join(cells) + " |")
        if twice:
            md += ["", "Counted by two boots of one kernel (the cell is the last one's; rerun the older):", ""]
            md += [f"- {t} on {k}: {', '.join(tests)}" for t, k, tests in twice]
    (out / "report.md").write_text("\n".join(md) + "\n")
    return doc


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("out")
    ap.add_argument("--seconds", type=int)
    ap.add_argument("--keep", action="store_true", help="OUT is one boot's directory: may a rerun keep it?")
    a = ap.parse_args(argv)
    out = Path(a.out)
    if a.keep:
        return 0 if out.is_dir() and keep(boot(out)) else 1
    if not out.is_dir():
        print(f"error: no stress run in {out}", file=sys.stderr)
        return 2
    doc = write(out, a.seconds)
    print((out / "report.md").read_text())
    for x in doc["fails_run"]:
        print(f"stress: fails the run: {x}", file=sys.stderr)
    return 1 if doc["fails_run"] else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
