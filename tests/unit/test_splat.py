"""lab/splat.sh: which kernel logs fail a guest run."""
import subprocess
from pathlib import Path

SPLAT = Path(__file__).resolve().parents[2] / "lab" / "splat.sh"

CLEAN = "[    1.0] Linux version 6.12.117\n[    2.0] nfs: server 10.0.0.1 not responding, still trying\n"
NULLB = """[   97.6] WARNING: CPU: 0 PID: 0 at ../src/kernel/time/hrtimer.c:1056 hrtimer_forward+0x6e/0xa0
[   97.6] RIP: 0010:hrtimer_forward+0x6e/0xa0
[   97.6] Call Trace:
[   97.6]  nullb_bwtimer_fn+0x4e/0x60
[   97.6]  __hrtimer_run_queues+0xfe/0x200
"""


def run(tmp_path, text):
    log = tmp_path / "dmesg.log"
    log.write_text(text)
    rep = tmp_path / "splats.log"
    r = subprocess.run([str(SPLAT), str(log), str(rep)], capture_output=True, text=True)
    return r.returncode, rep.read_text() if rep.exists() else ""


def test_clean_log_passes(tmp_path):
    assert run(tmp_path, CLEAN) == (0, "")


def test_each_report_kind_fails(tmp_path):
    for line in ["BUG: KASAN: slab-use-after-free in folio_mark_accessed+0x1/0x2",
                 "WARNING: possible circular locking dependency detected",
                 "WARNING: CPU: 1 PID: 7 at mm/readahead.c:400 page_cache_ra_order+0x1",
                 "Oops: general protection fault, probably for non-canonical address",
                 "UBSAN: shift-out-of-bounds in mm/readahead.c:123:4",
                 "refcount_t: underflow; use-after-free.",
                 "INFO: task fio:311 blocked for more than 120 seconds.",
                 "rcu: INFO: rcu_preempt detected stalls on CPUs/tasks:",
                 "BUG: sleeping function called from invalid context at mm/filemap.c:1",
                 "Kernel panic - not syncing: Fatal exception"]:
        rc, rep = run(tmp_path, CLEAN + f"[    3.0] {line}\n")
        assert rc == 1, line
        assert line in rep.splitlines()[1], rep


def test_known_null_blk_race_does_not_count(tmp_path):
    rc, rep = run(tmp_path, CLEAN + NULLB)
    assert rc == 0


def test_known_header_with_another_trace_counts(tmp_path):
    rc, rep = run(tmp_path, CLEAN + NULLB.replace("nullb_bwtimer_fn", "tick_sched_timer"))
    assert rc == 1


def test_known_report_is_named_beside_a_real_one(tmp_path):
    rc, rep = run(tmp_path, CLEAN + NULLB + "[   99.0] BUG: KASAN: use-after-free in x\n")
    assert rc == 1
    assert rep.startswith("# 1 kernel report line(s)")
    assert "(known, not counted: line 3: null_blk" in rep
