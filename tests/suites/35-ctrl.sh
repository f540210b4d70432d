# Control path (fw/ctrl) on the software engine (engine/model): every fixture submits with
# its default grants (host tool and firmware), the traces show the enabled coefficient channels
# inside the weights grant, host and target traces are identical, hostile grant tables are
# refused with their named error and a nonzero exit, and a short fuzzing pass of fuzz_submit.
. tests/lib.sh
TOOL="$BUILD/host/anefw-tool"

# coeff_inside TRACE: every "range coeff" line lies inside its BAR's grant; prints the count
coeff_inside() {
	local -A size=()
	local n=0 bad=0 line f
	while IFS= read -r line; do
		read -ra f <<<"$line"
		if [ "${f[0]}" = grant ]; then
			size[${f[2]}]=$((f[6]))
		elif [ "${f[0]}" = td ] && [ "${f[2]}" = range ] && [ "${f[3]}" = coeff ]; then
			n=$((n + 1))
			local bar=${f[7]} off=$((f[9])) len=$((f[11]))
			[ -n "${size[$bar]:-}" ] && [ $((off + len)) -le "${size[$bar]}" ] || bad=$((bad + 1))
		fi
	done <<<"$1"
	echo "$n"
	[ "$bad" -eq 0 ]
}

if have_shared; then
	fixtures=("$SHARED"/fixtures/hwx/*.hwx "$SHARED"/fixtures/kernels/*/*.bin)
	for f in "${fixtures[@]}"; do
		rel=${f#"$SHARED"/fixtures/}
		out=$("$TOOL" submit --trace "$f" 2>&1); rc=$?
		# the expected count from the independent reader (tests/oracle/hwx_ref.py), not the loader
		raw=; case $f in *.bin) raw=--raw;; esac
		want=$("$PYTHON" tests/oracle/hwx_ref.py "$f" $raw |
		       "$PYTHON" -c 'import json,sys; print(sum(len(t["coeff"]) for t in json.load(sys.stdin)["tds"]))')
		if [ "$rc" -ne 0 ] || ! grep -q '^submit: completed' <<<"$out" ||
		   ! grep -q '^submit: canaries intact' <<<"$out"; then
			t_fail "ctrl.host.$rel" "exit $rc: $(grep '^submit:' <<<"$out" | tail -2 | tr '\n' ' ')"
			continue
		fi
		if got=$(coeff_inside "$out") && [ "$got" -eq "$want" ]; then
			t_pass "ctrl.host.$rel ($got coefficient channels inside the weights)"
		else
			t_fail "ctrl.host.$rel" "coefficient ranges: $got (want $want inside the weights)"
		fi
	done
	# each TD's activation, as docs/actlut.md identifies the records (mode, knot spacing)
	while read -r rel want; do
		f="$SHARED/fixtures/$rel"
		[ -f "$f" ] || { t_fail "ctrl.activation.$rel" "absent from ../shared"; continue; }
		got=$("$TOOL" submit "$f" 2>&1 | sed -n 's/^td 0: activation: //p' |
		      sed -e 's/ @0x[0-9a-f]*//' -e 's/, applied to [0-9]* fp16 values//')
		if [ "$got" = "$want" ]; then
			t_pass "ctrl.activation.$rel ($got)"
		else
			t_fail "ctrl.activation.$rel" "got '$got', want '$want'"
		fi
	done <<'LIST'
hwx/sigmoid.hwx lut record, mode plain, knots 2^-1
hwx/conv.hwx none
kernels/unary/tanh.bin lut record, mode odd, knots 2^-3
kernels/unary/exp.bin lut record, mode exp2, knots 2^-5
kernels/unary/log2.bin lut record, mode log2, knots 2^-6
kernels/unary/sqrt.bin lut record, mode sqrt, knots 2^-4
kernels/unary/abs.bin none
kernels/unary/sigmoid.bin lut record, mode odd, knots 2^-2
kernels/activation/gelu.bin lut record, mode plain, knots 2^-2
kernels/activation/relu6.bin lut record, mode linear, no knots
kernels/unary/inv.bin lut record, mode recip, knots 2^-6
kernels/unary/ceil.bin lut record, mode frac, knots 2^-0
kernels/activation/selu.bin lut record, mode plain, knots 2^-2
LIST
	# host and target traces agree
	for b in $TEST_BOARDS; do
		elf="$BUILD/$b/anefw.elf"
		[ -f "$elf" ] || { t_fail "ctrl.$b.traces" "no $elf (make test builds it)"; continue; }
		same=0; diff_list=
		for f in "${fixtures[@]}"; do
			rel=${f#"$SHARED"/fixtures/}
			tgt=$(qemu_run --board "$b" --timeout 120 "$elf" "program=$f" trace=1 2>&1 | tr -d '\r' |
			      sed -n '/^submit: /,/^submit: canaries/p')
			host=$("$TOOL" submit --trace "$f" 2>&1)
			if [ -n "$tgt" ] && [ "$tgt" = "$host" ]; then
				same=$((same + 1))
			else
				diff_list="$diff_list $rel"
			fi
		done
		if [ -z "$diff_list" ]; then
			t_pass "ctrl.$b.traces_agree_with_host ($same fixtures)"
		else
			t_fail "ctrl.$b.traces_agree_with_host" "differ:$diff_list"
		fi
	done
	# hostile grant tables on a real program: the named error, exit 1
	conv="$SHARED/fixtures/hwx/conv.hwx"
	refuse() {
		local name=$1 want=$2; shift 2
		local out rc
		out=$("$TOOL" submit "$conv" "$@" 2>&1); rc=$?
		# refused before any memory exists: nothing programmed, nothing moved
		if [ "$rc" -eq 1 ] && grep -q "^submit: refused: $want" <<<"$out" &&
		   ! grep -qE '^(submit: completed|  write |  move )' <<<"$out"; then
			t_pass "ctrl.refuse.$name"
		else
			t_fail "ctrl.refuse.$name" "exit $rc: $(grep '^submit:' <<<"$out" | tr '\n' ' ')"
		fi
	}
	refuse weights_short range-outside-granted-buffer --grant 1:0x80:r --grant 4:0xc0:w --grant 5:0xc0:r
	refuse output_read_only access-not-granted --grant 1:0xc0:r --grant 4:0xc0:r --grant 5:0xc0:r
	refuse input_missing bar-not-granted --grant 1:0xc0:r --grant 4:0xc0:w
	refuse bar_outside_table bar-index-out-of-range --grant 32:0xc0:r --grant 4:0xc0:w --grant 5:0xc0:r
	refuse input_short range-outside-granted-buffer --grant 1:0xc0:r --grant 4:0xc0:w --grant 5:0x80:r
	refuse zero_grant bad-grant --grant 1:0:r --grant 4:0xc0:w --grant 5:0xc0:r
	# the refusal says what the TD asked and what was granted, then the error's words (it said
	# the name alone before); conv.hwx's three coefficient channels are 0x40 bytes each from the
	# weights' start and its input 0xc0 bytes (tests/oracle/hwx_ref.py)
	refuse weights_short.says_range_and_grant 'range-outside-granted-buffer td 0 coeff ch 2 bar 1 (reads 0x40 bytes at 0x[0-9a-f]*, the grant 0x80 bytes at 0x[0-9a-f]*): an access that leaves its granted buffer$' --grant 1:0x80:r --grant 4:0xc0:w --grant 5:0xc0:r
	refuse input_short.says_range_and_grant 'range-outside-granted-buffer td 0 src0 bar 5 (reads 0xc0 bytes at offset 0x0, the grant 0x80 bytes): an access that leaves its granted buffer$' --grant 1:0xc0:r --grant 4:0xc0:w --grant 5:0x80:r
	refuse output_read_only.says_access 'access-not-granted td 0 dst bar 4 (the TD writes it, the grant is r): a write into a read-only buffer' --grant 1:0xc0:r --grant 4:0xc0:r --grant 5:0xc0:r
	# a zero-size grant says which of bad-grant's three checks refused it (the three alone before)
	refuse zero_grant.says_which_check 'bad-grant bar 1 (a zero-size grant: SIZE 0, a grant is 1 byte or more): a grant with zero size, bad access bits, or a wrapping range$' --grant 1:0:r --grant 4:0xc0:w --grant 5:0xc0:r
	# and a grant over a submission's limit its size and the limit (the name and bar alone before)
	refuse grant_too_large.says_size_and_limit 'grant-too-large bar 5 (0x20000000 bytes, a submission holds at most 0x10000000 a grant): a grant larger than a submission may hold (max_grant)$' --grant 1:0xc0:r --grant 4:0xc0:w --grant 5:0x20000000:r
	refuse input_missing.says_why 'bar-not-granted td 0 src0 bar 5: nothing granted at that BAR index$' --grant 1:0xc0:r --grant 4:0xc0:w
	# explicit grants that cover the program: it completes, its coefficient channels (3, by
	# hwx_ref.py) read inside the weights grant, and the canaries around every buffer are intact
	out=$("$TOOL" submit --trace "$conv" --grant 1:0xc0:r --grant 4:0xc0:w --grant 5:0xc0:r 2>&1); rc=$?
	if [ "$rc" -eq 0 ] && grep -q '^submit: completed' <<<"$out" &&
	   grep -q '^submit: canaries intact' <<<"$out" && got=$(coeff_inside "$out") && [ "$got" -eq 3 ]; then
		t_pass "ctrl.explicit_grants_accepted ($got coefficient channels inside the grants)"
	else
		t_fail ctrl.explicit_grants_accepted "exit $rc, coefficient ranges ${got:-?}: $(grep '^submit:' <<<"$out" | tr '\n' ' ')"
	fi
	# negative control: coeff_inside refuses a trace whose coefficient range leaves its grant
	bad=$(sed -E '0,/^ *td [0-9]+ range coeff/s/(^ *td [0-9]+ range coeff .* len )0x[0-9a-f]+/\10x100000/' <<<"$out")
	if [ "$bad" != "$out" ] && ! coeff_inside "$bad" >/dev/null; then
		t_pass ctrl.coeff_inside_refuses_a_range_outside_its_grant
	else
		t_fail ctrl.coeff_inside_refuses_a_range_outside_its_grant "the checker passed a range past its grant"
	fi
else
	t_skip ctrl.fixtures "../shared fixtures absent"
fi

# short fuzzing passes (make fuzz runs them longer): fuzz_submit (the control path over hostile
# programs) and fuzz_agree (inspect's verdict against the model's on mutants of real TDs)
fuzz_pass() {
	local name=$1 fuzz="$BUILD/host/fuzz/$1" work d
	if [ ! -x "$fuzz" ]; then
		t_fail "ctrl.$name" "fuzz target not built (make test builds it: make fuzz-build)"
		return
	fi
	work=$(mktemp -d)
	local seeds=()
	while IFS= read -r d; do [ -d "$d" ] && seeds+=("$d"); done < <(BUILD="$BUILD" SHARED="$SHARED" bash "tests/fuzz/seeds/$name.sh")
	if "$fuzz" -max_total_time=5 -timeout=10 -rss_limit_mb=2048 -artifact_prefix="$work/" \
		"$work" "${seeds[@]}" >"$work/log" 2>&1; then
		t_pass "ctrl.$name (5 s)"
	else
		t_fail "ctrl.$name" "$(tail -5 "$work/log")"
	fi
	rm -rf "$work"
}
fuzz_pass fuzz_submit
fuzz_pass fuzz_agree

# fuzz_submit runs its seeds on the model: mkprog's programs and (with ../shared) the kernel
# fixtures, each once through the target (FUZZ_SUBMIT_STATS: its histogram), every TD computed
# (softmax.bin, 4.1 x 10^6 operations a TD, stops at the target's 2^24 limit and is left out).
# Until 2026-12-07 the target's 256 KiB arena refused the kernel fixtures before the engine
# (address-in-firmware-memory) and its default grants were never filled, so mkprog's kernel units
# were read from canary bytes: 2 of these ran every TD (docs/robustness.md, "The fifth campaign").
fz="$BUILD/host/fuzz/fuzz_submit"
if [ -x "$fz" ]; then
	sd=$(BUILD="$BUILD" SHARED="$SHARED" bash tests/fuzz/seeds/fuzz_submit.sh | tail -1)
	runs=("$sd"/mkprog-*)
	if have_shared; then
		for f in "$SHARED"/fixtures/kernels/*/*.bin; do
			[ "$(basename "$f")" = softmax.bin ] || runs+=("$sd/$(basename "$f")")
		done
	fi
	log=$(FUZZ_SUBMIT_STATS=1 "$fz" -rss_limit_mb=2048 "${runs[@]}" 2>&1)
	# (libFuzzer runs the first file once more: every verdict is counted, so none but completed)
	got=$(sed -n 's/^fuzz_submit: reach *\([0-9]*\)  completed: every TD$/\1/p' <<<"$log")
	other=$(grep '^fuzz_submit: reach' <<<"$log" | grep -vc '  completed: every TD$')
	if [ "${got:-0}" -ge "${#runs[@]}" ] && [ "$other" -eq 0 ]; then
		t_pass "ctrl.fuzz_submit_runs_its_seeds_on_the_model (${#runs[@]} programs, every TD)"
	else
		t_fail ctrl.fuzz_submit_runs_its_seeds_on_the_model \
			"${got:-0} of ${#runs[@]} ran every TD: $(grep '^fuzz_submit: reach' <<<"$log" | grep -v completed | head -3 | tr '\n' ' ')"
	fi
else
	t_fail ctrl.fuzz_submit_runs_its_seeds_on_the_model "fuzz target not built (make test builds it: make fuzz-build)"
fi
t_done
