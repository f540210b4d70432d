# Memory bounds (issue 22): the raw task streams a fuzz campaign found asking the engine model for
# 10 and 67 GB (../shared/fixtures/hostile/oom-*.bin) are refused by name before anything is
# allocated, by `anefw-tool submit` and `run`, in the plain and the sanitized build (make test
# builds both; the sanitized one must print no sanitizer report), each with a peak resident set
# under 256 MiB. A negative control shows the resident-set check fails on a process that holds
# 300 MiB. docs/robustness.md, "Resource limits".
. tests/lib.sh
PLAIN="$BUILD/host/opt/anefw-tool" # build/host/anefw-tool is a copy of the last `make tools`
SAN="$BUILD/host/san/anefw-tool"
LIMIT_KB=$((256 * 1024))
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# peak CMD...: runs CMD with its output in $work/out, its exit status in $work/rc and its maximum
# resident set (KiB, GNU time's %M) in $work/rss.
peak() {
	/usr/bin/time -o "$work/time" -f '%M' "$@" >"$work/out" 2>&1
	echo $? >"$work/rc"
	tail -n 1 "$work/time" >"$work/rss"
}

# rss_ok NAME: passes when the last peak stayed under the limit
rss_ok() {
	local kb; kb=$(cat "$work/rss")
	if [[ "$kb" =~ ^[0-9]+$ ]] && [ "$kb" -lt "$LIMIT_KB" ]; then
		t_pass "$1 (peak $((kb / 1024)) MiB)"
	else
		t_fail "$1" "peak resident set ${kb} KiB, limit $LIMIT_KB KiB"
	fi
}

# the negative control: a process that touches 300 MiB must fail the same check
peak "$PYTHON" -c 'b = b"\x01" * (300 << 20); print(len(b))'
kb=$(cat "$work/rss")
if [[ "$kb" =~ ^[0-9]+$ ]] && [ "$kb" -ge "$LIMIT_KB" ]; then
	t_pass "mem.rss_check_fails_on_300_mib (peak $((kb / 1024)) MiB)"
else
	t_fail "mem.rss_check_fails_on_300_mib" "peak ${kb} KiB was not over the limit"
fi

if ! have_shared || [ ! -d "$SHARED/fixtures/hostile" ]; then
	t_skip mem.hostile "no ../shared/fixtures/hostile"
	t_done
	exit
fi

declare -A want=([oom-weights-10g]="bar-not-granted td 0"
		 [oom-l2-67g]="l2-result-over-limit td 0")
for tool in "$PLAIN" "$SAN"; do
	kind=plain
	[ "$tool" = "$SAN" ] && kind=san
	if [ ! -x "$tool" ]; then
		t_fail "mem.$kind.tool" "no $tool (make test-build builds it)"
		continue
	fi
	for f in "$SHARED"/fixtures/hostile/oom-*.bin; do
		n=$(basename "$f" .bin)
		w=${want[$n]:-}
		[ -n "$w" ] || { t_fail "mem.$kind.$n" "no expected error for $n"; continue; }
		for cmd in submit run; do
			peak "$tool" "$cmd" "$f"
			rc=$(cat "$work/rc")
			if [ "$cmd" = submit ]; then pat="^submit: refused: $w "; else pat="^run: ${w%% td*}\$"; fi
			if [ "$rc" -eq 1 ] && grep -q "$pat" "$work/out" &&
			   ! grep -qE 'Sanitizer|runtime error' "$work/out"; then
				t_pass "mem.$kind.$cmd.$n refused (${w%% td*})"
			else
				t_fail "mem.$kind.$cmd.$n" "exit $rc: $(grep -E 'refused|engine|Sanitizer|runtime error|^run:' "$work/out" | head -3 | tr '\n' ' ')"
			fi
			rss_ok "mem.$kind.$cmd.$n.peak_under_256_mib"
		done
	done
done
t_done
