# The model fails loudly (issue 21 §1): a TD the model cannot interpret faults, and every front
# end says so without --trace. One test per refusal class, each on an edited copy of a real
# fixture written to a temporary directory: an activation record it cannot read, a register
# field value with no modelled meaning, a combination of units it does not model (and a fault
# in a later TD, named by its index). Each run must exit nonzero, print the TD index, the
# register field (named from the register map), the value and why, and leave no output file
# (nor a partial one) behind. The firmware under QEMU (the `make run` path) and the remote
# client over a local service say the same.
. tests/lib.sh
TOOL="$BUILD/host/anefw-tool"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

if ! have_shared; then
	t_skip loud "../shared absent"
	t_done
	exit
fi
HWX="$SHARED/fixtures/hwx"

# edit COPY TD REG FIELD_LSB FIELD_WIDTH VALUE: sets a field of TD's (last) write of register REG
# (its name as inspect --json gives it) in the file COPY, in place, at the offset inspect reports.
edit_reg() {
	"$TOOL" inspect --json "$1" | "$PYTHON" -c '
import json, struct, sys
path, td, reg, lsb, width, val = sys.argv[1], int(sys.argv[2]), sys.argv[3], int(sys.argv[4]), int(sys.argv[5]), int(sys.argv[6], 0)
w = [r for r in json.load(sys.stdin)["tds"][td]["registers"] if r["reg"] == reg]
if not w: sys.exit("no write of %s in td %d" % (reg, td))
b = bytearray(open(path, "rb").read())
off = w[-1]["file_off"]
mask = ((1 << width) - 1) << lsb
v = struct.unpack_from("<I", b, off)[0]
struct.pack_into("<I", b, off, (v & ~mask) | ((val << lsb) & mask))
open(path, "wb").write(bytes(b))
' "$1" "$2" "$3" "$4" "$5" "$6"
}

# set_mode_word COPY RECORD_OFF WORD [WAS]: writes WORD into slot 42 (the mode word, byte 84) of
# the activation record at file offset RECORD_OFF in COPY, in place; with WAS, only if the slot
# held WAS (else it fails, naming what it found).
set_mode_word() {
	"$PYTHON" -c '
import struct, sys
path, off, word = sys.argv[1], int(sys.argv[2], 0) + 84, int(sys.argv[3], 0)
b = bytearray(open(path, "rb").read())
if len(sys.argv) > 4 and struct.unpack_from("<H", b, off)[0] != int(sys.argv[4], 0):
    sys.exit("slot 42 at 0x%x holds 0x%x, not %s" % (off, struct.unpack_from("<H", b, off)[0], sys.argv[4]))
struct.pack_into("<H", b, off, word)
open(path, "wb").write(bytes(b))
' "$@"
}

# inspect_count FILE GREP_ARGS...: how many lines of inspect's text for FILE match (grep -c with
# GREP_ARGS: options, then the pattern); 0 when none, or when inspect fails.
inspect_count() {
	local f=$1
	shift
	"$TOOL" inspect "$f" 2>&1 | grep -c "$@" || true
}

# check_refused NAME FILE OUT_TENSOR PATTERN...: `run` (and `submit`) exit nonzero, every PATTERN
# (an extended regex) is in the fault text (the line after "engine-fault: "), `run` reports the
# output not produced, and neither OUT nor OUT.part exists afterwards. Returns 1 with $bad saying
# what was wrong; $line is the fault text.
check_refused() {
	local name=$1 f=$2 tensor=$3
	shift 3
	local y="$work/$name.npy" rc
	bad=""
	out=$("$TOOL" run "$f" --out "$tensor=$y" 2>&1); rc=$?
	line=$(sed -n 's/^submit: engine failed: engine-fault: //p' <<<"$out")
	[ "$rc" -ne 0 ] || bad="run exit 0"
	[ -n "$line" ] || bad="$bad; no fault line"
	for p in "$@"; do
		grep -Eq -- "$p" <<<"$line" || bad="$bad; no '$p'"
	done
	[ ! -e "$y" ] && [ ! -e "$y.part" ] || bad="$bad; an output file was written"
	grep -q "^run: $tensor: output-not-produced" <<<"$out" || bad="$bad; no output-not-produced"
	local sout
	sout=$("$TOOL" submit "$f" 2>&1); rc=$?
	[ "$rc" -ne 0 ] && grep -q '^submit: engine failed: engine-fault: td ' <<<"$sout" ||
		bad="$bad; submit exit $rc"
	bad=${bad#; }
	[ -z "$bad" ]
}

refused() {
	local name=$1
	if check_refused "$@"; then
		t_pass "loud.$name ($line)"
	else
		t_fail "loud.$name" "$bad: $(grep -E '^(submit|run):' <<<"$out" | tr '\n' ' ')"
	fi
}

# the unedited fixtures complete and write their outputs (the checks below can pass only by a
# refusal, not by a tool that fails every run)
for f in sigmoid relu concat; do
	tensor=$("$TOOL" inspect --json "$HWX/$f.hwx" | "$PYTHON" -c '
import json, sys
print([t["name"] for t in json.load(sys.stdin)["tensors"] if t["role"] == "output"][0])')
	if "$TOOL" run "$HWX/$f.hwx" --out "$tensor=$work/ok-$f.npy" >/dev/null 2>&1 &&
	   [ -s "$work/ok-$f.npy" ] && [ ! -e "$work/ok-$f.npy.part" ]; then
		t_pass "loud.unedited_runs.$f"
	else
		t_fail "loud.unedited_runs.$f"
	fi
	eval "out_$f=\$tensor"
done

# 1. an activation record the model cannot read: sigmoid.hwx's record (slot 42, the mode word,
#    at file offset 0x4280 + 84) set to 0x1234
cp "$HWX/sigmoid.hwx" "$work/act.hwx"
set_mode_word "$work/act.hwx" 0x4280 0x1234
refused act_record "$work/act.hwx" "$out_sigmoid" '^td 0, ' 'record @0x[0-9a-f]+ slot 42 = 0x1234' \
	'KernelDMASrc.CoeffBaseAddr\[0\]' 'unreadable-activation-record: mode word'

# 1b. inspect reads each record as the model does: the unedited sigmoid.hwx record as the plain
#     table, the garbled one "does not read" with the loader's error (and not the other way round)
ins_ok=$(inspect_count "$HWX/sigmoid.hwx" 'reads as: plain (mode word 0x01')
ins_bad=$(inspect_count "$work/act.hwx" 'does not read: actlut-unknown-mode')
ins_neg=$(inspect_count "$work/act.hwx" 'reads as: ')
if [ "$ins_ok" = 1 ] && [ "$ins_bad" = 1 ] && [ "$ins_neg" = 0 ]; then
	t_pass loud.inspect_reads_records_as_the_model
else
	t_fail loud.inspect_reads_records_as_the_model "unedited $ins_ok, garbled $ins_bad (read as a kind: $ins_neg)"
fi

# 1c. inspect says what a linear-only record computes: leakyrelu.bin's slope 0.01 below 0 and
#     the identity above; ceil.bin's step (its third record), 0 below, 1 above, clamped to
#     +-2^-24. The negatives: hardtanh.bin's lines are not leakyrelu's, and a table record
#     (sigmoid.hwx) gets no lines.
KER="$SHARED/fixtures/kernels"
lr_want='lines: y = 0.010002 x + 0 for x < 0, y = 1 x + 0 for x > 0, y = 0 at x = 0; x clamped to [-inf, inf]'
step_want='lines: y = 0 x + 0 for x < 0, y = 0 x + 1 for x > 0, y = 0 at x = 0; x clamped to [-2^-24, 2^-24], the lines'"'"' y to between 0 and 1'
lr=$(inspect_count "$KER/activation/leakyrelu.bin" -F "$lr_want")
st=$(inspect_count "$KER/unary/ceil.bin" -F "$step_want")
ht=$(inspect_count "$KER/activation/hardtanh.bin" -F "$lr_want")
sg=$(inspect_count "$HWX/sigmoid.hwx" 'lines: ')
if [ "$lr" = 1 ] && [ "$st" = 1 ] && [ "$ht" = 0 ] && [ "$sg" = 0 ]; then
	t_pass loud.inspect_prints_a_linear_records_lines
else
	t_fail loud.inspect_prints_a_linear_records_lines "leakyrelu $lr, ceil's step $st (1 each); hardtanh as leakyrelu $ht, sigmoid's table $sg (0 each)"
fi
# 1d. and where a table record's knots sit: tanh.bin's 33 knots over |x| in [0, 4] (odd, s 3);
#     the negatives: sigmoid.hwx's plain table is not that, and a linear record has no knots line
tanh_want='knots: 33 at |x| = 0 .. 4, every 2^-3, the tail lines beyond; |x| clamped to [0, 4]'
th=$(inspect_count "$KER/unary/tanh.bin" -F "$tanh_want")
sk=$(inspect_count "$HWX/sigmoid.hwx" -F "$tanh_want")
lk=$(inspect_count "$KER/activation/leakyrelu.bin" 'knots: ')
if [ "$th" = 1 ] && [ "$sk" = 0 ] && [ "$lk" = 0 ]; then
	t_pass loud.inspect_prints_where_a_tables_knots_sit
else
	t_fail loud.inspect_prints_where_a_tables_knots_sit "tanh $th (1); sigmoid.hwx as tanh $sk, leakyrelu's knots line $lk (0 each)"
fi

# 1d'. and how a split record computes: exp.bin's 2^x as T(f) x 2^n, inv.bin's 1/x as
#      T(m) x 2^-e with the sign of x; the negatives: sqrt.bin's line is not inv.bin's, and a
#      table record (tanh.bin) has no split line
exp_want='split: x = n + f (n = floor(x)), y = T(f) x 2^n; knots at f = 0 .. 1, every 2^-5'
inv_want='split: |x| = m x 2^e (m in [0.5, 1)), y = T(m) x 2^-e; knots at m = 0.5 .. 1, every 2^-6; y takes the sign of x'
ex=$(inspect_count "$KER/unary/exp.bin" -xF "    $exp_want")
iv=$(inspect_count "$KER/unary/inv.bin" -xF "    $inv_want")
sq=$(inspect_count "$KER/unary/sqrt.bin" -xF "    $inv_want")
tn=$(inspect_count "$KER/unary/tanh.bin" 'split: ')
# exp.bin with |x| taken (mode word 0x4a): 2^|x|, said so
cp "$KER/unary/exp.bin" "$work/exp_abs.bin"
set_mode_word "$work/exp_abs.bin" 0x280 0x4a 0x0a
ea=$(inspect_count "$work/exp_abs.bin" -F 'split: |x| = n + f (n = floor(|x|)), y = T(f) x 2^n')
if [ "$ex" = 1 ] && [ "$iv" = 1 ] && [ "$ea" = 1 ] && [ "$sq" = 0 ] && [ "$tn" = 0 ]; then
	t_pass loud.inspect_prints_how_a_split_record_computes
else
	t_fail loud.inspect_prints_how_a_split_record_computes "exp $ex, inv $iv, exp of |x| $ea (1 each); sqrt as inv $sq, tanh's split line $tn (0 each)"
fi

# 1e. inspect --json gives each record's reading too: sigmoid.hwx's as plain (mode 1, scale 1),
#     the garbled copy's as the loader's error and no reading
js=$("$TOOL" inspect --json "$HWX/sigmoid.hwx" 2>&1 | "$PYTHON" -c '
import json, sys
r = json.load(sys.stdin)["luts"]
print(len(r), r[0].get("reads_as"), r[0].get("mode"), r[0].get("scale"), r[0].get("error"))' 2>&1)
jb=$("$TOOL" inspect --json "$work/act.hwx" 2>&1 | "$PYTHON" -c '
import json, sys
r = json.load(sys.stdin)["luts"]
print(len(r), r[0].get("reads_as"), r[0].get("error"))' 2>&1)
if [ "$js" = "1 plain 1 1 None" ] && [ "$jb" = "1 None actlut-unknown-mode" ]; then
	t_pass loud.inspect_json_reads_records_as_the_model
else
	t_fail loud.inspect_json_reads_records_as_the_model "sigmoid.hwx: '$js' (want '1 plain 1 1 None'); garbled: '$jb' (want '1 None actlut-unknown-mode')"
fi

# 2. a register field value with no modelled meaning: relu.hwx with NE.MACCfg.NonlinearMode 3
cp "$HWX/relu.hwx" "$work/field.hwx"
edit_reg "$work/field.hwx" 0 NE.MACCfg 16 2 3
refused field "$work/field.hwx" "$out_relu" '^td 0, unit NE, NE.MACCfg.NonlinearMode = 0x3: unmodelled-field: '

# 3. a combination the model does not model: sigmoid.hwx writing an int8 output (ChCfg.OutFmt 0)
#    through a UINT8 tile DMA (TileDMADst.Fmt bits 0-13 0, as Apple's bool results leave) while
#    L2.ResultCfg.DMAFmt stays 16-bit
cp "$HWX/sigmoid.hwx" "$work/combo.hwx"
edit_reg "$work/combo.hwx" 0 Common.ChCfg 4 2 0
edit_reg "$work/combo.hwx" 0 TileDMADst.Fmt 0 14 0
refused combination "$work/combo.hwx" "$out_sigmoid" \
	'^td 0, unit L2, L2.ResultCfg.DMAFmt = 0x1: unmodelled-combination: .*8-bit'

# 4. the TD index is the faulting TD's: concat.hwx with TD 1's NE.MACCfg.NonlinearMode 3
cp "$HWX/concat.hwx" "$work/td1.hwx"
edit_reg "$work/td1.hwx" 1 NE.MACCfg 16 2 3
refused later_td "$work/td1.hwx" "$out_concat" '^td 1, unit NE, NE.MACCfg.NonlinearMode = 0x3: '

# 5. softmax.bin (raw) with what its evidence does not pin down: TD 1's subtraction of the row's
#    maximum (SecSrc 3) made a multiply, and TD 0's reduction given NLMode 2 (docs/engine-model.md,
#    "Reductions into L2 memory")
SM="$SHARED/fixtures/kernels/activation/softmax.bin"
cp "$SM" "$work/sm-mul.bin"
edit_reg "$work/sm-mul.bin" 1 Planar.Cfg 2 3 1
refused softmax_secsrc3_mul "$work/sm-mul.bin" bar4 \
	'^td 1, unit Planar, Planar.Cfg.SecSrc = 0x3: unmodelled-combination: .*second operand subtracted.* other than add'
cp "$SM" "$work/sm-nl.bin"
edit_reg "$work/sm-nl.bin" 0 Planar.Cfg 12 2 2
refused softmax_reduction_nlmode "$work/sm-nl.bin" bar4 \
	'^td 0, unit Planar, Planar.Cfg.NLMode = 0x2: unmodelled-field: .*on a reduction: only 1'

# 6. an activation record whose operation the model reads only with rsqrt's knots: sqrt.bin's
#    record (mode word 0xc5 at file offset 0x280 + 84) relabelled operation 6, rsqrt (0xc6). Its
#    knots are sqrt's, not 1/sqrt's (docs/actlut.md): refused, not evaluated
cp "$SHARED/fixtures/kernels/unary/sqrt.bin" "$work/rsqrt.bin"
set_mode_word "$work/rsqrt.bin" 0x280 0xc6 0xc5
refused act_prediction "$work/rsqrt.bin" bar4 '^td 0, ' 'record @0x[0-9a-f]+ slot 42 = 0x00c6' \
	'unreadable-activation-record: operation 6 \(rsqrt\) with knots'

# 6a. the sign bit where the value before it can be negative: log2.bin's record (0xc9 at file
#     offset 0x280 + 84) relabelled 0x69, log2 with the sign instead of the flush (sign(x) x
#     log2|x| and log2|x| with the sign of x differ below |x| = 1; docs/actlut.md "The sign bit on
#     a negative value"): refused, not evaluated (it completed before the thirteenth review)
cp "$SHARED/fixtures/kernels/unary/log2.bin" "$work/log2s.bin"
set_mode_word "$work/log2s.bin" 0x280 0x69 0xc9
refused act_sign_of_negative "$work/log2s.bin" bar4 '^td 0, ' 'record @0x[0-9a-f]+ slot 42 = 0x0069' \
	'unreadable-activation-record: sign bit \(0x20\) on a record whose value can be negative'

# 6b. a nonzero byte after a record's 43 slots (bytes 86..127 of its 0x80 stride: zero in every
#     real record, docs/actlut.md "The record's last 42 bytes"): sigmoid.hwx's record with byte 86
#     set to 0x01 and tanh.bin's with byte 127 set to 0x3c, refused naming the 16-bit slot that
#     holds the byte and its value; inspect marks each record with the byte and its value (text
#     and --json). The unedited sigmoid.hwx runs above; the unedited tanh.bin runs here.
set_byte() {
	"$PYTHON" -c '
import sys
path, off, val = sys.argv[1], int(sys.argv[2], 0), int(sys.argv[3], 0)
b = bytearray(open(path, "rb").read())
if b[off] != 0:
    sys.exit("byte 0x%x holds 0x%x, not 0" % (off, b[off]))
b[off] = val
open(path, "wb").write(bytes(b))
' "$@"
}
TANH="$SHARED/fixtures/kernels/unary/tanh.bin"
if "$TOOL" run "$TANH" --out "bar4=$work/ok-tanh.npy" >/dev/null 2>&1 && [ -s "$work/ok-tanh.npy" ]; then
	t_pass loud.unedited_runs.tanh
else
	t_fail loud.unedited_runs.tanh
fi
cp "$HWX/sigmoid.hwx" "$work/pad86.hwx"
chmod u+w "$work/pad86.hwx"
set_byte "$work/pad86.hwx" $((0x4280 + 86)) 0x01
refused act_padding_first "$work/pad86.hwx" "$out_sigmoid" '^td 0, ' 'KernelDMASrc.CoeffBaseAddr\[0\]' \
	'record @0x[0-9a-f]+ slot 43 = 0x0001' "unreadable-activation-record: a nonzero byte after the record's 43 slots"
cp "$TANH" "$work/pad127.bin"
chmod u+w "$work/pad127.bin"
set_byte "$work/pad127.bin" $((0x280 + 127)) 0x3c
refused act_padding_last "$work/pad127.bin" bar4 '^td 0, ' 'record @0x[0-9a-f]+ slot 63 = 0x3c00' \
	"unreadable-activation-record: a nonzero byte after the record's 43 slots"
p86=$(inspect_count "$work/pad86.hwx" -F 'does not read: actlut-nonzero-padding: byte 86 = 0x01: ')
p127=$(inspect_count "$work/pad127.bin" -F 'does not read: actlut-nonzero-padding: byte 127 = 0x3c: ')
pok=$(inspect_count "$TANH" 'actlut-nonzero-padding')
pj=$("$TOOL" inspect --json "$work/pad127.bin" 2>&1 | "$PYTHON" -c '
import json, sys
r = json.load(sys.stdin)["luts"]
print(len(r), r[0].get("reads_as"), r[0].get("error"), r[0].get("byte"), r[0].get("value"))' 2>&1)
if [ "$p86" = 1 ] && [ "$p127" = 1 ] && [ "$pok" = 0 ] && [ "$pj" = "1 None actlut-nonzero-padding 127 60" ]; then
	t_pass loud.inspect_marks_a_nonzero_byte_after_the_slots
else
	t_fail loud.inspect_marks_a_nonzero_byte_after_the_slots "byte 86 $p86, byte 127 $p127 (1 each); unedited tanh.bin $pok (0); json '$pj' (want '1 None actlut-nonzero-padding 127 60')"
fi

# 7. where silicon contradicts the plain reading (docs/engine-model.md, "Planar.FinalScale and
#    BiasScale on silicon": on an M1, FinalScale 0 left a product unchanged, and so did BiasScale
#    0): mul.bin with FinalScale written 0, and with its Scale written 0, refused by name
MUL="$SHARED/fixtures/kernels/binary/mul.bin"
cp "$MUL" "$work/mul-fin.bin"
chmod u+w "$work/mul-fin.bin"
edit_reg "$work/mul-fin.bin" 0 Planar.FinalScale 0 32 0
refused pe_finalscale "$work/mul-fin.bin" bar4 \
	'^td 0, unit Planar, Planar.FinalScale = 0x0: unmodelled-field: .*outside a reduction'
cp "$MUL" "$work/mul-scale.bin"
chmod u+w "$work/mul-scale.bin"
edit_reg "$work/mul-scale.bin" 0 Planar.BiasScale 16 16 0
refused pe_product_scale "$work/mul-scale.bin" bar4 \
	'^td 0, unit Planar, Planar.BiasScale = 0x0: unmodelled-field: .*on a product of two operands'

# 8. the experiment silicon ran (allbilly/ane REGISTER_PROGRMMING.md, 12.2: on an M1, sigmoid's
#    NE with MACCfg bit 20 clear gave 0.9995 for sigmoid(3) = 0.9526): sigmoid.hwx with
#    NE.MACCfg.Bit20 cleared, refused by name rather than computed as if set
cp "$HWX/sigmoid.hwx" "$work/sig-bit20.hwx"
edit_reg "$work/sig-bit20.hwx" 0 NE.MACCfg 20 1 0
refused ne_bit20_clear "$work/sig-bit20.hwx" "$out_sigmoid" \
	'^td 0, unit NE, NE.MACCfg.Bit20 = 0x0: unmodelled-field: .*set in every real NE configuration'

# 9. neither unit in the path: relu.hwx with NE.MACCfg written 0 (its PE words are 0), which the
#    plain reading runs as a copy; no real TD is so, and on an M1 this edit hung (allbilly/ane
#    experimental/expt.md, expt1)
cp "$HWX/relu.hwx" "$work/no-unit.hwx"
edit_reg "$work/no-unit.hwx" 0 NE.MACCfg 0 32 0
refused no_unit_in_the_path "$work/no-unit.hwx" "$out_relu" \
	'^td 0, unit NE, NE.MACCfg = 0x0: unmodelled-combination: neither the NE .* nor the planar engine'

# 10. and its complement, what silicon did (expt1, relu's TD, TaskType 0): Planar words written
#     on relu.hwx leave its output as it was, byte for byte (the PE is in the path by
#     Common.Cfg.TaskType alone, docs/engine-model.md "The planar engine's presence"): expt1's
#     own words (PECfg 0x80000, scales 1), and a one-operand "+ 0.5"; the check fails on a wrong
#     answer: that "+ 0.5" under TaskType 2, with the header's ENE 0 as every real TD with the PE
#     has it (TD header word 8, bits 24-26; relu.hwx's TD sits at 0x4000), is relu + 0.5, not relu
"$PYTHON" -c 'import sys, numpy as np; np.save(sys.argv[1], np.linspace(-4, 4, 77).astype(np.float16).reshape(1, 1, 77))' "$work/x.npy"
pe_words() { # FILE PLANAR.CFG BIASSCALE TASKTYPE: relu.hwx with those words, PreScale and FinalScale 1
	cp "$HWX/relu.hwx" "$1"
	edit_reg "$1" 0 Planar.Cfg 0 32 "$2"
	edit_reg "$1" 0 Planar.BiasScale 0 32 "$3"
	edit_reg "$1" 0 Planar.PreScale 0 32 0x3c000000
	edit_reg "$1" 0 Planar.FinalScale 0 32 0x3f800000
	edit_reg "$1" 0 Common.Cfg 4 4 "$4"
	[ "$4" = 0 ] || "$PYTHON" -c '
import struct, sys
b = bytearray(open(sys.argv[1], "rb").read())
w = struct.unpack_from("<I", b, 0x4000 + 32)[0]
struct.pack_into("<I", b, 0x4000 + 32, w & ~(7 << 24))
open(sys.argv[1], "wb").write(bytes(b))' "$1"
	"$TOOL" run "$1" --in "image=$work/x.npy" --out "$out_relu=$1.npy" >/dev/null 2>&1
}
"$TOOL" run "$HWX/relu.hwx" --in "image=$work/x.npy" --out "$out_relu=$work/pe-base.npy" >/dev/null 2>&1
pe_words "$work/pe-expt1.hwx" 0x80000 0x3c000000 0
pe_words "$work/pe-half0.hwx" 0 0x3c003800 0
pe_words "$work/pe-half2.hwx" 0 0x3c003800 2
if [ -s "$work/pe-base.npy" ] && cmp -s "$work/pe-base.npy" "$work/pe-expt1.hwx.npy" &&
   cmp -s "$work/pe-base.npy" "$work/pe-half0.hwx.npy" && [ -s "$work/pe-half2.hwx.npy" ] &&
   ! cmp -s "$work/pe-base.npy" "$work/pe-half2.hwx.npy"; then
	t_pass loud.planar_words_unread_under_tasktype_0
else
	t_fail loud.planar_words_unread_under_tasktype_0 "outputs: $(cd "$work" && ls pe-*.npy | tr '\n' ' ')"
fi

# the checker itself fails on a wrong answer: a run that completes, and a fault named at
# another TD than the one given
if check_refused neg_completes "$HWX/relu.hwx" "$out_relu" '^td 0, '; then
	t_fail loud.checker_fails_on_a_completed_run
else
	t_pass "loud.checker_fails_on_a_completed_run ($bad)"
fi
if check_refused neg_td "$work/td1.hwx" "$out_concat" '^td 0, '; then
	t_fail loud.checker_fails_on_the_wrong_td
else
	t_pass "loud.checker_fails_on_the_wrong_td ($bad)"
fi

# ---- the firmware under QEMU (make run's path) ----
elf="$BUILD/qemu-virt/anefw.elf"
if [[ " $TEST_BOARDS " != *" qemu-virt "* ]] || [ ! -f "$elf" ]; then
	t_skip loud.firmware "qemu-virt not built"
else
	y="$work/fw.npy"
	qemu_run --board qemu-virt --timeout 120 "$elf" "program=$work/act.hwx" \
		"out:$out_sigmoid=$y" >"$work/fw.out" 2>&1; rc=$?
	out=$(tr -d '\r' <"$work/fw.out")
	line=$(sed -n 's/^submit: engine failed: engine-fault: //p' <<<"$out")
	if [ "$rc" -ne 0 ] && grep -q '^td 0, .*record @0x[0-9a-f]* slot 42 = 0x1234' <<<"$line" &&
	   grep -q '^completion: id 1 failed (engine-fault)' <<<"$out" && [ ! -e "$y" ] && [ ! -e "$y.part" ]; then
		t_pass loud.firmware_act_record
	else
		t_fail loud.firmware_act_record "exit $rc: $(grep -E '^(submit|run|completion):' <<<"$out" | tr '\n' ' ')"
	fi
	# the remote client over the command service: the fault reaches it with its TD and field
	port=$("$PYTHON" -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
	qemu_bg --board qemu-virt --timeout 900 --serial-tcp "$port" "$elf" serve=1 >"$work/serve.log" 2>&1
	qpid=$QPID
	trap 'kill "$qpid" 2>/dev/null; rm -rf "$work"' EXIT
	y="$work/remote.npy"
	out=$("$TOOL" remote --connect "127.0.0.1:$port" --wait 60 run "$work/field.hwx" --out "$out_relu=$y" 2>&1); rc=$?
	line=$(sed -n 's/^remote: engine failed: engine-fault: //p' <<<"$out")
	if [ "$rc" -ne 0 ] && grep -q '^td 0, unit NE, NE.MACCfg.NonlinearMode = 0x3: unmodelled-field' <<<"$line" &&
	   [ ! -e "$y" ] && [ ! -e "$y.part" ]; then
		t_pass "loud.remote_field ($line)"
	else
		t_fail loud.remote_field "exit $rc: $(grep '^remote:' <<<"$out" | tr '\n' ' ')"
	fi
	# the same service runs the unedited program afterwards (the engine was reset)
	if "$TOOL" remote --connect "127.0.0.1:$port" --wait 60 run "$HWX/relu.hwx" --out "$out_relu=$y" >"$work/r2.log" 2>&1 &&
	   [ -s "$y" ]; then
		t_pass loud.remote_runs_after_a_fault
	else
		t_fail loud.remote_runs_after_a_fault "$(tail -2 "$work/r2.log" | tr '\n' ' ')"
	fi
	"$TOOL" remote --connect "127.0.0.1:$port" shutdown >/dev/null 2>&1
	wait "$qpid" 2>/dev/null
fi

t_done
