#!/bin/bash
# Load (issue 16): 300 sequential 4 KiB streams and 1000 small-file readers over NFSv4.2 with
# the client's readers in a 256 MiB memory cgroup, then a saturated link for 10 minutes:
# no OOM kill, no hung task, no I/O error, the data the readers saw checksummed where fio can.
# Environment: STRESS_SHORT=1 runs 20 s points and a 60 s saturated link.
set -u
. "$(dirname "$0")/../../lab/guest/lib.sh"
. "$(dirname "$0")/../../lab/guest/tap.sh"
[ -f "$LAB_OUT/kernel.env" ] && . "$LAB_OUT/kernel.env"
short=${STRESS_SHORT:-0}
point_s=$([ "$short" = 1 ] && echo 20 || echo 60)
sat_s=$([ "$short" = 1 ] && echo 60 || echo 600)

lab_storage ext4 1600
lab_link 1
lab_nfsd 16
mkdir -p "$EXPORT/streams" "$EXPORT/small"
# 300 stream files of 2 MiB with fio's crc32c block headers (4 KiB blocks, as they are read),
# 1000 files of 16 KiB of random data, one 512 MiB file.
fio --name=s --directory="$EXPORT/streams" --nrfiles=1 --numjobs=300 --filesize=2m --bs=4k --rw=write \
	--verify=crc32c --do_verify=0 --thread --output="$LAB_OUT/streams-write.log" >/dev/null 2>&1
ok $? "300 stream files written"
python3 - "$EXPORT/small" <<'PY'
import hashlib, json, os, sys
d, sums = sys.argv[1], {}
for i in range(1000):
    b = os.urandom(16384)
    open(f"{d}/f{i}", "wb").write(b)
    sums[f"f{i}"] = hashlib.sha256(b).hexdigest()
json.dump(sums, open("/tmp/small.json", "w"))
PY
ok $? "1000 small files written"
head -c $((512 << 20)) /dev/urandom >"$EXPORT/big"
sync

lab_memcg load $((256 << 20))
CG=/sys/fs/cgroup/load
in_cg() { in_memcg load "$@"; }
# The lab's fio runner (lab/guest/env.py): fio joins the cgroup once its job state (about
# 200 KiB of SysV memory per job) is set up, so the 256 MiB are the readers' page cache. Over
# NFS fio takes longer to set up 300 jobs than the runner's default allows: 60 s.
lab_fio() {	# lab_fio JOBS OUTPUT FIO-ARGS...
	local jobs=$1 out=$2
	shift 2
	python3 -c 'import json, sys; sys.path.insert(0, sys.argv[1]); import env
r = env.fio(sys.argv[5:], cgroup=sys.argv[2], threads=int(sys.argv[3]), setup_s=60 * env.SLOW)
json.dump(r, open(sys.argv[4], "w"))' "$LAB_GUEST" "$CG" "$jobs" "$out" "$@"
}
LAB_GUEST=$(cd "$(dirname "$0")/../../lab/guest" && pwd)

lab_mount 4.2
lab_drop_caches
oom0=$(awk '/^oom_kill /{print $2}' $CG/memory.events)

# 300 streams at 200 KB/s each (seed 002), each verifying every block it reads.
lab_fio 300 "$LAB_OUT/streams.json" --name=s --directory="$MNT/streams" --nrfiles=1 --numjobs=300 \
	--filesize=2m --bs=4k --rw=read --rate=200k --time_based --runtime="$point_s" --verify=crc32c \
	--verify_only=1 --verify_fatal=1 --thread 2>"$LAB_OUT/streams.err"
ok $? "300 streams, $point_s s in 256 MiB: fio reports no error and no bad block"
read -r mb err < <(python3 -c 'import json,sys; j=json.load(open(sys.argv[1])); print(sum(x["read"]["io_bytes"] for x in j["jobs"]) >> 20, sum(x["error"] for x in j["jobs"]))' "$LAB_OUT/streams.json" 2>/dev/null)
diag "300 streams read ${mb:-?} MiB, errors ${err:-?}"
[ -n "${mb:-}" ] && diag "bytes verified: $((mb << 20))"

# 1000 readers at once, one thread per 16 KiB file, three rounds with cold caches, every file
# checked against its SHA-256.
for round in 1 2 3; do
	lab_drop_caches
	in_cg python3 - "$MNT/small" <<'PY' >"$LAB_OUT/small-$round.log" 2>&1
import hashlib, json, sys, threading
d, sums, bad, errs = sys.argv[1], json.load(open("/tmp/small.json")), [], []
def rd(name):
    try:
        if hashlib.sha256(open(f"{d}/{name}", "rb").read()).hexdigest() != sums[name]:
            bad.append(name)
    except OSError as e:
        errs.append(f"{name}: {e}")
ts = [threading.Thread(target=rd, args=(n,)) for n in sums]
[t.start() for t in ts]
[t.join() for t in ts]
print(f"files {len(sums)} bad {len(bad)} errors {len(errs)} {bad[:5]} {errs[:5]}")
sys.exit(1 if bad or errs else 0)
PY
	ok $? "1000 small-file readers at once, round $round: $(cat "$LAB_OUT/small-$round.log" | tail -1)"
done
grep -q "bad 0 errors 0" "$LAB_OUT/small-3.log" && diag "bytes verified: $((3 * 1000 * 16384))"

# A saturated link: four readers, each going round its own quarter of the 512 MiB file with
# 1 MiB requests (the quarters do not fit in 256 MiB together: the link carries them).
tx0=$(cat /sys/class/net/srv/statistics/tx_bytes)
in_cg fio --name=sat --filename="$MNT/big" --numjobs=4 --size=128m --offset_increment=128m --bs=1m \
	--rw=read --time_based --runtime="$sat_s" --thread --output="$LAB_OUT/saturate.json" \
	--output-format=json >/dev/null 2>&1
ok $? "saturated link for $sat_s s: no I/O error"
tx1=$(cat /sys/class/net/srv/statistics/tx_bytes)
read -r mb < <(python3 -c 'import json,sys; j=json.load(open(sys.argv[1])); print(sum(x["read"]["io_bytes"] for x in j["jobs"]) >> 20)' "$LAB_OUT/saturate.json" 2>/dev/null)
diag "saturated link: readers got ${mb:-?} MiB in $sat_s s, the server sent $(( (tx1 - tx0) / sat_s / 1000000 )) MB/s"
got=$(sha256sum <"$MNT/big" | cut -d' ' -f1)
want=$(sha256sum <"$EXPORT/big" | cut -d' ' -f1)
is "$got" "$want" "the 512 MiB file reads back as the server holds it"
[ "$got" = "$want" ] && diag "bytes verified: $((512 << 20))"

oom1=$(awk '/^oom_kill /{print $2}' $CG/memory.events)
is "$((oom1 - oom0))" 0 "no OOM kill in the readers' cgroup"
! dmesg | grep -q "Out of memory"
ok $? "no OOM kill anywhere"
! dmesg | grep -q "blocked for more than"
ok $? "no hung task"
umount "$MNT"
no_splat
tap_done
