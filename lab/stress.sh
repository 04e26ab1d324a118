#!/bin/bash
# stress: the reliability run of issue 16 (`make stress`). Builds stock, patched and the debug
# variant of patched (lab/config/variant-debug.config: KASAN, lockdep, DEBUG_VM, DEBUG_LIST,
# object debugging, UBSAN, hung-task and RCU-stall detection), then boots:
#   debug:    every in-guest test (tests/guest/*.sh, with the series' kselftests and KUnit
#             suites), every stress suite (tests/stress/*.sh: peer tools, faults with
#             checksums, load) and the QUICK benchmarks (make bench QUICK=1, patched only);
#   patched:  the stress suites;
#   stock:    the peer tools (tests/stress/peer_*.sh), for the pass counts the patched kernels
#             must match.
# Every boot's dmesg is scanned (lab/splat.sh); any report fails that boot and is kept in its
# splats.log. The report, OUT/report.md and OUT/report.json, counts tests run, passed, failed,
# splats, bytes verified and bytes lost, and compares the peer tools' counts per kernel.
#   stress.sh [OUT]        (default out/stress; STRESS_SHORT=1: each suite briefly;
#                          STRESS_BENCH=0: without the QUICK benchmarks on the debug kernel)
# A run that stops keeps what it measured: rerun with the same OUT (or a copy of it, on another
# machine) and the boots that passed on the same kernel are kept (and the peer tools' boots
# that ran to their end, whose failures the report compares with stock), the others run again;
# STRESS_FRESH=1 starts over. STRESS_ONLY="TEST..." (names such as nfs_writeback or
# peer_tools) runs only those boots, for a run done in parts: the next full run keeps them.
# STRESS_KERNELS="stock patched" (of patched-debug, patched, stock) boots only those kernels
# and builds only what they need (no debug build without patched-debug).
set -euo pipefail
. "$(dirname "$0")/lib.sh"

stress_tests=("$REPO_DIR"/tests/stress/*.sh)
# tests/guest/*_short.sh are make check's short forms of the stress suites, which run in full.
guest_tests=()
for t in "$REPO_DIR"/tests/guest/*.sh; do
	case $t in *_short.sh) ;; *) guest_tests+=("$t") ;; esac
done
if [ -n "${STRESS_ONLY:-}" ]; then
	known=" "
	for t in "${guest_tests[@]}" "${stress_tests[@]}"; do known+="$(basename "$t" .sh) "; done
	for n in $STRESS_ONLY; do
		[[ $known == *" $n "* ]] ||
			die "stress: STRESS_ONLY names '$n', which is not a test in tests/guest or tests/stress"
	done
fi

kernels=" ${STRESS_KERNELS:-patched-debug patched stock} "
for k in $kernels; do
	case $k in patched-debug | patched | stock) ;;
	*) die "stress: STRESS_KERNELS names '$k', which is not one of patched-debug, patched, stock" ;;
	esac
done
runs() { [[ $kernels == *" $1 "* ]]; }

out=${1:-$REPO_DIR/out/stress}
mkdir -p "$out"
out=$(cd "$out" && pwd)
[ "${STRESS_FRESH:-0}" = 1 ] && rm -rf "${out:?}"/{patched-debug,patched,stock,bench}
export STRESS_SHORT=${STRESS_SHORT:-0}
start=$(date +%s)

"$LAB_DIR/deps.sh"
if runs stock; then "$LAB_DIR/build.sh" stock >/dev/null; fi
if runs patched; then "$LAB_DIR/build.sh" patched >/dev/null; fi
if runs patched-debug; then "$LAB_DIR/build.sh" patched debug >/dev/null; fi
"$LAB_DIR/peer-tools.sh" >/dev/null

# suite KIND TEST...: run each TEST on KIND unless an earlier run of this OUT passed it on the
# same kernel, or ran it to its end with only peer-tool checks failing (their verdict is the
# report's comparison with stock: stress_report.py --keep); a failing test does not stop the
# others. A boot may take 90 min, 180 on the debug kernel (LAB_VM_TIMEOUT overrides both): the
# full peer tools ran out of vm.sh's default 30 min on stock on 2026-12-01, and the debug
# kernel's nfs_faults out of 90 min at 117 of its 133 checks on 2026-12-02 (the normal
# kernel's takes 39 min; the debug kernel's nfs_load 23 against 14).
# The kernel is named by its build's .lab-config stamp (config fragments and series commit,
# the same on every machine), so a run that did not fit in one session resumes on a fresh
# machine from the committed OUT.
suite() {
	local kind=$1 t name id timeout=5400
	shift
	runs "$kind" || return 0
	[ "$kind" = patched-debug ] && timeout=10800
	id=$(cat "$(build_dir "$kind")/.lab-config" 2>/dev/null || true)
	[ -n "$id" ] || die "stress: no .lab-config in $(build_dir "$kind")"
	for t in "$@"; do
		name=$(basename "$t" .sh)
		if [ -n "${STRESS_ONLY:-}" ] && [[ " $STRESS_ONLY " != *" $name "* ]]; then
			continue
		fi
		if [ "$(cat "$out/$kind/$name/.build" 2>/dev/null)" = "$id" ] &&
			"$VENV/bin/python" "$LAB_DIR/stress_report.py" --keep "$out/$kind/$name"; then
			say "stress: $kind $name ran before on this build (passed, or only peer-tool checks failed), kept"
			continue
		fi
		LAB_CONSOLE=1 LAB_VM_TIMEOUT=${LAB_VM_TIMEOUT:-$timeout} "$LAB_DIR/guest-tests.sh" "$kind" "$out/$kind" "$t" || true
		echo "$id" >"$out/$kind/$name/.build"
	done
}

suite patched-debug "${guest_tests[@]}" "${stress_tests[@]}"
if [ "${STRESS_BENCH:-1}" = 1 ] && [ -z "${STRESS_ONLY:-}" ] && runs patched-debug; then
	"$VENV/bin/python" "$LAB_DIR/bench.py" --quick --no-build --kernels patched --variant debug \
		--out "$out/bench" "$REPO_DIR"/lab/scenarios/*.toml || true
fi
suite patched "${stress_tests[@]}"
suite stock "$REPO_DIR"/tests/stress/peer_*.sh

"$VENV/bin/python" "$LAB_DIR/stress_report.py" "$out" --seconds $(( $(date +%s) - start ))
