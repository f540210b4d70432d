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

# ---- the engine model's compute limit (docs/robustness.md, "Compute") ----
# bench-model writes a 3x3 convolution 256 -> 256 over 48 x 48: 256 x 256 x 9 x 48 x 48 =
# 1,358,954,496 multiply-accumulates, past the boards' limit (2^30) and within the host's (2^40).
# The host tool runs it (its trace counts them); each board's firmware refuses TD 0 by name
# before it computes anything; the control, a 64 -> 64 over 8 x 8 from the same writer (2,359,296),
# runs on the firmware.
mkdir -p "$work/big" "$work/small"
if "$PLAIN" bench-model --conv3 256:256:48 --repeat 1 --threads 1 --write-programs "$work/big" >/dev/null 2>&1 &&
   "$PLAIN" bench-model --conv3 64:64:8 --repeat 1 --threads 1 --write-programs "$work/small" >/dev/null 2>&1; then
	out=$("$PLAIN" run --raw "$work/big/conv3.bin" --trace 2>&1); rc=$?
	if [ "$rc" -eq 0 ] && grep -q '^  ops 1358954496 (td_ops), ' <<<"$out"; then
		t_pass mem.compute_limit.host_runs_2_30_plus
	else
		t_fail mem.compute_limit.host_runs_2_30_plus "exit $rc: $(grep -E '^  ops|^run:' <<<"$out" | head -3 | tr '\n' ' ')"
	fi
	for board in qemu-virt raspi3b; do
		elf="$BUILD/$board/anefw.elf"
		if [[ " $TEST_BOARDS " != *" $board "* ]]; then
			t_not_run "mem.compute_limit.$board" "$board not in TEST_BOARDS"
			continue
		fi
		[ -f "$elf" ] || { t_fail "mem.compute_limit.$board" "no $elf"; continue; }
		qemu_run --board "$board" --timeout 120 "$elf" "program=$work/big/conv3.bin" >"$work/fw.out" 2>&1; rc=$?
		out=$(tr -d '\r' <"$work/fw.out")
		if [ "$rc" -ne 0 ] &&
		   grep -q "^submit: engine failed: engine-fault: td 0, unit engine: beyond-model-capacity: the task's operations (fw/td td_ops) past the model's compute limit" <<<"$out" &&
		   grep -q '^completion: id 1 failed (engine-fault)' <<<"$out"; then
			t_pass "mem.compute_limit.$board.refused"
		else
			t_fail "mem.compute_limit.$board.refused" "exit $rc: $(grep -E '^(submit|completion|anefw)' <<<"$out" | head -4 | tr '\n' ' ')"
		fi
		qemu_run --board "$board" --timeout 120 "$elf" "program=$work/small/conv3.bin" >"$work/fw.out" 2>&1; rc=$?
		if [ "$rc" -eq 0 ] && grep -q '^anefw: done: ok' <(tr -d '\r' <"$work/fw.out"); then
			t_pass "mem.compute_limit.$board.control_runs"
		else
			t_fail "mem.compute_limit.$board.control_runs" "exit $rc: $(grep -E '^(submit|anefw)' "$work/fw.out" | head -3 | tr '\n' ' ')"
		fi
	done
	# the served firmware takes the job's ops_limit= too: a remote call past it gets the fault
	# with its TD and reason over the link (the small program's 2,359,296 past a limit of 100)
	elf="$BUILD/qemu-virt/anefw.elf"
	if [[ " $TEST_BOARDS " == *" qemu-virt "* ]] && [ -f "$elf" ]; then
		port=$("$PYTHON" -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
		qemu_bg --board qemu-virt --timeout 120 --serial-tcp "$port" "$elf" serve=1 ops_limit=100 >"$work/serve.log" 2>&1
		qpid=$QPID
		trap 'kill "$qpid" 2>/dev/null; rm -rf "$work"' EXIT
		out=$("$PLAIN" remote --connect "127.0.0.1:$port" --wait 60 run --raw "$work/small/conv3.bin" 2>&1); rc=$?
		if [ "$rc" -ne 0 ] && grep -q '^remote: engine failed: engine-fault: td 0, unit engine: beyond-model-capacity' <<<"$out"; then
			t_pass mem.compute_limit.served_ops_limit
		else
			t_fail mem.compute_limit.served_ops_limit "exit $rc: $(grep '^remote:' <<<"$out" | head -3 | tr '\n' ' ')"
		fi
		"$PLAIN" remote --connect "127.0.0.1:$port" shutdown >/dev/null 2>&1
		wait "$qpid" 2>/dev/null
	fi
else
	t_fail mem.compute_limit.programs_written "bench-model --write-programs failed"
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
