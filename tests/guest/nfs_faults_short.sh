#!/bin/bash
# make check's share of issue 16's fault suite: tests/stress/nfs_faults.sh in its short form
# (NFSv4.2, 16 MiB files; netem loss/reordering/duplicates/corruption, link down and nfsd
# restart during the writes, then netem and nfsd restarts in a 48 MiB memory cgroup), every
# byte checksummed. make stress runs it in full (also NFSv3, a round without faults, faults
# during the reads, and every round in the memory cgroup).
export STRESS_SHORT=1
exec "$(dirname "$0")/../stress/nfs_faults.sh"
