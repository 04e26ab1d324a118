#!/bin/bash
# Data read over NFS is the data on the server (issue 16, first part), through every read path
# the series changes: read() of 4 KiB and 1 MiB, a mapped scan, two threads faulting through
# the halves of one mapping, faults in random order, and read() while read_ahead_kb and
# read_around_kb are rewritten under it; NFSv3 and NFSv4.2, with netem dropping, reordering
# and duplicating packets on both sides. Every result is a SHA-256 against the server's.
set -u
. "$(dirname "$0")/../../lab/guest/lib.sh"
. "$(dirname "$0")/../../lab/guest/tap.sh"

lab_storage ext4 512
lab_link 1
lab_nfsd
head -c $((96 << 20)) /dev/urandom >"$EXPORT/f"
sync
want=$(sha256sum <"$EXPORT/f" | cut -d' ' -f1)
size=$(stat -c %s "$EXPORT/f")
for dev in srv cli; do
	args=(delay 1ms loss 0.5% reorder 2% 50% duplicate 0.5% limit 20000 rate 1gbit)
	if [ $dev = srv ]; then tc qdisc change dev srv root netem "${args[@]}"
	else in_cli tc qdisc change dev cli root netem "${args[@]}"; fi
done
ok $? "netem: 1 ms, 0.5 % loss, 2 % reordering, 0.5 % duplicates each way"

# mapped MODE: SHA-256 of the file read through a shared mapping (seq, threads, random).
mapped() {
	python3 - "$MNT/f" "$1" <<'PY'
import hashlib, mmap, os, random, sys, threading
path, mode = sys.argv[1], sys.argv[2]
f = open(path, "rb")
m = mmap.mmap(f.fileno(), 0, prot=mmap.PROT_READ)
n, pg = len(m), 4096
if mode == "threads":           # two threads fault their halves in, page by page
    def touch(lo, hi):
        for o in range(lo, hi, pg):
            m[o]
    t = [threading.Thread(target=touch, args=(a, b)) for a, b in ((0, n // 2), (n // 2, n))]
    [x.start() for x in t]
    [x.join() for x in t]
elif mode == "random":          # fault every page in a random order first
    idx = list(range(0, n, pg))
    random.Random(1).shuffle(idx)
    for o in idx:
        m[o]
print(hashlib.sha256(m[:]).hexdigest())
PY
}

verified=0
for vers in 3 4.2; do
	lab_mount "$vers" rsize=1048576
	bdi=$(lab_bdi "$MNT")
	for how in "read 4k" "read 1m" "mapped seq" "mapped threads" "mapped random" "read while tuning"; do
		lab_drop_caches
		case "$how" in
		"read 4k") got=$(dd if="$MNT/f" bs=4k status=none | sha256sum | cut -d' ' -f1) ;;
		"read 1m") got=$(dd if="$MNT/f" bs=1M status=none | sha256sum | cut -d' ' -f1) ;;
		"mapped "*) got=$(mapped "${how#mapped }") ;;
		"read while tuning")
			(for i in $(seq 1 60); do
				echo $(( (i % 8 + 1) * 512 )) >"$bdi/read_ahead_kb"
				echo $(( (i % 4 + 1) * 32 )) >"$bdi/read_around_kb"
				sleep 0.05
			done) &
			got=$(dd if="$MNT/f" bs=64k status=none | sha256sum | cut -d' ' -f1)
			wait
			echo 4096 >"$bdi/read_ahead_kb"
			echo 128 >"$bdi/read_around_kb" ;;
		esac
		is "$got" "$want" "NFSv$vers, $how: the server's bytes"
		[ "$got" = "$want" ] && verified=$((verified + size))
	done
	umount "$MNT"
done
diag "bytes verified: $verified"
diag "netem on the server side: $(tc -s qdisc show dev srv | grep -m1 Sent)"
no_splat
tap_done
