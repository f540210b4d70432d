# The command link (docs/service.md, "Transport 2"): for each board under test the firmware
# serves framed commands on its link (qemu-virt: a virtio console; raspi3b: its UART), which QEMU
# puts on a local TCP port (make serve's command), and `anefw-tool remote --connect` runs a
# program there. Its outputs must be
# byte-identical to `anefw-tool run` on the host with the same arguments, for seeded inputs and
# for an input .npy; another input gives other outputs (the comparison can fail); the service
# serves a second client, and a shutdown ends it with exit status 0. A shared program runs there
# exactly as locally, and on qemu-virt a shared 8 MB kernel (kernels/unary/tanh.bin: 8 MB in,
# 8 MB out) too, byte for byte (the comparison fails on one changed byte); a program over the
# service's limits is refused by the error's name with the bytes it needs and the slot's (on
# qemu-virt the local run's arena, SESSION_MAX_ARENA); a closed port fails at once and --connect
# without a port is a usage error; a service that never answers is given up on after --timeout S,
# and a closed link is told apart from it.
. tests/lib.sh
TOOL="$BUILD/host/anefw-tool"
work=$(mktemp -d)
pids=
trap 'for p in $pids; do kill "$p" 2>/dev/null; done; rm -rf "$work"' EXIT

"$TOOL" mkprog app/default.desc "$work/p.hwx" >/dev/null 2>&1
# built: the independent reader (tests/oracle/hwx_ref.py) finds one TD per statement of the
# description (four)
ntd=$("$PYTHON" tests/oracle/hwx_ref.py "$work/p.hwx" 2>&1 |
      "$PYTHON" -c 'import json,sys; print(len(json.load(sys.stdin)["tds"]))' 2>&1)
if [ "$ntd" = 4 ]; then t_pass "remote.program_built (4 TDs)"; else t_fail remote.program_built "TDs: $ntd"; fi
# an input .npy of the program's input shape (float16 [16, 2, 32]), and another one
"$PYTHON" - "$work" <<'PY'
import sys, numpy as np
w = sys.argv[1]
x = (np.arange(16 * 2 * 32, dtype=np.float32).reshape(16, 2, 32) % 37 - 18) / 8
np.save(w + "/in_a.npy", x.astype(np.float16))
np.save(w + "/in_b.npy", (x * -0.5 + 1).astype(np.float16))
PY
local_run() { # tag [--in input=FILE]
	local tag=$1; shift
	"$TOOL" run "$work/p.hwx" "$@" --out "output_0=$work/l_$tag.0.npy" \
		--out "output_1=$work/l_$tag.1.npy" >"$work/l_$tag.log" 2>&1
}
local_run seed && local_run a --in "input=$work/in_a.npy" && local_run b --in "input=$work/in_b.npy"
# the host runs are right: the seeded run's outputs against the numpy oracle (tests/oracle/
# gen_mkprog.py, from the description format) within one fp16 ulp; an input's outputs must not
# match those references (the comparison can fail)
"$PYTHON" tests/oracle/gen_mkprog.py --refs app/default.desc "$work/ref"
near_ref='
import sys, numpy as np
for k in (0, 1):
    got = np.load("%s.%d.npy" % (sys.argv[1], k)).astype(np.float64)
    want = np.load("%s.output_%d.npy" % (sys.argv[2], k))
    tol = np.spacing(np.abs(want)).astype(np.float64)
    if got.shape != want.shape or not np.all(np.abs(got - want.astype(np.float64)) <= tol):
        sys.exit(1)
'
if "$PYTHON" -c "$near_ref" "$work/l_seed" "$work/ref"; then
	t_pass remote.local_runs_match_the_oracle
else
	t_fail remote.local_runs_match_the_oracle "$(tail -2 "$work/l_seed.log" | tr '\n' ' ')"
fi
if "$PYTHON" -c "$near_ref" "$work/l_b" "$work/ref"; then
	t_fail remote.oracle_comparison_negative_control "another input's outputs matched the references"
else
	t_pass remote.oracle_comparison_negative_control
fi

# 160 MiB in, 160 MiB out: more than a program slot holds, and more than the local run's arena
printf 'input w=2048 h=640 c=64\nactivation relu\n' >"$work/big.desc"
"$TOOL" mkprog "$work/big.desc" "$work/big.hwx" >/dev/null 2>&1
# the local run refuses it too (its arena, SESSION_MAX_ARENA, is 256 MiB)
if ! "$TOOL" run "$work/big.hwx" >"$work/big_local.log" 2>&1 && grep -q arena-too-large "$work/big_local.log"; then
	t_pass remote.over_the_limits_refused_locally_too
else t_fail remote.over_the_limits_refused_locally_too "$(tail -1 "$work/big_local.log")"; fi
# Apple's rb form (docs/service.md, "Fixed BARs"): y = a + b, b the program's constant after its
# TD, read by the tile DMA through BAR 1 (tests/clients/accel_elementwise.py's add TD with RBase1
# = BAR 1); a 1 x 3 x 8 x 96 fp16 input, numpy's a + b the reference; and relu's raw stream
"$PYTHON" - "$work" <<'PY'
import sys, numpy as np
sys.path.insert(0, "tests/clients")
import accel_elementwise as ew
w = sys.argv[1]
orig = ew.bars
ew.bars = lambda slots: orig({0: 5, 1: 1, 2: 4})
td = ew.td(0)
rng = np.random.default_rng(11)
a = rng.uniform(-50, 50, (ew.C, ew.H, ew.W)).astype(np.float16)
b = rng.uniform(-50, 50, (ew.C, ew.H, ew.W)).astype(np.float16)
open(w + "/addconst.bin", "wb").write(td + bytes(-len(td) % 16) + ew.to_tile(b))
np.save(w + "/addconst_a.npy", a)
np.save(w + "/addconst_ref.npy", (a.astype(np.float64) + b.astype(np.float64)).astype(np.float16))
PY
printf 'input w=96 h=8 c=3\nactivation relu\n' >"$work/relu.desc"
"$TOOL" mkprog --raw "$work/relu.desc" "$work/relu.bin" >/dev/null 2>&1
free_port() { "$PYTHON" -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
same() { cmp -s "$1.0.npy" "$2.0.npy" && cmp -s "$1.1.npy" "$2.1.npy"; }

# each board's service lives through all its requests, bounded at 900 s (about 100 s on a quiet
# machine; 300 s was reached at a load average of 10 by the raspi3b's UART requests, and QEMU killed)
for b in $TEST_BOARDS; do
	port=$(free_port)
	qemu_bg --board "$b" --timeout 900 --link-tcp "$port" "$BUILD/$b/anefw.elf" serve=1 \
		>"$work/serve_$b.log" 2>&1
	qpid=$QPID; pids="$pids $qpid"
	# QEMU may still be starting: wait for its port
	remote() { "$TOOL" remote --connect "127.0.0.1:$port" --wait 60 "$@"; }
	r_run() { # tag [--in ...]
		local tag=$1; shift
		remote run "$work/p.hwx" "$@" --out "output_0=$work/r_${b}_$tag.0.npy" \
			--out "output_1=$work/r_${b}_$tag.1.npy" >"$work/r_${b}_$tag.log" 2>&1
	}
	# the inputs filled from the seed are said once connected, before the outputs
	if r_run seed && grep -q "^run: input input: float16 \[.*\] not given: filled from seed 0x" "$work/r_${b}_seed.log"; then
		t_pass "remote.$b.run_seeded"; else t_fail "remote.$b.run_seeded" "$(tail -3 "$work/r_${b}_seed.log")"; fi
	if same "$work/r_${b}_seed" "$work/l_seed"; then t_pass "remote.$b.seeded_outputs_identical_to_local"
	else t_fail "remote.$b.seeded_outputs_identical_to_local"; fi
	# the same service, a second client: an input file
	r_run a --in "input=$work/in_a.npy"
	if same "$work/r_${b}_a" "$work/l_a"; then t_pass "remote.$b.npy_input_outputs_identical_to_local"
	else t_fail "remote.$b.npy_input_outputs_identical_to_local" "$(tail -3 "$work/r_${b}_a.log")"; fi
	# the comparison fails on a wrong answer: another input, other outputs
	r_run b --in "input=$work/in_b.npy"
	if same "$work/r_${b}_b" "$work/l_b" && ! same "$work/r_${b}_b" "$work/l_a"; then
		t_pass "remote.$b.another_input_other_outputs"
	else t_fail "remote.$b.another_input_other_outputs"; fi
	# a bad request is refused by name before anything is sent (the run command's own checks)
	if ! remote run "$work/p.hwx" --out "input=$work/x.npy" >"$work/bad.log" 2>&1 &&
	   grep -q 'tensor-not-an-output' "$work/bad.log"; then t_pass "remote.$b.bad_request_named_before_sending"
	else t_fail "remote.$b.bad_request_named_before_sending" "$(tail -2 "$work/bad.log")"; fi
	# --ref with --rtol/--atol as run takes them: the seeded outputs within 1e-2 of the oracle's
	# (they are within one fp16 ulp); another input's outputs are outside (the negative)
	if remote run "$work/p.hwx" --ref "output_0=$work/ref.output_0.npy" --rtol 1e-2 --atol 1e-6 \
		>"$work/rt_$b.log" 2>&1 &&
	   grep -q '^output output_0: [0-9]* values, max abs error [0-9.]*, 0 outside atol 1e-6 + rtol 1e-2 x |ref|: ok$' "$work/rt_$b.log" &&
	   ! remote run "$work/p.hwx" --in "input=$work/in_b.npy" --ref "output_0=$work/ref.output_0.npy" \
		--rtol 1e-2 --atol 1e-6 >"$work/rtb_$b.log" 2>&1 &&
	   grep -q '^output output_0: .* x |ref|: MISMATCH$' "$work/rtb_$b.log"; then
		t_pass "remote.$b.ref_within_rtol_and_atol"
	else t_fail "remote.$b.ref_within_rtol_and_atol" "$(grep -h '^output\|^remote' "$work/rt_$b.log" "$work/rtb_$b.log" | tr '\n' ' ')"; fi
	# a shared program (Apple's compiler's sigmoid, an activation LUT) runs over the remote
	# exactly as it runs locally, byte for byte
	if have_shared; then
		k="$SHARED/fixtures/hwx/sigmoid.hwx"
		"$TOOL" run "$k" --out "bar4=$work/k_local.npy" >"$work/k_local.log" 2>&1
		if remote run "$k" --out "bar4=$work/k_${b}.npy" >"$work/k_$b.log" 2>&1 &&
		   test -s "$work/k_local.npy" && cmp -s "$work/k_local.npy" "$work/k_${b}.npy"; then
			t_pass "remote.$b.shared_program_identical_to_local (hwx/sigmoid.hwx)"
		else t_fail "remote.$b.shared_program_identical_to_local" "$(tail -2 "$work/k_$b.log")"; fi
	else
		t_skip "remote.$b.shared_program_identical_to_local" "../shared absent"
	fi
	# a shared 8 MB kernel over the virtio link (qemu-virt): byte for byte the local run's
	# output, and the comparison fails on one changed byte (raspi3b's link is its UART, about
	# 15 KB/s under QEMU: 16 MB would take twenty minutes there)
	if [ "$b" != qemu-virt ]; then
		t_not_run "remote.$b.shared_8mb_kernel_identical_to_local" "the UART link moves about 15 KB/s"
	elif have_shared; then
		k="$SHARED/fixtures/kernels/unary/tanh.bin"
		[ -s "$work/t_local.npy" ] ||
			"$TOOL" run --raw "$k" --out "bar4=$work/t_local.npy" >"$work/t_local.log" 2>&1
		t0=$(date +%s%N)
		if remote run --raw "$k" --out "bar4=$work/t_$b.npy" --stats >"$work/t_$b.log" 2>&1 &&
		   test -s "$work/t_local.npy" && cmp -s "$work/t_local.npy" "$work/t_$b.npy"; then
			ms=$(( ($(date +%s%N) - t0) / 1000000 ))
			t_pass "remote.$b.shared_8mb_kernel_identical_to_local (kernels/unary/tanh.bin, $ms ms; $(grep -o '[0-9.]* MB/s' "$work/t_$b.log" | tr '\n' ' '))"
		else t_fail "remote.$b.shared_8mb_kernel_identical_to_local" "$(tail -2 "$work/t_$b.log")"; fi
		# the negative control: one byte of the remote's output changed
		cp "$work/t_$b.npy" "$work/t_bad.npy"
		"$PYTHON" -c 'import sys; f=open(sys.argv[1],"r+b"); f.seek(-4096,2); b=f.read(1); f.seek(-4096,2); f.write(bytes([b[0]^1]))' "$work/t_bad.npy"
		if cmp -s "$work/t_local.npy" "$work/t_bad.npy"; then
			t_fail remote.shared_8mb_comparison_negative_control "a changed byte compared equal"
		else t_pass remote.shared_8mb_comparison_negative_control; fi
	else
		t_skip "remote.$b.shared_8mb_kernel_identical_to_local" "../shared absent"
	fi
	# the weights BAR the tile DMA reads (rb form) is the program's: remote binds a and y only,
	# and y is numpy's a + b exactly (before: a zero buffer bound at BAR 1, y = a)
	if remote run --raw "$work/addconst.bin" --in "bar5=$work/addconst_a.npy" \
		--out "bar4=$work/addconst_$b.npy" >"$work/addconst_$b.log" 2>&1 &&
	   "$PYTHON" -c 'import sys, numpy as np; y = np.load(sys.argv[1]); r = np.load(sys.argv[2]); sys.exit(not (y.shape == r.shape and np.array_equal(y, r)))' \
		"$work/addconst_$b.npy" "$work/addconst_ref.npy"; then
		t_pass "remote.$b.rb_constant_equals_numpy"
	else t_fail "remote.$b.rb_constant_equals_numpy" "$(tail -2 "$work/addconst_$b.log")"; fi
	# the service's rules a whole-program client cannot reach: chain links only from the
	# previous call's outputs, a READ answered before the WRITE posted after it, a HELLO
	# unloading what a client that went away left (tests/clients/serve_rules.py)
	"$PYTHON" tests/clients/serve_rules.py "$port" "$work/addconst.bin" "$work/addconst_a.npy" \
		"$work/addconst_ref.npy" "$work/relu.bin" >"$work/rules_$b.log" 2>&1
	for r in rb_constant_fixed chain_from_an_input chain_from_a_constant chain_from_an_output \
		 read_before_write hello_unloads; do
		if grep -qx "ok $r" "$work/rules_$b.log"; then t_pass "remote.$b.$r"
		else t_fail "remote.$b.$r" "$(grep -m1 "^FAIL \($r\|link\)" "$work/rules_$b.log" || tail -1 "$work/rules_$b.log")"; fi
	done
	# a program over the service's limits is refused by name and in the local run's words (the
	# name alone before), with what it needs and what a slot holds (docs/service.md, "Limits");
	# on qemu-virt a slot is the local run's arena
	slot=$((256 << 20)); [ "$b" = raspi3b ] && slot=$((128 << 20))
	if remote run "$work/big.hwx" >"$work/big_$b.log" 2>&1; then
		t_fail "remote.$b.over_the_limits_refused_by_name" "it ran"
	elif grep -qE "^remote: load: program-refused: arena-too-large: the grants do not fit one submission's arena \(refused\): the program needs [0-9]+ bytes of device memory, a program slot of this service holds $slot \(docs/service.md, \"Limits\"\)$" "$work/big_$b.log"; then
		t_pass "remote.$b.over_the_limits_refused_by_name"
	else t_fail "remote.$b.over_the_limits_refused_by_name" "$(tail -1 "$work/big_$b.log")"; fi
	if remote shutdown >"$work/sd.log" 2>&1; then t_pass "remote.$b.shutdown"; else t_fail "remote.$b.shutdown" "$(cat "$work/sd.log")"; fi
	rc=0; wait "$qpid" || rc=$?
	if [ "$rc" -eq 0 ]; then
		t_pass "remote.$b.firmware_exits_0_after_shutdown"
	else t_fail "remote.$b.firmware_exits_0_after_shutdown" "exit $rc"; fi
done
# connecting: a closed port fails at once, by name; no port is a usage error
port=$(free_port)
t0=$(date +%s%N)
out=$("$TOOL" remote --connect "127.0.0.1:$port" shutdown 2>&1); rc=$?
ms=$(( ($(date +%s%N) - t0) / 1000000 ))
if [ "$rc" -eq 1 ] && [ "$ms" -lt 2000 ] &&
   [ "$out" = "remote: cannot connect to 127.0.0.1:$port: Connection refused (nothing listens there: start the service with make serve PORT=N, or wait for it with --wait SECONDS)" ]; then
	t_pass "remote.closed_port_fails_at_once ($ms ms)"
else t_fail remote.closed_port_fails_at_once "exit $rc after $ms ms: $out"; fi
# a run that cannot connect says that alone: "run: input input: ... filled from seed" came
# before it, for inputs nothing filled; a bad input file is named still without connecting
bad=""
out=$("$TOOL" remote --connect "127.0.0.1:$port" run "$work/p.hwx" 2>&1); rc=$?
[ "$rc" -eq 1 ] && [ "$out" = "remote: cannot connect to 127.0.0.1:$port: Connection refused (nothing listens there: start the service with make serve PORT=N, or wait for it with --wait SECONDS)" ] ||
	bad="$bad [run: exit $rc: $out]"
out=$("$TOOL" remote --connect "127.0.0.1:$port" run "$work/p.hwx" --in "input=$work/absent.npy" 2>&1); rc=$?
[ "$rc" -eq 1 ] && grep -q "^run: $work/absent.npy: file-cannot-open" <<<"$out" && ! grep -q "cannot connect" <<<"$out" ||
	bad="$bad [absent input: exit $rc: $out]"
if [ -z "$bad" ]; then t_pass remote.closed_port_run_fills_nothing_first
else t_fail remote.closed_port_run_fills_nothing_first "$bad"; fi
# with --wait S the refusal says the wait ran out (it said "or wait for it with --wait" to one
# who had waited), after about S seconds
t0=$(date +%s%N)
out=$("$TOOL" remote --connect "127.0.0.1:$port" --wait 1 shutdown 2>&1); rc=$?
ms=$(( ($(date +%s%N) - t0) / 1000000 ))
if [ "$rc" -eq 1 ] && [ "$ms" -ge 900 ] &&
   [ "$out" = "remote: cannot connect to 127.0.0.1:$port: Connection refused (nothing listened there in the 1 s of --wait: start the service with make serve PORT=N, or wait longer)" ]; then
	t_pass "remote.closed_port_after_wait_says_the_wait_ran_out ($ms ms)"
else t_fail remote.closed_port_after_wait_says_the_wait_ran_out "exit $rc after $ms ms: $out"; fi
# every answer is checked: a scripted peer (tests/clients/link_peer.py, from the documented
# framing) that never answers the second WRITE stops the tool at the third's answer, by tag; the
# same peer answering every WRITE lets the transfer through (the control) and refuses the LOAD
# with detail words the tool prints
peer() { # mode n [remote's options...] -> the tool's output in $work/peer_$1_$2.log, its exit status
	local mode=$1 n=$2; shift 2
	"$PYTHON" tests/clients/link_peer.py "$mode" "$n" >"$work/peer_port" 2>/dev/null &
	local ppid=$! i=0
	pids="$pids $ppid"
	while [ ! -s "$work/peer_port" ] && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
	local rc=0
	timeout 30 "$TOOL" remote --connect "127.0.0.1:$(cat "$work/peer_port")" "$@" run "$work/p.hwx" \
		>"$work/peer_${mode}_$n.log" 2>&1 || rc=$?
	wait "$ppid" 2>/dev/null; rm -f "$work/peer_port"
	return $rc
}
if ! peer drop-write 2 && grep -qxF 'remote: write: answers out of order: expected tag 4, found 5 (an answer was lost on the line)' "$work/peer_drop-write_2.log"; then
	t_pass remote.a_lost_answer_named_by_tag
else t_fail remote.a_lost_answer_named_by_tag "$(tail -1 "$work/peer_drop-write_2.log")"; fi
if ! peer drop-write 0 && grep -qxF 'remote: load: program-refused: arena-too-large: the grants do not fit one submission'"'"'s arena (refused): the program needs 305418240 bytes of device memory, a program slot of this service holds 268435456 (docs/service.md, "Limits")' "$work/peer_drop-write_0.log"; then
	t_pass remote.every_answer_through_the_checks_then_the_refusal_detail
else t_fail remote.every_answer_through_the_checks_then_the_refusal_detail "$(tail -1 "$work/peer_drop-write_0.log")"; fi
# a LOAD the service refuses fills nothing: "run: input input: ... filled from seed" came before
# the refusal, for an input no run took (2026-12-07); the control, a peer that lets the run reach
# the call, says it
if grep -q 'filled from seed' "$work/peer_drop-write_0.log"; then
	t_fail remote.refused_load_fills_nothing_first "$(head -n2 "$work/peer_drop-write_0.log" | tr '\n' ' ')"
elif ! peer fixed-none 0 && grep -q '^run: input input: float16 \[.*\] not given: filled from seed 0x' "$work/peer_fixed-none_0.log"; then
	t_pass remote.refused_load_fills_nothing_first
else t_fail remote.refused_load_fills_nothing_first "control: $(head -n2 "$work/peer_fixed-none_0.log" | tr '\n' ' ')"; fi
# the wait for an answer: a peer that never answers the LOAD (a service still working) is given
# up on after --timeout's 2 s, saying so, not the default 60 s; a peer that closes the link at
# the LOAD is named as a closed link at once (the two failures told apart); --timeout's value is
# checked (0, over a day, not a number: usage errors naming it)
t0=$(date +%s%N)
peer stall-load 0 --timeout 2; rc=$?
ms=$(( ($(date +%s%N) - t0) / 1000000 ))
if [ "$rc" -eq 1 ] && [ "$ms" -ge 2000 ] && [ "$ms" -lt 15000 ] &&
   grep -qxF 'remote: load: no answer in 2 s (the service may still be working: --timeout SECONDS waits longer)' "$work/peer_stall-load_0.log"; then
	t_pass "remote.timeout_gives_up_on_a_silent_service ($ms ms)"
else t_fail remote.timeout_gives_up_on_a_silent_service "exit $rc after $ms ms: $(tail -1 "$work/peer_stall-load_0.log")"; fi
t0=$(date +%s%N)
peer close-load 0 --timeout 20; rc=$?
ms=$(( ($(date +%s%N) - t0) / 1000000 ))
if [ "$rc" -eq 1 ] && [ "$ms" -lt 10000 ] &&
   grep -qxF 'remote: load: the link closed before the answer came' "$work/peer_close-load_0.log" &&
   ! grep -q 'no answer in' "$work/peer_close-load_0.log"; then
	t_pass "remote.closed_link_is_not_a_timeout ($ms ms)"
else t_fail remote.closed_link_is_not_a_timeout "exit $rc after $ms ms: $(tail -1 "$work/peer_close-load_0.log")"; fi
# a fixed BAR is never skipped: a peer whose program has every BAR fixed (as one whose input is
# read as kernels from a runtime BAR) gets the run refused by name, naming the input's BAR, and no
# CALL_BARS; the control, nothing fixed, reaches the call (answered deadline-expired)
if ! peer fixed-input 0 && grep -qE '^remote: fixed-bar: input input is on bar [0-9]+, which the served program fixed at load \(it reads it as kernels or weights\): a call cannot bind it \(docs/service.md, "Fixed BARs"\)$' "$work/peer_fixed-input_0.log" &&
   ! grep -q 'call:' "$work/peer_fixed-input_0.log"; then
	t_pass remote.fixed_input_bar_refused_not_skipped
else t_fail remote.fixed_input_bar_refused_not_skipped "$(tail -1 "$work/peer_fixed-input_0.log")"; fi
if ! peer fixed-none 0 && grep -q '^remote: call: deadline-expired (aborted)' "$work/peer_fixed-none_0.log"; then
	t_pass remote.fixed_input_control_reaches_the_call
else t_fail remote.fixed_input_control_reaches_the_call "$(tail -1 "$work/peer_fixed-none_0.log")"; fi
bad=
for v in 0 86401 2s; do
	out=$("$TOOL" remote --connect 127.0.0.1:1 --timeout "$v" shutdown 2>&1); rc=$?
	[ "$rc" -eq 2 ] && [ "$out" = "anefw-tool remote: --timeout needs SECONDS (1..86400), got '$v'" ] || bad="$bad $v:$rc:$out"
done
out=$("$TOOL" remote --connect 127.0.0.1:1 shutdown --timeout 2>&1); rc=$?
[ "$rc" -eq 2 ] && [ "$out" = "anefw-tool remote: --timeout needs SECONDS (1..86400)" ] || bad="$bad none:$rc:$out"
if [ -z "$bad" ]; then t_pass remote.bad_timeout_is_a_usage_error
else t_fail remote.bad_timeout_is_a_usage_error "$bad"; fi
out=$("$TOOL" remote --connect 127.0.0.1:1 run "$work/p.hwx" --atol 1e-2x 2>&1); rc=$?
if [ "$rc" -eq 2 ] && grep -q "tolerance-bad: --rtol '0', --atol '1e-2x'" <<<"$out"; then
	t_pass remote.bad_tolerance_is_a_usage_error
else t_fail remote.bad_tolerance_is_a_usage_error "exit $rc: $out"; fi
out=$("$TOOL" remote --connect 127.0.0.1 shutdown 2>&1); rc=$?
if [ "$rc" -eq 2 ] && [ "$out" = "remote: --connect 127.0.0.1: expected HOST:PORT with a port number 1 to 65535, e.g. 127.0.0.1:5555 (make serve's PORT)" ]; then
	t_pass remote.connect_without_port_is_a_usage_error
else t_fail remote.connect_without_port_is_a_usage_error "exit $rc: $out"; fi
# a port outside 1..65535 is a usage error: getaddrinfo took 99999 as 34463 (99999 - 65536)
# and 65536 as 0, so the tool connected to another port than the one named, or said
# "Connection refused" for a port that cannot exist (the closed-port check above is the control)
bad=""
for p in 99999 65536 0 http; do
	out=$("$TOOL" remote --connect "127.0.0.1:$p" shutdown 2>&1); rc=$?
	[ "$rc" -eq 2 ] && [ "$out" = "remote: --connect 127.0.0.1:$p: expected HOST:PORT with a port number 1 to 65535, e.g. 127.0.0.1:5555 (make serve's PORT)" ] ||
		bad="$bad [$p: exit $rc: $out]"
done
if [ -z "$bad" ]; then t_pass remote.port_outside_1_to_65535_is_a_usage_error
else t_fail remote.port_outside_1_to_65535_is_a_usage_error "$bad"; fi
# and make serve's (qemu-run.sh --link-tcp): QEMU took PORT=99999 as 34463 and listened there
# while make serve said to connect to 99999; refused at once now, QEMU not started (the
# services above, on free ports, are the control)
bad=""
for p in 99999 65536 0 5555x; do
	out=$(bash scripts/qemu-run.sh --board qemu-virt --timeout 5 --link-tcp "$p" "$BUILD/qemu-virt/anefw.elf" serve=1 2>&1); rc=$?
	[ "$rc" -eq 2 ] && [ "$out" = "qemu-run: a TCP port is a number from 1 to 65535 (--link-tcp, --serial-tcp, make serve's PORT): got '$p'" ] ||
		bad="$bad [$p: exit $rc: $(head -c 200 <<<"$out")]"
done
if [ -z "$bad" ]; then t_pass remote.serve_port_outside_1_to_65535_refused
else t_fail remote.serve_port_outside_1_to_65535_refused "$bad"; fi
t_done
