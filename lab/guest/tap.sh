# shellcheck shell=bash
# Minimal TAP producer for in-guest tests (sourced).
#   ok COND_EXIT_STATUS "description"   |   is GOT WANT "description"   |   tap_done
#   run_ks NAME CMD... (a kselftest)     |   no_splat
TAP_N=0
TAP_FAIL=0
ok() {
	local rc=$1
	shift
	TAP_N=$((TAP_N + 1))
	if [ "$rc" -eq 0 ]; then
		echo "ok $TAP_N - $*"
	else
		echo "not ok $TAP_N - $*"
		TAP_FAIL=$((TAP_FAIL + 1))
	fi
}
is() {
	local got=$1 want=$2
	shift 2
	if [ "$got" = "$want" ]; then
		ok 0 "$*"
	else
		ok 1 "$* (got '$got', want '$want')"
	fi
}
diag() { echo "# $*"; }
skip() { TAP_N=$((TAP_N + 1)); echo "ok $TAP_N - # SKIP $*"; }
# run_ks NAME CMD...: run a kselftest program, its TAP indented, and check that it passed
# with every test run.
run_ks() {
	local name=$1
	shift
	"$@" >/tmp/ks.out 2>&1
	local rc=$?
	sed 's/^/    /' /tmp/ks.out
	ok "$rc" "$name"
	grep -qE "^# Totals: pass:[1-9][0-9]* fail:0 .*skip:0 error:0" /tmp/ks.out
	ok $? "$name: every test ran (none skipped)"
}
# no_splat: the kernel logged no bug report (lab/splat.sh: BUG, WARNING, oops, KASAN, lockdep,
# UBSAN, hung task, RCU stall...) since boot, or since the test's `dmesg -C`.
# A kernel log that cannot be saved whole (the guest's /tmp full) fails the check: a scan of
# part of it proves nothing.
no_splat() {
	if ! dmesg >/tmp/dmesg.now; then
		ok 1 "no kernel splat: the kernel log could not be saved in /tmp"
		df -h /tmp | sed 's/^/# /'
		return
	fi
	"$(dirname "${BASH_SOURCE[0]}")/../splat.sh" /tmp/dmesg.now >/tmp/splat.now
	ok $? "no kernel splat"
	grep '^#' /tmp/splat.now || true
}
tap_done() {
	echo "1..$TAP_N"
	[ "$TAP_FAIL" -eq 0 ]
}
