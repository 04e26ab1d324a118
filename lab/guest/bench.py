#!/usr/bin/python3
"""In-guest benchmark runner: set up what the scenario's family needs, then run every point.

    bench.py OUTDIR        (reads OUTDIR/plan.json, appends to OUTDIR/results.jsonl)

Each point's result is appended (and fsync'ed) as soon as it is measured, so a crash or a
timeout loses nothing measured. A rerun skips the points that have a result and retries the
ones that failed; a torn last line (a crash mid-write) is cut off first. OUTDIR/current.json
names the point in progress, so the host can say which point a hung or crashed guest was on.
Runs under the guest's /usr/bin/python3 with the standard library only.
"""

import json
import os
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # lab/: families, scenario

import families  # noqa: E402
from guest import env as genv  # noqa: E402


def status(res_path):
    """{point id: "ok" or "error"} from a results.jsonl (a good result wins over an error;
    a line cut short by a crash is skipped). The host's runner reads results with it too."""
    got = {}
    if res_path.exists():
        for line in res_path.read_text(errors="replace").splitlines():
            try:
                r = json.loads(line)
            except ValueError:
                continue
            if got.get(r.get("id")) != "ok":
                got[r.get("id")] = "error" if "error" in r else "ok"
    return got


def measured(res_path):
    """Ids of the points with a result; cuts a torn last line off the file first."""
    if not res_path.exists():
        return set()
    data = res_path.read_bytes()
    if data and not data.endswith(b"\n"):
        keep = data[: data.rfind(b"\n") + 1]
        genv.log(f"cutting a torn last line ({len(data) - len(keep)} bytes) off {res_path.name}")
        with open(res_path, "r+b") as f:
            f.truncate(len(keep))
    return {pid for pid, st in status(res_path).items() if st == "ok"}


def main(outdir):
    out = Path(outdir)
    plan = json.loads((out / "plan.json").read_text())
    fam = families.get(plan["family"])
    res_path = out / "results.jsonl"
    done = measured(res_path)
    skip_f = out / "skip.json"     # points the host saw hang a guest in this run
    skip = set(json.loads(skip_f.read_text())) if skip_f.exists() else set()
    todo = [p for p in plan["points"] if p["id"] not in done and p["id"] not in skip]
    genv.log(f"{plan['scenario']} ({plan['family']}): {len(todo)} of {len(plan['points'])} points to run")
    if not todo:
        return 0

    env = genv.Env(out, plan)
    t0 = time.monotonic()
    env.build(fam.NEEDS, plan["setup"])
    fam.setup(env, plan)
    genv.log(f"setup done in {time.monotonic() - t0:.0f}s")

    failures = 0
    with open(res_path, "a") as res:
        for p in todo:
            (out / "current.json").write_text(json.dumps({"id": p["id"], "started": time.time()}))
            env.point_id = p["id"]
            try:
                row = run_point(env, fam, p)
            except Exception as e:  # record the failure and go on with the next point
                failures += 1
                genv.log(f"{p['id']}: FAILED: {e}")
                row = {"id": p["id"], "axes": p["axes"], "error": str(e)[-500:]}
            res.write(json.dumps(row) + "\n")
            res.flush()
            os.fsync(res.fileno())
    (out / "current.json").unlink(missing_ok=True)
    (out / "dmesg.txt").write_text(subprocess.run(["dmesg"], capture_output=True, text=True).stdout)
    genv.log(f"done; {failures} point(s) failed")
    return 1 if failures else 0


def run_point(env, fam, p):
    cfg = p["cfg"]
    env.cgroup.limit(cfg["cgroup"]["memory_max_mb"])
    knobs, knob_checks = env.knobs.apply(cfg["knobs"])
    m = fam.run_point(env, cfg)
    checks = knob_checks + list(m.pop("checks", []))
    row = {"id": p["id"], "axes": p["axes"], **knobs, **m, "checks": "; ".join(checks) or "ok"}
    genv.log(f"{p['id']}: {fam.PRIMARY} {row.get(fam.PRIMARY)} [{row['checks']}]")
    return row


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
