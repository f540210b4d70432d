#!/usr/bin/env bash
# Runs every libFuzzer target for FUZZ_SECONDS each, seeded from tests/fuzz/corpus/<target>/
# and from what tests/fuzz/seeds/<target>.sh prints (e.g. directories of fixtures).
# Crashes are kept under build/fuzz-artifacts/ and fail the run.
# Memory: -malloc_limit_mb=256 fails a run on any single allocation over 256 MiB and
# -rss_limit_mb=1024 on a resident set over 1 GiB (2 GiB when a seed is past 1 MiB: the corpus
# libFuzzer holds), so an input that makes the firmware or the
# engine model allocate what no grant or on-chip memory holds is a crash, even on 2 cores
# (issue 22; docs/robustness.md, "Resource limits"). FUZZ_MALLOC_MB / FUZZ_RSS_MB override them.
# -max_len is the largest seed's length when that is over libFuzzer's 1 MiB default.
# FUZZ_TARGETS (names, e.g. "fuzz_agree fuzz_submit") runs those alone; FUZZ_SEEDS (directories)
# seeds every target from them too, e.g. the fixtures for the codecs' targets.
# Prints one line per target and "N passed, N failed".
set -u
BUILD=${BUILD:-build}
secs=${FUZZ_SECONDS:-60}
pass=0; fail=0
for bin in "$BUILD"/host/fuzz/fuzz_*; do
	[ -x "$bin" ] || continue
	name=$(basename "$bin")
	if [ -n "${FUZZ_TARGETS:-}" ] && ! [[ " $FUZZ_TARGETS " == *" $name "* ]]; then
		continue
	fi
	work="$BUILD/fuzz-work/$name"
	art="$BUILD/fuzz-artifacts/$name"
	mkdir -p "$work" "$art"
	seeds=()
	[ -d "tests/fuzz/corpus/$name" ] && seeds+=("tests/fuzz/corpus/$name")
	# tests/fuzz/seeds/<target>.sh, if present, prints seed directories (one a line).
	if [ -f "tests/fuzz/seeds/$name.sh" ]; then
		while IFS= read -r d; do [ -d "$d" ] && seeds+=("$d"); done < <(BUILD="$BUILD" SHARED="${SHARED:-}" bash "tests/fuzz/seeds/$name.sh")
	fi
	for d in ${FUZZ_SEEDS:-}; do [ -d "$d" ] && seeds+=("$d"); done
	log="$work.log"
	# libFuzzer reads at most 1 MiB of an input unless told more: the sweeps' streams (up to 8 MiB)
	# were cut inside their weights and refused before the engine. -max_len: the largest seed.
	maxlen=()
	big=$( (find "$work" "${seeds[@]}" -type f -printf '%s\n' 2>/dev/null; echo 0) | sort -n | tail -1)
	[ "$big" -gt 1048576 ] && maxlen=(-max_len="$big")
	# libFuzzer holds its corpus in memory: from seeds past 1 MiB (the sweeps' streams) a
	# fuzz_agree run's corpus reached 654 MB in 247 s and the process 1031 MB, a stop on the RSS
	# limit that no input caused (the artifact alone: 63 MB). Such runs get 2048 MB; one
	# allocation past FUZZ_MALLOC_MB still fails any run.
	rss=${FUZZ_RSS_MB:-1024}
	[ "$big" -gt 1048576 ] && [ -z "${FUZZ_RSS_MB:-}" ] && rss=2048
	if "$bin" -max_total_time="$secs" -timeout=10 -rss_limit_mb="$rss" -malloc_limit_mb="${FUZZ_MALLOC_MB:-256}" -print_final_stats=1 \
		"${maxlen[@]}" -artifact_prefix="$art/" "$work" "${seeds[@]}" >"$log" 2>&1; then
		execs=$(grep -E 'stat::number_of_executed_units' "$log" | awk '{print $2}')
		echo "ok   fuzz.$name (${execs:-?} executions in ${secs}s)"
		pass=$((pass + 1))
	else
		echo "FAIL fuzz.$name (see $log; inputs in $art)"
		tail -n 30 "$log"
		fail=$((fail + 1))
	fi
done
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
