# Activation LUT (issue 6, docs/actlut.md): lut-eval over all 65,536 inputs for every real record
# in the fixtures and every record lut-build makes, checked by tests/oracle/actlut_check.py
# (bit-exact against the documented model, accuracy bar against float64, specials, clamps,
# tails); that the checker fails on a wrong function, a changed knot and a wrong output; the
# tool's error handling; a short fuzz pass.
. tests/lib.sh
TOOL="$BUILD/host/anefw-tool"
CHECK="$PYTHON tests/oracle/actlut_check.py"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

check() { # NAME FUNC RECORD [args...]
	local name=$1; shift
	local out
	if out=$($CHECK "$TOOL" "$@" --workdir "$work" 2>&1); then
		t_pass "actlut.$name: $(echo "$out" | head -n1 | sed 's/  */ /g')"
	else
		t_fail "actlut.$name" "$(echo "$out" | tr '\n' ' ')"
	fi
}

if [ ! -x "$TOOL" ]; then
	t_fail actlut.tool_built "$TOOL missing"
	t_done; exit
fi

# Real records: the function each file is named after (docs/actlut.md, "Real records").
if have_shared; then
	K="$SHARED/fixtures/kernels"
	check real.exp_as_exp2 exp2 "$K/unary/exp.bin" --offset 0x280
	check real.log2 log2 "$K/unary/log2.bin" --offset 0x280
	check real.sqrt sqrt "$K/unary/sqrt.bin" --offset 0x280
	check real.tanh tanh "$K/unary/tanh.bin" --offset 0x280
	check real.sigmoid_minus_half sigmoid_m05 "$K/unary/sigmoid.bin" --offset 0x580
	check real.gelu gelu "$K/activation/gelu.bin" --offset 0x280
	check real.relu6 relu6 "$K/activation/relu6.bin" --offset 0x280
	check real.leakyrelu leakyrelu "$K/activation/leakyrelu.bin" --offset 0x280 --slope 0.01
	check real.hardtanh hardtanh "$K/activation/hardtanh.bin" --offset 0x280
	check real.sigmoid_hwx sigmoid "$SHARED/fixtures/hwx/sigmoid.hwx" --offset 0x4280
	check real.exp2_softmax exp2 "$K/activation/softmax.bin" --offset 0xe80
	# issue 21: mode words 0x67 (reciprocal), 0x02 (selu: index offset 32), and ceil's three
	# records: 0x63 x - trunc(x), 0x64 trunc(x), a linear step with 0 at 0
	check real.reciprocal reciprocal "$K/unary/inv.bin" --offset 0x280
	check real.selu selu "$K/activation/selu.bin" --offset 0x280
	check real.ceil_frac frac_trunc "$K/unary/ceil.bin" --offset 0xb80
	check real.ceil_trunc trunc "$K/unary/ceil.bin" --offset 0xc00
	check real.ceil_step step "$K/unary/ceil.bin" --offset 0xc80
	# ceil.bin's TD 3 adds TD 2's trunc(x) to TD 1's step of TD 0's x - trunc(x): ceil(x),
	# exactly, for every finite input (the step's 1 at +0 would make ceil(2) = 3)
	ceil_compose='
import sys, subprocess, numpy as np
tool, f, d = sys.argv[1:4]
outs = []
for off in (0xb80, 0xc00, 0xc80):
    subprocess.run([tool, "lut-eval", f, d + "/c%x" % off, "--offset", str(off)], check=True)
    outs.append(np.fromfile(d + "/c%x" % off, dtype="<u2"))
x = np.arange(65536, dtype=np.uint32).astype(np.uint16)
xf = x.view(np.float16).astype(np.float64)
got = (outs[1].view(np.float16).astype(np.float64) + outs[2][outs[0]].view(np.float16).astype(np.float64))
fin = np.isfinite(xf)
with np.errstate(invalid="ignore"):
    bad = fin & (got != np.ceil(xf))
print("%d of %d finite inputs differ from ceil" % (bad.sum(), fin.sum()))
sys.exit(1 if bad.any() else 0)
'
	if out=$("$PYTHON" -c "$ceil_compose" "$TOOL" "$K/unary/ceil.bin" "$work" 2>&1); then
		t_pass "actlut.real.ceil_composed: $out"
	else
		t_fail actlut.real.ceil_composed "$out"
	fi
	# floor and frac as Apple's H13 compiler emits them (docs/actlut.md, "floor"): ceil.bin's
	# 0x63 and 0x64 records (the same slots) and a step of 1 below 0 (its published slots:
	# tests/oracle/gen_actlut.py's step_floor_shape, in build/testdata). floor(x) = trunc(x) - step(A), frac(x) = x - floor(x) =
	# A + step(A), each one fp16 rounding of the exact value, for every finite input. The
	# negatives: ceil's step in its place, and the step read as before this round (the left
	# line at 0, 1 there), each miss floor.
	"$PYTHON" - "$work" <<'PY'
import struct, sys
d = sys.argv[1]
# Apple's rsqrt record: clamp [0, +inf], end values +inf and 0, knots 0..7 0, knot i = 1/sqrt(i/16)
# from i = 8, no tails, s 4, mode word 0xc6 (kRsqrtKERNWords)
rsqrt = [0x0000, 0x7c00, 0x7c00, 0x0000] + [0] * 8 + [
    0x3da8, 0x3d55, 0x3d0f, 0x3cd3, 0x3c9e, 0x3c70, 0x3c47, 0x3c22, 0x3c00, 0x3bc3, 0x3b8b, 0x3b57,
    0x3b28, 0x3afc, 0x3ad3, 0x3aac, 0x3a88, 0x3a66, 0x3a47, 0x3a29, 0x3a0c, 0x39f1, 0x39d8, 0x39bf,
    0x39a8] + [0, 0, 0, 0] + [4, 0xc6]
assert len(rsqrt) == 43
open("%s/rsqrt_apple.rec" % d, "wb").write(struct.pack("<43H", *rsqrt) + bytes(42))
PY
	floor_step="$BUILD/testdata/actlut/step_floor_shape.rec"
	check real.floor_step step_neg "$floor_step"
	check real.rsqrt_apple rsqrt "$work/rsqrt_apple.rec"
	if "$TOOL" lut-build rsqrt "$work/rsqrt-built.rec" >/dev/null 2>&1 &&
		cmp -s -n 86 "$work/rsqrt-built.rec" "$work/rsqrt_apple.rec"; then
		t_pass actlut.build.rsqrt_is_apples_record
	else
		t_fail actlut.build.rsqrt_is_apples_record "lut-build rsqrt differs from Apple's record"
	fi
	floor_compose='
import sys, subprocess, numpy as np
tool, f, step, d, how = sys.argv[1:6]
def lut(path, off):
    subprocess.run([tool, "lut-eval", path, d + "/fl", "--offset", str(off)], check=True)
    return np.fromfile(d + "/fl", dtype="<u2")
A, C = lut(f, 0xb80), lut(f, 0xc00)
B = lut(step, 0xc80 if how == "ceil_step" else 0)
if how == "left_at_zero":
    B = B.copy(); B[0x0000] = B[0x8000] = 0x3c00
h = lambda t: t.view(np.float16).astype(np.float64)
x = np.arange(65536, dtype=np.uint32).astype(np.uint16)
xf = h(x)
fin = np.isfinite(xf)
with np.errstate(invalid="ignore"):
    fl = h(C) - h(B[A])
    fr = (h(A) + h(B[A])).astype(np.float16).astype(np.float64)
    bad_fl = fin & (fl != np.floor(xf))
    bad_fr = fin & (fr != (xf - np.floor(xf)).astype(np.float16).astype(np.float64))
print("%d of %d finite inputs differ from floor, %d from x - floor(x)" % (bad_fl.sum(), fin.sum(), bad_fr.sum()))
sys.exit(1 if bad_fl.any() or bad_fr.any() else 0)
'
	if out=$("$PYTHON" -c "$floor_compose" "$TOOL" "$K/unary/ceil.bin" "$floor_step" "$work" as_is 2>&1); then
		t_pass "actlut.real.floor_and_frac_composed: $out"
	else
		t_fail actlut.real.floor_and_frac_composed "$out"
	fi
	for how in ceil_step left_at_zero; do
		step=$floor_step
		[ "$how" = ceil_step ] && step="$K/unary/ceil.bin"
		if out=$("$PYTHON" -c "$floor_compose" "$TOOL" "$K/unary/ceil.bin" "$step" "$work" "$how" 2>&1); then
			t_fail "actlut.floor_checker_rejects.$how" "passed: $out"
		else
			t_pass "actlut.floor_checker_rejects.$how: $out"
		fi
	done
else
	t_skip actlut.real_records "../shared absent: real activation records not checked"
fi

# Records built by lut-build: a build that fails is a counted failure, never a silent skip.
build_check() { # NAME FUNC RECORD "CHECK-OPTIONS" LUT-BUILD-ARGUMENTS...
	local name=$1 func=$2 rec=$3 opts=$4 rc; shift 4
	rm -f "$rec"
	"$TOOL" lut-build "$@" 2>"$work/build.log"; rc=$?
	if [ "$rc" -eq 0 ] && [ -s "$rec" ]; then
		# shellcheck disable=SC2086 # the options are words
		check "$name" "$func" "$rec" $opts
	else
		t_fail "actlut.$name" "lut-build $* exited $rc: $(tr '\n' ' ' < "$work/build.log")"
	fi
}
for f in relu relu6 leakyrelu hardtanh sigmoid tanh gelu silu exp exp2 log2 sqrt rsqrt reciprocal; do
	build_check "build.$f" "$f" "$work/$f.rec" "" "$f" "$work/$f.rec"
done
build_check build.leakyrelu_0.2 leakyrelu "$work/lk.rec" "--slope 0.2" leakyrelu --slope 0.2 "$work/lk.rec"
build_check build.gelu_domain8 gelu "$work/g8.rec" "" gelu --domain -8:8 "$work/g8.rec"
build_check build.tanh_domain2 tanh "$work/t2.rec" "" tanh --domain 0:2 "$work/t2.rec"
build_check build.sigmoid_domain05 sigmoid "$work/s05.rec" "" sigmoid --domain -0.5:0.5 "$work/s05.rec"
build_check build.relu3_domain relu6 "$work/r3.rec" "" relu6 --domain 0:3 "$work/r3.rec"
# ... checked: a lut-build that fails (here: a tool that always fails, in a subshell whose count
# is thrown away) prints a FAIL verdict and counts one failure.
out=$(TOOL=false; T_PASS=0; T_FAIL=0
	build_check selftest sigmoid "$work/never.rec" "" sigmoid "$work/never.rec"
	echo "counted $T_PASS passed, $T_FAIL failed")
if echo "$out" | grep -q '^FAIL actlut.selftest: lut-build sigmoid .* exited 1' \
	&& echo "$out" | grep -q '^counted 0 passed, 1 failed$'; then
	t_pass actlut.failing_build_is_counted
else
	t_fail actlut.failing_build_is_counted "$(echo "$out" | tr '\n' ' ')"
fi

# The checker can fail. A tanh record is not a sigmoid:
if $CHECK "$TOOL" sigmoid "$work/tanh.rec" --workdir "$work" >/dev/null 2>&1; then
	t_fail actlut.checker_rejects_wrong_function
else
	t_pass actlut.checker_rejects_wrong_function
fi
# A record with one knot changed (knot 16, by half its value, at least 1/16) still evaluates
# exactly as the model says, but misses the function: the accuracy check must fail (exit 1,
# "beyond the bar") while the bit-exact comparison with the model still holds.
change_knot='
import struct, sys
b = bytearray(open(sys.argv[1], "rb").read())
at = int(sys.argv[3], 0) + 2 * (4 + 16)  # slot 4 + k holds knot k
v = struct.unpack_from("<e", b, at)[0]
struct.pack_into("<e", b, at, v + 0.5 * max(abs(v), 0.125))
open(sys.argv[2], "wb").write(b)
'
knot_changed() { # NAME FUNC RECORD OFFSET [check options...]
	local name=$1 func=$2 rec=$3 off=$4 bad="$work/knot-$1.rec" out rc; shift 4
	if ! [ -s "$rec" ] || ! "$PYTHON" -c "$change_knot" "$rec" "$bad" "$off"; then
		t_fail "actlut.checker_rejects_changed_knot.$name" "no record to change ($rec)"
		return
	fi
	out=$($CHECK "$TOOL" "$func" "$bad" --offset "$off" --workdir "$work" "$@" 2>&1); rc=$?
	if [ "$rc" -eq 1 ] && echo "$out" | grep -q 'FAIL .*served inputs beyond the bar' \
		&& ! echo "$out" | grep -q 'differ from the model'; then
		t_pass "actlut.checker_rejects_changed_knot.$name"
	else
		t_fail "actlut.checker_rejects_changed_knot.$name" "exit $rc: $(echo "$out" | tr '\n' ' ')"
	fi
}
for f in sigmoid tanh gelu silu exp2 log2 sqrt rsqrt reciprocal; do
	knot_changed "$f" "$f" "$work/$f.rec" 0
done
if have_shared; then
	knot_changed real.tanh tanh "$K/unary/tanh.bin" 0x280
	knot_changed real.gelu gelu "$K/activation/gelu.bin" 0x280
	knot_changed real.sigmoid_hwx sigmoid "$SHARED/fixtures/hwx/sigmoid.hwx" 0x4280
fi
# Issue 21's rules each catch a wrong reading: the same records read with another operation
# (selu's knots at offset 16, the reciprocal's as log2, frac's as int, int's as frac) miss
# their function, and a step that gave 1 at 0 is caught.
set_mode='
import struct, sys
b = bytearray(open(sys.argv[1], "rb").read())
struct.pack_into("<H", b, int(sys.argv[3], 0) + 84, int(sys.argv[4], 0))
open(sys.argv[2], "wb").write(b)
'
misread() { # NAME FUNC RECORD OFFSET WORD
	local bad="$work/misread-$1.rec" out rc
	if ! [ -s "$3" ] || ! "$PYTHON" -c "$set_mode" "$3" "$bad" "$4" "$5"; then
		t_fail "actlut.checker_rejects_misread.$1" "no record ($3)"
		return
	fi
	out=$($CHECK "$TOOL" "$2" "$bad" --offset "$4" --workdir "$work" 2>&1); rc=$?
	if [ "$rc" -eq 1 ] && echo "$out" | grep -q 'FAIL .*served inputs beyond the bar'; then
		t_pass "actlut.checker_rejects_misread.$1"
	else
		t_fail "actlut.checker_rejects_misread.$1" "exit $rc: $(echo "$out" | tr '\n' ' ')"
	fi
}
if have_shared; then
	misread selu_offset16 selu "$K/activation/selu.bin" 0x280 0x01
	misread selu_offset0 selu "$K/activation/selu.bin" 0x280 0x00
	misread reciprocal_as_log2 reciprocal "$K/unary/inv.bin" 0x280 0xc9
	misread reciprocal_as_sqrt reciprocal "$K/unary/inv.bin" 0x280 0x65
	misread frac_as_int frac_trunc "$K/unary/ceil.bin" 0xb80 0x64
	misread int_as_frac trunc "$K/unary/ceil.bin" 0xc00 0x63
	misread trunc_as_floor trunc "$K/unary/ceil.bin" 0xc00 0x04
	knot_changed real.selu selu "$K/activation/selu.bin" 0x280
	knot_changed real.reciprocal reciprocal "$K/unary/inv.bin" 0x280
	# a step giving 1 at x = 0 (the old tie) misses the step function
	printf '#!/bin/sh\n"%s" "$@" || exit $?\nexec "%s" -c '"'"'%s'"'"' "$3"\n' "$TOOL" "$PYTHON" '
import sys
b = bytearray(open(sys.argv[1], "rb").read())
b[0:2] = b"\x00\x3c"
open(sys.argv[1], "wb").write(b)
' > "$work/step-tool"
	chmod +x "$work/step-tool"
	out=$($CHECK "$work/step-tool" step "$K/unary/ceil.bin" --offset 0xc80 --workdir "$work" 2>&1); rc=$?
	if [ "$rc" -eq 1 ] && echo "$out" | grep -q 'beyond the bar (first x=0.0'; then
		t_pass actlut.checker_rejects_step_one_at_zero
	else
		t_fail actlut.checker_rejects_step_one_at_zero "exit $rc: $(echo "$out" | tr '\n' ' ')"
	fi
fi
# A tool whose lut-eval gets one output wrong fails the bit-exact comparison with the model.
flip_one='
import sys
b = bytearray(open(sys.argv[1], "rb").read())
b[2 * 0x3c00] ^= 1
open(sys.argv[1], "wb").write(b)
'
printf '#!/bin/sh\n"%s" "$@" || exit $?\nexec "%s" -c '"'"'%s'"'"' "$3"\n' "$TOOL" "$PYTHON" "$flip_one" \
	> "$work/wrong-tool"
chmod +x "$work/wrong-tool"
out=$($CHECK "$work/wrong-tool" sigmoid "$work/sigmoid.rec" --workdir "$work" 2>&1); rc=$?
if [ "$rc" -eq 1 ] && echo "$out" | grep -q '1 outputs differ from the model (first x=0x3c00'; then
	t_pass actlut.checker_rejects_one_wrong_output
else
	t_fail actlut.checker_rejects_one_wrong_output "exit $rc: $(echo "$out" | tr '\n' ' ')"
fi

# Bad arguments: a clear message, a nonzero exit, no crash (exit status below 128).
bad() { # NAME EXPECTED-TEXT ARGS...
	local name=$1 want=$2; shift 2
	local out rc
	out=$("$TOOL" "$@" 2>&1); rc=$?
	if [ "$rc" -ne 0 ] && [ "$rc" -lt 128 ] && echo "$out" | grep -qi -- "$want"; then
		t_pass "actlut.cli.$name"
	else
		t_fail "actlut.cli.$name" "exit $rc: $out"
	fi
}
head -c 84 /dev/zero > "$work/zero.rec"; printf '\x10\x00' >> "$work/zero.rec"   # mode word 0x10: bit 4, no known meaning
printf 'short' > "$work/short.rec"
# the record the error cases below start from: built, then checked like every built record
build_check cli.build_ok_record tanh "$work/ok.rec" "" tanh "$work/ok.rec"
bad missing_args "needs" lut-eval
bad no_file "" lut-eval "$work/nonexistent" "$work/o"
bad short_record "no 86-byte record" lut-eval "$work/short.rec" "$work/o"
bad offset_past_end "no 86-byte record" lut-eval "$work/ok.rec" "$work/o" --offset 1
bad offset_huge "offset" lut-eval "$work/ok.rec" "$work/o" --offset 0x1ffffffffffffffff
bad offset_garbage "offset" lut-eval "$work/ok.rec" "$work/o" --offset zz
bad bad_mode "no known meaning" lut-eval "$work/zero.rec" "$work/o"
# a record the engine model refuses (frac on x itself with a clamp admitting x < 0: the twelfth
# review's actlut-unpinned-signed-split) is evaluated as read, exit 0, its table the oracle's, with
# a note naming the refusal; a real record (log2's) gets no note
td="$BUILD/testdata/actlut"
out=$("$TOOL" lut-eval "$td/frac_word_03.rec" "$work/n03" 2>&1); rc=$?
out2=$("$TOOL" lut-eval "$td/log2.rec" "$work/nlog2" 2>&1); rc2=$?
if [ "$rc" -eq 0 ] && cmp -s "$work/n03" "$td/frac_word_03.out" &&
   grep -q "note: the engine model refuses this record (actlut-unpinned-signed-split: " <<<"$out" &&
   [ "$rc2" -eq 0 ] && [ -z "$out2" ] && cmp -s "$work/nlog2" "$td/log2.out"; then
	t_pass actlut.cli.eval_notes_a_record_the_model_refuses
else
	t_fail actlut.cli.eval_notes_a_record_the_model_refuses "exit $rc: $out / exit $rc2: $out2"
fi
# malformed records are refused by name (issue 14): bits that contradict each other (0x21: the
# sign restored but never taken off), a float split whose input clamp admits no positive value,
# a NaN end value
mkrec='
import struct, sys
s = [0] * 43
s[1], s[41], s[42] = int(sys.argv[2], 0), 3, int(sys.argv[3], 0)
s[2] = int(sys.argv[4], 0) if len(sys.argv) > 4 else 0
open(sys.argv[1], "wb").write(struct.pack("<43H", *s))
'
"$PYTHON" -c "$mkrec" "$work/m21.rec" 0x7c00 0x21
"$PYTHON" -c "$mkrec" "$work/sqrtneg.rec" 0x8000 0xc5
"$PYTHON" -c "$mkrec" "$work/nanend.rec" 0x7c00 0x01 0x7e00
"$PYTHON" -c "$mkrec" "$work/recipshape.rec" 0x7c00 0x67 0x7c00
"$PYTHON" -c "$mkrec" "$work/oldrecip.rec" 0x7c00 0x1e9 0x7c00
"$PYTHON" -c "$mkrec" "$work/fracknot.rec" 0x7c00 0x63
"$PYTHON" -c "$set_mode" "$work/fracknot.rec" "$work/fracknot.rec" 0 0x63
"$PYTHON" -c '
import sys
b = bytearray(open(sys.argv[1], "rb").read())
b[2 * 20:2 * 21] = b"\x00\x3c"  # knot 16 = 1
open(sys.argv[1], "wb").write(b)
' "$work/fracknot.rec"
bad mode_bits_contradict "contradict each other" lut-eval "$work/m21.rec" "$work/o"
bad mode_contradicts_clamp "contradicts the input clamp" lut-eval "$work/sqrtneg.rec" "$work/o"
bad nan_end_value "NaN in a clamp, end value" lut-eval "$work/nanend.rec" "$work/o"
bad anefw_old_recip_word "no known meaning" lut-eval "$work/oldrecip.rec" "$work/o"
bad frac_with_table "frac or int mode word with a nonzero" lut-eval "$work/fracknot.rec" "$work/o"
# issue 21: the garbled record of the issue (sigmoid.hwx's mode word set to 0x1234) is refused
if have_shared; then
	"$PYTHON" -c "$set_mode" "$SHARED/fixtures/hwx/sigmoid.hwx" "$work/garbled.hwx" 0x4280 0x1234
	bad garbled_sigmoid_hwx "no known meaning" lut-eval "$work/garbled.hwx" "$work/o" --offset 0x4280
fi
# the compiler's reciprocal shape (0, +inf, +inf, 0) evaluates, to what the documented model
# (tests/oracle/actlut_model.py) gives for it, all 65,536 inputs; and the comparison fails on a
# table with one output changed (its negative control)
model_same='
import sys, numpy as np
sys.path.insert(0, "tests/oracle")
import actlut_model as M
want = np.array(M.Record(open(sys.argv[1], "rb").read()[:M.NBYTES]).table(), dtype=np.uint16)
got = np.fromfile(sys.argv[2], dtype="<u2")
if len(sys.argv) > 3:
    got[0x3c00] ^= 1
bad = np.nonzero(got != want)[0] if got.size == want.size else [0]
sys.exit(1 if len(bad) else 0)
'
if "$TOOL" lut-eval "$work/recipshape.rec" "$work/o" >/dev/null 2>&1 &&
   "$PYTHON" -c "$model_same" "$work/recipshape.rec" "$work/o"; then
	t_pass actlut.cli.recip_shape_0_inf_inf_0_evaluates_as_the_model
else
	t_fail actlut.cli.recip_shape_0_inf_inf_0_evaluates_as_the_model
fi
if "$PYTHON" -c "$model_same" "$work/recipshape.rec" "$work/o" flip 2>/dev/null; then
	t_fail actlut.cli.model_comparison_negative_control "a changed output passed"
else
	t_pass actlut.cli.model_comparison_negative_control
fi
bad unknown_func "unknown function" lut-build frobnicate "$work/o"
bad bad_domain "domain" lut-build sigmoid --domain 1:abc "$work/o"
bad reversed_domain "domain" lut-build sigmoid --domain 2:1 "$work/o"
bad domain_too_wide "too wide" lut-build gelu --domain -100:100 "$work/o"
bad slope_not_leaky "slope" lut-build relu --slope 0.5 "$work/o"
bad build_missing_out "needs" lut-build relu

# lut-eval writes exactly 65,536 values.
if "$TOOL" lut-eval "$work/ok.rec" "$work/o.bin" && [ "$(stat -c %s "$work/o.bin")" = 131072 ]; then
	t_pass actlut.cli.eval_writes_131072_bytes
else
	t_fail actlut.cli.eval_writes_131072_bytes
fi

# A short fuzz pass (the long one is `make fuzz`).
FZ="$BUILD/host/fuzz/fuzz_actlut"
if [ -x "$FZ" ]; then
	mkdir -p "$work/corpus"
	cp "$work"/*.rec "$work/corpus/" 2>/dev/null
	if "$FZ" -max_total_time=5 -timeout=10 -print_final_stats=1 "$work/corpus" >"$work/fuzz.log" 2>&1; then
		t_pass "actlut.fuzz_5s ($(grep -o 'stat::number_of_executed_units: [0-9]*' "$work/fuzz.log" | awk '{print $2}') runs)"
	else
		t_fail actlut.fuzz_5s "$(tail -n 20 "$work/fuzz.log")"
	fi
else
	t_fail actlut.fuzz_5s "$FZ not built (make test builds it: make fuzz-build)"
fi
t_done
