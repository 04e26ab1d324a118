# shellcheck shell=bash
# shellcheck disable=SC2034 # variables for the scripts that source this file
# Shared by the peer-tool suites (tests/stress/peer_*.sh), sourced after lib.sh, tap.sh and
# kernel.env: the tools under LAB_CACHE/peer (lab/peer-tools.sh installs them), the setup
# both suites run, and NFStest's summary line read into counts.

peer=$LAB_CACHE/peer
log=$LAB_OUT/peer

# nfstest_tcpdump: the --tcpdump option for the NFStest tools that trace their tests
# (nfstest_alloc, nfstest_posix). NFStest starts its capture as `sh -c "tcpdump ..."` and
# stops it by signalling that sh, and dash does not exec its last command: every tcpdump
# outlived its test, unflushed and with its 192 MiB capture ring mapped. Seen on 2026-12-01
# and 2026-12-02: nfstest_alloc's "Packet trace file is empty" (9 of stock's 289 checks), the
# guest out of memory in dealloc01 with thirteen of them, and after nfstest_posix a capture
# that went on into /tmp until the v4.2 fsx and stress-ng that follow had filled the guest's
# /tmp and /run (1.5 GiB of pages) and no_splat could not save the kernel log. "exec" makes
# the sh become tcpdump, so the signal reaches it; tcpdump_left after each tool shows it.
nfstest_tcpdump=(--tcpdump "exec $(command -v tcpdump)")

# tcpdump_left: how many captures outlived the tool that started them (0 expected).
tcpdump_left() { diag "tcpdump processes left: $(pgrep -c -x tcpdump)"; }

# nfstest_run SECONDS TOOL ARG...: NFStest's TOOL from netns cli under a timeout, with the
# hostname NFStest puts in its file names. Callers redirect its output to their log; a PATH
# set before the call (PATH=... nfstest_run ...) reaches the tool.
nfstest_run() {
	local secs=$1 tool=$2
	shift 2
	in_cli env HOSTNAME=lab-client timeout "$secs" python3 "$peer/nfstest/usr/bin/$tool" "$@"
}

# peer_setup: NFStest on PYTHONPATH and PATH, ext4 on 768 MiB exported, the link at 1 ms,
# nfsd, and a log directory. NFStest finds the client's address from its route to the
# world: netns cli gets a default route.
peer_setup() {
	command -v tcpdump >/dev/null ||
		lab_die "no tcpdump (NFStest traces its tests with it); run lab/peer-tools.sh on the host"
	export PYTHONPATH=$peer/nfstest/usr/lib/python3/dist-packages
	export PATH=$peer/nfstest/usr/bin:$PATH
	lab_storage ext4 768
	lab_link 1
	lab_nfsd
	in_cli ip route add default via "$SRV_IP" dev cli
	mkdir -p "$log"
}

# count TOOL VERS PASS FAIL SKIP: the line lab/stress.sh collects.
count() { diag "peer: $1 $2 pass=$3 fail=$4 skip=$5"; }

# nfstest_counts LOG: NFStest's last "N tests (P passed, F failed)" line into nt_line, its
# counts into nt_pass and nt_fail (0 when there is no summary), its SKIP lines into nt_skip.
nfstest_counts() {
	nt_line=$(grep -E "^[0-9]+ tests? \(" "$1" | tail -1)
	nt_pass=$(sed -n 's/.*(\([0-9]*\) passed.*/\1/p' <<<"$nt_line")
	nt_pass=${nt_pass:-0}
	nt_fail=$(sed -n 's/.* \([0-9]*\) failed.*/\1/p' <<<"$nt_line")
	nt_fail=${nt_fail:-0}
	nt_skip=$(grep -c "^ *SKIP" "$1")
}

# nfstest_report TOOL VERS LOG RC NOTOK, after nfstest_counts LOG: the TAP line (NOTOK 0 or
# 1; RC is the tool's exit status), the first FAIL lines of LOG, or its tail when it has no
# summary, and the counts.
nfstest_report() {
	local tool=$1 vers=$2 file=$3 rc=$4 notok=$5
	ok "$notok" "NFSv$vers $tool: ${nt_line:-no summary (rc $rc)} (log peer/${file##*/})"
	[ "$nt_fail" -gt 0 ] && grep -E "^ *FAIL" "$file" | head -10 | sed 's/^/# /'
	[ -z "$nt_line" ] && tail -5 "$file" | sed 's/^/# /'
	count "$tool" "$vers" "$nt_pass" "$nt_fail" "$nt_skip"
}

# nfstest_verdict TOOL VERS LOG RC: NFStest's counts and TAP line for one run. It fails on a
# failed check, on no passed check at all, and on an exit status other than 0 with no failed
# check (a traceback, or timeout's 124). (peer_tools.sh's nfstest_posix keeps the verdict it
# had before this one: there a run with no summary and exit status 0 passes.)
nfstest_verdict() {
	nfstest_counts "$3"
	nfstest_report "$1" "$2" "$3" "$4" \
		$(( ($4 != 0 && nt_fail == 0) || nt_pass == 0 ? 1 : (nt_fail > 0) ))
}
