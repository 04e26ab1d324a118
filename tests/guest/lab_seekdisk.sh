#!/bin/bash
# The lab's seeking disk (lab/guest/seekdisk.c, scenario field disk_seek_us): a request that
# follows the last one pays no seek, one elsewhere pays it, a short forward gap is passed over,
# the write cache leaves the head alone, command queueing saves seeks; the disk really takes
# that long; data reads back as written; bad arguments and a busy device are refused with a
# message naming them.
set -u
. "$(dirname "$0")/../../lab/guest/lib.sh"
. "$(dirname "$0")/../../lab/guest/tap.sh"

lab_mounts
SD=/tmp/seekdisk
gcc -O2 -Wall -o "$SD" "$(dirname "$0")/../../lab/guest/seekdisk.c"
ok $? "seekdisk builds"

# start DEV WCACHE QUEUE STATS: 256 MiB, 8 ms seeks, no per-request cost, 150 MB/s, 1 MiB track.
start() {
	"$SD" "/dev/$1" 256 8000 0 150 1024 "$2" "$3" "$4" 2>"/tmp/$1.err" &
	for _ in $(seq 100); do
		[ "$(cat "/sys/block/$1/size")" != 0 ] && return 0
		sleep 0.05
	done
	return 1
}
stat_of() { awk -v k="$2" '$1 == k {print $2}' "$1"; }
# rd DEV BLOCK4K [COUNT]: direct reads of 4 KiB blocks
rd() { dd if="/dev/$1" of=/dev/null bs=4k skip="$2" count="${3:-1}" iflag=direct status=none; }

# nbd0 has no starvation limit: the command queueing check below compares C-LOOK with arrival
# order, and on a slow kernel (the debug variant) a sweep through 32 queued requests outlasts
# the 200 ms limit, which then serves them in arrival order.
SEEKDISK_MAX_AGE_MS=0 start nbd0 0 32 /tmp/sd0
ok $? "nbd0 comes up under seekdisk"
is "$(cat /sys/block/nbd0/size)" $((256 << 11)) "nbd0 has 256 MiB"

# A sequential 32 MiB read: one seek (to its start), then the requests follow each other.
s0=$(stat_of /tmp/sd0 seeks) b0=$(stat_of /tmp/sd0 busy_us)
t0=$(date +%s%N)
dd if=/dev/nbd0 of=/dev/null bs=1M skip=100 count=32 iflag=direct status=none
t1=$(date +%s%N)
s1=$(stat_of /tmp/sd0 seeks) b1=$(stat_of /tmp/sd0 busy_us)
is $((s1 - s0)) 1 "a sequential read pays one seek"
busy=$(((b1 - b0) / 1000))
[ "$busy" -ge 220 ] && [ "$busy" -le 240 ]
ok $? "32 MiB at 150 MB/s + one seek keep the disk busy ${busy} ms (want 231 +- 10)"
[ $(((t1 - t0) / 1000000)) -ge "$busy" ]
ok $? "and the read took at least that long ($(((t1 - t0) / 1000000)) ms)"

# 20 reads 2 MiB apart, backwards: each pays a seek; the disk takes >= 20 x 8 ms.
s0=$(stat_of /tmp/sd0 seeks) b0=$(stat_of /tmp/sd0 busy_us)
t0=$(date +%s%N)
for i in $(seq 20 -1 1); do rd nbd0 $((i * 512)); done
t1=$(date +%s%N)
s1=$(stat_of /tmp/sd0 seeks) b1=$(stat_of /tmp/sd0 busy_us)
is $((s1 - s0)) 20 "20 scattered reads pay 20 seeks"
[ $(((t1 - t0) / 1000)) -ge $((b1 - b0)) ] && [ $((b1 - b0)) -ge 160000 ]
ok $? "they keep the disk busy $(((b1 - b0) / 1000)) ms (>= 160) and take at least that ($(((t1 - t0) / 1000000)) ms)"

# A forward gap of 512 KiB is passed over (3.5 ms at 150 MB/s), not sought.
rd nbd0 30000
s0=$(stat_of /tmp/sd0 seeks) k0=$(stat_of /tmp/sd0 skips)
rd nbd0 $((30001 + 128))
s1=$(stat_of /tmp/sd0 seeks) k1=$(stat_of /tmp/sd0 skips)
is "$((s1 - s0)) $((k1 - k0))" "0 1" "a 512 KiB forward gap is a skip, not a seek"

# Data: 8 MiB of random bytes written and read back through the device.
head -c $((8 << 20)) /dev/urandom >/tmp/sd-data
dd if=/tmp/sd-data of=/dev/nbd0 bs=1M seek=40 oflag=direct status=none
want=$(sha256sum </tmp/sd-data | cut -d' ' -f1)
got=$(dd if=/dev/nbd0 bs=1M skip=40 count=8 iflag=direct status=none | sha256sum | cut -d' ' -f1)
is "$got" "$want" "8 MiB read back as written"
# and through a filesystem, after dropping the page cache
mkfs.ext4 -q -F /dev/nbd0 && mkdir -p /tmp/sdmnt && mount /dev/nbd0 /tmp/sdmnt &&
	cp /tmp/sd-data /tmp/sdmnt/f && umount /tmp/sdmnt && mount /dev/nbd0 /tmp/sdmnt
ok $? "ext4 on the seeking disk: mkfs, mount, write, remount"
is "$(sha256sum </tmp/sdmnt/f | cut -d' ' -f1)" "$want" "a file on it reads back as written"
umount /tmp/sdmnt

# The write cache: scattered writes pay no seek and leave the head where the last read ended.
start nbd1 1 32 /tmp/sd1
ok $? "nbd1 comes up under seekdisk with the write cache"
rd nbd1 1000
s0=$(stat_of /tmp/sd1 seeks)
for i in 9 3 7 5; do
	dd if=/dev/zero of=/dev/nbd1 bs=4k seek=$((i * 4096)) count=1 oflag=direct status=none
done
rd nbd1 1001
s1=$(stat_of /tmp/sd1 seeks)
is $((s1 - s0)) 0 "cached scattered writes pay no seek and do not move the head"
is "$(stat_of /tmp/sd1 write_bytes)" 16384 "the cache counts the bytes written"

# Command queueing: 256 random 4 KiB reads within 16 MiB, 32 at a time. In arrival order
# (QUEUE 1) nearly every one seeks; taken nearest-first from 32 (C-LOOK) most pass over a
# short gap instead.
randread() {
	fio --name=ncq --filename="/dev/$1" --direct=1 --rw=randread --bs=4k --size=16m --io_size=1m \
		--iodepth=32 --ioengine=libaio --randrepeat=1 --output=/dev/null
}
start nbd2 0 1 /tmp/sd2
ok $? "nbd2 comes up under seekdisk without command queueing"
s0=$(stat_of /tmp/sd2 seeks)
randread nbd2
fifo=$(($(stat_of /tmp/sd2 seeks) - s0))
s0=$(stat_of /tmp/sd0 seeks)
randread nbd0
ncq=$(($(stat_of /tmp/sd0 seeks) - s0))
[ "$fifo" -ge 200 ] && [ $((ncq * 3)) -le "$fifo" ]
ok $? "queued random reads: $fifo seeks in arrival order, $ncq reordered (want >= 200, and a third at most)"

# Refusals: refused RC MESSAGE DESCRIPTION SEEKDISK-ARGS...: seekdisk exits RC saying MESSAGE.
refused() {
	local want=$1 msg=$2 what=$3 rc
	shift 3
	"$SD" "$@" 2>/tmp/sd-bad.err
	rc=$?
	[ "$rc" = "$want" ] && grep -q "$msg" /tmp/sd-bad.err
	ok $? "$what is refused (rc $rc: $(head -c 120 /tmp/sd-bad.err))"
}
refused 2 "SIZE_MB must be an integer" "a non-numeric size" /dev/nbd3 lots 8000 0 150 1024 0 32 /tmp/sd3
refused 2 "WCACHE must be" "a write cache of 2" /dev/nbd3 64 8000 0 150 1024 2 32 /tmp/sd3
SEEKDISK_MAX_AGE_MS=soon refused 2 "SEEKDISK_MAX_AGE_MS must be" "a starvation limit of 'soon'" \
	/dev/nbd3 64 8000 0 150 1024 0 32 /tmp/sd3
refused 2 "QUEUE must be at least 1" "a queue of 0" /dev/nbd3 64 8000 0 150 1024 0 0 /tmp/sd3
refused 1 "is in use" "a device already served" /dev/nbd0 64 8000 0 150 1024 0 32 /tmp/sd3
[ "$(cat /sys/block/nbd0/size)" = $((256 << 11)) ] && rd nbd0 0
ok $? "and the device in use keeps its size and works"
tap_done
