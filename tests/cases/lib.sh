# SPDX-License-Identifier: GPL-2.0
# Helpers for in-guest cases (sourced). See tests/vm/guest-run.sh for the
# protocol: print "ok - ...", "not ok - ...", "skip - ...: reason".
ok() { echo "ok - $*"; }
fail() { echo "not ok - $*"; }
skip() { echo "skip - $*"; }
# check DESCRIPTION CMD...: ok if CMD succeeds, else not ok with its output.
check() {
	local desc=$1 out
	shift
	if out=$("$@" 2>&1); then
		ok "$desc"
	else
		fail "$desc"
		printf '%s\n' "$out" | sed 's/^/    /' | head -n 20
	fi
}
# within A B PCT [SLACK]: |A - B| <= PCT% of B, plus SLACK (B > 0)
within() { awk -v a="$1" -v b="$2" -v p="$3" -v s="${4:-0}" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(b > 0 && d <= b * p / 100 + s) }'; }
# save FILE...: keep files in $TPROF_OUT (the host's BUILD/vm/NAME/out)
save() { cp "$@" "$TPROF_OUT/" 2>/dev/null || true; }
# diffpct A B: A against B, a signed percentage ("+1.25%")
diffpct() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%+.2f%%", b ? (a - b) * 100 / b : 0 }'; }
# sumval SUMFILE KIND [A [B]]: the value of lab/pprofsum's line KIND A [B]
# (summed if several match), 0 if none
sumval() { awk -F'\t' -v k="$2" -v a="${3-}" -v b="${4-}" '$1 == k && (a == "" || $2 == a) && (b == "" || $3 == b) { s += $(NF - 1); f = 1 } END { printf "%.0f\n", f ? s : 0 }' "$1"; }
# attached FILE [PID]: wait until the tprof-read -v writing FILE has its
# session enabled (on PID: "pid PID: session enabled"; it starts slowly
# under TCG on a busy host), at most 60 s; fails if it has not
attached() {
	local i
	for ((i = 0; i < 600; i++)); do
		grep -q "${2:+pid $2: }session enabled" "$1" 2>/dev/null &&
			return 0
		sleep 0.1
	done
	return 1
}
# agent_port FILE: the port tprof-agent names on its first line in FILE
# ("... (port N)"), into $port; fails after 30 s without one
agent_port() {
	local i
	port=
	for ((i = 0; i < 300; i++)); do
		port=$(sed -n 's/.*(port \([0-9]*\)).*/\1/p' "$1")
		[ -n "$port" ] && return 0
		sleep 0.1
	done
	return 1
}
# cg_freeze DIR 1|0: freeze or thaw cgroup v2 DIR and wait (30 s at most)
# until it is so; builtins only, as a fork a poll would stretch it under TCG
cg_freeze() {
	local i k v
	echo "$2" > "$1/cgroup.freeze"
	for ((i = 0; i < 1500; i++)); do
		while read -r k v; do
			[ "$k" = frozen ] && [ "$v" = "$2" ] && return 0
		done < "$1/cgroup.events"
		sleep 0.02
	done
	return 1
}
# cg2_mount: cgroup v2 at $CG (/sys/fs/cgroup), mounted if it is not;
# $mounted is 1 when this mounted it (the caller unmounts)
cg2_mount() {
	CG=/sys/fs/cgroup
	mounted=0
	grep -q "^[^ ]* $CG cgroup2 " /proc/mounts && return 0
	mount -t cgroup2 none $CG || return 1
	mounted=1
}
# cg_usage_ns DIR: cgroup DIR's CPU time so far (cpu.stat usage_usec, ns)
cg_usage_ns() { awk '$1 == "usage_usec" { printf "%.0f\n", $2 * 1000 }' "$1/cpu.stat"; }
# proc_cpu_ns PID: a process's CPU time so far (ns): its threads'
# sum_exec_runtime
proc_cpu_ns() { cat /proc/"$1"/task/*/schedstat 2>/dev/null | awk '{ s += $1 } END { printf "%.0f\n", s }'; }
