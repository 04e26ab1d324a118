#!/bin/bash
# Hostile input to every knob the series adds (issue 16): nfs.readahead_rsize_multiple,
# read_around_kb of an NFS mount's bdi, and /sys/kernel/debug/readahead/stats. Each gets
# whitespace, garbage, negative, out-of-range, huge, over-long and binary values: refused with
# EINVAL, value unchanged; an empty write is no write (value unchanged); then writers racing
# with valid values, and with a reader of the file, while a stream reads through the mount;
# afterwards each knob holds a valid value and the kernel logged no splat.
set -u
. "$(dirname "$0")/../../lab/guest/lib.sh"
. "$(dirname "$0")/../../lab/guest/tap.sh"

lab_storage ext4 256
lab_link 0
lab_nfsd
lab_mounts
head -c $((64 << 20)) /dev/urandom >"$EXPORT/f"
lab_mount 4.2 rsize=1048576
P=/sys/module/nfs/parameters/readahead_rsize_multiple
A=$(lab_bdi "$MNT")/read_around_kb
S=/sys/kernel/debug/readahead/stats
for f in "$P" "$A" "$S"; do
	[ -e "$f" ] || { echo "not ok 1 - $f missing (is the series applied?)"; echo "1..1"; exit 1; }
done
long=$(head -c 5000 /dev/zero | tr '\0' 7)
dmesg -C

# refuse NAME FILE GOOD VALUE...: each VALUE is refused with EINVAL and FILE keeps reading
# GOOD (GOOD "-": FILE is not compared, as for the stats, which change on their own).
refuse() {
	local name=$1 f=$2 good=$3 v err bad=0 what="" kept=", value kept"
	shift 3
	[ "$good" = - ] && kept=""
	for v in "$@"; do
		err=$( { printf '%s' "$v" >"$f"; } 2>&1 )
		case "$err" in *"Invalid argument"*) ;; *) bad=$((bad + 1)) what="$what '${v:0:12}'(${err:-accepted})" ;; esac
		[ "$good" = - ] || [ "$(cat "$f")" = "$good" ] || { bad=$((bad + 1)) what="$what '${v:0:12}'(changed)"; }
	done
	ok $bad "$name: $# hostile values refused with EINVAL$kept$what"
}
hostile=(" " "abc" "-1" "-4" "0x" "1e3" "4x" "99999999999999999999" "18446744073709551616"
	"$long" "$(printf '\001\377\n')" "1 2" "+-1")

echo 4 >"$P"
refuse readahead_rsize_multiple "$P" 4 "${hostile[@]}" 17 1000 4294967296
printf '' >"$P"
is "$(cat "$P")" 4 "readahead_rsize_multiple: an empty write changes nothing"

echo 128 >"$A"
refuse read_around_kb "$A" 128 "${hostile[@]}" 1 3 6 8192 16384
printf '' >"$A"
is "$(cat "$A")" 128 "read_around_kb: an empty write changes nothing"

# The "all" row's readahead count: a reset would take it back to 0.
all_count() { awk '$1 == "all" { print $2 }' "$S"; }
before=$(all_count)
refuse readahead/stats "$S" - "${hostile[@]}" 1 00 "0 0" "0x0"
after=$(all_count)
[ "$before" -gt 0 ] && [ "$after" -ge "$before" ]
ok $? "readahead/stats: refused writes reset nothing ($before windows before, $after after)"

# Racing writers of valid values and readers, while a stream reads the file through the mount.
lab_drop_caches
dd if="$MNT/f" of=/dev/null bs=4k status=none &
for w in 1 2; do
	(for i in $(seq 1 300); do
		echo $(( (i + w) % 17 )) >"$P"
		echo $(( ((i * w) % 32 + 1) * 4 )) >"$A" 2>/dev/null
		echo 0 >"$S"
	done) &
done
(for i in $(seq 1 300); do cat "$P" "$A" "$S" >/dev/null; done) &
wait
m=$(cat "$P")
[ "$m" -ge 0 ] && [ "$m" -le 16 ]
ok $? "racing writers leave readahead_rsize_multiple valid ($m)"
a=$(cat "$A") ra=$(cat "$(lab_bdi "$MNT")/read_ahead_kb")
[ $((a % 4)) -eq 0 ] && [ "$a" -le "$ra" ]
ok $? "racing writers leave read_around_kb valid ($a, read_ahead_kb $ra)"
head -1 "$S" | grep -q '^pattern'
ok $? "readahead/stats still reads"
no_splat
echo 4 >"$P"
umount "$MNT"
tap_done
