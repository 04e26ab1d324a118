#!/usr/bin/env python3
"""report: turn a bench results directory into results.csv, summary.csv, report.md and plots.

    report.py DIR
    report.py --changelog SCENARIO DIR

The second form prints the stock-against-patched table of one scenario in the plain-text
shape of the series' changelogs (RTT, read size, stock and patched MB/s, ratio), so the
numbers quoted in a patch are regenerated from a results directory, not typed.

DIR/raw/<scenario>/<kind>-<rep>/results.jsonl holds one JSON object per measured point (see
lab/guest/bench.py). Repetitions are summarised by their median with min and max; points
whose checks failed are reported with the failure, never dropped.
"""

import csv
import json
import statistics
import sys
from collections import defaultdict
from pathlib import Path

from scenario import bytes_of

AXES = ("nfs_version", "rsize_kb", "delay_ms", "read_ahead_kb", "bs")
MEDIANS = ("rtt_ms", "ra_kb", "window_kb", "bound_mbps", "read_ops", "mean_read_kb", "read_amp",
           "wire_ratio", "cpu_pct", "link_mbps", "drops", "files")
RAW_COLS = ("scenario", "kind", "rep", "accel", "id") + AXES + (
    "mbps", "app_bytes", "secs", "rtt_ms", "ra_kb", "window_kb", "bound_mbps", "read_ops", "mean_read_kb",
    "server_read_bytes", "wire_bytes", "read_amp", "wire_ratio", "cpu_pct", "link_mbps", "drops",
    "client_cached_pages", "server_cached_pages", "files",
    "checks", "error")


def load(d):
    rows = []
    for res in sorted(Path(d, "raw").glob("*/*/results.jsonl")):
        kind, rep = res.parent.name.rsplit("-", 1)
        accel_f = res.parent / "accel"
        accel = accel_f.read_text().strip() if accel_f.exists() else "?"
        for line in res.read_text().splitlines():
            if not line.strip():
                continue
            try:
                r = json.loads(line)
            except ValueError:
                continue  # a line cut short by a crash
            r.update(scenario=res.parent.parent.name, kind=kind, rep=int(rep), accel=accel)
            rows.append(r)
    return rows


def ra_key(v):
    return -1 if v == "default" else int(v)


def summarise(rows):
    groups = defaultdict(list)
    for r in rows:
        groups[(r["scenario"], r["kind"], r["id"])].append(r)
    out = []
    for (sc, kind, pid), rs in groups.items():
        good = [r for r in rs if "error" not in r]
        s = {"scenario": sc, "kind": kind, "id": pid, **{a: rs[0][a] for a in AXES},
             "n": len(good), "errors": len(rs) - len(good)}
        if good:
            mb = [r["mbps"] for r in good]
            s.update(mbps=statistics.median(mb), mbps_min=min(mb), mbps_max=max(mb))
            for m in MEDIANS:
                vals = [r[m] for r in good if r.get(m) is not None]
                s[m] = round(statistics.median(vals), 3) if vals else None
            checks = sorted({r["checks"] for r in good if r.get("checks", "ok") != "ok"})
            s["checks"] = "; ".join(checks) or "ok"
            s["pct_of_bound"] = round(100 * s["mbps"] / s["bound_mbps"]) if s.get("bound_mbps") else None
        else:
            s["checks"] = "; ".join(sorted({r.get("error", "?") for r in rs}))
        out.append(s)
    out.sort(key=lambda s: (s["scenario"], s["kind"], str(s["nfs_version"]), s["rsize_kb"], s["delay_ms"],
                            ra_key(s["read_ahead_kb"]), s["bs"]))
    return out


def write_csv(path, rows, cols):
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=cols, extrasaction="ignore")
        w.writeheader()
        for r in rows:
            w.writerow(r)


def cell(s):
    if s is None or s.get("mbps") is None:
        return "—"
    if s["mbps_min"] == s["mbps_max"]:
        return f"{s['mbps']:.1f}"
    return f"{s['mbps']:.1f} [{s['mbps_min']:.1f}–{s['mbps_max']:.1f}]"


def fmt(v, nd=1):
    if v is None:
        return "—"
    if isinstance(v, float):
        return f"{v:.{nd}f}"
    return str(v)


def md_table(header, rows):
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(str(c) for c in r) + " |" for r in rows]
    return "\n".join(lines)


def rtt_by_delay(summ):
    d = defaultdict(list)
    for s in summ:
        if s.get("rtt_ms") is not None:
            d[s["delay_ms"]].append(s["rtt_ms"])
    return {k: statistics.median(v) for k, v in d.items()}


def pct_cell(s):
    if s is None or s.get("pct_of_bound") is None:
        return "—"
    b = s["bound_mbps"]
    return f"{s['pct_of_bound']} % of {b:.0f}" if b >= 10 else f"{s['pct_of_bound']} % of {b:.2g}"


def sweep_tables(sc, summ):
    """Seed 000's shape: read_ahead_kb down, one-way delay (measured RTT) across; then the
    same cells as a share of their bound, min(link, 2 x window / RTT)."""
    out = []
    rtts = rtt_by_delay(summ)
    by = defaultdict(dict)
    for s in summ:
        by[(s["kind"], s["nfs_version"], s["rsize_kb"], s["bs"])][(s["read_ahead_kb"], s["delay_ms"])] = s
    for (kind, vers, rsize, bs), cells in sorted(by.items(), key=lambda kv: str(kv[0])):
        ras = sorted({k[0] for k in cells}, key=ra_key)
        delays = sorted({k[1] for k in cells})
        header = ["read_ahead_kb"] + [f"{d} ms (RTT {rtts.get(d, 0):.1f})" for d in delays]
        rows = [[ra] + [cell(cells.get((ra, d))) for d in delays] for ra in ras]
        out.append(f"**{kind}**, NFSv{vers}, rsize {rsize} KiB, application reads of {bs} "
                   f"(MB/s, median [min–max] of the repetitions)\n\n" + md_table(header, rows))
        rows = [[ra] + [pct_cell(cells.get((ra, d))) for d in delays] for ra in ras]
        out.append("The same cells as a share of their bound (median MB/s ÷ bound MB/s)\n\n"
                   + md_table(header, rows))
    return out


def changelog_table(summ):
    """Stock against patched in the fixed-width shape of the changelogs: RTT (stock's
    measured median), read size, MB/s median [min-max] of each kernel, and the ratio."""
    by = defaultdict(dict)
    for s in summ:
        if s.get("mbps") is not None:
            by[s["id"]][s["kind"]] = s
    pairs = [(k["stock"], k["patched"]) for k in by.values() if "stock" in k and "patched" in k]
    pairs = sorted(pairs, key=lambda p: (bytes_of(p[0]["bs"]), str(p[0]["nfs_version"]), p[0]["rsize_kb"],
                                         p[0]["delay_ms"], ra_key(p[0]["read_ahead_kb"])))

    def mb(s):
        return f"{s['mbps']:.1f} [{s['mbps_min']:.1f}-{s['mbps_max']:.1f}]"

    lines = [f"  {'RTT ms':>6}  {'read':>4}  {'stock 6.12':<18}  {'patched':<18}  ratio"]
    for st, pa in pairs:
        ratio = f"{pa['mbps'] / st['mbps']:.1f}x" if st["mbps"] else "-"
        lines.append(f"  {st['rtt_ms']:>6.1f}  {st['bs']:>4}  {mb(st):<18}  {mb(pa):<18}  {ratio:>5}")
    return "\n".join(lines)


def ab_table(summ):
    """Stock against patched, point by point."""
    by = defaultdict(dict)
    for s in summ:
        by[s["id"]][s["kind"]] = s
    rows = []
    for k in by.values():
        st, pa = k.get("stock"), k.get("patched")
        if not st or not pa or st.get("mbps") is None or pa.get("mbps") is None:
            continue
        ratio = pa["mbps"] / st["mbps"] if st["mbps"] else float("inf")
        overlap = not (pa["mbps_min"] > st["mbps_max"] or pa["mbps_max"] < st["mbps_min"])
        verdict = "within spread" if overlap else ("better" if ratio > 1 else "WORSE")
        rows.append((st, [f"v{st['nfs_version']}", st["rsize_kb"], f"{st['delay_ms']} / {fmt(st['rtt_ms'], 2)}",
                          st["bs"], st["ra_kb"], cell(st), pa["ra_kb"], cell(pa), f"{ratio:.2f}×", verdict,
                          f"{fmt(st['read_amp'], 2)} → {fmt(pa['read_amp'], 2)}"]))
    rows.sort(key=lambda r: (str(r[0]["nfs_version"]), r[0]["rsize_kb"], r[0]["bs"], r[0]["delay_ms"],
                             ra_key(r[0]["read_ahead_kb"])))
    header = ["NFS", "rsize KiB", "delay / RTT ms", "app bs", "stock ra KiB", "stock MB/s", "patched ra KiB",
              "patched MB/s", "patched/stock", "vs spread", "read amp stock → patched"]
    return md_table(header, [r[1] for r in rows]) if rows else ""


def detail_table(summ):
    header = ["kernel", "point", "n", "MB/s", "RTT ms", "ra KiB", "window KiB", "bound MB/s", "% bound",
              "READs", "mean READ KiB", "read amp", "wire/app", "guest CPU %", "link MB/s", "checks"]
    rows = [[s["kind"], s["id"], s["n"], cell(s), fmt(s.get("rtt_ms"), 2), fmt(s.get("ra_kb")),
             fmt(s.get("window_kb")), fmt(s.get("bound_mbps")), fmt(s.get("pct_of_bound")), fmt(s.get("read_ops")),
             fmt(s.get("mean_read_kb")), fmt(s.get("read_amp"), 3), fmt(s.get("wire_ratio"), 3),
             fmt(s.get("cpu_pct")), fmt(s.get("link_mbps")), s["checks"]] for s in summ]
    return md_table(header, rows)


def plots(d, sc, summ):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    pdir = Path(d, "plots")
    pdir.mkdir(exist_ok=True)
    made = []
    rtts = rtt_by_delay(summ)
    kinds = sorted({s["kind"] for s in summ})
    numeric = [s for s in summ if s["read_ahead_kb"] != "default" and s.get("mbps") is not None]
    groups = defaultdict(list)
    for s in numeric:
        groups[(s["nfs_version"], s["rsize_kb"], s["bs"])].append(s)
    for (vers, rsize, bs), ss in sorted(groups.items(), key=lambda kv: str(kv[0])):
        if len({s["read_ahead_kb"] for s in ss}) < 2:
            continue
        fig, ax = plt.subplots(figsize=(8, 5))
        for i, delay in enumerate(sorted({s["delay_ms"] for s in ss})):
            for kind in kinds:
                pts = sorted((s for s in ss if s["delay_ms"] == delay and s["kind"] == kind),
                             key=lambda s: s["read_ahead_kb"])
                if not pts:
                    continue
                x = [s["read_ahead_kb"] for s in pts]
                y = [s["mbps"] for s in pts]
                err = [[s["mbps"] - s["mbps_min"] for s in pts], [s["mbps_max"] - s["mbps"] for s in pts]]
                label = f"RTT {rtts.get(delay, 0):.1f} ms" + (f" ({kind})" if len(kinds) > 1 else "")
                ax.errorbar(x, y, yerr=err, marker="o", capsize=3, color=f"C{i}",
                            linestyle="--" if kind == "stock" and len(kinds) > 1 else "-", label=label)
        ax.set_xscale("log", base=2)
        ax.set_xlabel("read_ahead_kb (KiB)")
        ax.set_ylabel("MB/s (median, min–max)")
        ax.set_title(f"{sc}: NFSv{vers} rsize {rsize} KiB, reads of {bs}")
        ax.grid(True, alpha=0.3)
        ax.legend(fontsize=8)
        name = f"{sc}-v{vers}-r{rsize}-bs{bs}-sweep.png"
        fig.tight_layout()
        fig.savefig(pdir / name, dpi=90)
        plt.close(fig)
        made.append(name)

    dflt = [s for s in summ if s["read_ahead_kb"] == "default" and s.get("mbps") is not None]
    groups = defaultdict(list)
    for s in dflt:
        groups[(s["nfs_version"], s["rsize_kb"], s["bs"])].append(s)
    for (vers, rsize, bs), ss in sorted(groups.items(), key=lambda kv: str(kv[0])):
        if len({s["delay_ms"] for s in ss}) < 2:
            continue
        fig, ax = plt.subplots(figsize=(8, 5))
        for i, kind in enumerate(kinds):
            pts = sorted((s for s in ss if s["kind"] == kind), key=lambda s: s["delay_ms"])
            x = [s["rtt_ms"] for s in pts]
            y = [s["mbps"] for s in pts]
            err = [[s["mbps"] - s["mbps_min"] for s in pts], [s["mbps_max"] - s["mbps"] for s in pts]]
            ax.errorbar(x, y, yerr=err, marker="o", capsize=3, color=f"C{i}",
                        label=f"{kind} (read_ahead_kb {pts[0]['ra_kb'] if pts else '?'})")
        ax.set_xlabel("measured RTT (ms)")
        ax.set_ylabel("MB/s (median, min–max)")
        ax.set_title(f"{sc}: default readahead, NFSv{vers} rsize {rsize} KiB, reads of {bs}")
        ax.grid(True, alpha=0.3)
        ax.legend(fontsize=8)
        name = f"{sc}-v{vers}-r{rsize}-bs{bs}-ab.png"
        fig.tight_layout()
        fig.savefig(pdir / name, dpi=90)
        plt.close(fig)
        made.append(name)
    return made


def rastats(d, sc):
    out = []
    for f in sorted(Path(d, "raw", sc).glob("*/rastats.txt")):
        out.append(f"`{f.parent.name}`:\n\n```\n{f.read_text().rstrip()}\n```")
    return out


def write(d):
    d = Path(d)
    rows = load(d)
    write_csv(d / "results.csv", rows, RAW_COLS)
    summ = summarise(rows)
    write_csv(d / "summary.csv", summ, ["scenario", "kind", "id", *AXES, "n", "errors", "mbps", "mbps_min",
                                        "mbps_max", *MEDIANS, "pct_of_bound", "checks"])
    meta = json.loads((d / "meta.json").read_text()) if (d / "meta.json").exists() else {}
    accels = sorted({r["accel"] for r in rows}) or ["?"]
    md = ["# NFS readahead lab: benchmark report", ""]
    for run in meta.get("runs", []):
        md.append(f"- run started {run['started']}: `{run['command']}`" + (" (quick subset)" if run["quick"] else ""))
    md += [f"- base: {meta.get('base', '?')}; series commit {meta.get('series_commit', '?')[:12]}, "
           f"source tree {meta.get('series_tree', '?')[:12]} ({len(meta.get('patches', []))} patches)",
           *(f"- {k}: `{v['release']}` `{v['version']}`" for k, v in meta.get("kernels", {}).items()),
           f"- accelerator: {', '.join(accels)}; host: {meta.get('host', {})}",
           "- MB/s = 10^6 bytes/s read by the application, median of the repetitions with [min–max]. "
           "RTT is measured with ping from the client before each point. read amp = bytes READ from "
           "the server / bytes the application read; wire/app counts everything the server sent on "
           "the veth. bound = min(link ceiling measured by iperf3, 2 × window / RTT): readahead keeps "
           "at most the window being read and one async window in flight.", ""]
    for sc in sorted({s["scenario"] for s in summ}):
        ss = [s for s in summ if s["scenario"] == sc]
        plan_f = next(Path(d, "raw", sc).glob("*/plan.json"), None)
        plan = json.loads(plan_f.read_text()) if plan_f else {}
        md += [f"## {sc}", ""]
        if plan:
            md += [f"server {plan['server']}, link {plan['link']}, workload {plan['workload']}", ""]
        if len({s["read_ahead_kb"] for s in ss}) > 1:
            for t in sweep_tables(sc, ss):
                md += [t, ""]
        ab = ab_table(ss)
        if ab:
            md += ["### Stock against patched", "", ab, ""]
        for p in plots(d, sc, ss):
            md += [f"![{p}](plots/{p})", ""]
        md += ["### Every point", "", detail_table(ss), ""]
        st = rastats(d, sc)
        if st:
            md += ["### /sys/kernel/debug/readahead/stats after each boot", "", *st, ""]
    (d / "report.md").write_text("\n".join(md) + "\n")
    return d / "report.md"


def main(argv):
    if len(argv) == 3 and argv[0] == "--changelog":
        summ = [s for s in summarise(load(argv[2])) if s["scenario"] == argv[1]]
        if not summ:
            print(f"error: no results for scenario {argv[1]!r} in {argv[2]}", file=sys.stderr)
            return 2
        print(changelog_table(summ))
        return 0
    if len(argv) != 1:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    print(write(argv[0]))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
