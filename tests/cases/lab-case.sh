# SPDX-License-Identifier: GPL-2.0
# Shared by the bias lab's guest runs (sourced): run lab/run-lab.sh into DIR,
# then print tprof's gates as result lines.
. "$TPROF_ROOT/tests/cases/lib.sh"
lab_case() {	# DIR [--report-only]
	local dir=$1 gates=--gates
	"$TPROF_ROOT/lab/run-lab.sh" "$dir" 2> "$dir.log"
	local rc=$?
	sed 's/^/# /' "$dir.log" | tail -n 20
	if [ $rc = 0 ]; then ok "bias lab runs completed"; else fail "bias lab runs completed"; fi
	python3 "$TPROF_ROOT/lab/analyze.py" "$dir" | sed 's/^/# /'
	if [ "${2:-}" = --report-only ]; then
		python3 "$TPROF_ROOT/lab/analyze.py" "$dir" $gates | sed 's/^/# gate: /'
	else
		python3 "$TPROF_ROOT/lab/analyze.py" "$dir" $gates
	fi
	return 0
}
