#!/usr/bin/env bash
# Runs every test suite and prints the combined verdict.
# A suite is an executable script in the suites folder (default tests/suites/) that prints its
# own test lines and ends with a line "N passed, N failed" (", N skipped" may follow).
# A suite that ends without that line (crash, hang, timeout) counts as one failure.
# A skip is allowed only when ../shared (SHARED) is absent: with it present, everything the run
# needs was built, so any skip fails the run (a skip must not hide a regression).
# Usage: tests/run.sh [SUITES_DIR]   (environment: see the Makefile's test target)
set -u
dir=${1:-$(dirname "$0")/suites}
total_p=0; total_f=0; total_s=0; times=""
for suite in "$dir"/*.sh; do
	[ -e "$suite" ] || continue
	name=$(basename "$suite" .sh)
	echo "=== suite $name"
	out=$(mktemp)
	t0=$(date +%s)
	timeout -s KILL "${SUITE_TIMEOUT:-1200}" bash "$suite" 2>&1 | tee "$out"
	rc=${PIPESTATUS[0]}
	echo "--- suite $name took $(( $(date +%s) - t0 )) s"
	times="$times $name=$(( $(date +%s) - t0 ))s"
	line=$(grep -E '^([A-Za-z]+: )?[0-9]+ passed, [0-9]+ failed' "$out" | tail -n1)
	rm -f "$out"
	if [ -z "$line" ]; then
		echo "FAIL suite $name gave no verdict (exit $rc)"
		total_f=$((total_f + 1))
		continue
	fi
	p=$(echo "$line" | sed -E 's/^([A-Za-z]+: )?([0-9]+) passed.*/\2/')
	f=$(echo "$line" | sed -E 's/.* ([0-9]+) failed.*/\1/')
	s=0
	case "$line" in *skipped*) s=$(echo "$line" | sed -E 's/.* ([0-9]+) skipped.*/\1/');; esac
	if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
		echo "FAIL suite $name exited $rc with no failure counted"
		f=1
	fi
	total_p=$((total_p + p)); total_f=$((total_f + f)); total_s=$((total_s + s))
done
echo "suite times:$times"
if [ -f "${SHARED:-$(dirname "$0")/../../shared}/fixtures/README.md" ]; then
	if [ "$total_s" -gt 0 ]; then
		echo "FAIL $total_s skipped with ../shared present: a skip is allowed only when it is absent"
		total_f=$((total_f + 1))
	fi
elif [ "$total_s" -gt 0 ]; then
	echo "note: $total_s skipped because ../shared is absent (SHARED=${SHARED:-unset})"
fi
echo "$total_p passed, $total_f failed, $total_s skipped"
[ "$total_f" -eq 0 ]
