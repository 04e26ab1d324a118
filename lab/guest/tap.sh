# shellcheck shell=bash
# Minimal TAP producer for in-guest tests (sourced).
#   ok COND_EXIT_STATUS "description"   |   is GOT WANT "description"   |   tap_done
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
tap_done() {
	echo "1..$TAP_N"
	[ "$TAP_FAIL" -eq 0 ]
}
