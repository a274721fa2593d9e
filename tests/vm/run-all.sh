#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Run the in-guest cases on every kernel of tests/kernels (or those named in
# KERNELS), print a per-kernel summary table, exit non-zero on any failure.
# VM_JOBS guests at a time (default: the host's CPUs, at most 2): a
# single-threaded TCG guest keeps one host CPU busy, and the cases compare
# against the guest kernel's own accounting, not against wall time.
# A row with split=GLOB[,GLOB...] (tests/kernels) runs as several guests of
# that kernel, started one after the other like rows and sharing one module
# build: part K runs the row's cases that match the K-th GLOB (and no
# earlier one), the last part the rest; they are NAME.1, NAME.2, ... in the
# table and in BUILD/vm/. Without the split, the debug kernel's one run
# would be the whole vm-test's length. CASES= runs such a row whole.
# Exact guests (icount) start first: what they measure does not move with
# the host's load. VM_GATE=FILE: the other guests wait until FILE exists
# (make test runs the host's checks and unit tests beside the exact guests,
# and lets the plain ones start when those are done).
set -uo pipefail
shopt -s extglob
root=$(cd "$(dirname "$0")/../.." && pwd)
. "$root/tests/vm/kpaths.sh"
build=${BUILD:-$root/build}
case "$build" in /*) ;; *) build=$root/$build ;; esac
# shellcheck disable=SC2086 # KERNELS is a list
list=$("$root/tests/vm/kernels.sh" --all ${KERNELS:-}) || exit 1
[ -n "$list" ] || { echo "run-all: no kernel selected (KERNELS=${KERNELS:-})" >&2; exit 1; }
jobs=$(vm_jobs)
runs=$build/vm/runs
rm -rf "$runs" && mkdir -p "$runs"

# one LABEL NAME KVER [VAR=VALUE...]: one guest; its summary row to
# runs/LABEL.row, its stderr to runs/LABEL.log, and that log to our stderr
# when it ends (whole, not interleaved)
one() {
	local label=$1 name=$2 kver=$3
	shift 3
	env "$@" "$root/tests/vm/run-kernel.sh" "$name" "$kver" \
		> "$runs/$label.row" 2> "$runs/$label.log"
	echo $? > "$runs/$label.rc"
	{ echo "=== $label ($kver) done"; cat "$runs/$label.log"; } >&2
}
start() {
	vm_slot "$jobs"
	echo "=== $1 ($3) started" >&2
	one "$@" < /dev/null &
	names+=("$1")
}

# parts NAME: the guests row NAME runs as, a line each: MODE GLOB, where
# GLOB is the part's CASES and MODE its VM_ICOUNT (- for the row's own);
# nothing when the row runs whole in one guest. A row splits when it has
# split= (and CASES is not set), and when it is an exact guest (icount=,
# tests/vm/README.md) with cases whose header says "# mode: tcg": those
# need a clock that follows the host's (real lateness) and run in a
# plain-TCG guest of their own. The other way round, a plain row's cases
# whose header says "# mode: icount SHIFT [cpus N]" run in an exact guest
# of their own at that shift (with N vCPUs: 6.1 under icount does not
# bring up 8, and one is the exact figure), one guest for each SHIFT and
# N: their truth holds only where the host's load cannot move the guest's
# clock. MODE is then SHIFT or SHIFT:N.
parts() {
	local split= rc g f n list globs=() tcg= row
	local -A taken=() exact=()
	rc=${CASES:-$(kernel_opt "$1" cases)}
	[ -z "${CASES:-}" ] && split=$(kernel_opt "$1" split)
	# the row's own mode: exact (icount), plain, or plain by request (off)
	row=plain
	[ "${VM_ICOUNT:-$(kernel_opt "$1" icount)}" = "" ] || row=exact
	[ "${VM_ICOUNT:-}" != off ] || row=off
	for f in "$root/${CASE_DIR:-tests/cases}"/[0-9][0-9]-*; do
		n=${f##*/}
		# shellcheck disable=SC2053 # globs on purpose
		[[ $row != off && -x "$f" && $n == ${rc:-*} ]] || continue
		if [ $row = exact ]; then
			grep -q '^# mode: *tcg' "$f" || continue
			tcg+=${tcg:+|}$n
		else
			g=$(sed -n 's/^# mode: *icount \([0-9][0-9]*\)\( *cpus \([0-9][0-9]*\)\)\{0,1\} *$/\1:\3/p' "$f" | head -n 1)
			g=${g%:}
			[ -n "$g" ] || continue
			exact[$g]+=${exact[$g]:+|}$n
		fi
		taken[$n]=1
	done
	[ -n "$split" ] || [ -n "$tcg" ] || [ ${#exact[@]} != 0 ] || return 0
	IFS=, read -ra globs <<<"$split"
	for g in "${globs[@]}" '*'; do
		list=
		for f in "$root/${CASE_DIR:-tests/cases}"/[0-9][0-9]-*; do
			n=${f##*/}
			[ -x "$f" ] || continue
			[ -z "${taken[$n]:-}" ] || continue
			# shellcheck disable=SC2053 # globs on purpose
			[[ $n == ${rc:-*} && $n == $g ]] || continue
			taken[$n]=1
			list+=${list:+|}$n
		done
		[ -n "$list" ] && echo "- @($list)"
	done
	[ -z "$tcg" ] || echo "off @($tcg)"
	for g in "${!exact[@]}"; do
		echo "$g @(${exact[$g]})"
	done
}

names=()
# the guests to start, a line each: MODE LABEL NAME KVER [VAR=VALUE...],
# MODE exact or plain
queue=()
while read -r name kver; do
	mapfile -t globs < <(parts "$name")
	if [ ${#globs[@]} = 0 ]; then
		m=plain
		[ "${VM_ICOUNT:-$(kernel_opt "$name" icount)}" = "" ] ||
			[ "${VM_ICOUNT:-}" = off ] || m=exact
		queue+=("$m $name $name $kver")
		continue
	fi
	# the parts' module, built once (run-kernel.sh would build it in
	# each guest's run, in the same folder)
	if ! ko=$(kmodule "$kver" "$build" 2> "$runs/$name.log"); then
		echo "$name $kver FAIL build" > "$runs/$name.row"
		echo 1 > "$runs/$name.rc"
		{ echo "=== $name ($kver): module build failed"; cat "$runs/$name.log"; } >&2
		names+=("$name")
		continue
	fi
	k=0
	for g in "${globs[@]}"; do
		k=$((k + 1))
		m=${g%% *} g=${g#* } extra=()
		case $m in
		-) ;;
		*:*) extra=(VM_ICOUNT="${m%%:*}" VM_CPUS="${m#*:}") ;;
		*) extra=(VM_ICOUNT="$m") ;;
		esac
		queue+=("$([ ${#extra[@]} = 0 ] && echo plain || echo exact) $name.$k $name $kver VM_PART=$k/${#globs[@]} CASES=$g TPROF_MODULE=$ko ${extra[*]}")
	done
done <<<"$list"
for m in exact plain; do
	if [ $m = plain ] && [ -n "${VM_GATE:-}" ]; then
		while [ ! -e "$VM_GATE" ]; do sleep 2; done
	fi
	for job in "${queue[@]}"; do
		read -ra a <<<"$job"
		# shellcheck disable=SC2086 # the job's words
		[ "${a[0]}" = $m ] && start "${a[@]:1}"
	done
done
wait

rc=0
echo
printf '%-10s %-26s %-6s %-7s %s\n' KERNEL VERSION RESULT TIME DETAIL
for name in "${names[@]}"; do
	row=$(cat "$runs/$name.row" 2>/dev/null)
	[ "$(cat "$runs/$name.rc" 2>/dev/null)" = 0 ] || rc=1
	[ -n "$row" ] || row="$name ? FAIL 0s (no summary)"
	read -r n kver verdict secs rest <<<"$row"
	printf '%-10s %-26s %-6s %-7s %s\n' "$n" "$kver" "$verdict" "$secs" "$rest"
done
# the failed checks under the table, where a CI log's tail shows them
for name in "${names[@]}"; do
	f=$build/vm/$name/failed
	[ "$(cat "$runs/$name.rc" 2>/dev/null)" = 0 ] || [ ! -s "$f" ] || {
		echo; echo "$name failed:"; head -n 20 "$f" | cut -c1-300 | sed 's/^/  /'; }
done
exit $rc
