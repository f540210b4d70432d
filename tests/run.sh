#!/usr/bin/env bash
# Runs every test suite and prints the combined verdict.
# A suite is an executable script in the suites folder (default tests/suites/) that prints its
# own test lines and ends with a line "N passed, N failed" (", N skipped" may follow).
# A suite that ends without that line (crash, hang, timeout) counts as one failure.
# A skip is allowed only when ../shared (SHARED) is absent: with it present, everything the run
# needs was built, so any skip fails the run (a skip must not hide a regression).
# Suites are independent: TEST_JOBS of them (default: the number of cores) run at once, the
# longest first (LONG_SUITES), each into its own file; the outputs are printed whole, in the
# suites' name order, each as soon as it and every suite before it have ended, so the log reads
# as if they had run one after the other. TEST_JOBS=1 runs them one at a time.
# Usage: tests/run.sh [SUITES_DIR]   (environment: see the Makefile's test target)
set -u
dir=${1:-$(dirname "$0")/suites}
jobs_max=${TEST_JOBS:-$(nproc 2>/dev/null || echo 1)}
case "$jobs_max" in ''|*[!0-9]*|0) jobs_max=1;; esac
# started first, in this order, when present: the suites that take longest (docs/testing.md)
LONG_SUITES=${LONG_SUITES:-"20-unit-target 37-run 39-remote 36-mkprog 35-ctrl 30-loader"}
total_p=0; total_f=0; total_s=0; times=""
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

names=()
for suite in "$dir"/*.sh; do
	[ -e "$suite" ] || continue
	names+=("$(basename "$suite" .sh)")
done
order=()
for n in $LONG_SUITES; do
	for m in "${names[@]}"; do [ "$m" = "$n" ] && order+=("$n"); done
done
for m in "${names[@]}"; do
	case " $LONG_SUITES " in *" $m "*) ;; *) order+=("$m");; esac
done

start() {
	local name=$1
	(
		t0=$(date +%s)
		timeout -s KILL "${SUITE_TIMEOUT:-1800}" bash "$dir/$name.sh" >"$work/$name.out" 2>&1
		rc=$?
		echo $(( $(date +%s) - t0 )) >"$work/$name.time"
		echo "$rc" >"$work/$name.rc.part" && mv "$work/$name.rc.part" "$work/$name.rc"
	) &
}

# the verdict of one ended suite, its output first
report() {
	local name=$1 rc secs line p f s
	rc=$(cat "$work/$name.rc"); secs=$(cat "$work/$name.time")
	echo "=== suite $name"
	cat "$work/$name.out"
	echo "--- suite $name took $secs s"
	times="$times $name=${secs}s"
	line=$(grep -E '^([A-Za-z]+: )?[0-9]+ passed, [0-9]+ failed' "$work/$name.out" | tail -n1)
	if [ -z "$line" ]; then
		echo "FAIL suite $name gave no verdict (exit $rc)"
		total_f=$((total_f + 1))
		return
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
}

# print, in name order, every suite that has ended and has no unfinished suite before it
next=0
flush() {
	while [ "$next" -lt "${#names[@]}" ] && [ -e "$work/${names[$next]}.rc" ]; do
		report "${names[$next]}"
		next=$((next + 1))
	done
}

for name in "${order[@]}"; do
	while [ "$(jobs -rp | wc -l)" -ge "$jobs_max" ]; do
		wait -n 2>/dev/null
		flush
	done
	start "$name"
	flush
done
while [ "$next" -lt "${#names[@]}" ]; do
	wait -n 2>/dev/null || sleep 1
	flush
done
wait

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
