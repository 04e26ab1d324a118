#!/bin/bash
# guest-tests: boot KIND once per test script and run it in the guest (TAP output).
#   guest-tests.sh KIND OUTROOT TEST...
# Each test gets OUTROOT/<name>/ (guest.log holds its TAP, console.log the boot). A test
# passes when the guest reports exit status 0; the summary lists the ones that did not.
# A test script's "# lab-append: PARAMS" line adds PARAMS to the kernel command line. The
# guest reads OUTROOT/<name>/kernel.env: the kernel's release, LAB_CACHE, any STRESS_* and
# RA_SELFTEST_* setting (tests/guest/readahead_selftest.sh).
set -euo pipefail
. "$(dirname "$0")/lib.sh"
[ $# -ge 3 ] || die "usage: guest-tests.sh KIND OUTROOT TEST..."
kind=$1 outroot=$2
shift 2
gen=$(build_dir "$kind")/include/generated
[ -f "$gen/utsversion.h" ] || die "no $kind build; run: lab/build.sh $kind"
release=$(sed -n 's/^#define UTS_RELEASE "\(.*\)"/\1/p' "$gen/utsrelease.h")
version=$(sed -n 's/^#define UTS_VERSION "\(.*\)"/\1/p' "$gen/utsversion.h")

# Debian's udevd and the companion nfsrahead, for the tests that run udev (cached after once).
udev=$("$LAB_DIR/udev.sh")

# The lab's commit (lib.sh), recorded with each boot (OUTROOT/<name>/lab-commit): a run resumed
# in parts keeps boots by their kernel build, and the report names the lab code each one ran.
commit=$(lab_commit)

failed=()
for t in "$@"; do
	name=$(basename "$t" .sh)
	out=$outroot/$name
	rm -rf "$out"
	mkdir -p "$out"
	echo "$commit" >"$out/lab-commit"
	printf 'KERNEL_RELEASE=%q\nKERNEL_VERSION=%q\nKSELFTEST_DIR=%q\nLAB_UDEV=%q\nLAB_CACHE=%q\n' "$release" \
		"$version" "$(build_dir "$kind")/kselftest" "$udev" "$LAB_CACHE" >"$out/kernel.env"
	# STRESS_* settings (lab/stress.sh) and RA_SELFTEST_* ones reach the guest the same way.
	for v in $(compgen -v STRESS_) $(compgen -v RA_SELFTEST_); do printf '%s=%q\n' "$v" "${!v}"; done >>"$out/kernel.env"
	append=$(sed -n 's/^# lab-append: //p' "$t" | head -1)
	say "guest test $name ($kind)${append:+ [$append]}"
	# The kernel's messages go to console.log too: a guest that hangs leaves its last ones.
	# lab/vm.sh leaves the boot's wall time in OUTROOT/<name>/seconds.
	rc=0
	LAB_CONSOLE=${LAB_CONSOLE:-1} LAB_APPEND="${LAB_APPEND:-}${append:+ $append}" \
		"$LAB_DIR/vm.sh" "$kind" "$out" "$(cd "$(dirname "$t")" && pwd)/$(basename "$t")" || rc=$?
	if [ "$rc" = 0 ]; then
		sed 's/^/    /' "$out/guest.log"
	else
		sed 's/^/    /' "$out/guest.log" 2>/dev/null || true
		failed+=("$name")
	fi
done
if [ ${#failed[@]} -gt 0 ]; then
	# Again at the end, where a CI log's tail shows it: what each failed test said went wrong
	# (its "not ok" lines, or the last lines of its output when it died before saying).
	for name in "${failed[@]}"; do
		log=$outroot/$name/guest.log
		say "failed: $name"
		if grep -q '^not ok' "$log" 2>/dev/null; then
			# each "not ok" line with the diagnostics ("# ...") right after it
			awk '/^not ok/ { p = 1; print; next } p && /^#/ { print; next } { p = 0 }' "$log" |
				sed 's/^/    /'
		else
			tail -n 15 "$log" 2>/dev/null | sed 's/^/    /' || true
			tail -n 15 "$outroot/$name/console.log" 2>/dev/null | sed 's/^/    /' || true
		fi
	done
	die "guest tests failed: ${failed[*]} (logs under $outroot)"
fi
say "guest tests: all $# passed"
