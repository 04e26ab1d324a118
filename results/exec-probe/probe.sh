#!/bin/bash
# Where the READs of a binary run from NFS go: gcc's cc1 (33 MB) compiling a small C file from
# an NFSv4.2 mount (rsize 1 MiB, no added delay), cold client cache, warm server, as the
# nfs-mmap family's `exec` point runs it. Traces nfs:nfs_initiate_read (every READ's offset and
# count) on both kernels and, where the kernel has them (patched), the readahead events.
# Run by results/exec-probe/run.sh in a lab guest; writes OUT/trace.PASS.txt for passes 1-3.
set -eu
out=${1:-$LAB_OUT}
. "$(dirname "$0")/../../lab/guest/lib.sh"
cc1=${CC1:-/usr/lib/gcc/x86_64-linux-gnu/12/cc1}

lab_storage ext4 512
cp "$cc1" "$EXPORT/prog"
# the C file the nfs-mmap family's exec point compiles (its default of 60 functions)
PYTHONPATH="$(dirname "$0")/../../lab" python3 -c \
	'import sys; from families.nfs_mmap import exec_source; sys.stdout.write(exec_source(60))' \
	>"$EXPORT/src.c"
sync
cat "$EXPORT/prog" >/dev/null
lab_link 0
lab_nfsd
lab_mount 4.2 rsize=1048576
bdi=$(lab_bdi "$MNT")
echo "kernel $(uname -r) read_ahead_kb $(cat "$bdi/read_ahead_kb") read_around_kb $(cat "$bdi/read_around_kb" 2>/dev/null || echo -)"
T=/sys/kernel/tracing
echo 65536 >$T/buffer_size_kb
for pass in 1 2 3; do
	sync; echo 3 >/proc/sys/vm/drop_caches
	cat "$EXPORT/prog" >/dev/null
	echo >$T/trace
	echo 1 >$T/events/nfs/nfs_initiate_read/enable
	[ -d $T/events/readahead/page_cache_ra_pattern ] && echo 1 >$T/events/readahead/page_cache_ra_pattern/enable
	in_cli /usr/bin/time -f "pass $pass: %e s, %F major faults" "$MNT/prog" -quiet -O2 "$MNT/src.c" -o /dev/null
	echo 0 >$T/events/nfs/nfs_initiate_read/enable
	[ -d $T/events/readahead/page_cache_ra_pattern ] && echo 0 >$T/events/readahead/page_cache_ra_pattern/enable
	grep -v '^#' $T/trace >"$out/trace.$pass.txt" || true
	echo "pass $pass: $(grep -c nfs_initiate_read "$out/trace.$pass.txt") READs, $(grep -c page_cache_ra_pattern "$out/trace.$pass.txt") ra events"
done
