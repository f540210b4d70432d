# Activation LUT (issue 6, docs/actlut.md): lut-eval over all 65,536 inputs for every real record
# in the fixtures and every record lut-build makes, checked by tests/oracle/actlut_check.py
# (bit-exact against the documented model, accuracy bar against float64, specials, clamps,
# tails); the tool's error handling; a short fuzz pass.
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
else
	t_skip actlut.real_records "../shared absent: real activation records not checked"
fi

# Records built by lut-build.
for f in relu relu6 leakyrelu hardtanh sigmoid tanh gelu silu exp exp2 log2 sqrt rsqrt reciprocal; do
	if "$TOOL" lut-build "$f" "$work/$f.rec" 2>"$work/$f.log"; then
		check "build.$f" "$f" "$work/$f.rec"
	else
		t_fail "actlut.build.$f" "$(cat "$work/$f.log")"
	fi
done
"$TOOL" lut-build leakyrelu --slope 0.2 "$work/lk.rec" 2>/dev/null && check build.leakyrelu_0.2 leakyrelu "$work/lk.rec" --slope 0.2
"$TOOL" lut-build gelu --domain -8:8 "$work/g8.rec" 2>/dev/null && check build.gelu_domain8 gelu "$work/g8.rec"
"$TOOL" lut-build tanh --domain 0:2 "$work/t2.rec" 2>/dev/null && check build.tanh_domain2 tanh "$work/t2.rec"
"$TOOL" lut-build sigmoid --domain -0.5:0.5 "$work/s05.rec" 2>/dev/null && check build.sigmoid_domain05 sigmoid "$work/s05.rec"
"$TOOL" lut-build relu6 --domain 0:3 "$work/r3.rec" 2>/dev/null && check build.relu3_domain relu6 "$work/r3.rec"

# The checker can fail: a tanh record is not a sigmoid, and a record with a changed knot is
# not what the model says.
if $CHECK "$TOOL" sigmoid "$work/tanh.rec" --workdir "$work" >/dev/null 2>&1; then
	t_fail actlut.checker_rejects_wrong_function
else
	t_pass actlut.checker_rejects_wrong_function
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
head -c 86 /dev/zero > "$work/zero.rec"                 # mode word 0: unknown
printf 'short' > "$work/short.rec"
"$TOOL" lut-build tanh "$work/ok.rec" 2>/dev/null
bad missing_args "needs" lut-eval
bad no_file "" lut-eval "$work/nonexistent" "$work/o"
bad short_record "no 86-byte record" lut-eval "$work/short.rec" "$work/o"
bad offset_past_end "no 86-byte record" lut-eval "$work/ok.rec" "$work/o" --offset 1
bad offset_huge "offset" lut-eval "$work/ok.rec" "$work/o" --offset 0x1ffffffffffffffff
bad offset_garbage "offset" lut-eval "$work/ok.rec" "$work/o" --offset zz
bad bad_mode "unknown mode word" lut-eval "$work/zero.rec" "$work/o"
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
	t_skip actlut.fuzz_5s "$FZ not built"
fi
t_done
