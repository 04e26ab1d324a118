#!/usr/bin/env python3
"""Count the COMMITs of a wb10-probe trace by the kernel function that sent them, and the
flusher's writepages calls by their size.
  origins.py OUT/trace.txt.gz"""
import collections
import gzip
import re
import sys

KNOWN = ("nfs_io_completion_commit", "nfs_commit_unstable_pages", "nfs_write_inode", "nfs_file_fsync",
         "nfs_wb_all", "nfs_wb_folio", "nfs_commit_inode", "nfs_writepages", "wb_writeback", "vfs_fsync_range",
         "rpc_async_schedule", "nfs_pgio_release", "nfs_write_completion", "writeback_sb_inodes",
         "__writeback_single_inode", "nfs_file_release", "nfs_file_flush")


def main(path):
    origins, stacks = collections.Counter(), collections.Counter()
    wrote = []
    lines = gzip.open(path, "rt").read().splitlines()
    i = 0
    while i < len(lines):
        ln = lines[i]
        if "nfs_initiate_commit:" in ln:
            j = i + 1
            while j < len(lines) and "<stack trace>" not in lines[j] and j < i + 3:
                j += 1
            frames = []
            k = j + 1
            while k < len(lines) and lines[k].lstrip().startswith("=>"):
                frames.append(lines[k].strip()[3:].split("+")[0].strip())
                k += 1
            path_ = [f for f in frames if f in KNOWN]
            origins[" < ".join(path_[:4]) or "?"] += 1
            stacks[" < ".join(frames[:8])] += 1
            i = k
            continue
        m = re.search(r"writeback_single_inode: .*?to_write=(-?\d+) wrote=(\d+)", ln)
        if m:
            wrote.append(int(m.group(2)))
        i += 1
    print("COMMITs by origin:")
    for k, v in origins.most_common():
        print(f"{v:6d}  {k}")
    print("\nmost common stacks:")
    for k, v in stacks.most_common(6):
        print(f"{v:6d}  {k}")
    if wrote:
        wrote.sort()
        n = len(wrote)
        print(f"\nwritepages calls (writeback_single_inode): {n}, pages written median {wrote[n // 2]}, "
              f"p10 {wrote[n // 10]}, p90 {wrote[9 * n // 10]}, zero {sum(1 for w in wrote if w == 0)}")


if __name__ == "__main__":
    main(sys.argv[1])
