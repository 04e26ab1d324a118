#!/bin/bash
# make check's share of issue 16's fault suite: tests/stress/nfs_faults.sh in its short form
# (NFSv4.2, 16 MiB files; netem loss/reordering/duplicates/corruption, link down, nfsd restart,
# then the same in a 48 MiB memory cgroup), every byte checksummed. make stress runs it in full.
export STRESS_SHORT=1
exec "$(dirname "$0")/../stress/nfs_faults.sh"
