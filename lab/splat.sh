#!/bin/bash
# splat: the kernel bug reports in a kernel log (dmesg or a console log), with their context.
#   splat.sh LOG [REPORT]
# Exit 0 when LOG has none; 1 when it has, after writing each report (20 lines before, 60
# after) to REPORT (default: stdout). The patterns are the kernel's own report headers: BUG
# (KASAN, sleeping in atomic, bad page state, soft lockup), WARNING (WARN_ON, lockdep, RCU),
# Oops, general protection fault, UBSAN, refcount_t, debugobjects, hung tasks, RCU stalls,
# panics. Reports listed in lab/splat-known.txt (not ours: a stock bug in a lab device) are
# named in REPORT but do not count.
set -euo pipefail
[ $# -ge 1 ] && [ -r "$1" ] || { echo "usage: splat.sh LOG [REPORT]" >&2; exit 2; }
log=$1
known=$(dirname "$0")/splat-known.txt
pat='BUG: |kernel BUG at|WARNING: |Oops|general protection fault|UBSAN: |refcount_t: |ODEBUG: |INFO: task .* blocked for more than|rcu: INFO: .*detected stall|self-detected stall|Kernel panic|list_(add|del) corruption|Bad page (state|map)'

# known LINENO: the name of the known report at LINENO, if it is one.
is_known() {
	local n=$1 head re fn why
	head=$(sed -n "${n}p" "$log")
	while IFS=$'\t' read -r re fn why; do
		[ -z "$re" ] || [ "${re:0:1}" = "#" ] && continue
		grep -qE "$re" <<<"$head" && sed -n "${n},$((n + 40))p" "$log" | grep -qF "$fn" &&
			{ echo "$why"; return 0; }
	done <"$known"
	return 1
}

bad=() note=()
for n in $(grep -nE "$pat" "$log" | cut -d: -f1); do
	if why=$(is_known "$n"); then
		note+=("$n: $why")
	else
		bad+=("$n")
	fi
done
[ ${#bad[@]} -eq 0 ] && exit 0
[ $# -ge 2 ] && exec >"$2"
echo "# ${#bad[@]} kernel report line(s) in $log, the first:"
for n in "${bad[@]:0:5}"; do echo "#   $(sed -n "${n}p" "$log")"; done
for k in "${note[@]}"; do echo "# (known, not counted: line $k)"; done
last=0
for n in "${bad[@]}"; do
	[ "$n" -le "$last" ] && continue          # inside the previous report's context
	from=$((n > 20 ? n - 20 : 1)) last=$((n + 60))
	echo "---- line $n ----"
	sed -n "${from},${last}p" "$log"
done
exit 1
