#!/usr/bin/env python3
"""report: turn a bench results directory into results.csv, summary.csv, report.md and plots.

    report.py DIR
    report.py --changelog SCENARIO DIR
    report.py --compare OLD_DIR NEW_DIR

The second form prints the stock-against-patched table of an nfs-read scenario in the
plain-text shape of the series' changelogs, so the numbers quoted in a patch are regenerated
from a results directory, not typed. The third compares each point of NEW_DIR with the same
point of OLD_DIR (matched on parameter values, so runs from before families compare too).

DIR/raw/<scenario>/<boot>/results.jsonl holds one JSON object per measured point (see
lab/guest/bench.py): its id, its axis values and whatever metrics the family returned. Every
numeric metric is summarised over the repetitions by its median, min and max; results.csv
has the union of the columns the points returned; points that failed are reported with the
failure, never dropped. Directories written before families existed are read too.
"""

import csv
import json
import re
import statistics
import sys
from collections import defaultdict
from pathlib import Path

import families

FIRST = ("scenario", "kind", "rep", "accel", "id")
LAST = ("checks", "error")
NOT_METRICS = {"scenario", "kind", "rep", "accel", "id", "axes", "params", "checks", "error", "family"}
# Results written before families existed: the nfs-read axes and a few renamed counters.
LEGACY_AXES = (("client", "nfs_version"), ("client", "rsize_kb"), ("link", "delay_ms"), ("client", "read_ahead_kb"),
               ("workload", "bs"))
LEGACY_NAMES = {"read_ops": "nfs_read_ops", "server_read_bytes": "nfs_server_read_bytes",
                "wire_bytes": "net_tx_bytes", "drops": "net_drops"}


# ---------------------------------------------------------------- loading

def _flatten(doc):
    return {f"{t}.{k}": v for t, tab in doc.items() if isinstance(tab, dict) for k, v in tab.items()
            if not isinstance(v, (list, dict))}


def _boot_info(bdir):
    """kind, rep and guest of a boot directory (boot.json, or its name for older runs)."""
    bj = bdir / "boot.json"
    if bj.exists():
        b = json.loads(bj.read_text())
        return b["kind"], b["rep"], b.get("guest", {})
    kind, rep = bdir.name.rsplit("-", 1)
    return kind.split("-g")[0], int(rep), {}


def _legacy(r, plan):
    """A row from before families: axes from its fixed fields, counters renamed."""
    r["axes"] = {f"{t}.{k}": r[k] for t, k in LEGACY_AXES if k in r}
    for k in [k for t, k in LEGACY_AXES if k in r]:
        del r[k]
    for old, new in LEGACY_NAMES.items():
        if old in r:
            r[new] = r.pop(old)
    params = {f"{t}.{k}": v for t in ("server", "link", "workload") for k, v in plan.get(t, {}).items()
              if not isinstance(v, (list, dict))}
    return params


def load(d):
    """Every point row of a results directory; within one boot a good result of a point
    replaces its earlier failures (a retried point)."""
    rows = []
    for res in sorted(Path(d, "raw").glob("*/*/results.jsonl")):
        bdir = res.parent
        kind, rep, guest = _boot_info(bdir)
        accel_f = bdir / "accel"
        accel = accel_f.read_text().strip() if accel_f.exists() else "?"
        plan_f = bdir / "plan.json"
        plan = json.loads(plan_f.read_text()) if plan_f.exists() else {}
        by_id = {}
        for line in res.read_text(errors="replace").splitlines():
            if not line.strip():
                continue
            try:
                r = json.loads(line)
            except ValueError:
                continue  # a line cut short by a crash
            if "setup" in plan or "axes" in r:
                params = _flatten(plan.get("setup", {}))
            else:
                params = _legacy(r, plan)
            r.setdefault("axes", {})
            params.update(r["axes"])
            params.update({f"guest.{k}": v for k, v in guest.items()})
            r.update(scenario=bdir.parent.name, kind=kind, rep=rep, accel=accel, params=params,
                     family=plan.get("family", "nfs-read"), guest=guest)
            prev = by_id.get(r["id"])
            if prev is None or "error" in prev or "error" not in r:
                by_id[r["id"]] = r
        rows += by_id.values()
    # Boot variants of a scenario ([guest] lists) are part of the point's identity.
    for sc in {r["scenario"] for r in rows}:
        rs = [r for r in rows if r["scenario"] == sc]
        varying = [k for k in {k for r in rs for k in r["guest"]} if len({repr(r["guest"].get(k)) for r in rs}) > 1]
        for r in rs:
            if varying:
                g = {f"guest.{k}": r["guest"].get(k) for k in sorted(varying)}
                r["axes"] = {**g, **r["axes"]}
                r["id"] = "/".join(f"{k[6:]}={v}" for k, v in g.items()) + "/" + r["id"]
    for r in rows:
        del r["guest"]
    return rows


def _num(v):
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def summarise(rows):
    """Median, min and max of every numeric metric per (scenario, kind, point)."""
    groups = defaultdict(list)
    for r in rows:
        groups[(r["scenario"], r["kind"], r["id"])].append(r)
    out = []
    for (sc, kind, pid), rs in groups.items():
        good = [r for r in rs if "error" not in r]
        s = {"scenario": sc, "kind": kind, "id": pid, "axes": rs[0]["axes"], "params": rs[0]["params"],
             "family": rs[0]["family"], "n": len(good), "errors": len(rs) - len(good)}
        metrics = sorted({k for r in good for k, v in r.items() if k not in NOT_METRICS and _num(v)})
        for m in metrics:
            vals = [r[m] for r in good if _num(r.get(m))]
            med = statistics.median(vals)
            s[m] = round(med, 3) if isinstance(med, float) else med
            s[f"{m}_min"], s[f"{m}_max"] = min(vals), max(vals)
        if good:
            checks = sorted({r["checks"] for r in good if r.get("checks", "ok") != "ok"})
            s["checks"] = "; ".join(checks) or "ok"
        else:
            s["checks"] = "; ".join(sorted({r.get("error", "?") for r in rs}))
        out.append(s)
    out.sort(key=lambda s: (s["scenario"], s["kind"], [_sort_key(v) for v in s["axes"].values()]))
    return out


def _sort_key(v):
    if v == "default":
        return (0, -1, "")
    if _num(v):
        return (1, v, "")
    try:
        return (1, families.bytes_of(v), "")
    except ValueError:
        return (2, 0, str(v))


# ---------------------------------------------------------------- helpers for families

def param(s, key):
    """A point's value of a scenario field ("link.delay_ms"): its axis value, else the fixed one."""
    return s["axes"].get(key, s["params"].get(key))


def cell(s, m):
    if s is None or s.get(m) is None:
        return "—"
    lo, hi = s[f"{m}_min"], s[f"{m}_max"]
    # Counts (int values) print as integers; measurements keep their decimals.
    integral = isinstance(lo, int) and isinstance(hi, int) and float(s[m]).is_integer()
    nd = 0 if integral or abs(s[m]) >= 10000 else 1 if abs(s[m]) >= 10 else 2
    if lo == hi:
        return f"{s[m]:.{nd}f}"
    return f"{s[m]:.{nd}f} [{lo:.{nd}f}–{hi:.{nd}f}]"


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
            d[param(s, "link.delay_ms")].append(s["rtt_ms"])
    return {k: statistics.median(v) for k, v in d.items()}


def _family(name):
    try:
        return families.get(name)
    except KeyError:
        return None


# ---------------------------------------------------------------- tables

def ab_table(summ, fam):
    """Stock against patched, point by point, on the family's primary metric."""
    prim = fam.PRIMARY
    by = defaultdict(dict)
    for s in summ:
        by[s["id"]][s["kind"]] = s
    extra = [m for m in getattr(fam, "AB_EXTRA", ()) if any(s.get(m) is not None for s in summ)]
    axes = list(summ[0]["axes"]) if summ else []
    rows = []
    for k in by.values():
        st, pa = k.get("stock"), k.get("patched")
        if not st or not pa or st.get(prim) is None or pa.get(prim) is None:
            continue
        ratio = pa[prim] / st[prim] if st[prim] else float("inf")
        overlap = not (pa[f"{prim}_min"] > st[f"{prim}_max"] or pa[f"{prim}_max"] < st[f"{prim}_min"])
        better = ratio > 1 if not getattr(fam, "LOWER_IS_BETTER", False) else ratio < 1
        verdict = "within spread" if overlap else ("better" if better else "WORSE")
        rows.append([*(fmt(st["axes"].get(a)) for a in axes), cell(st, prim), cell(pa, prim), f"{ratio:.2f}×",
                     verdict, *(f"{fmt(st.get(m), 2)} → {fmt(pa.get(m), 2)}" for m in extra)])
    header = [*(a.split(".", 1)[1] for a in axes), f"stock {prim}", f"patched {prim}", "patched/stock", "vs spread",
              *(f"{m} stock → patched" for m in extra)]
    return md_table(header, rows) if rows else ""


def detail_table(summ, fam):
    prim = fam.PRIMARY
    cols = [m for m in fam.METRICS if m != prim and any(s.get(m) is not None for s in summ)]
    header = ["kernel", "point", "n", prim, *cols, "checks"]
    rows = [[s["kind"], s["id"], s["n"], cell(s, prim), *(fmt(s.get(m), 2 if isinstance(s.get(m), float) and
                                                                  abs(s.get(m)) < 10 else 1) for m in cols),
             s["checks"]] for s in summ]
    return md_table(header, rows)


def generic_table(summ, title, keys):
    """Median [min–max] of a set of metrics per point, where any point has them."""
    keys = [k for k in keys if any(s.get(k) is not None for s in summ)]
    if not keys:
        return ""
    rows = [[s["kind"], s["id"], *(cell(s, k) for k in keys)] for s in summ]
    return f"### {title}\n\n" + md_table(["kernel", "point", *keys], rows)


RA_KEYS = ("ra_windows", "ra_io", "ra_sync_io", "ra_mmap_io")
VM_KEYS = ("vm_workingset_refault_file", "vm_pgmajfault", "vm_pgscan_kswapd", "vm_pgscan_direct",
           "vm_pgsteal_kswapd", "vm_pgsteal_direct", "psi_mem_some_ms", "psi_mem_full_ms",
           "disk_read_bytes", "disk_write_bytes", "cg_oom_kill")
NFS_KEYS = ("nfs_read_ops", "nfs_write_ops", "nfs_commit_ops", "nfs_server_read_bytes", "nfs_server_write_bytes",
            "net_tx_bytes", "net_rx_bytes", "net_drops")


# ---------------------------------------------------------------- plots

def missing_deps():
    """What the report needs and this Python lacks, as an error message naming it, or None:
    bench.py asks before it boots anything, not after the first scenario was measured."""
    try:
        import matplotlib  # noqa: F401
    except ImportError as e:
        return (f"the report needs matplotlib, which {sys.executable} cannot import ({e}): "
                "run `make bench`, or the lab's venv Python (`make deps` makes it)")
    return None


def _plt():
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    return plt


def primary_plots(d, sc, summ, fam):
    """The primary metric against one numeric axis (the family's PLOT_X first), a line per
    value of the next axis and kernel, one PNG per combination of the remaining axes."""
    prim = fam.PRIMARY
    axes = list(summ[0]["axes"]) if summ else []
    vals = {a: {repr(s["axes"][a]) for s in summ} for a in axes}
    numeric = [a for a in axes if len(vals[a]) > 1 and all(_num(s["axes"][a]) for s in summ)]
    pref = [a for a in getattr(fam, "PLOT_X", {}) if a in numeric]
    x = (pref or numeric or [None])[0]
    if x is None:
        return []
    rest = [a for a in axes if a != x and len(vals[a]) > 1]
    line = rest[0] if rest else None
    panels = defaultdict(list)
    for s in summ:
        if s.get(prim) is not None:
            panels[tuple((a, s["axes"][a]) for a in rest[1:])].append(s)
    plt = _plt()
    kinds = sorted({s["kind"] for s in summ})
    made = []
    for pkey, ss in sorted(panels.items(), key=lambda kv: str(kv[0])):
        fig, ax = plt.subplots(figsize=(8, 5))
        lvals = sorted({s["axes"][line] for s in ss}, key=_sort_key) if line else [None]
        for i, lv in enumerate(lvals):
            for kind in kinds:
                pts = sorted((s for s in ss if s["kind"] == kind and (line is None or s["axes"][line] == lv)),
                             key=lambda s: s["axes"][x])
                if not pts:
                    continue
                xs = [s["axes"][x] for s in pts]
                y = [s[prim] for s in pts]
                err = [[s[prim] - s[f"{prim}_min"] for s in pts], [s[f"{prim}_max"] - s[prim] for s in pts]]
                label = (f"{line.split('.', 1)[1]}={lv}" if line else "") + (f" ({kind})" if len(kinds) > 1 else "")
                ax.errorbar(xs, y, yerr=err, marker="o", capsize=3, color=f"C{i % 10}",
                            linestyle="--" if kind == "stock" and len(kinds) > 1 else "-", label=label.strip())
        if getattr(fam, "PLOT_X", {}).get(x) == "log2":
            ax.set_xscale("log", base=2)
        ax.set_xlabel(x)
        ax.set_ylabel(f"{prim} (median, min–max)")
        sub = ", ".join(f"{a.split('.', 1)[1]}={v}" for a, v in pkey)
        ax.set_title(f"{sc}: {prim}" + (f" ({sub})" if sub else ""))
        ax.grid(True, alpha=0.3)
        if ax.get_legend_handles_labels()[1]:
            ax.legend(fontsize=8)
        name = re.sub(r"[^A-Za-z0-9_.=-]+", "_", f"{sc}-{prim}-{x}" + ("-" + sub if sub else "")) + ".png"
        fig.tight_layout()
        fig.savefig(Path(d, "plots", name), dpi=90)
        plt.close(fig)
        made.append(name)
    return made


def series_plots(d, sc):
    """One PNG per point that has time series: network, server disk and dirty/writeback over
    time, each kernel's first repetition that has the point."""
    files = defaultdict(dict)
    for f in sorted(Path(d, "raw", sc).glob("*/series/*.csv")):
        kind, rep, _ = _boot_info(f.parent.parent)
        files[f.stem].setdefault(kind, (rep, f))
        if rep < files[f.stem][kind][0]:
            files[f.stem][kind] = (rep, f)
    if not files:
        return []
    plt = _plt()
    made = []
    panels = (("server link MB/s\n(tx: to clients)", ("net_tx_bytes", "net_rx_bytes"), True),
              ("disk MB/s", ("disk_read_bytes", "disk_write_bytes"), True),
              ("MiB", ("nr_dirty_kb", "nr_writeback_kb", "nfs_dirty_kb", "nfs_writeback_kb", "disk_dirty_kb",
                       "disk_writeback_kb"), False))
    for pid, by_kind in sorted(files.items()):
        data = {}
        for kind, (_, f) in sorted(by_kind.items()):
            rows = list(csv.DictReader(f.open()))
            if len(rows) >= 2:
                data[kind] = rows
        have = [p for p in panels if any(c in rows[0] for rows in data.values() for c in p[1])]
        if not have:
            continue
        fig, axs = plt.subplots(len(have), 1, figsize=(9, 2.7 * len(have) + 0.5), sharex=True, squeeze=False)
        axs = [a[0] for a in axs]
        for kind, rows in data.items():
            t = [float(r["t"]) for r in rows]
            style = "--" if kind == "stock" else "-"
            for ax, (_, cols, is_rate) in zip(axs, have, strict=True):
                for i, col in enumerate(c for c in cols if c in rows[0]):
                    v = [float(r[col] or 0) for r in rows]
                    if is_rate:
                        x, y = t[1:], [(v[j] - v[j - 1]) / max(t[j] - t[j - 1], 1e-3) / 1e6 for j in range(1, len(v))]
                        label = col[:-6]
                    else:
                        x, y, label = t, [x / 1024 for x in v], col[:-3]
                    ax.plot(x, y, style, color=f"C{i}", label=f"{label} ({kind})")
        for ax, (ylabel, _, _) in zip(axs, have, strict=True):
            ax.set_ylabel(ylabel)
            ax.grid(True, alpha=0.3)
            ax.legend(fontsize=7, loc="upper right")
        axs[-1].set_xlabel("seconds into the point")
        axs[0].set_title(f"{sc}: {pid}")
        name = re.sub(r"[^A-Za-z0-9_.=@-]+", "_", f"{sc}-series-{pid}") + ".png"
        fig.tight_layout()
        fig.savefig(Path(d, "plots", name), dpi=80)
        plt.close(fig)
        made.append(name)
    return made


# ---------------------------------------------------------------- writing

def write_csv(path, rows, cols):
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=cols)
        w.writeheader()
        for r in rows:
            w.writerow({c: r.get(c) for c in cols})


def _columns(rows, skip=()):
    axes = []
    for r in rows:
        axes += [a for a in r["axes"] if a not in axes]
    rest = sorted({k for r in rows for k in r} - set(FIRST) - set(LAST) - NOT_METRICS - set(skip))
    return axes, rest


def write(d):
    d = Path(d)
    rows = load(d)
    for r in rows:
        r.update(r["axes"])
    axes, rest = _columns(rows)
    write_csv(d / "results.csv", rows, [*FIRST, *axes, *[c for c in rest if c not in axes], *LAST])
    summ = summarise(rows)
    for s in summ:
        s.update(s["axes"])
    saxes, srest = _columns(summ, skip=("n", "errors"))
    write_csv(d / "summary.csv", summ, ["scenario", "kind", "id", *saxes, "n", "errors",
                                        *[c for c in srest if c not in saxes], "checks"])
    (d / "plots").mkdir(exist_ok=True)
    meta = json.loads((d / "meta.json").read_text()) if (d / "meta.json").exists() else {}
    accels = sorted({r["accel"] for r in rows}) or ["?"]
    md = ["# NFS readahead lab: benchmark report", ""]
    for run in meta.get("runs", []):
        md.append(f"- run started {run['started']}: `{run['command']}`" + (" (quick subset)" if run["quick"] else "")
                  + (f", lab commit {run['lab_commit']}" if run.get("lab_commit") else ""))
    md += [f"- base: {meta.get('base', '?')}; series commit {meta.get('series_commit', '?')[:12]}, "
           f"source tree {meta.get('series_tree', '?')[:12]} ({len(meta.get('patches', []))} patches)",
           *(f"- {k}: `{v['release']}` `{v['version']}`" for k, v in meta.get("kernels", {}).items()),
           f"- accelerator: {', '.join(accels)}; host: {meta.get('host', {})}",
           "- Every number is the median of the repetitions with [min–max]. See each family's "
           "metrics below and Documentation/lab.md.", ""]
    for sc in sorted({s["scenario"] for s in summ}):
        ss = [s for s in summ if s["scenario"] == sc]
        fam = _family(ss[0]["family"])
        plan_f = next(Path(d, "raw", sc).glob("*/plan.json"), None)
        plan = json.loads(plan_f.read_text()) if plan_f else {}
        md += [f"## {sc}", ""]
        if plan.get("description"):
            md += [plan["description"], ""]
        setup = plan.get("setup") or {k: plan[k] for k in ("server", "link", "workload") if k in plan}
        md += [f"family `{ss[0]['family']}`; " + "; ".join(
            f"{t} {v}" for t, v in setup.items() if v and t not in ("knobs",) or t == "knobs" and v), ""]
        if fam is None:
            md += [f"(unknown family {ss[0]['family']!r}: raw rows only)", ""]
            continue
        md += ["Metrics: " + "; ".join(f"`{k}` {v}" for k, v in fam.METRICS.items()), ""]
        if hasattr(fam, "report"):
            for t in fam.report(ss, sys.modules[__name__]):
                md += [t, ""]
        ab = ab_table(ss, fam)
        if ab:
            md += [f"### Stock against patched ({fam.PRIMARY})", "", ab, ""]
        for p in primary_plots(d, sc, ss, fam):
            md += [f"![{p}](plots/{p})", ""]
        md += ["### Every point", "", detail_table(ss, fam), ""]
        for title, keys in (("Memory, disk and pressure (deltas over the point)", VM_KEYS),
                            ("NFS and network (deltas over the point)", NFS_KEYS),
                            ("Readahead statistics over the point (patched kernels)", RA_KEYS)):
            t = generic_table(ss, title, keys)
            if t:
                md += [t, ""]
        sp = series_plots(d, sc)
        if sp:
            md += ["### Time series (first repetition of each kernel)", ""]
            md += [f"![{p}](plots/{p})" for p in sp] + [""]
    (d / "report.md").write_text("\n".join(md) + "\n")
    return d / "report.md"


def compare(old_dir, new_dir):
    """Markdown: each point of new_dir against the same point (same scenario, kernel and
    parameter values) in old_dir, primary metric median [min–max], and whether the new median
    falls inside the old run's range."""
    old, new = summarise(load(old_dir)), summarise(load(new_dir))

    def key(s, keys):
        return (s["scenario"], s["kind"], tuple(repr(param(s, k)) for k in keys))
    rows, inside, n = [], 0, 0
    for s in new:
        fam = _family(s["family"])
        prim = fam.PRIMARY
        keys = sorted(set(s["axes"]) | {k for o in old if o["scenario"] == s["scenario"] for k in o["axes"]})
        match = [o for o in old if key(o, keys) == key(s, keys)]
        if not match or s.get(prim) is None or match[0].get(prim) is None:
            continue
        o = match[0]
        within = o[f"{prim}_min"] <= s[prim] <= o[f"{prim}_max"]
        n += 1
        inside += within
        rows.append([s["scenario"], s["kind"], o["id"], f"{cell(o, prim)} (n={o['n']})",
                     f"{cell(s, prim)} (n={s['n']})",
                     f"{s[prim] / o[prim]:.2f}" if o[prim] else "—", "inside" if within else "outside"])
    head = [f"{inside} of {n} points of {new_dir} have their median inside the [min–max] of the same point "
            f"in {old_dir}.", ""]
    return "\n".join(head + [md_table(["scenario", "kernel", "point", "old", "new", "new/old", "old range"], rows)])


def main(argv):
    if len(argv) == 3 and argv[0] == "--compare":
        print(compare(argv[1], argv[2]))
        return 0
    if len(argv) == 3 and argv[0] == "--changelog":
        summ = [s for s in summarise(load(argv[2])) if s["scenario"] == argv[1]]
        if not summ:
            print(f"error: no results for scenario {argv[1]!r} in {argv[2]}", file=sys.stderr)
            return 2
        print(families.get("nfs-read").changelog_table(summ, sys.modules[__name__]))
        return 0
    if len(argv) != 1:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    print(write(argv[0]))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
