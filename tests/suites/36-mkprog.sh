# anefw-tool mkprog: the default program (app/default.desc, what `make run` runs) is written,
# submits on the host with its default grants (per TD: what was programmed and moved, the
# activation applied; a .hwx container, and the same run as --raw's bare task stream), and the
# firmware runs it on each board through its submission queue with the same trace (trace=1) and
# a completion. Its outputs are compared with the numpy oracle's references (the host tool's
# --ref, the firmware's ref:, `make run` itself): one line per output, ok; a corrupted reference
# is a MISMATCH and a nonzero exit. The firmware image links fw/codec's palette and sparse
# decoders (the engine model decodes streamed weights with them). Malformed descriptions are
# refused with their named error and a nonzero exit. A folded palette reused by a later TD of
# another shape decodes that TD's own values (fold_reuse_*).
. tests/lib.sh
TOOL="$BUILD/host/anefw-tool"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
prog="$work/default.hwx"

if out=$("$TOOL" mkprog app/default.desc "$prog" 2>&1) && [ -s "$prog" ]; then
	t_pass "mkprog.default_written ($(wc -c <"$prog") bytes)"
else
	t_fail mkprog.default_written "$out"
fi

host=$("$TOOL" submit --trace "$prog" 2>&1); rc=$?
ntd=$(grep -c '^td [0-9]*: [0-9]* writes' <<<"$host")
if [ "$rc" -eq 0 ] && grep -q '^submit: completed' <<<"$host" &&
   grep -q '^submit: canaries intact' <<<"$host" && [ "$ntd" -eq 4 ]; then
	t_pass "mkprog.default_submits ($ntd tds)"
else
	t_fail mkprog.default_submits "exit $rc, $ntd td lines: $(grep '^submit:' <<<"$host" | tr '\n' ' ')"
fi
# three weight layers read one coefficient channel each and get the kernel unit's streams;
# the last TD applies the relu6 record from the activation-LUT stream
w=$(grep -c '^td [012]: .*1 coefficient channel,.*kernel-unit streams programmed' <<<"$host")
a=$(grep -c '^td 3: activation: kernel-unit stream @0x[0-9a-f]*, mode linear, no knots, applied to 1024 fp16 values' <<<"$host")
n=$(grep -c '^td [012]: activation: none' <<<"$host")
if [ "$w" -eq 3 ] && [ "$a" -eq 1 ] && [ "$n" -eq 3 ]; then
	t_pass mkprog.default_layers_and_activation
else
	t_fail mkprog.default_layers_and_activation "weights $w/3, activation $a/1, none $n/3"
fi

# inspect (and submit's "computes:") says what the model does with a kernel unit's weight layers
# (review E, finding 1): each output channel x the unit's post-scale stream + its bias stream, and
# SparseFmt there read as mask-and-values sparse, not as the stride-2 phase-sparse format
ins=$("$TOOL" inspect "$prog" --brief 2>&1)
ku=$(grep -c '^  NE: convolution .* from the kernel unit .*x a post-scale an output channel (the kernel unit.s post-scale stream), + a bias an output channel (the kernel unit.s bias stream), x PostScale 1$' <<<"$ins")
sp=$(grep -c '^  NE: .*16 -> 16 channels, kernels fp16 from the kernel unit .*, mask-and-values sparse' <<<"$ins")
ph=$(grep -c 'phase-sparse' <<<"$ins")
cm=$(grep -c '^td [012]: computes: .*from the kernel unit.*bias stream' <<<"$host")
if [ "$ku" -eq 3 ] && [ "$sp" -eq 1 ] && [ "$ph" -eq 0 ] && [ "$cm" -eq 3 ]; then
	t_pass mkprog.inspect_names_the_kernel_units_scale_bias_and_sparse
else
	t_fail mkprog.inspect_names_the_kernel_units_scale_bias_and_sparse "per-channel $ku/3, mask-and-values $sp/1, phase-sparse $ph/0, computes $cm/3"
fi
# inspect --json lists the kernel unit's activation-LUT stream record among "luts" as the text
# does (before, --json left it out and gave an empty list): TD 3's relu6 record read as linear;
# with its mode word (slot 42, stream +84) set to 0x1234 the entry carries the model's refusal
# name and no reading (the file edited at the offset that entry gives)
jl() { "$TOOL" inspect --json "$1" 2>&1 | "$PYTHON" -c '
import json, sys
r = [e for e in json.load(sys.stdin)["luts"] if e.get("stream") == "kernel-unit"]
print(len(r), *[(e["td"], e.get("reads_as"), e.get("error"), e["file_offset"]) for e in r])' 2>&1; }
j1=$(jl "$prog")
off=$(sed -n 's/^1 (3, .*, \([0-9]*\))$/\1/p' <<<"$j1")
cp "$prog" "$work/garbled.hwx"
[ -n "$off" ] && "$PYTHON" -c '
import struct, sys
b = bytearray(open(sys.argv[1], "rb").read())
struct.pack_into("<H", b, int(sys.argv[2]) + 84, 0x1234)
open(sys.argv[1], "wb").write(bytes(b))' "$work/garbled.hwx" "$off"
j2=$(jl "$work/garbled.hwx")
if [[ "$j1" == "1 (3, 'linear', None, "* ]] && [[ "$j2" == "1 (3, None, 'actlut-"* ]]; then
	t_pass mkprog.inspect_json_lists_the_kernel_units_stream_record
else
	t_fail mkprog.inspect_json_lists_the_kernel_units_stream_record "as built: '$j1' (want TD 3 read as linear); mode word 0x1234: '$j2' (want an actlut- error, no reading)"
fi
# ... as the model computes: one int8 layer over a zero input gives the unit's bias, and over a
# one-hot input the int8 weights x 1/64 (numpy from docs/control-path.md's definition: bias[o] =
# ((o + 0) mod 7 - 3) / 8, post-scale 1/64); the words "kernels int8, x PostScale 1" alone gave
# 0 and the integer weights
printf 'input w=2 h=1 c=4\nlayer int8 cout=16\n' >"$work/int8one.desc"
if "$TOOL" mkprog "$work/int8one.desc" "$work/int8one.hwx" >/dev/null 2>&1 &&
   "$PYTHON" -c 'import numpy as np, sys
x = np.zeros((4, 1, 2), np.float16); x[0, 0, 1] = 1.0
np.save(sys.argv[1], x)' "$work/int8one_in.npy" &&
   "$TOOL" run "$work/int8one.hwx" --in "input=$work/int8one_in.npy" --out "output_0=$work/int8one_out.npy" >/dev/null 2>&1 &&
   out=$("$PYTHON" -c 'import numpy as np, sys
y = np.load(sys.argv[1]).astype(np.float64)[:, 0, :]
bias = ((np.arange(16) % 7) - 3) / 8.0
w = (y[:, 1] - y[:, 0]) * 64
ok = np.array_equal(y[:, 0], bias) and np.all(np.abs(w - np.round(w)) < 0.02) and np.all(np.abs(w) <= 128) and np.any(w != 0)
print("ok" if ok else "zero input %s, one-hot x 64 %s" % (y[:, 0], w))' "$work/int8one_out.npy" 2>&1) && [ "$out" = ok ]; then
	t_pass mkprog.int8_layer_is_unit_scale_and_bias
else
	t_fail mkprog.int8_layer_is_unit_scale_and_bias "${out:-mkprog or run failed}"
fi

# the default output is a .hwx container with named windows; --raw writes the bare task stream,
# and both run the same (the traces differ only in addresses: grants, ranges, BAR values)
if "$TOOL" validate --hwx "$prog" >/dev/null 2>&1 &&
   "$TOOL" inspect "$prog" 2>&1 | grep -q '^program: hwx container, generation H13' &&
   "$TOOL" inspect "$prog" 2>&1 | grep -q '"input" .* bar 5'; then
	t_pass mkprog.default_is_hwx_container
else
	t_fail mkprog.default_is_hwx_container "$("$TOOL" inspect "$prog" 2>&1 | head -3 | tr '\n' ' ')"
fi
rawprog="$work/default.raw"
if "$TOOL" mkprog --raw app/default.desc "$rawprog" >/dev/null 2>&1 &&
   "$TOOL" inspect "$rawprog" 2>&1 | grep -q '^program: raw'; then
	# engine addresses (the session's buffers, 0x400xxxxx) are masked
	strip() { grep -v -e 'grant bar' -e ' range ' -e 'tq BAR\[' -e '^submit: \(hwx\|raw\) program' |
		sed -E 's/0x400[0-9a-f]{5}/ADDR/g'; }
	rawtrace=$("$TOOL" submit --trace "$rawprog" 2>&1)
	if [ "$(strip <<<"$rawtrace")" = "$(strip <<<"$host")" ] && grep -q '^submit: completed' <<<"$rawtrace"; then
		t_pass mkprog.raw_and_hwx_run_the_same
	else
		t_fail mkprog.raw_and_hwx_run_the_same "$(diff <(strip <<<"$rawtrace") <(strip <<<"$host") | head -4 | tr '\n' ' ')"
	fi
else
	t_fail mkprog.raw_and_hwx_run_the_same "mkprog --raw failed or wrote no raw stream"
fi

for b in $TEST_BOARDS; do
	elf="$BUILD/$b/anefw.elf"
	[ -f "$elf" ] || { t_fail "mkprog.$b.default_runs" "no $elf (make test builds it)"; continue; }
	tout=$(set -o pipefail; qemu_run --board "$b" --timeout 120 "$elf" "program=$prog" trace=1 2>&1 | tr -d '\r'); rc=$?
	tgt=$(sed -n '/^submit: /,/^submit: canaries/p' <<<"$tout")
	if [ "$rc" -eq 0 ] && [ -n "$tgt" ] && [ "$tgt" = "$host" ] && grep -q '^anefw: done' <<<"$tout" &&
	   grep -q '^completion: id 1 done (ok)' <<<"$tout"; then
		t_pass "mkprog.$b.default_runs (trace identical to the host's, completion posted)"
	else
		t_fail "mkprog.$b.default_runs" "exit $rc; $(diff <(echo "$host") <(echo "$tgt") | head -3 | tr '\n' ' ')"
	fi
done

# the outputs against the numpy oracle (tests/oracle/gen_mkprog.py: build/testdata/mkprog)
refdir="$BUILD/testdata/mkprog"
refargs=() fwrefs=()
for f in "$refdir"/default.ref.output_*.npy; do
	[ -f "$f" ] || continue
	n=${f##*.ref.}; n=${n%.npy}
	refargs+=(--ref "$n=$f"); fwrefs+=("ref:$n=$f")
done
okline='^output output_[0-3]: [0-9]* values, max abs error 0\.000 vs reference (tolerance [0-9]*\.[0-9]*): ok$'
if [ "${#refargs[@]}" -ne 8 ]; then
	t_fail mkprog.host_outputs_match_oracle "no references in $refdir (make generates them)"
else
	out=$("$TOOL" run "$prog" "${refargs[@]}" 2>&1); rc=$?
	nok=$(grep -c "$okline" <<<"$out")
	if [ "$rc" -eq 0 ] && [ "$nok" -eq 4 ] &&
	   grep -q '^output output_0: 2048 values, max abs error 0.000 vs reference (tolerance 0.005): ok$' <<<"$out"; then
		t_pass "mkprog.host_outputs_match_oracle ($nok outputs)"
	else
		t_fail mkprog.host_outputs_match_oracle "exit $rc, $nok ok lines: $(grep '^output' <<<"$out" | tr '\n' ' ')"
	fi
	# negative: one reference value changed (output_2's first element + 1.0 in fp16 bits) fails
	bad="$work/bad.output_2.npy"
	cp "$refdir/default.ref.output_2.npy" "$bad"
	$PYTHON - "$bad" <<'PY'
import sys, numpy as np
a = np.load(sys.argv[1]); a.flat[0] = np.float16(float(a.flat[0]) + 1.0); np.save(sys.argv[1], a)
PY
	out=$("$TOOL" run "$prog" --ref "output_2=$bad" 2>&1); rc=$?
	if [ "$rc" -ne 0 ] && grep -q '^output output_2: 2048 values, max abs error 1\.000 vs reference (tolerance 0\.011): MISMATCH$' <<<"$out"; then
		t_pass mkprog.host_corrupted_reference_mismatches
	else
		t_fail mkprog.host_corrupted_reference_mismatches "exit $rc: $(grep '^output' <<<"$out")"
	fi
fi

for b in $TEST_BOARDS; do
	elf="$BUILD/$b/anefw.elf"
	[ -f "$elf" ] || { t_fail "mkprog.$b.firmware_compares_outputs" "no $elf (make test builds it)"; continue; }
	[ "${#fwrefs[@]}" -eq 4 ] || { t_fail "mkprog.$b.firmware_compares_outputs" "no references"; continue; }
	# the default is the concise per-TD summary: no register writes or moves
	tout=$(set -o pipefail; qemu_run --board "$b" --timeout 120 "$elf" "program=$prog" "${fwrefs[@]}" 2>&1 | tr -d '\r'); rc=$?
	nok=$(grep -c "$okline" <<<"$tout")
	if [ "$rc" -eq 0 ] && [ "$nok" -eq 4 ] && ! grep -q '^  write \|^  move ' <<<"$tout" &&
	   grep -q '^td 3: activation: kernel-unit stream' <<<"$tout"; then
		t_pass "mkprog.$b.firmware_compares_outputs ($nok ok, concise)"
	else
		t_fail "mkprog.$b.firmware_compares_outputs" "exit $rc, $nok ok: $(grep '^output' <<<"$tout" | tr '\n' ' ')"
	fi
	tout=$(set -o pipefail; qemu_run --board "$b" --timeout 120 "$elf" "program=$prog" "ref:output_2=$bad" 2>&1 | tr -d '\r'); rc=$?
	if [ "$rc" -ne 0 ] && grep -q '^output output_2: .*: MISMATCH$' <<<"$tout"; then
		t_pass "mkprog.$b.firmware_mismatch_fails"
	else
		t_fail "mkprog.$b.firmware_mismatch_fails" "exit $rc: $(grep '^output' <<<"$tout")"
	fi
	# the image links and uses the streamed-weight decoders (issue 12); the check itself fails on
	# an object without them
	has_decoders() { local s; s=$(aarch64-linux-gnu-nm "$1" 2>/dev/null) &&
		grep -q ' T codec_palette_decode$' <<<"$s" && grep -q ' T codec_sparse_decode$' <<<"$s"; }
	probe=$(find "$BUILD/$b/obj/hal" -name '*.o' | head -1)
	if has_decoders "$elf" && [ -n "$probe" ] && ! has_decoders "$probe"; then
		t_pass "mkprog.$b.image_links_palette_and_sparse_decoders"
	else
		t_fail "mkprog.$b.image_links_palette_and_sparse_decoders" "$(aarch64-linux-gnu-nm "$elf" | grep -c codec_) codec symbols"
	fi
done

# make run itself (qemu-virt): the built-in program, every output ok against the oracle
if [ -f "$BUILD/qemu-virt/anefw.elf" ] && [[ " $TEST_BOARDS " == *" qemu-virt "* ]]; then
	out=$(set -o pipefail; make --no-print-directory -s run BOARD=qemu-virt 2>&1 | tr -d '\r'); rc=$?
	nok=$(grep -c "$okline" <<<"$out")
	if [ "$rc" -eq 0 ] && [ "$nok" -eq 4 ] && grep -q '^completion: id 1 done (ok)' <<<"$out"; then
		t_pass "mkprog.make_run_compares_outputs ($nok outputs ok)"
	else
		t_fail mkprog.make_run_compares_outputs "exit $rc, $nok ok lines"
	fi
	# a summary that ends in its verdict within a screenful (the dump comes with trace=1)
	nl=$(grep -c . <<<"$out"); last=$(tail -n1 <<<"$out")
	if [ "$nl" -le 40 ] && [ "$last" = "anefw: done: ok: 4 outputs within tolerance of their references" ]; then
		t_pass "mkprog.make_run_ends_in_its_verdict ($nl lines)"
	else
		t_fail mkprog.make_run_ends_in_its_verdict "$nl lines, last '$last'"
	fi
else
	t_not_run mkprog.make_run_compares_outputs "qemu-virt is not in TEST_BOARDS ($TEST_BOARDS)"
fi

# malformed descriptions: the named error, exit 1, no output file
bad() {
	local name=$1 want=$2 text=$3
	printf '%b' "$text" >"$work/$name.desc"
	local out rc
	out=$("$TOOL" mkprog "$work/$name.desc" "$work/$name.hwx" 2>&1); rc=$?
	if [ "$rc" -eq 1 ] && grep -q "$want" <<<"$out" && [ ! -e "$work/$name.hwx" ]; then
		t_pass "mkprog.refuse.$name"
	else
		t_fail "mkprog.refuse.$name" "exit $rc: $out"
	fi
}
bad unknown_kind ':2: desc-unknown-keyword' 'input w=8\nlayer fp32\n'
bad bad_density ':1: desc-bad-value' 'layer sparse density=0\n'
bad two_activations ':3: desc-two-activations' 'layer int8\nactivation relu\nactivation relu\n'
bad empty 'desc-no-layers' '# nothing here\n'
bad too_large 'desc-program-too-large' 'input w=4096 h=4096 c=4096\nlayer int8\n'
bad sparse_cin ':3: desc-sparse-cin-differs' 'input c=16\nlayer sparse cout=8\nlayer sparse from=prev cout=4\n'
# what was found and what was expected: the word, the line, the statements (or the channels)
bad unknown_kind_word ":2: desc-unknown-keyword: an unknown keyword, layer kind, key or activation; 'fp32' is not a word this statement takes; the statements: input w= h= c=; layer int8|sparse|paletteN" 'input w=8\nlayer fp32\n'
bad unknown_key_word ":3: desc-unknown-keyword: an unknown keyword, layer kind, key or activation; 'fromm=prev' is not a word" 'input w=8\n\nlayer int8 fromm=prev\n'
bad bad_value_word ":1: desc-bad-value: a number missing, malformed or out of its range; at 'density=0'" 'layer sparse density=0\n'
bad cin_channels ":2: desc-cin-differs-from-input: a layer's cin differs from the channels it reads; cin=32, but the statement reads 16 channels" 'input c=16\nlayer int8 cin=32\n'
bad line_echoed "^    3 | layer int8 fromm=prev$" 'input w=8\n\nlayer int8 fromm=prev\n'
# a value out of its range says the range ("out of its range" alone before): palette widths,
# the input's dimensions (1..4096), a pool's padding (below its window), from=
bad palette5_says_the_widths ":1: desc-bad-value: .*; at 'palette5', which takes palette1, palette2, palette3, palette4, palette6 or palette8 (1 to 8 bits a weight, but 5 and 7)$" 'layer palette5\n'
bad width_says_the_range ":2: desc-bad-value: .*; at 'w=5000', which takes 1 to 4096$" 'layer int8\ninput w=5000\n'
bad pad_says_the_range ":1: desc-bad-value: .*; at 'pad=2', which takes 0 to 1$" 'pool max k=2 pad=2\n'
bad from_says_the_words ":1: desc-bad-value: .*; at 'from=next', which takes prev or input$" 'layer int8 from=next\n'
# a byte that is no text is named, and the excerpt escapes it (a binary file's bytes went to the
# terminal raw, and a NUL ended the excerpt)
bad binary_byte_named ":1: desc-syntax: .*; byte 0x01 at column 11 is no printable ASCII" 'layer int8\x01\xff\n'
bad binary_byte_escaped '^    1 | layer int8\\x01\\xff$' 'layer int8\x01\xff\n'
if have_shared; then
	out=$("$TOOL" mkprog "$SHARED/fixtures/kernels/unary/tanh.bin" "$work/tanh.hwx" 2>&1); rc=$?
	if [ "$rc" -eq 1 ] && ! LC_ALL=C grep -q '[^[:print:]]' <<<"$out" && grep -q 'byte 0x00 at column 1 is no printable ASCII' <<<"$out" &&
	   grep -q '^    1 | \\x00\\x00\\x00\\x02' <<<"$out" && [ ! -e "$work/tanh.hwx" ]; then
		t_pass mkprog.refuse.binary_file_excerpt_is_text
	else
		t_fail mkprog.refuse.binary_file_excerpt_is_text "exit $rc: $(LC_ALL=C cat -v <<<"$out" | head -c 300)"
	fi
else
	t_skip mkprog.refuse.binary_file_excerpt_is_text "no ../shared"
fi
# A folded palette serves a later TD only where it decodes the same values: two palette layers
# over one OCG record (TD 1's CoeffBaseAddr pointed at TD 0's), TD 1 reading 8 values a channel
# where TD 0 reads 4, against numpy from the kernel unit's layout (tests/oracle/fold_reuse_check.py),
# at widths H13 folds (1, 2, 3, 6) and streams (4, 8); its negative holds TD 1 to TD 0's decode.
mkdir -p "$work/fold"
for b in 1 2 3 4 6 8; do
	if out=$("$PYTHON" tests/oracle/fold_reuse_check.py "$TOOL" "$work/fold" "$b" 2>&1); then
		t_pass "mkprog.fold_reuse_palette$b"
	else
		t_fail "mkprog.fold_reuse_palette$b" "$out"
	fi
done
if out=$("$PYTHON" tests/oracle/fold_reuse_check.py "$TOOL" "$work/fold" 2 --wrong 2>&1); then
	t_fail mkprog.fold_reuse_checker_fails_on_a_wrong_reference "$out"
else
	t_pass mkprog.fold_reuse_checker_fails_on_a_wrong_reference
fi
out=$("$TOOL" mkprog --bogus app/default.desc "$work/x.hwx" 2>&1); rc=$?
if [ "$rc" -ne 0 ] && grep -q 'expected \[--raw\] DESC OUT' <<<"$out" && [ ! -e "$work/x.hwx" ]; then
	t_pass mkprog.refuse.unknown_option
else
	t_fail mkprog.refuse.unknown_option "exit $rc: $out"
fi
t_done
