#!/bin/bash
# Peer test tools over NFS (issue 16): fsx, stress-ng, NFStest's nfstest_posix and the kernel's
# mincore and cachestat kselftests, NFSv3 and NFSv4.2 (NFStest's other tools are
# peer_nfstest.sh's), on whatever kernel boots (make stress runs it on
# stock, patched and the debug kernel, and compares the counts). Installed by
# lab/peer-tools.sh under LAB_CACHE/peer. Every tool's verdict is one TAP line; its counts go to
# a "# peer: TOOL VERS pass=N fail=N skip=N" line that lab/stress.sh collects.
# Environment: STRESS_SHORT=1 runs each tool briefly (fewer operations, shorter stressors).
set -u
. "$(dirname "$0")/../../lab/guest/lib.sh"
. "$(dirname "$0")/../../lab/guest/tap.sh"
. "$LAB_OUT/kernel.env"
# shellcheck source=lab/guest/peer.sh
. "$(dirname "$0")/../../lab/guest/peer.sh"
[ -x "$peer/bin/fsx" ] || lab_die "no $peer/bin/fsx; run lab/peer-tools.sh on the host"
short=${STRESS_SHORT:-0}
fsx_ops=$([ "$short" = 1 ] && echo 1000 || echo 5000)
sng_s=$([ "$short" = 1 ] && echo 10 || echo 30)
# nfstest_posix in full takes 10-15 min per NFS version under TCG; the short form runs the
# I/O calls the series is near (its open() test alone walks hundreds of flag combinations).
posix_tests=()
[ "$short" = 1 ] && posix_tests=(--runtest "$(echo access close creat fcntl fdatasync fstat fsync \
	lseek mmap munmap read stat unlink write | tr ' ' ,)")

peer_setup

# fsx on a file of up to 16 MiB with 1 MiB operations: reads, writes, mapped reads and
# writes, truncates, close/reopen, invalidation, fsync; fallocate, hole punching and
# copy_file_range where the protocol has them (v4.2). Three seeds.
# run_fsx VERS [LABEL]: LABEL names the mount in the counts and logs (default VERS).
run_fsx() {
	local vers=$1 label=${2:-$1} seed rc p=0 f=0 extra=""
	[ "$vers" = 4.2 ] && extra=$'posix_fallocate = 1\npunch_hole = 1\ncopy_file_range = 1\n'
	cat >/tmp/fsx.toml <<TOML
flen = 16777216
[opsize]
max = 1048576
[weights]
close_open = 1
read = 10
write = 10
mapread = 10
mapwrite = 5
invalidate = 1
truncate = 1
fsync = 1
fdatasync = 1
posix_fadvise = 1
sendfile = 1
$extra
TOML
	for seed in 1 2 3; do
		mkdir -p "$MNT/fsx"
		(cd "$log" && timeout 900 "$peer/bin/fsx" -q -f /tmp/fsx.toml -N "$fsx_ops" -S "$seed" \
			-P "$log" "$MNT/fsx/f$seed" >"$log/fsx-v$label-$seed.log" 2>&1)
		rc=$?
		ok $rc "NFSv$label fsx seed $seed, $fsx_ops operations (log peer/fsx-v$label-$seed.log)"
		if [ $rc -eq 0 ]; then
			p=$((p + 1))
		else
			f=$((f + 1))
			tail -5 "$log/fsx-v$label-$seed.log" | sed 's/^/# /'
		fi
	done
	count fsx "$label" $p $f 0
}

# stress-ng stressors with verification where they have it; exit 0 passed, 3 "not
# implemented or no resource" (skip), anything else failed.
run_sng() {
	local vers=$1 s rc ops p=0 f=0 k=0
	for s in readahead fallocate mmap hdd fiemap; do
		mkdir -p "$MNT/sng"
		# 64 MiB per instance (hdd writes 1 GiB by default: the export would fill up, and a
		# full export fails the tools that run after it).
		(cd "$MNT/sng" && timeout $((sng_s + 120)) stress-ng --"$s" 2 --timeout "${sng_s}s" --verify \
			--hdd-bytes 64m --fallocate-bytes 64m --mmap-bytes 64m \
			--temp-path "$MNT/sng" --metrics-brief >"$log/sng-v$vers-$s.log" 2>&1)
		rc=$?
		ops=$(awk -v s="$s" '$2 == "metrc:" && $4 == s && $5 ~ /^[0-9]+$/ { print $5 }' \
			"$log/sng-v$vers-$s.log" | head -1)
		# rc 0 but "skipping stressor" or no operation at all: the filesystem lacks the call
		if [ $rc -eq 0 ] &&
			{ grep -q "skipping stressor" "$log/sng-v$vers-$s.log" || [ "${ops:-0}" = 0 ]; }; then
			rc=3
		fi
		case $rc in
		0) p=$((p + 1)); ok 0 "NFSv$vers stress-ng --$s, ${sng_s} s, $ops bogo ops" ;;
		3|4) k=$((k + 1)); skip "NFSv$vers stress-ng --$s: not supported here (rc $rc)" ;;
		*) f=$((f + 1)); ok 1 "NFSv$vers stress-ng --$s, ${sng_s} s (rc $rc, log peer/sng-v$vers-$s.log)"
		   grep -iE "fail|error" "$log/sng-v$vers-$s.log" | head -5 | sed 's/^/# /' ;;
		esac
		rm -rf "$MNT/sng" 2>/dev/null   # silly-renamed .nfs files of open ones may stay a moment
	done
	count stress-ng "$vers" $p $f $k
}

# nfstest_posix: its own mounts (from netns cli), its own PASS/FAIL counts, a packet trace
# of its tests (peer.sh's nfstest_tcpdump says how it is started and why).
run_nfstest() {
	local vers=$1 t=nfstest_posix rc exp=$EXPORT mtopts=hard,nolock out=$log/nfstest_posix-v$1.log
	umount "$MNT" 2>/dev/null
	[ "$vers" = 4.2 ] && exp=/ mtopts=hard
	# v3 without lockd/statd in the guest: nolock (locks stay local, as with v3 mounts here).
	nfstest_run 1800 "$t" "${posix_tests[@]}" --server "$SRV_IP" \
		--export "$exp" --nfsversion "$vers" --mtpoint "$MNT" --mtopts "$mtopts" \
		--rsize 1048576 --wsize 1048576 --datadir "nfstest-$vers" --notty --tmpdir /tmp \
		--client-ipaddr "$CLI_IP" --interface cli \
		"${nfstest_tcpdump[@]}" --rmtraces >"$out" 2>&1
	rc=$?
	tcpdump_left
	nfstest_counts "$out"
	nfstest_report "$t" "$vers" "$out" $rc $(( rc != 0 && nt_fail == 0 ? 1 : (nt_fail > 0) ))
	lab_mount "$vers"
}

# The kernel's mincore and cachestat selftests with their files on NFS.
run_ks_nfs() {
	local vers=$1 t bin rc p f k
	for t in mincore cachestat; do
		bin=$(ls "$peer/kselftest/$t"/* | head -1)
		(cd "$MNT" && timeout 600 "$bin") >"$log/ks-$t-v$vers.log" 2>&1
		rc=$?
		# its TAP results (cachestat prints no "# Totals" line)
		k=$(grep -cE "^ok [0-9]+ .*# SKIP" "$log/ks-$t-v$vers.log")
		p=$(( $(grep -cE "^ok [0-9]+ " "$log/ks-$t-v$vers.log") - k ))
		f=$(grep -cE "^not ok [0-9]+ " "$log/ks-$t-v$vers.log")
		[ $rc -ne 0 ] && [ "$f" -eq 0 ] && f=1
		ok $rc "NFSv$vers kselftest $t: pass $p fail $f skip $k (log peer/ks-$t-v$vers.log)"
		[ "$f" -gt 0 ] && grep -B3 "^not ok" "$log/ks-$t-v$vers.log" | sed 's/^/# /'
		count "ks-$t" "$vers" "$p" "$f" "$k"
	done
}

for vers in 3 4.2; do
	lab_mount "$vers"
	run_fsx "$vers"
	run_sng "$vers"
	diag "export before the kselftests: $(df -h "$EXPORT" | tail -1)"
	run_ks_nfs "$vers"
	umount "$MNT"
	run_nfstest "$vers"
	umount "$MNT" 2>/dev/null
done

# fsx once more over a sync mount, where every WRITE is stable: the streams the series' nfsd
# preallocates ahead of. Where the kernel has nfsd_prealloc it is on, with 1 MiB windows, so
# that fsx's truncates, hole punches, fallocates and mapped writes land on preallocated
# blocks and files are closed and reopened with preallocation to give back (stock runs the
# same fsx without it, for the counts).
P=/sys/module/nfsd/parameters
if [ -e $P/nfsd_prealloc ]; then
	echo 1 >$P/nfsd_prealloc && echo 1048576 >$P/nfsd_prealloc_len
	diag "nfsd_prealloc on, nfsd_prealloc_len 1 MiB, for fsx over a sync mount"
fi
lab_mount 4.2 sync
run_fsx 4.2 4.2-sync
umount "$MNT"
[ -e $P/nfsd_prealloc ] && echo 0 >$P/nfsd_prealloc && echo 16777216 >$P/nfsd_prealloc_len
no_splat
tap_done
