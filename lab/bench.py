#!/usr/bin/env python3
"""bench: run benchmark scenarios on stock and patched 6.12 and write the report.

    bench.py [--quick] [--out DIR] [--no-build] SCENARIO.toml...

Every scenario is validated before anything is built or booted. For each repetition the
kernels boot in turn (stock, patched, stock, ...), each boot running all points of the
scenario in one guest (lab/guest/bench.py). Results land in DIR/raw/<scenario>/<kind>-<rep>/
as they are measured; rerunning with the same DIR resumes where it stopped. The report
(report.md, results.csv, summary.csv, plots/) is regenerated at the end (lab/report.py).
"""

import argparse
import json
import math
import os
import platform
import shlex
import subprocess
import sys
import time
from pathlib import Path

import report
import scenario

LAB = Path(__file__).resolve().parent
REPO = LAB.parent


def log(msg):
    print(f"[{time.strftime('%H:%M:%S')}] bench: {msg}", file=sys.stderr, flush=True)


def lab_env(var):
    return subprocess.run(["bash", "-c", f". {LAB}/lib.sh; echo ${var}"],
                          capture_output=True, text=True, check=True).stdout.strip()


def guest_memory_mb(sc):
    """Enough for the null_blk disk, both page caches (client and server share the guest)."""
    return max(5120, 2048 + 3 * sc.data_mb())


def boot_timeout(sc):
    per_point = sc.workload["runtime_s"] + 20 + max(p["delay_ms"] for p in sc.points) // 5
    return 600 + len(sc.points) * per_point


def kernel_info(kind):
    build = Path(lab_env("LAB_CACHE")) / kind / "build" / "include" / "generated"
    rel = (build / "utsrelease.h").read_text().split('"')[1]
    ver = (build / "utsversion.h").read_text().split('"')[1]
    return {"release": rel, "version": ver}


def run_boot(sc, kind, rep, out):
    d = out / "raw" / sc.name / f"{kind}-{rep}"
    d.mkdir(parents=True, exist_ok=True)
    (d / "plan.json").write_text(json.dumps(sc.plan(), indent=1))
    res = d / "results.jsonl"
    have = {json.loads(line)["id"] for line in res.read_text().splitlines() if line.strip()} if res.exists() else set()
    if all(p["id"] in have for p in sc.points):
        log(f"{sc.name}: {kind} repetition {rep}: already measured, skipped")
        return True
    log(f"{sc.name}: {kind} repetition {rep}: {len(sc.points)} points (log: {d}/guest.log)")
    return vm_run(kind, d, ["bench.py", str(d)], f"{sc.name}: {kind} repetition {rep}",
                  LAB_MEM=f"{guest_memory_mb(sc)}M", LAB_VM_TIMEOUT=str(boot_timeout(sc)))


def vm_run(kernel, d, guest_argv, what, **env):
    """Boot kernel (a kind or a bzImage) with lab/vm.sh and run lab/guest/<guest_argv> in it,
    its output in d; log how a failed boot ended. True if the guest command succeeded."""
    t0 = time.time()
    cmd = [str(LAB / "vm.sh"), kernel, str(d), str(LAB / "guest" / guest_argv[0]), *guest_argv[1:]]
    r = subprocess.run(cmd, env=dict(os.environ, **env))
    if r.returncode != 0:
        print(f"[{time.strftime('%H:%M:%S')}] vm: {what} did not finish cleanly (rc {r.returncode}, "
              f"{time.time() - t0:.0f}s); what it measured is kept in {d}", file=sys.stderr, flush=True)
    return r.returncode == 0


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("scenarios", nargs="+")
    ap.add_argument("--quick", action="store_true", help="use each scenario's [quick] overrides")
    ap.add_argument("--out", default=str(REPO / "out" / "bench" / time.strftime("%Y%m%d-%H%M%S")))
    ap.add_argument("--no-build", action="store_true", help="use the kernels already built")
    args = ap.parse_args(argv)

    try:
        scs = [scenario.load(p, quick=args.quick) for p in args.scenarios]
    except scenario.ScenarioError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    names = [s.name for s in scs]
    if len(set(names)) != len(names):
        print(f"error: two scenarios share a name: {names}", file=sys.stderr)
        return 2
    kinds = [k for k in scenario.KINDS if any(k in s.kernels for s in scs)]
    est = sum(s.repetitions * len(s.kernels) * (60 + len(s.points) * (s.workload["runtime_s"] + 6)) for s in scs)
    log(f"{len(scs)} scenario(s), {sum(len(s.points) for s in scs)} points, kernels {kinds}; "
        f"at most {math.ceil(est / 60)} min of guest time")

    out = Path(args.out).resolve()
    out.mkdir(parents=True, exist_ok=True)
    if not args.no_build:
        for k in kinds:
            subprocess.run([str(LAB / "build.sh"), k], check=True, stdout=subprocess.DEVNULL)
    series = subprocess.run([str(LAB / "apply.sh")], capture_output=True, text=True, check=True).stdout.strip()
    # The tree id names the kernel source alone: changelog edits do not change it.
    tree = subprocess.run(["git", "-C", lab_env("APPLY_WT"), "rev-parse", "HEAD^{tree}"],
                          capture_output=True, text=True, check=True).stdout.strip()
    meta_path = out / "meta.json"
    meta = json.loads(meta_path.read_text()) if meta_path.exists() else {"runs": []}
    meta.update({
        "base": lab_env("BASE_TAG"),
        "series_commit": series,
        "series_tree": tree,
        "patches": [p for p in (REPO / "patches" / "series").read_text().split() if p],
        "kernels": {k: kernel_info(k) for k in kinds},
        "host": {"machine": platform.machine(), "cpus": os.cpu_count(), "kernel": platform.release()},
    })
    meta["runs"].append({
        "started": time.strftime("%Y-%m-%d %H:%M:%S %Z"),
        "command": " ".join(shlex.quote(a) for a in sys.argv),
        "quick": args.quick,
        "scenarios": {s.name: s.path for s in scs},
    })
    meta_path.write_text(json.dumps(meta, indent=1))

    ok = True
    for sc in scs:
        for rep in range(1, sc.repetitions + 1):
            for kind in [k for k in scenario.KINDS if k in sc.kernels]:
                ok &= run_boot(sc, kind, rep, out)
        report.write(out)  # keep the report current after every scenario
    report.write(out)
    log(f"report: {out}/report.md")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
