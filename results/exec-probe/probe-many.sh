#!/bin/bash
# Several binaries run from NFS, one READ trace each: does a rule that leaves cc1's bytes alone
# hold for other programs? Each program is copied to the export, the client cache is dropped
# (the server's stays warm) and the program runs once from an NFSv4.2 mount (rsize 1 MiB, no
# added delay) with nfs:nfs_initiate_read traced. Writes OUT/NAME.txt (the trace) and prints
# "NAME: N READs, P pages, T s, F major faults" per program. Programs missing on the host are
# skipped with a word.
set -eu
out=${1:-$LAB_OUT}
. "$(dirname "$0")/../../lab/guest/lib.sh"
gcc=/usr/lib/gcc/x86_64-linux-gnu/12

lab_storage ext4 1024
PYTHONPATH="$(dirname "$0")/../../lab" python3 -c \
	'import sys; from families.nfs_mmap import exec_source; sys.stdout.write(exec_source(60))' \
	>"$EXPORT/src.c"
cp "$EXPORT/src.c" "$EXPORT/src.cc"
printf '#!/bin/sh\nfor f in "$@"; do echo $f; done\n' >"$EXPORT/s.sh"
# name|binary|arguments (the mount is $MNT)
progs="cc1|$gcc/cc1|-quiet -O2 MNT/src.c -o /dev/null
cc1plus|$gcc/cc1plus|-quiet -O2 MNT/src.cc -o /dev/null
lto-dump|/usr/bin/x86_64-linux-gnu-lto-dump-12|--help
node|/usr/bin/node|-e 1
shellcheck|/usr/bin/shellcheck|MNT/s.sh
qemu|/usr/bin/qemu-system-x86_64|-machine help
gdb|/usr/bin/gdb|-batch -nx -ex quit
cmake|/usr/bin/cmake|--help"
while IFS='|' read -r name bin args; do
	[ -x "$bin" ] && cp "$bin" "$EXPORT/$name"
done <<<"$progs"
sync
lab_link 0
lab_nfsd
lab_mount 4.2 rsize=1048576
T=/sys/kernel/tracing
echo 65536 >$T/buffer_size_kb
while IFS='|' read -r name bin args; do
	if [ ! -x "$bin" ]; then
		echo "$name: skipped, no $bin on the host"
		continue
	fi
	cat "$EXPORT/$name" >/dev/null
	sync; echo 3 >/proc/sys/vm/drop_caches
	echo >$T/trace
	echo 1 >$T/events/nfs/nfs_initiate_read/enable
	# the series' readahead decisions, where the kernel has them
	ra=$T/events/readahead/page_cache_ra_pattern/enable
	[ -f $ra ] && echo 1 >$ra
	# shellcheck disable=SC2086
	in_cli /usr/bin/time -o "$out/$name.time" -f "%e %F" "$MNT/$name" ${args//MNT/$MNT} \
		>/dev/null 2>&1 || true
	echo 0 >$T/events/nfs/nfs_initiate_read/enable
	[ -f $ra ] && echo 0 >$ra
	grep -v '^#' $T/trace >"$out/$name.txt" || true
	fid=$(stat -c %i "$EXPORT/$name")
	python3 - "$out/$name.txt" "$name" "$(tail -n1 "$out/$name.time")" "$fid" <<'PY'
import re, sys
path, name, tm, fid = sys.argv[1:]
pages, reads = set(), 0
for line in open(path):
    m = re.search(r"fileid=\S+:(\w+) .*offset=(\d+) count=(\d+)", line)
    if m and int(m[1]) == int(fid):
        reads += 1
        off, cnt = int(m[2]), int(m[3])
        pages.update(range(off >> 12, (off + cnt + 4095) >> 12))
t, f = tm.split()
print(f"{name}: {reads} READs, {len(pages)} pages, {t} s, {f} major faults")
PY
done <<<"$progs"
