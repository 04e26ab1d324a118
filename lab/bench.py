#!/usr/bin/env python3
"""bench: run benchmark scenarios on stock and patched 6.12 and write the report.

    bench.py [--quick] [--out DIR] [--no-build] [--kernels K,...] [--variant V] SCENARIO.toml...

Every scenario is validated before anything is built or booted. For each repetition and
each [guest] variant the kernels boot in turn (stock, patched, stock, ...), each boot
running all points of the scenario in one guest (lab/guest/bench.py). Results land in
DIR/raw/<scenario>/<kind>[-g<variant>]-<rep>/ as they are measured. Rerunning with the
same DIR resumes: points already measured are kept, failed ones are retried. A guest that
hangs or panics is reported with the scenario, the kernel and the point it was on; that
point is recorded as failed and the guest is booted again for the points after it. The
report (report.md, results.csv, summary.csv, plots/) is regenerated after each scenario.
--kernels runs only some of each scenario's kernels; --variant V boots the patched kernel's
build variant V (lab/config/variant-V.config) in place of patched, as `make stress` does with
its debug kernel: the report still says "patched", meta.json names the variant's build.
"""

import argparse
import functools
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
from guest.bench import status as read_results  # one reader of results.jsonl, the guest's

LAB = Path(__file__).resolve().parent
REPO = LAB.parent
SETUP_S = 300          # guest boot and one-time setup (data files, nfsd), generously
VARIANT = None         # --variant: the patched kernel boots as patched-VARIANT
MAX_BOOTS = 4          # per kernel and repetition: a guest that keeps dying is given up on


def log(msg):
    print(f"[{time.strftime('%H:%M:%S')}] bench: {msg}", file=sys.stderr, flush=True)


def lab_sh(cmd):
    """What the shell command cmd prints with lib.sh sourced, stripped."""
    return subprocess.run(["bash", "-c", f". {LAB}/lib.sh; {cmd}"],
                          capture_output=True, text=True, check=True).stdout.strip()


def lab_env(var):
    return lab_sh(f"echo ${var}")


def lab_commit():
    """The lab's commit as lib.sh's lab_commit gives it (with "+changes" for a dirty lab)."""
    return lab_sh("lab_commit")


def build_name(kind):
    """The lab/build.sh directory that kind boots from (patched-VARIANT under --variant)."""
    return f"{kind}-{VARIANT}" if VARIANT and kind == "patched" else kind


def kernel_info(kind):
    """What the kernel of KIND was built from: its release and build stamp, and the commit
    of its source worktree with the subjects of the patches on top of the base. With
    --no-build these can differ from patches/ (a build from another PATCH_DIR), and this is
    what ran."""
    top = Path(lab_env("LAB_CACHE")) / build_name(kind)
    gen = top / "build" / "include" / "generated"
    info = {"release": (gen / "utsrelease.h").read_text().split('"')[1],
            "version": (gen / "utsversion.h").read_text().split('"')[1]}
    src = top / "src"
    git = ["git", "-C", str(src)]
    head = subprocess.run(git + ["rev-parse", "HEAD"], capture_output=True, text=True)
    if head.returncode == 0:
        info["source_commit"] = head.stdout.strip()
        subj = subprocess.run(git + ["log", "--reverse", "--format=%s",
                                     f"{lab_env('BASE_TAG')}..HEAD"],
                              capture_output=True, text=True)
        if subj.returncode == 0:
            info["patches"] = [s for s in subj.stdout.splitlines() if s]
    return info


def boot_dir(out, sc, kind, gi, rep):
    variant = f"-g{gi + 1}" if len(sc.guests) > 1 else ""
    return out / "raw" / sc.name / f"{kind}{variant}-{rep}"


def same_setup(old, new):
    old = {**old, "guest": {"udev": "off", **old.get("guest", {})}}   # plans from before [guest] udev
    keys = ("family", "setup", "guest", "sample_ms")
    return all(old.get(k) == new.get(k) for k in keys)


def append_row(res, row):
    """Append a row the host writes (a point lost with its guest), after any torn line."""
    data = res.read_bytes() if res.exists() else b""
    with open(res, "ab") as f:
        if data and not data.endswith(b"\n"):
            f.write(b"\n")
        f.write((json.dumps(row) + "\n").encode())


def splat(console):
    """The first kernel report line in a console log, if any (lab/splat.sh, the scan every
    boot's dmesg gets: same patterns, same known stock reports)."""
    if not console.exists():
        return None
    r = subprocess.run([str(LAB / "splat.sh"), str(console)], capture_output=True, text=True)
    first = [ln[4:] for ln in r.stdout.splitlines() if ln.startswith("#   ")]
    return first[0].strip()[:300] if r.returncode == 1 and first else None


@functools.cache
def udev_dir():
    """lab/udev.sh: Debian's udevd and the companion nfsrahead for [guest] udev (built once)."""
    r = subprocess.run([f"{LAB}/udev.sh"], stdout=subprocess.PIPE, text=True)
    if r.returncode != 0:
        raise SystemExit("error: lab/udev.sh failed (above); [guest] udev needs it")
    return r.stdout.strip()


def run_boot(sc, kind, gi, rep, out):
    guest = sc.guests[gi]
    d = boot_dir(out, sc, kind, gi, rep)
    d.mkdir(parents=True, exist_ok=True)
    plan = sc.plan(guest)
    if guest["udev"] != "off":
        plan["udev_dir"] = udev_dir()
    if (d / "plan.json").exists() and not same_setup(json.loads((d / "plan.json").read_text()), plan):
        raise SystemExit(f"error: {d} holds results of a different {sc.name} (its server, link, workload, "
                         f"[guest] or sample_ms differ from {sc.path}); use another --out, or remove {d}")
    (d / "plan.json").write_text(json.dumps(plan, indent=1))
    (d / "boot.json").write_text(json.dumps({"kind": kind, "rep": rep, "guest": guest}))
    res = d / "results.jsonl"
    what = f"{sc.name}: {kind} repetition {rep}" + (f" guest {guest}" if len(sc.guests) > 1 else "")
    tried = set()
    for boot in range(MAX_BOOTS):
        got = read_results(res)
        todo = [p for p in sc.points if got.get(p["id"]) != "ok" and p["id"] not in tried]
        if not todo:
            break
        if boot == 0 and len(todo) < len(sc.points):
            log(f"{what}: resuming, {len(todo)} of {len(sc.points)} points to (re)run")
        else:
            log(f"{what}: {len(todo)} points (log: {d}/guest.log)")
        timeout = SETUP_S + sum(sc.fam.point_seconds(p["cfg"]) for p in todo)
        if VARIANT == "debug":      # KASAN and lockdep under TCG: everything takes longer
            timeout *= 4
        # Points this invocation already tried (one that hung its guest) are not run again.
        (d / "skip.json").write_text(json.dumps(sorted(t for t in tried if got.get(t) != "ok")))
        finished = vm_run(build_name(kind), d, ["bench.py", str(d)], what, LAB_MEM=f"{guest['memory_mb']}M",
                          LAB_CPUS=str(guest["cpus"]), LAB_APPEND=guest["cmdline"], LAB_VM_TIMEOUT=str(timeout))
        after = read_results(res)
        tried |= {p["id"] for p in todo if p["id"] in after}
        if finished:
            break
        # The guest died: name the point it was on, record it as failed, boot again for the rest.
        # Its console log is kept (console-<boot>.log), the next boot writes its own.
        cur = d / "current.json"
        if (d / "console.log").exists():
            (d / "console.log").rename(d / f"console-{boot + 1}.log")
        sp = splat(d / f"console-{boot + 1}.log")
        err = (d / "vm.err").read_text(errors="replace")
        how = (f"kernel splat: {sp}" if sp else "hung in its boot" if "its boot hung" in err
               else "timed out" if "timed out" in err else "stopped without reporting")
        if cur.exists():
            pid = json.loads(cur.read_text())["id"]
            cur.unlink()
            log(f"error: {what}: the guest {how} during point {pid}; console: {d}/console-{boot + 1}.log")
            append_row(res, {"id": pid, "axes": next((p["axes"] for p in sc.points if p["id"] == pid), {}),
                             "error": f"guest {how} during this point"})
            tried.add(pid)
        else:
            log(f"error: {what}: the guest {how} before its first point; console: {d}/console-{boot + 1}.log")
            return False
    (d / "skip.json").unlink(missing_ok=True)
    final = read_results(res)
    return all(final.get(p["id"]) == "ok" for p in sc.points)


def vm_run(kernel, d, guest_argv, what, **env):
    """Boot kernel (a kind or a bzImage) with lab/vm.sh and run lab/guest/<guest_argv> in it,
    its output in d. True if the guest ran to the end (whatever its exit status)."""
    t0 = time.time()
    cmd = [str(LAB / "vm.sh"), kernel, str(d), str(LAB / "guest" / guest_argv[0]), *guest_argv[1:]]
    with open(d / "vm.err", "w") as err:
        r = subprocess.run(cmd, env=dict(os.environ, **env), stderr=err)
    sys.stderr.write((d / "vm.err").read_text(errors="replace"))
    # lab/vm.sh adds the boot's wall time to d/seconds (a resumed boot's to the first part's).
    finished = (d / "rc").exists()
    if r.returncode != 0:
        log(f"{what} did not finish cleanly (rc {r.returncode}, {time.time() - t0:.0f}s); "
            f"what it measured is kept in {d}")
    return finished


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("scenarios", nargs="+")
    ap.add_argument("--quick", action="store_true", help="use each scenario's [quick] overrides")
    ap.add_argument("--out", default=str(REPO / "out" / "bench" / time.strftime("%Y%m%d-%H%M%S")))
    ap.add_argument("--no-build", action="store_true", help="use the kernels already built")
    ap.add_argument("--kernels", help="comma-separated: run only these of each scenario's kernels")
    ap.add_argument("--variant", help="boot the patched kernel's build variant VARIANT (lab/config/variant-*)")
    args = ap.parse_args(argv)
    global VARIANT
    VARIANT = args.variant
    if VARIANT and not (LAB / "config" / f"variant-{VARIANT}.config").exists():
        print(f"error: --variant {VARIANT}: no lab/config/variant-{VARIANT}.config", file=sys.stderr)
        return 2
    only = set(args.kernels.split(",")) if args.kernels else None
    if only and not only <= set(scenario.KINDS):
        print(f"error: --kernels must name {', '.join(scenario.KINDS)}, not {args.kernels!r}", file=sys.stderr)
        return 2

    missing = report.missing_deps()
    if missing:
        print(f"error: {missing}", file=sys.stderr)
        return 2
    try:
        scs = [scenario.load(p, quick=args.quick) for p in args.scenarios]
    except scenario.ScenarioError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    if only:
        for s in scs:
            s.kernels = [k for k in s.kernels if k in only]
    names = [s.name for s in scs]
    if len(set(names)) != len(names):
        print(f"error: two scenarios share a name: {names}", file=sys.stderr)
        return 2
    kinds = [k for k in scenario.KINDS if any(k in s.kernels for s in scs)]
    est = sum(s.repetitions * len(s.kernels) * len(s.guests) *
              (60 + sum(s.fam.point_seconds(p["cfg"]) for p in s.points)) for s in scs)
    log(f"{len(scs)} scenario(s), {sum(len(s.points) for s in scs)} points, kernels {kinds}; "
        f"at most {math.ceil(est / 60)} min of guest time")

    out = Path(args.out).resolve()
    out.mkdir(parents=True, exist_ok=True)
    if not args.no_build:
        for k in kinds:
            variant = [VARIANT] if VARIANT and k == "patched" else []
            subprocess.run([str(LAB / "build.sh"), k, *variant], check=True, stdout=subprocess.DEVNULL)
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
        "patches": [p for p in (Path(lab_env("PATCH_DIR")) / "series").read_text().split() if p],
        "kernels": {k: kernel_info(k) for k in kinds},
        "host": {"machine": platform.machine(), "cpus": os.cpu_count(), "kernel": platform.release()},
    })
    meta["runs"].append({
        "started": time.strftime("%Y-%m-%d %H:%M:%S %Z"),
        "command": " ".join(shlex.quote(a) for a in sys.argv),
        "quick": args.quick,
        "variant": VARIANT,
        "scenarios": {s.name: s.path for s in scs},
        "families": {s.name: s.family for s in scs},
        "lab_commit": lab_commit(),
    })
    meta_path.write_text(json.dumps(meta, indent=1))

    ok = True
    for sc in scs:
        for rep in range(1, sc.repetitions + 1):
            for gi in range(len(sc.guests)):
                for kind in [k for k in scenario.KINDS if k in sc.kernels]:
                    ok &= run_boot(sc, kind, gi, rep, out)
        report.write(out)  # keep the report current after every scenario
    report.write(out)
    log(f"report: {out}/report.md")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
