#!/bin/bash
# vm: boot a lab kernel under QEMU (virtme-ng) and run one command in the guest.
#
#   vm.sh KIND|BZIMAGE OUTDIR CMD [ARG...]     (KIND: stock, patched, or a variant: patched-ra128)
#
# The guest sees the host's root read-only (9p + tmpfs overlays) and OUTDIR read-write.
# CMD's output goes to OUTDIR/guest.log and its exit status to OUTDIR/rc, which this script
# returns; vng's own exit status and stdout are not trusted (see LAB-NOTES). The console
# log is kept in OUTDIR/console.log (with the kernel's messages when LAB_CONSOLE=1, for a guest
# that panics or hangs). A boot that has not started CMD after LAB_BOOT_TIMEOUT s (300) is
# stopped; the whole run after LAB_VM_TIMEOUT s (1800). The guest's dmesg (OUTDIR/dmesg.log)
# is scanned for kernel bug reports (lab/splat.sh): any makes the run fail, with the reports
# in OUTDIR/splats.log.
# KVM is used only where a vendor KVM module is loaded
# (a PVM /dev/kvm cannot run stock kernels); otherwise TCG. LAB_ACCEL=kvm|tcg overrides.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

[ $# -ge 3 ] || die "usage: vm.sh KIND|BZIMAGE OUTDIR CMD [ARG...]"
target=$1 outdir=$2
shift 2
case "$target" in
stock|patched|stock-*|patched-*) kernel=$(build_dir "$target")/arch/x86/boot/bzImage ;;
*) kernel=$target ;;
esac
[ -f "$kernel" ] || die "no kernel at $kernel; run: lab/build.sh ${target%%/*}"
vng=$VENV/bin/vng
[ -x "$vng" ] || die "virtme-ng is missing ($vng); run: make deps"

accel=${LAB_ACCEL:-}
if [ -z "$accel" ]; then
	if [ -w /dev/kvm ] && { [ -d /sys/module/kvm_intel ] || [ -d /sys/module/kvm_amd ]; }; then
		accel=kvm
	else
		accel=tcg
	fi
fi
case "$accel" in kvm) kvmflag=() ;; tcg) kvmflag=(--disable-kvm) ;; *) die "LAB_ACCEL must be kvm or tcg, not '$accel'" ;; esac

mkdir -p "$outdir"
outdir=$(cd "$outdir" && pwd)
rm -f "$outdir/rc" "$outdir/guest.log" "$outdir/dmesg.log" "$outdir/splats.log"
verbose=()
[ "${LAB_CONSOLE:-0}" = 1 ] && verbose=(--verbose)
echo "$accel" >"$outdir/accel"
# The command line, quoted for the guest shell.
cmd=$(printf '%q ' "$REPO_DIR/lab/guest/run.sh" "$outdir" "$@")

export PATH="$VENV/bin:$PATH"
timeout_s=${LAB_VM_TIMEOUT:-1800}
boot_s=${LAB_BOOT_TIMEOUT:-300}
[[ "$boot_s" =~ ^[1-9][0-9]*$ ]] || die "LAB_BOOT_TIMEOUT must be a number of seconds, not '$boot_s'"
start=$(date +%s)
# timeout runs vng in a process group of its own and, on a timeout or when it is itself
# signalled, signals the whole group: vng, virtme-run and the QEMU they fork. (With
# --foreground it would signal vng alone and leave QEMU running.) It runs in the background
# so that the trap below fires at once when this script is interrupted or killed.
set +e
timeout -k 10 "$timeout_s" "$vng" --run "$kernel" "${kvmflag[@]}" --force-9p "${verbose[@]}" \
	--cpus "${LAB_CPUS:-2}" --memory "${LAB_MEM:-5G}" --rwdir "$outdir" --cwd / \
	--append "${LAB_APPEND:-}" --exec "$cmd" </dev/null >"$outdir/console.log" 2>&1 &
tpid=$!
trap 'kill -TERM "$tpid" 2>/dev/null; wait "$tpid"; die "interrupted: guest stopped ($kernel)"' INT TERM HUP
# A guest that has not started CMD (run.sh creates guest.log first) within LAB_BOOT_TIMEOUT
# seconds hung in its boot, KUnit suites included: stopped then, not after the whole timeout.
# (The slowest boot, the debug kernel's with KUnit under TCG, takes about 35 s.)
boot_hung=0
while [ ! -e "$outdir/guest.log" ] && kill -0 "$tpid" 2>/dev/null; do
	if [ $(( $(date +%s) - start )) -ge "$boot_s" ]; then
		boot_hung=1
		kill -TERM "$tpid" 2>/dev/null
		break
	fi
	sleep 0.2
done
wait "$tpid"
vrc=$?
trap - INT TERM HUP
set -e
took=$(( $(date +%s) - start ))
# outdir/seconds: the wall time of this directory's boots, added to by a resumed one, for
# make stress's report. Written before any exit path, so a guest that hung or timed out counts.
before=$(cat "$outdir/seconds" 2>/dev/null || true)
[[ "$before" =~ ^[0-9]+$ ]] || before=0
echo $(( 10#$before + took )) >"$outdir/seconds"
if [ ! -f "$outdir/rc" ]; then
	tail -n 30 "$outdir/console.log" >&2
	"$LAB_DIR/splat.sh" "$outdir/console.log" "$outdir/splats.log" ||
		say "vm: kernel bug report on the console; see $outdir/splats.log"
	[ $boot_hung = 1 ] &&
		die "guest did not start its command within ${boot_s}s: its boot hung ($kernel, $accel); console: $outdir/console.log"
	[ $vrc -eq 124 ] && die "guest timed out after ${timeout_s}s ($kernel); console: $outdir/console.log"
	die "guest did not report an exit status (vng rc $vrc, $accel, ${took}s); console: $outdir/console.log"
fi
rc=$(cat "$outdir/rc")
say "vm: $target guest exited $rc after ${took}s ($accel)"
if [ ! -s "$outdir/dmesg.log" ]; then
	say "vm: error: the guest left no kernel log ($outdir/dmesg.log)"
	[ "$rc" -ne 0 ] || rc=1
elif ! "$LAB_DIR/splat.sh" "$outdir/dmesg.log" "$outdir/splats.log"; then
	grep '^#' "$outdir/splats.log" >&2
	say "vm: error: kernel bug report(s) in the guest's log; see $outdir/splats.log"
	[ "$rc" -ne 0 ] || rc=1
fi
exit "$rc"
