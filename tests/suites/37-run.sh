# Running programs on data (issue 13) and intermediate buffers (issue 14 item 1):
# `inspect --json` lists every tensor (name, BAR, role, dtype, shape, bytes), an intermediate
# among them; a mkprog program whose second TD reads the first's output runs with the default
# grants, container and raw; `anefw-tool run` places .npy and raw inputs (or seeded ones, said
# so) and writes outputs in their logical shape; every argument and file error is named; and the
# firmware, given the same in:NAME=PATH out:NAME=PATH over semihosting, writes the same bytes.
# The programs' results are predicted from what they move, not from what they compute: relu of a
# non-negative input is the input, and concat's output is its inputs one after the other.
. tests/lib.sh
TOOL="$BUILD/host/anefw-tool"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
py() { "$PYTHON" - "$@"; }

printf 'input w=8 h=2 c=16\nlayer int8 cout=32\nactivation relu from=prev\n' >"$work/chain.desc"
printf 'input w=40 h=3 c=4\nactivation relu\n' >"$work/relu.desc"
ok=1
for d in chain relu; do
	"$TOOL" mkprog "$work/$d.desc" "$work/$d.hwx" >/dev/null 2>&1 || ok=0
	"$TOOL" mkprog --raw "$work/$d.desc" "$work/$d.raw" >/dev/null 2>&1 || ok=0
done
if [ "$ok" = 1 ]; then t_pass run.programs_built; else t_fail run.programs_built; fi

# ---- inspect: the tensors ----
want_hwx='[["input", 5, "input", "float16", [16, 2, 8], 2048], ["bar6", 6, "intermediate", "float16", [32, 2, 8], 4096], ["output_0", 7, "output", "float16", [32, 2, 8], 4096]]'
want_raw='[["bar5", 5, "input", "float16", [16, 2, 8], 2048], ["bar6", 6, "intermediate", "float16", [32, 2, 8], 4096], ["bar7", 7, "output", "float16", [32, 2, 8], 4096]]'
tensors() {
	"$TOOL" inspect --json "$1" | "$PYTHON" -c '
import json, sys
t = json.load(sys.stdin)["tensors"]
print(json.dumps([[x["name"], x["bar"], x["role"], x["dtype"], x["shape"], x["bytes"]] for x in t]))'
}
for form in hwx raw; do
	got=$(tensors "$work/chain.$form" 2>&1)
	want=$want_hwx; [ "$form" = raw ] && want=$want_raw
	if [ "$got" = "$want" ]; then t_pass "run.inspect_json_tensors.$form"; else t_fail "run.inspect_json_tensors.$form" "$got"; fi
done
# the axes are named; bytes is the padded buffer (buffer_bytes), logical_bytes the values alone
got=$("$TOOL" inspect --json "$work/chain.hwx" | "$PYTHON" -c '
import json, sys
t = json.load(sys.stdin)["tensors"][0]
print(t["axes"], t["bytes"], t["buffer_bytes"], t["logical_bytes"], t["layout"]["row"])' 2>&1)
if [ "$got" = "['C', 'H', 'W'] 2048 2048 512 64" ]; then t_pass run.inspect_json_axes_and_sizes
else t_fail run.inspect_json_axes_and_sizes "$got"; fi
# the checker fails on a wrong answer: another program's tensors are not these
got=$(tensors "$work/relu.hwx" 2>&1)
if [ "$got" != "$want_hwx" ] && grep -q '"float16", \[4, 3, 40\], 1536' <<<"$got"; then
	t_pass run.inspect_json_tensors.checker_sees_difference
else
	t_fail run.inspect_json_tensors.checker_sees_difference "$got"
fi
# each TD's operations (fw/td td_ops, the model's compute limit), the same in the text and the
# JSON, from the description: the int8 layer 16 -> 32 over 8 x 2 is 8 x 2 x 32 x 16 = 8192
# multiply-accumulates, the relu after it one an element (8 x 2 x 32); relu.desc alone 40 x 3 x 4
ops_of() {
	local j t
	j=$("$TOOL" inspect --json "$1" | "$PYTHON" -c 'import json, sys; print(" ".join(str(t["operations"]) for t in json.load(sys.stdin)["tds"]))' 2>&1)
	t=$("$TOOL" inspect "$1" | sed -n 's/^  operations: \([0-9]*\) .*/\1/p' | tr '\n' ' ' | sed 's/ $//')
	[ "$j" = "$t" ] && echo "$j" || echo "json $j, text $t"
}
got=$(ops_of "$work/chain.hwx")
if [ "$got" = "8192 512" ]; then t_pass run.inspect_operations_per_td; else t_fail run.inspect_operations_per_td "$got"; fi
got=$(ops_of "$work/relu.hwx")
if [ "$got" != "8192 512" ] && [ "$got" = 480 ]; then t_pass run.inspect_operations_checker_sees_difference
else t_fail run.inspect_operations_checker_sees_difference "$got"; fi
# --ops-limit: the model's compute limit for the command (the host's default 2^40). The chain
# costs 8192 + 512: at exactly that it runs; one less refuses TD 1 by name and writes nothing; 8191
# refuses TD 0 (submit too); 0 is a usage error
out=$("$TOOL" run "$work/chain.hwx" --ops-limit 8703 --out output_0="$work/ol.npy" 2>&1); rc=$?
if [ "$rc" -eq 1 ] && [ ! -e "$work/ol.npy" ] &&
   grep -q "engine-fault: td 1, unit engine: beyond-model-capacity: the task's operations (fw/td td_ops) past the model's compute limit" <<<"$out"; then
	t_pass run.ops_limit_refuses_the_td_past_it
else
	t_fail run.ops_limit_refuses_the_td_past_it "exit $rc: $(grep -E 'engine|^run:' <<<"$out" | head -3 | tr '\n' ' ')"
fi
if "$TOOL" run "$work/chain.hwx" --ops-limit 8704 --out output_0="$work/ol.npy" >/dev/null 2>&1 && [ -s "$work/ol.npy" ]; then
	t_pass run.ops_limit_at_the_sum_runs
else
	t_fail run.ops_limit_at_the_sum_runs
fi
out=$("$TOOL" submit "$work/chain.hwx" --ops-limit 8191 2>&1); rc=$?
if [ "$rc" -eq 1 ] && grep -q "^submit: engine failed: engine-fault: td 0, unit engine: beyond-model-capacity" <<<"$out"; then
	t_pass run.submit_ops_limit_refuses_td_0
else
	t_fail run.submit_ops_limit_refuses_td_0 "exit $rc: $(grep '^submit:' <<<"$out" | tr '\n' ' ')"
fi
out=$("$TOOL" run "$work/chain.hwx" --ops-limit 0 2>&1); rc=$?
if [ "$rc" -eq 2 ] && grep -q -- '--ops-limit wants 1..2^62' <<<"$out"; then t_pass run.ops_limit_usage
else t_fail run.ops_limit_usage "exit $rc: $out"; fi
if "$TOOL" inspect "$work/chain.hwx" | grep -q '^  intermediate bar6 .* bar 6  float16 \[32, 2, 8\] 0x1000 bytes'; then
	t_pass run.inspect_text_lists_intermediate
else
	t_fail run.inspect_text_lists_intermediate "$("$TOOL" inspect "$work/chain.hwx" | sed -n '/^tensors/,$p')"
fi
# --brief: the full listing with each TD's register writes and the relocations counted, not
# listed, and nothing else changed. brief_of (from the full listing) drops the lines indented
# under "  writes: N" and "relocations: N" and marks those lines (N above 0); the brief output must equal
# it, with fewer lines. The checker fails on the full listing itself and on a brief listing that
# lost one TD's line.
brief_of() {
	"$PYTHON" -c '
import re, sys
out, under = [], None
for line in sys.stdin.read().split("\n"):
    if under and line.startswith(under):
        continue
    under = None
    m = re.fullmatch(r"(  writes|relocations): (\d+)", line)
    if m and m.group(2) != "0":
        line += " (listed without --brief)"
        under = "    " if m.group(1) == "  writes" else "  "
    out.append(line)
sys.stdout.write("\n".join(out))'
}
for form in hwx raw; do
	full=$("$TOOL" inspect "$work/chain.$form")
	brief=$("$TOOL" inspect --brief "$work/chain.$form"); rc=$?
	want=$(brief_of <<<"$full")
	if [ "$rc" -eq 0 ] && [ "$brief" = "$want" ] && [ "$(wc -l <<<"$brief")" -lt "$(wc -l <<<"$full")" ] &&
	   grep -q '^  writes: [0-9]* (listed without --brief)$' <<<"$brief" && grep -q '^  operations: ' <<<"$brief"; then
		t_pass "run.inspect_brief_is_the_listing_without_writes.$form"
	else
		t_fail "run.inspect_brief_is_the_listing_without_writes.$form" "exit $rc, $(wc -l <<<"$brief") lines against $(wc -l <<<"$full"): $(diff <(echo "$want") <(echo "$brief") | head -4 | tr '\n' ' ')"
	fi
done
full=$("$TOOL" inspect "$work/chain.hwx")
lost=$("$TOOL" inspect --brief "$work/chain.hwx" | sed '0,/^  operations: /{/^  operations: /d}')
if [ "$full" != "$(brief_of <<<"$full")" ] && [ "$lost" != "$(brief_of <<<"$full")" ]; then
	t_pass run.inspect_brief_checker_sees_difference
else
	t_fail run.inspect_brief_checker_sees_difference
fi
out=$("$TOOL" inspect --brief --json "$work/chain.hwx" 2>&1); rc=$?
if [ "$rc" -eq 2 ] && grep -q -- '--json and --brief exclude each other' <<<"$out"; then t_pass run.inspect_brief_json_usage
else t_fail run.inspect_brief_json_usage "exit $rc: $out"; fi

# ---- the chained program runs with its default grants (the intermediate read-write) ----
for form in hwx raw; do
	out=$("$TOOL" submit "$work/chain.$form" 2>&1)
	if grep -q '^  grant bar 6 .* size 0x1000 rw ' <<<"$out" && grep -q '^submit: completed' <<<"$out" &&
	   grep -q '^submit: canaries intact' <<<"$out"; then
		t_pass "run.intermediate_program_submits.$form"
	else
		t_fail "run.intermediate_program_submits.$form" "$(grep -E 'grant|submit:' <<<"$out" | tr '\n' ' ')"
	fi
done

# ---- run: inputs in, outputs out ----
# relu of 4 x 3 x 40 non-negative fp16 values (rows of 80 bytes in 128: layout padding)
py "$work" <<'PY'
import numpy as np, sys
d = sys.argv[1]
x = (np.arange(4 * 3 * 40) % 97 / 8).astype(np.float16).reshape(4, 3, 40)
np.save(d + "/x.npy", x)
np.save(d + "/x1d.npy", x.ravel())
np.save(d + "/x_wrong.npy", x + np.float16(1))
np.save(d + "/x_mix.npy", x - np.float16(6))  # negatives: relu's output is not its input
np.save(d + "/x_f32.npy", x.astype(np.float32))
np.save(d + "/x_i8.npy", x.astype(np.int8))
np.save(d + "/x_bool.npy", x > 0)
np.save(d + "/x_shape.npy", x.reshape(3, 4, 40))
np.save(d + "/x_split.npy", x.reshape(2, 2, 3, 1, 40))
np.save(d + "/x_split_wrong.npy", x.reshape(2, 6, 40))
buf = np.zeros((4, 3, 64), np.float16); buf[:, :, :40] = x
buf.tofile(d + "/x.bin")
open(d + "/x_short.bin", "wb").write(buf.tobytes()[:-2])
open(d + "/not.npy", "wb").write(b"PK\x03\x04 not numpy")
open(d + "/trunc.npy", "wb").write(open(d + "/x.npy", "rb").read()[:100])
PY
same() { py "$1" "$2" <<'PY'
import numpy as np, sys
a, b = np.load(sys.argv[1]), np.load(sys.argv[2])
sys.exit(0 if a.dtype == b.dtype and a.shape == b.shape and (a.view(np.uint16) == b.view(np.uint16)).all() else 1)
PY
}
for form in hwx raw; do
	name=output_0; [ "$form" = raw ] && name=bar6
	out=$("$TOOL" run "$work/relu.$form" --in bar5="$work/x.npy" --out "$name=$work/y.$form.npy" 2>&1); rc=$?
	if [ "$rc" -eq 0 ] && same "$work/y.$form.npy" "$work/x.npy" &&
	   grep -q "^run: output $name: float16 \[4, 3, 40\] written to" <<<"$out"; then
		t_pass "run.relu_output_is_nonnegative_input.$form"
	else
		t_fail "run.relu_output_is_nonnegative_input.$form" "exit $rc: $(grep '^run:' <<<"$out" | tr '\n' ' ')"
	fi
done
if ! same "$work/y.hwx.npy" "$work/x_wrong.npy"; then t_pass run.compare_sees_wrong_values; else t_fail run.compare_sees_wrong_values; fi
# a 1-D array of the element count is the same input
"$TOOL" run "$work/relu.hwx" --in input="$work/x1d.npy" --out output_0="$work/y1.npy" >/dev/null 2>&1
if same "$work/y1.npy" "$work/x.npy"; then t_pass run.input_1d_accepted; else t_fail run.input_1d_accepted; fi
# an axis given split into consecutive axes (a batch laid out as channels: 4 channels as (2, 2)),
# axes of 1 anywhere: the same input in the same C order
"$TOOL" run "$work/relu.hwx" --in input="$work/x_split.npy" --out output_0="$work/y2.npy" >/dev/null 2>&1
if same "$work/y2.npy" "$work/x.npy"; then t_pass run.input_axes_split_accepted; else t_fail run.input_axes_split_accepted; fi
# raw bytes in the buffer's layout, both ways
"$TOOL" run "$work/relu.hwx" --in input="$work/x.bin" --out output_0="$work/y.bin" >/dev/null 2>&1
if cmp -s "$work/y.bin" "$work/x.bin"; then t_pass run.raw_in_raw_out_buffer_layout; else t_fail run.raw_in_raw_out_buffer_layout; fi
# inputs not given: a fixed seed, said so, the same every time
o1=$("$TOOL" run "$work/chain.hwx" --out output_0="$work/s1.npy" --out bar6="$work/i1.npy" 2>&1)
o2=$("$TOOL" run "$work/chain.raw" --out bar7="$work/s2.npy" 2>&1)
if grep -q '^run: input input: float16 \[16, 2, 8\] not given: filled from seed 0x5eed0005' <<<"$o1" &&
   grep -q '^run: input bar5: float16 \[16, 2, 8\] not given: filled from seed 0x5eed0005' <<<"$o2" &&
   cmp -s "$work/s1.npy" "$work/s2.npy" && grep -q '^run: intermediate bar6: float16 \[32, 2, 8\] written' <<<"$o1"; then
	t_pass run.seeded_inputs_said_and_reproducible
else
	t_fail run.seeded_inputs_said_and_reproducible "$(grep '^run:' <<<"$o1$o2" | tr '\n' ' ')"
fi

# every argument and file error, by name, exit 1 (usage errors 2), no output written
refuse() {
	local tname=$1 want=$2; shift 2
	local out rc
	rm -f "$work/never.npy"
	out=$("$TOOL" run "$@" 2>&1); rc=$?
	if [ "$rc" -ne 0 ] && grep -q -- "$want" <<<"$out" && [ ! -e "$work/never.npy" ]; then
		t_pass "run.refuse.$tname"
	else
		t_fail "run.refuse.$tname" "exit $rc: $out"
	fi
}
P="$work/relu.hwx"
refuse unknown_tensor "run: nope: unknown-tensor: no tensor of the program has that name or BAR; the program's tensors are input, output_0 (or barN)" "$P" --in nope="$work/x.npy" --out output_0="$work/never.npy"
# a tensor in the wrong direction says what it is and what the direction takes (the role alone
# before: "; output"); one given twice names both requests (the second name alone before)
refuse output_as_input "^run: output_0: tensor-not-an-input: an input file given for an output or an intermediate; output_0 is the program's output; the inputs are input$" "$P" --in output_0="$work/x.npy"
refuse intermediate_as_input "^run: bar6: tensor-not-an-input: an input file given for an output or an intermediate; bar6 is the program's intermediate; the inputs are input$" "$work/chain.hwx" --in bar6="$work/x.npy" --out bar7="$work/never.npy"
refuse input_as_output "^run: input: tensor-not-an-output: an output file given for an input; input is the program's input; the outputs and intermediates are output_0$" "$P" --out input="$work/never.npy"
refuse given_twice "^run: bar5: tensor-given-twice: the same tensor in two requests of one direction; input=$work/x.npy and bar5=$work/y.npy both name tensor input (bar 5)$" "$P" --in input="$work/x.npy" --in bar5="$work/y.npy"
# a malformed NAME=FILE says what is wrong with it (the argument alone before)
refuse no_equals "^anefw-tool run: io-bad-argument: 'input': no '=' between the tensor's name and the file (--in NAME=FILE)$" "$P" --in input
refuse empty_name "^anefw-tool run: io-bad-argument: '=$work/never.npy': nothing before the '=' (the tensor's name) (--out NAME=FILE)$" "$P" --out ="$work/never.npy"
refuse empty_file "^anefw-tool run: io-bad-argument: 'input=': nothing after the '=' (the file) (--in NAME=FILE)$" "$P" --in input=
refuse missing_value 'needs NAME=FILE' "$P" --in
refuse missing_file 'file-cannot-open' "$P" --in input="$work/absent.npy" --out output_0="$work/never.npy"
# a file that does not open says why (it said "the file cannot be opened" alone), an output in
# a directory that does not exist too, after the run, with no file left
refuse missing_file_says_why "run: $work/absent.npy: file-cannot-open: the file cannot be opened; no such file or directory$" "$P" --in input="$work/absent.npy" --out output_0="$work/never.npy"
# an output whose directory is missing (or a file) is said before the run, by the directory's
# name, nothing run and no file made (it was found after the run, whose outputs were lost); an
# output in a directory that is there is the control
bad=""
out=$("$TOOL" run "$P" --out output_0="$work/nodir/y.npy" 2>&1); rc=$?
[ "$rc" -eq 1 ] && [ "$out" = "run: $work/nodir/y.npy: file-cannot-open: the file cannot be opened; its directory $work/nodir: no such file or directory (checked before the run: nothing was run)" ] &&
	[ ! -e "$work/nodir" ] || bad="$bad [nodir: exit $rc: $out]"
out=$("$TOOL" run "$P" --out output_0="$work/x.npy/y.npy" 2>&1); rc=$?
[ "$rc" -eq 1 ] && [ "$out" = "run: $work/x.npy/y.npy: file-cannot-open: the file cannot be opened; its directory $work/x.npy: a part of the path is not a directory (checked before the run: nothing was run)" ] ||
	bad="$bad [file as dir: exit $rc: $out]"
mkdir -p "$work/sub"
out=$("$TOOL" run "$P" --out output_0="$work/sub/y.npy" 2>&1); rc=$?
[ "$rc" -eq 0 ] && [ -s "$work/sub/y.npy" ] && grep -q '^run: input input: ' <<<"$out" || bad="$bad [sub: exit $rc: $out]"
if [ -z "$bad" ]; then t_pass run.refuse.output_dir_missing_said_before_the_run
else t_fail run.refuse.output_dir_missing_said_before_the_run "$bad"; fi
refuse npy_dtype "npy-dtype-mismatch: the file's element type is not the tensor's; the file's dtype is int8, tensor input is float16" "$P" --in input="$work/x_i8.npy" --out output_0="$work/never.npy"
refuse npy_bool_on_fp16 "npy-dtype-mismatch: the file's element type is not the tensor's; the file's dtype is bool, tensor input is float16" "$P" --in input="$work/x_bool.npy" --out output_0="$work/never.npy"
refuse npy_unsupported "npy-unsupported-dtype: an element type other than float16, int8, uint8, bool (little-endian); the file's dtype is '<f4' (float32), tensor input is float16 (numpy: a.astype(np.float16))" "$P" --in input="$work/x_f32.npy" --out output_0="$work/never.npy"
refuse npy_shape "npy-shape-mismatch: the file's shape is neither the tensor's logical shape (axes may be split) nor 1-D of its count; the file's shape is (3, 4, 40), tensor input's is (4, 3, 40) (or 1-D (480,))" "$P" --in input="$work/x_shape.npy" --out output_0="$work/never.npy"
refuse npy_shape_split_across_axes "npy-shape-mismatch: .*; the file's shape is (2, 6, 40), tensor input's is (4, 3, 40)" "$P" --in input="$work/x_split_wrong.npy" --out output_0="$work/never.npy"
refuse npy_magic 'npy-bad-magic' "$P" --in input="$work/not.npy" --out output_0="$work/never.npy"
refuse npy_truncated 'npy-truncated\|npy-data-size' "$P" --in input="$work/trunc.npy" --out output_0="$work/never.npy"
# a .npy cut or padded says the lengths against what its preamble and shape ask for (the name
# alone before); the header's length read by python from the preamble (bytes 8-9, version 1)
: >"$work/e.npy"
head -c -2 "$work/x.npy" >"$work/short.npy"
read -r hl <<<"$("$PYTHON" -c "import sys; b = open(sys.argv[1], 'rb').read(); print(b[8] | b[9] << 8)" "$work/x.npy")"
refuse npy_empty_says_the_lengths "^run: $work/e.npy: npy-truncated: shorter than its preamble or header; the file has 0 bytes; a .npy starts with a 10-byte preamble (magic, version, header length)$" "$P" --in input="$work/e.npy"
refuse npy_truncated_says_the_lengths "^run: $work/trunc.npy: npy-truncated: shorter than its preamble or header; the file has 100 bytes; its preamble gives a header of $hl, to byte $((10 + hl))$" "$P" --in input="$work/trunc.npy"
refuse npy_data_size_says_the_lengths "^run: $work/short.npy: npy-data-size: the bytes after the header are not the array's size; the file has 958 bytes after its $((10 + hl))-byte header, shape (4, 3, 40) of '<f2' needs 960$" "$P" --in input="$work/short.npy"
refuse raw_size "raw-size-mismatch: a raw file not exactly the tensor buffer's size; the file has 1534 bytes, tensor input's buffer 1536" "$P" --in input="$work/x_short.bin" --out output_0="$work/never.npy"
refuse unknown_option "unknown option '--bogus'" "$P" --bogus
refuse raw_and_hwx 'exclude each other' "$P" --raw --hwx
refuse no_program 'needs PROGRAM' --in input="$work/x.npy"
refuse not_a_program 'run: program: ' "$work/x.npy"
# a directory given as the program says so (it was "cannot read DIR" alone)
refuse program_is_a_directory "anefw-tool: cannot read $work: Is a directory$" "$work"
# an input or a reference that names a directory says so (it was "file-too-large: the file is
# over 256 MiB": the host's length of a directory)
refuse input_is_a_directory "^run: $work: file-is-a-directory: the path names a directory, not a file$" "$P" --in input="$work" --out output_0="$work/never.npy"
# an output that names a directory is said before the run (the run completed, then
# "file-write-failed: the file cannot be written whole": PATH.part's rename onto the directory)
refuse output_is_a_directory "^run: $work: file-is-a-directory: the path names a directory, not a file; (checked before the run: nothing was run)$" "$P" --out output_0="$work"
refuse reference_is_a_directory "^run: $work: file-is-a-directory: the path names a directory, not a file$" "$P" --ref output_0="$work" --out output_0="$work/never.npy"
refuse not_a_program_npy "x.npy: this is a NumPy .npy file, not an ANE program" "$work/x.npy"
# a program that never ends (/dev/zero) is refused past 1 GiB read; it was read until the
# kernel killed the tool (found 2026-12-07). The plain build under a 4 GB address-space limit,
# so that the code before fails (out of memory, unnamed) instead of taking the machine's memory.
# The control: a file of exactly the program's bytes still loads (relu.hwx runs above).
out=$(ulimit -v 4000000; timeout 120 "$BUILD/host/opt/anefw-tool" inspect /dev/zero 2>&1); rc=$?
if [ "$rc" -eq 1 ] && grep -q '^anefw-tool: cannot read /dev/zero: file-too-large: over 1 GiB read and no end' <<<"$out"; then
	t_pass run.refuse.program_that_never_ends
else t_fail run.refuse.program_that_never_ends "exit $rc: $out"; fi
truncate -s 1025M "$work/huge.hwx"
out=$(ulimit -v 4000000; timeout 120 "$BUILD/host/opt/anefw-tool" run "$work/huge.hwx" 2>&1); rc=$?
if [ "$rc" -eq 1 ] && grep -q "^anefw-tool: cannot read $work/huge.hwx: file-too-large: the file holds 1074790400 bytes, over 1 GiB" <<<"$out"; then
	t_pass run.refuse.program_over_1_gib
else t_fail run.refuse.program_over_1_gib "exit $rc: $out"; fi
rm -f "$work/huge.hwx"
refuse not_a_program_text "README.md: this is a text file, not an ANE program" README.md
# UTF-8 text (an em dash, an accent: ../shared/fixtures/README.md has one in its first 256
# bytes) is text too; it was "not an ANE program: no .hwx magic ..." before. A byte that is no
# UTF-8 (0xff) is still not text (the control)
printf '# Notes\n\nA dash \xe2\x80\x94 and an accent \xc3\xa9, in UTF-8.\n' >"$work/notes.md"
printf '# Notes\n\nA byte \xff that no UTF-8 holds.\n' >"$work/bytes.md"
refuse not_a_program_utf8_text "notes.md: this is a text file, not an ANE program" "$work/notes.md"
refuse not_a_program_not_utf8 "bytes.md: not an ANE program: no .hwx magic" "$work/bytes.md"
# an empty file says it is empty ("its first task descriptor does not decode" before: it has none)
: >"$work/empty.hwx"
refuse empty_program_file "^run: $work/empty.hwx: an empty file (0 bytes), not an ANE program$" "$work/empty.hwx"
refuse too_many 'io-too-many' "$P" $(for i in $(seq 17); do echo --out "output_0=$work/o$i.npy"; done)
refuse grant_refused 'run: bar-not-granted' "$P" --grant 1:0x1000:r --out output_0="$work/never.npy"
# an option that takes one value, given twice with two, is a usage error naming both, as the
# firmware's keys (31-job.sh job.key_given_twice_named); the last was taken, silently
# (--ops-limit 5 --ops-limit 100000 ran; found 2026-12-07). The same value twice is no question
# (the control).
refuse threads_given_twice "^anefw-tool run: --threads given twice ('2' and '3'); it takes one value$" "$P" --threads 2 --threads 3 --out output_0="$work/never.npy"
refuse ops_limit_given_twice "^anefw-tool run: --ops-limit given twice ('5' and '100000'); it takes one value$" "$P" --ops-limit 5 --ops-limit 100000 --out output_0="$work/never.npy"
refuse rtol_given_twice "^anefw-tool run: --rtol given twice ('1e-3' and '2e-2'); it takes one value$" "$P" --rtol 1e-3 --rtol 2e-2 --out output_0="$work/never.npy"
out=$("$TOOL" submit "$P" --ops-limit 5 --ops-limit 6 2>&1); rc=$?
if [ "$rc" -eq 2 ] && [ "$out" = "anefw-tool submit: --ops-limit given twice ('5' and '6'); it takes one value" ]; then
	t_pass run.refuse.submit_ops_limit_given_twice
else t_fail run.refuse.submit_ops_limit_given_twice "exit $rc: $out"; fi
if "$TOOL" run "$P" --threads 2 --threads 2 --ops-limit 100000 --ops-limit 100000 --atol 1 --atol 1 >/dev/null 2>&1; then
	t_pass run.same_value_twice_runs
else t_fail run.same_value_twice_runs; fi
# --timeout (remote, accel) and --wait (remote) too, through the same check (tool_take_once):
# each took the last value, silently, until 2026-12-07. The control: the same value twice
# parses on, to the connection (refused: port 1 on 127.0.0.1, exit 1) or to the command run.
bad=""
out=$("$TOOL" remote --connect 127.0.0.1:1 --wait 0 --wait 5 shutdown 2>&1); rc=$?
[ "$rc" -eq 2 ] && [ "$out" = "anefw-tool remote: --wait given twice ('0' and '5'); it takes one value" ] || bad="$bad [remote --wait: exit $rc: $out]"
out=$("$TOOL" remote --connect 127.0.0.1:1 --timeout 5 --timeout 6 shutdown 2>&1); rc=$?
[ "$rc" -eq 2 ] && [ "$out" = "anefw-tool remote: --timeout given twice ('5' and '6'); it takes one value" ] || bad="$bad [remote --timeout: exit $rc: $out]"
out=$("$TOOL" accel --backend tcp:127.0.0.1:1 --timeout 5 --timeout 6 -- true 2>&1); rc=$?
[ "$rc" -eq 2 ] && [ "$out" = "anefw-tool accel: --timeout given twice ('5' and '6'); it takes one value" ] || bad="$bad [accel --timeout: exit $rc: $out]"
if [ -z "$bad" ]; then t_pass run.refuse.timeout_and_wait_given_twice; else t_fail run.refuse.timeout_and_wait_given_twice "$bad"; fi
# --connect, --serial (remote) and --backend (accel) the same way (they took the last value
# until the lead's change of 2026-12-07); the control below gives each twice with one value
bad=""
out=$("$TOOL" remote --connect 127.0.0.1:1 --connect 127.0.0.1:2 shutdown 2>&1); rc=$?
[ "$rc" -eq 2 ] && [ "$out" = "anefw-tool remote: --connect given twice ('127.0.0.1:1' and '127.0.0.1:2'); it takes one value" ] || bad="$bad [remote --connect: exit $rc: $out]"
out=$("$TOOL" remote --serial "$work/tty1" --serial "$work/tty2" shutdown 2>&1); rc=$?
[ "$rc" -eq 2 ] && [ "$out" = "anefw-tool remote: --serial given twice ('$work/tty1' and '$work/tty2'); it takes one value" ] || bad="$bad [remote --serial: exit $rc: $out]"
out=$("$TOOL" accel --backend tcp:127.0.0.1:1 --backend local -- true 2>&1); rc=$?
[ "$rc" -eq 2 ] && [ "$out" = "anefw-tool accel: --backend given twice ('tcp:127.0.0.1:1' and 'local'); it takes one value" ] || bad="$bad [accel --backend: exit $rc: $out]"
if [ -z "$bad" ]; then t_pass run.refuse.connect_serial_backend_given_twice; else t_fail run.refuse.connect_serial_backend_given_twice "$bad"; fi
out=$("$TOOL" remote --connect 127.0.0.1:1 --connect 127.0.0.1:1 --wait 0 --wait 0 --timeout 5 --timeout 5 shutdown 2>&1); rc=$?
out2=$("$TOOL" accel --backend tcp:127.0.0.1:1 --backend tcp:127.0.0.1:1 --timeout 5 --timeout 5 -- true 2>&1); rc2=$?
if [ "$rc" -eq 1 ] && ! grep -q 'given twice' <<<"$out" && [ "$rc2" -eq 0 ]; then
	t_pass run.same_timeout_and_wait_twice_parse_on
else t_fail run.same_timeout_and_wait_twice_parse_on "remote exit $rc: $out; accel exit $rc2: $out2"; fi

# ---- real programs (../shared): relu.hwx passes a non-negative input; concat concatenates ----
if have_shared; then
	F="$SHARED/fixtures/hwx"
	py "$work" <<'PY'
import numpy as np, sys
d = sys.argv[1]
np.save(d + "/r.npy", (np.arange(77) / 4).astype(np.float16).reshape(1, 1, 77))
a = (np.arange(16384) % 1000 / 16).astype(np.float16).reshape(16384, 1, 1)
b = (np.arange(16) + 1000).astype(np.float16).reshape(16, 1, 1)
np.save(d + "/c0.npy", a); np.save(d + "/c1.npy", b)
np.save(d + "/cat.npy", np.concatenate([a, b]))
PY
	"$TOOL" run "$F/relu.hwx" --in image="$work/r.npy" --out 'probs@output'="$work/ro.npy" >/dev/null 2>&1
	if same "$work/ro.npy" "$work/r.npy"; then t_pass run.fixture_relu_nonnegative; else t_fail run.fixture_relu_nonnegative; fi
	out=$("$TOOL" run "$F/concat.hwx" --in input_0="$work/c0.npy" --in bar5="$work/c1.npy" --out 'output@output'="$work/co.npy" 2>&1)
	if same "$work/co.npy" "$work/cat.npy" && grep -q 'float16 \[16400, 1, 1\] written' <<<"$out"; then
		t_pass run.fixture_concat_concatenates
	else
		t_fail run.fixture_concat_concatenates "$(grep '^run:' <<<"$out" | tr '\n' ' ')"
	fi
	# softmax.bin along each row of 1600 (numpy, from the definition, within the issue's 1.5e-2);
	# a row with a NaN (either sign, any payload) puts all its mass on that lane, exactly (guide
	# 03: the input port makes NaN +inf). The checker fails on the NaN row's mass spread.
	py "$work" <<'PY'
import numpy as np, sys
rng = np.random.default_rng(21)
x = (rng.uniform(-6, 6, (2560, 1600)) * rng.uniform(0.1, 2, (2560, 1))).astype(np.float16)
b = x.view(np.uint16); b[3, 17] = 0x7e00; b[9, 0] = 0xfd01
np.save(sys.argv[1] + "/sx.npy", x)
np.save(sys.argv[1] + "/sx_t.npy", x.reshape(1600, 2560))
np.save(sys.argv[1] + "/sx_flat3.npy", x.reshape(1, 1, 4096000))
PY
	# its input is the rows its TDs read, [1, 2560, 1600], as inspect lists it (it listed a flat
	# [1, 1, 4096000], and run took any split of 4096000 as its shape: (1600, 2560), whose rows
	# are not the program's, too); a file of another shape is refused by name, with both shapes,
	# before anything runs
	bad=""
	sm="$SHARED/fixtures/kernels/activation/softmax.bin"
	grep -q '^  input        bar5                 bar 5  float16 \[1, 2560, 1600\] 0x7d0000 bytes (base 0x0, row 0xc80, plane 0x7d0000)$' <<<"$("$TOOL" inspect "$sm")" ||
		bad="$bad [inspect: $("$TOOL" inspect "$sm" | grep ' bar5 ')]"
	for f in sx_t sx_flat3; do
		s=$(py "$work/$f.npy" <<<'import numpy as np, sys; print(np.load(sys.argv[1]).shape)')
		out=$("$TOOL" run "$sm" --in bar5="$work/$f.npy" --out bar4="$work/never.npy" 2>&1); rc=$?
		[ "$rc" -eq 1 ] && [ "$out" = "run: $work/$f.npy: npy-shape-mismatch: the file's shape is neither the tensor's logical shape (axes may be split) nor 1-D of its count; the file's shape is $s, tensor bar5's is (1, 2560, 1600) (or 1-D (4096000,))" ] &&
			[ ! -e "$work/never.npy" ] || bad="$bad [$f: exit $rc: $out]"
	done
	if [ -z "$bad" ]; then t_pass run.fixture_softmax_input_is_the_rows_read
	else t_fail run.fixture_softmax_input_is_the_rows_read "$bad"; fi
	smcheck() { py "$work/sx.npy" "$1" <<'PY'
import numpy as np, sys
x = np.load(sys.argv[1]).reshape(2560, 1600).astype(np.float64)
y = np.load(sys.argv[2]).reshape(2560, 1600).astype(np.float64)
nan = np.isnan(x).any(axis=1)
e = np.exp(x[~nan] - x[~nan].max(axis=1, keepdims=True))
ok = np.abs(y[~nan] - e / e.sum(axis=1, keepdims=True)).max() <= 1.5e-2
ok = ok and (y[nan] == np.isnan(x[nan])).all()
sys.exit(0 if ok else 1)
PY
	}
	out=$("$TOOL" run --raw "$SHARED/fixtures/kernels/activation/softmax.bin" --in bar5="$work/sx.npy" --out bar4="$work/so.npy" 2>&1)
	py "$work/so.npy" "$work/sbad.npy" <<'PY'
import numpy as np, sys
y = np.load(sys.argv[1]); y.reshape(2560, 1600)[3] = np.float16(1 / 1600); np.save(sys.argv[2], y)
PY
	if smcheck "$work/so.npy" && ! smcheck "$work/sbad.npy"; then
		t_pass run.fixture_softmax_rows_and_nan_lane
	else
		t_fail run.fixture_softmax_rows_and_nan_lane "$(grep -E '^(run|submit: engine)' <<<"$out" | tr '\n' ' ')"
	fi
else
	t_skip run.fixture_relu_nonnegative "../shared absent"
	t_skip run.fixture_concat_concatenates "../shared absent"
	t_skip run.fixture_softmax_rows_and_nan_lane "../shared absent"
	t_skip run.fixture_softmax_input_is_the_rows_read "../shared absent"
fi

# ---- --ref with a tolerance (--rtol/--atol, numpy's allclose) ----
# relu of x (non-negative: y = x) against x + 0.05: outside the default one fp16 ulp at max |ref|
# (12 / 1024), inside atol 0.06, outside atol 0.03 and rtol 1e-3 (the checker's negatives); atol
# 5e-2 leaves the 255 values of |d| above 0.05 out, and rtol 1e-3 beside it takes them in (numpy
# agrees: 255 and 0); a tolerance that is not a decimal 0 .. 1e6 is a usage error naming it.
py "$work" <<'PY'
import numpy as np, sys
d = sys.argv[1]
x = np.load(d + "/x.npy")
np.save(d + "/ref_off.npy", (x.astype(np.float64) + 0.05).astype(np.float16))
PY
tolrun() { # NAME WANT_RC WANT_LINE ARGS...
	local tname=$1 wrc=$2 want=$3; shift 3
	local out rc
	out=$("$TOOL" run "$work/relu.hwx" --in input="$work/x.npy" --ref output_0="$work/ref_off.npy" "$@" 2>&1); rc=$?
	if [ "$rc" -eq "$wrc" ] && grep -q -- "$want" <<<"$out"; then
		t_pass "run.ref_tolerance.$tname"
	else
		t_fail "run.ref_tolerance.$tname" "exit $rc: $(grep -E '^(output|run|anefw)' <<<"$out" | tr '\n' ' ')"
	fi
}
tolrun default_rule_mismatch 1 '^output output_0: 480 values, max abs error 0\.0[45][0-9] vs reference (tolerance 0\.012): MISMATCH$'
tolrun atol_within 0 '^output output_0: 480 values, max abs error 0\.0[45][0-9], 0 outside atol 0\.06 + rtol 0 x |ref|: ok$' --atol 0.06
tolrun atol_too_small 1 '^output output_0: 480 values, max abs error 0\.0[45][0-9], 480 outside atol 0\.03 + rtol 0 x |ref|: MISMATCH$' --atol 0.03
tolrun rtol_too_small 1 ', 480 outside atol 0 + rtol 1e-3 x |ref|: MISMATCH$' --rtol 1e-3
tolrun atol_alone 1 ', 255 outside atol 5e-2 + rtol 0 x |ref|: MISMATCH$' --atol 5e-2
tolrun rtol_and_atol 0 ', 0 outside atol 5e-2 + rtol 1e-3 x |ref|: ok$' --rtol 1e-3 --atol 5e-2
tolrun bad_tolerance 2 "tolerance-bad: --rtol '0', --atol '0.0.1'" --atol 0.0.1
tolrun missing_tolerance 2 '--rtol needs a tolerance' --rtol

# ---- the default rule with an infinite reference value ----
# relu of x with +inf and -inf in it (numpy: +inf and 0): the tolerance is one ulp of the largest
# FINITE |ref| (12.0 / 1024 = 0.012; the infinity made it inf before, and anything passed), and
# +inf is matched only by +inf. The control (numpy's own relu) passes; a finite value off by 6
# and the +inf given as -inf each fail.
py "$work" <<'PY'
import numpy as np, sys
d = sys.argv[1]
x = np.load(d + "/x.npy").copy()
x.flat[0] = np.inf; x.flat[1] = -np.inf
np.save(d + "/xinf.npy", x)
r = np.maximum(x, np.float16(0))
np.save(d + "/rinf_good.npy", r)
b = r.copy(); b.flat[40] = 11; np.save(d + "/rinf_far.npy", b)  # 5 -> 11: |ref| stays <= 12
b = r.copy(); b.flat[0] = -np.inf; np.save(d + "/rinf_sign.npy", b)
f = np.abs(r[np.isfinite(r)].astype(np.float64)).max()
open(d + "/rinf_tol", "w").write("%d.%03d" % divmod(int(max(1.0, f) / 1024 * 1000 + 0.5), 1000))
PY
itol=$(cat "$work/rinf_tol")
infrun() { # NAME REF WANT_RC WANT_LINE
	local out rc
	out=$("$TOOL" run "$work/relu.hwx" --in input="$work/xinf.npy" --ref output_0="$work/$2.npy" 2>&1); rc=$?
	if [ "$rc" -eq "$3" ] && grep -q -- "$4" <<<"$out"; then
		t_pass "run.ref_infinite_reference_$1"
	else
		t_fail "run.ref_infinite_reference_$1" "exit $rc: $(grep -E '^(output|run)' <<<"$out" | tr '\n' ' ')"
	fi
}
infrun control_within rinf_good 0 "max abs error 0\.000 vs reference (tolerance $itol): ok\$"
infrun finite_error_mismatch rinf_far 1 "max abs error 6\.000 vs reference (tolerance $itol): MISMATCH\$"
infrun other_infinity_mismatch rinf_sign 1 "max abs error inf vs reference (tolerance $itol): MISMATCH\$"

# ---- a failed run leaves no file at an --out path, not even an earlier run's ----
# the first run writes y_stale.npy (relu of an input with negatives: not the input's bytes); the
# second (ops limit 1: refused) must remove it. The
# control: the same second run with the path also given as the input keeps that file (a run
# never removes a file it reads).
rm -f "$work/y_stale.npy"
"$TOOL" run "$work/relu.hwx" --in input="$work/x_mix.npy" --out output_0="$work/y_stale.npy" >/dev/null 2>&1
first=$([ -s "$work/y_stale.npy" ] && echo written)
out=$("$TOOL" run "$work/relu.hwx" --in input="$work/x_mix.npy" --out output_0="$work/y_stale.npy" --ops-limit 1 2>&1); rc=$?
if [ "$first" = written ] && [ "$rc" -eq 1 ] && grep -q '^run: output_0: output-not-produced' <<<"$out" &&
   [ ! -e "$work/y_stale.npy" ] && [ ! -e "$work/y_stale.npy.part" ]; then
	t_pass run.failed_run_removes_a_stale_output
else
	t_fail run.failed_run_removes_a_stale_output "first ${first:-not written}, exit $rc, $(ls "$work"/y_stale.npy* 2>&1 | tr '\n' ' ')"
fi
cp "$work/x.npy" "$work/x_inout.npy"
"$TOOL" run "$work/relu.hwx" --in input="$work/x_inout.npy" --out output_0="$work/x_inout.npy" --ops-limit 1 >/dev/null 2>&1; rc=$?
if [ "$rc" -eq 1 ] && cmp -s "$work/x.npy" "$work/x_inout.npy"; then
	t_pass run.failed_run_keeps_a_file_it_reads
else t_fail run.failed_run_keeps_a_file_it_reads "exit $rc"; fi
# the same file under another spelling of its path (./), the input's and the program's: left
# (a review found both removed: the input by the path compared as text, the program not compared)
cp "$work/relu.hwx" "$work/relu_kept.hwx"
(cd "$work" && "$TOOL" run relu_kept.hwx --in input=x_inout.npy --out output_0=./x_inout.npy --ops-limit 1 >/dev/null 2>&1
 "$TOOL" run relu_kept.hwx --in input=x_inout.npy --out output_0=./relu_kept.hwx --ops-limit 1 >/dev/null 2>&1)
if cmp -s "$work/x.npy" "$work/x_inout.npy" && cmp -s "$work/relu.hwx" "$work/relu_kept.hwx"; then
	t_pass run.failed_run_keeps_an_input_and_the_program_spelled_otherwise
else t_fail run.failed_run_keeps_an_input_and_the_program_spelled_otherwise "$(ls "$work"/x_inout.npy "$work"/relu_kept.hwx 2>&1 | tr '\n' ' ')"; fi
# a file there that is no earlier output of the tensor (not a .npy of its dtype and size): left
printf 'notes' >"$work/y_notes.npy"
"$TOOL" run "$work/relu.hwx" --in input="$work/x.npy" --out output_0="$work/y_notes.npy" --ops-limit 1 >/dev/null 2>&1
if [ "$(cat "$work/y_notes.npy" 2>/dev/null)" = notes ]; then
	t_pass run.failed_run_keeps_a_file_that_is_no_output
else t_fail run.failed_run_keeps_a_file_that_is_no_output "$(ls "$work"/y_notes.npy 2>&1)"; fi

# ---- an output path that is a device or a FIFO is written in place, not replaced ----
# Outputs went to PATH.part, renamed over PATH: `--out output_0=/dev/null` as root replaced
# /dev/null with a regular file, and `/dev/full` said "written" and exited 0 (found 2026-12-07,
# a new user's hour). A FIFO stands in for the device (a test must not risk /dev/null): a
# reader gets the bytes and the FIFO is still a FIFO; before, the rename replaced it and the
# reader got nothing. The same for a file the other commands write (decode here; tool_write_file).
fifo_out() { # NAME READER_OUT COMMAND...: runs COMMAND with a reader on $work/fifo
	local name=$1 got=$2 rc
	shift 2
	rm -f "$work/fifo" "$got"
	mkfifo "$work/fifo"
	timeout 20 cat "$work/fifo" >"$got" &
	local reader=$!
	"$@" >/dev/null 2>&1; rc=$?
	# nothing wrote the FIFO (the old rename): if the reader still waits, open the FIFO so it
	# ends; bounded, and in the foreground (a reader that ended between the test and the open
	# left a writer blocked for good in the background, holding the suite's output open)
	if [ -p "$work/fifo" ] && kill -0 "$reader" 2>/dev/null; then
		timeout 5 sh -c ': >"$1"' sh "$work/fifo" 2>/dev/null
	fi
	wait "$reader" 2>/dev/null
	if [ "$rc" -eq 0 ] && [ -p "$work/fifo" ] && [ -s "$got" ]; then
		t_pass "run.$name"
	else
		t_fail "run.$name" "exit $rc, $(ls -l "$work/fifo" 2>&1 | cut -c1), $(wc -c <"$got") bytes read"
	fi
	rm -f "$work/fifo" "$work/fifo.part"
}
fifo_out output_to_a_fifo_written_in_place "$work/fifo_y.npy" "$TOOL" run "$work/relu.hwx" --in input="$work/x.npy" --out output_0="$work/fifo"
"$TOOL" run "$work/relu.hwx" --in input="$work/x.npy" --out output_0="$work/fifo_ref" >/dev/null 2>&1
if cmp -s "$work/fifo_y.npy" "$work/fifo_ref"; then t_pass run.output_to_a_fifo_same_bytes
else t_fail run.output_to_a_fifo_same_bytes "$(wc -c <"$work/fifo_y.npy") bytes read, $(wc -c <"$work/fifo_ref") in a file"; fi
printf '\x3c\xc0\x00\x7c' >"$work/e5m2.bin"
fifo_out codec_output_to_a_fifo_written_in_place "$work/fifo_c.bin" "$TOOL" decode e5m2 "$work/e5m2.bin" "$work/fifo"

# ---- an output path that is a symbolic link is written through ----
# The rename of PATH.part replaced the link with a regular file and left the file it named as
# it was (found 2026-12-07, a new user's hour); cp, dd and a shell's > write through it. Now
# PATH.part goes beside the link's target and is renamed over it: the link stays a link, its
# target holds the output (created when the link dangles), nothing .part is left; the same for
# a file the other commands write (decode here). A loop of links is refused before the run.
# Links are relative (to the link's directory) and in a chain; every path is under $work. The
# input has negatives: relu's output is not its input's bytes (those a failed run never removes).
bad=""
mkdir -p "$work/ln" "$work/ln/far"
rm -f "$work/ln/"*.npy "$work/ln/far/"*
"$TOOL" run "$work/relu.hwx" --in input="$work/x_mix.npy" --out output_0="$work/ln/want.npy" >/dev/null 2>&1
echo old >"$work/ln/far/t.npy"
ln -s far/t.npy "$work/ln/hop.npy"
ln -s hop.npy "$work/ln/y.npy"
out=$("$TOOL" run "$work/relu.hwx" --in input="$work/x_mix.npy" --out output_0="$work/ln/y.npy" 2>&1); rc=$?
[ "$rc" -eq 0 ] && [ -L "$work/ln/y.npy" ] && [ "$(readlink "$work/ln/y.npy")" = hop.npy ] && [ -L "$work/ln/hop.npy" ] &&
	cmp -s "$work/ln/want.npy" "$work/ln/far/t.npy" || bad="$bad [chain: exit $rc, $(ls -l "$work/ln" | tr '\n' ' ')]"
rm -f "$work/ln/far/t.npy"
out=$("$TOOL" run "$work/relu.hwx" --in input="$work/x_mix.npy" --out output_0="$work/ln/y.npy" 2>&1); rc=$?
[ "$rc" -eq 0 ] && [ -L "$work/ln/y.npy" ] && cmp -s "$work/ln/want.npy" "$work/ln/far/t.npy" || bad="$bad [dangling: exit $rc: $out]"
rm -f "$work/ln/far/t.e5"
ln -s far/t.e5 "$work/ln/c.e5"
"$TOOL" decode e5m2 "$work/e5m2.bin" "$work/ln/c.e5" >/dev/null 2>&1; rc=$?
[ "$rc" -eq 0 ] && [ -L "$work/ln/c.e5" ] && [ "$(stat -c %s "$work/ln/far/t.e5")" = 8 ] || bad="$bad [decode: exit $rc]"
[ -z "$(find "$work/ln" -name '*.part')" ] || bad="$bad [left: $(find "$work/ln" -name '*.part')]"
if [ -z "$bad" ]; then t_pass run.output_through_a_symlink_written_through; else t_fail run.output_through_a_symlink_written_through "$bad"; fi
# a failed run (--ops-limit 1 refuses the TD) removes the earlier output the link names, not the
# link (the link was removed and the earlier output left, under the name that said it was this run's)
out=$("$TOOL" run "$work/relu.hwx" --in input="$work/x_mix.npy" --out output_0="$work/ln/y.npy" --ops-limit 1 2>&1); rc=$?
if [ "$rc" -eq 1 ] && grep -q '^run: output_0: output-not-produced' <<<"$out" && [ -L "$work/ln/y.npy" ] &&
   [ -L "$work/ln/hop.npy" ] && [ ! -e "$work/ln/far/t.npy" ]; then
	t_pass run.failed_run_through_a_symlink_removes_its_target
else t_fail run.failed_run_through_a_symlink_removes_its_target "exit $rc, $(ls -lR "$work/ln" | tr '\n' ' ')"; fi
ln -s loop2 "$work/ln/loop1"; ln -s loop1 "$work/ln/loop2"
out=$("$TOOL" run "$work/relu.hwx" --in input="$work/x_mix.npy" --out output_0="$work/ln/loop1" 2>&1); rc=$?
if [ "$rc" -eq 1 ] && [ -L "$work/ln/loop1" ] && [ -z "$(find "$work/ln" -name '*.part')" ] &&
   grep -q "^run: $work/ln/loop1: file-cannot-open: the file cannot be opened; a loop of symbolic links (checked before the run: nothing was run)$" <<<"$out"; then
	t_pass run.refuse.output_link_loop_before_the_run
else t_fail run.refuse.output_link_loop_before_the_run "exit $rc: $out"; fi

# ---- the firmware, over semihosting: the same bytes as the host tool ----
elf="$BUILD/qemu-virt/anefw.elf"
if [[ " $TEST_BOARDS " != *" qemu-virt "* ]]; then
	t_not_run run.firmware_matches_host "qemu-virt is not in TEST_BOARDS ($TEST_BOARDS)"
elif [ ! -f "$elf" ]; then
	t_fail run.firmware_matches_host "no $elf (make test builds it)"
else
	fw() { qemu_run --board qemu-virt --timeout 120 "$elf" "$@" trace=0 2>&1 | tr -d '\r'; }
	check_same() {
		local tname=$1 host=$2 tgt=$3 out=$4
		if [ -s "$tgt" ] && cmp -s "$host" "$tgt" && grep -q '^completion: id 1 done (ok)' <<<"$out"; then
			t_pass "run.firmware_matches_host.$tname"
		else
			t_fail "run.firmware_matches_host.$tname" "$(grep -E '^(run|completion):' <<<"$out" | tr '\n' ' ')"
		fi
	}
	py "$work" <<'PY'
import numpy as np, sys
np.save(sys.argv[1] + "/x16.npy", (np.arange(256) % 37 / 8 - 2).astype(np.float16).reshape(16, 2, 8))
PY
	"$TOOL" run "$work/chain.hwx" --in input="$work/x16.npy" --out output_0="$work/h1.npy" --out bar6="$work/h1i.npy" >/dev/null 2>&1
	out=$(fw "program=$work/chain.hwx" "in:input=$work/x16.npy" "out:output_0=$work/t1.npy" "out:bar6=$work/t1i.npy")
	check_same npy_in "$work/h1.npy" "$work/t1.npy" "$out"
	check_same intermediate_out "$work/h1i.npy" "$work/t1i.npy" "$out"
	out=$(fw "program=$work/chain.raw" "out:bar7=$work/t2.npy")
	check_same seeded_raw_program "$work/s1.npy" "$work/t2.npy" "$out"
	out=$(fw "program=$work/relu.hwx" "in:bar5=$work/x.bin" "out:output_0=$work/t3.bin")
	check_same raw_files "$work/y.bin" "$work/t3.bin" "$out"
	# the checker fails on a wrong answer: another input gives another file
	if ! cmp -s "$work/t1.npy" "$work/t2.npy"; then t_pass run.firmware_compare_sees_difference; else t_fail run.firmware_compare_sees_difference; fi
	# every real program in ../shared/fixtures, its inputs seeded (the same seeds on both): the
	# firmware writes the host's bytes (softmax.bin too: its maximum and 1/sum left in L2
	# memory between TDs, docs/engine-model.md "Reductions into L2 memory")
	if have_shared; then
		for f in "$SHARED"/fixtures/hwx/*.hwx "$SHARED"/fixtures/kernels/*/*.bin; do
			rel=${f#"$SHARED"/fixtures/}
			rm -f "$work/fh.npy" "$work/ft.npy"
			hout=$("$TOOL" run "$f" --out bar4="$work/fh.npy" 2>&1); hrc=$?
			out=$(fw "program=$f" "out:bar4=$work/ft.npy")
			if [ "$hrc" -ne 0 ]; then
				t_fail "run.firmware_matches_host.$rel" "host exit $hrc: $(grep '^run:' <<<"$hout" | tr '\n' ' ')"
			else
				check_same "$rel" "$work/fh.npy" "$work/ft.npy" "$out"
			fi
		done
	else
		t_skip run.firmware_matches_host.fixtures "../shared absent"
	fi
	fwrefuse() {
		local tname=$1 want=$2; shift 2
		local out rc
		qemu_run --board qemu-virt --timeout 120 "$elf" "$@" trace=0 >"$work/fw.out" 2>&1; rc=$?
		out=$(tr -d '\r' <"$work/fw.out")
		if [ "$rc" -ne 0 ] && grep -q -- "$want" <<<"$out" && ! grep -q '^completion:' <<<"$out"; then
			t_pass "run.firmware_refuses.$tname"
		else
			t_fail "run.firmware_refuses.$tname" "exit $rc: $(grep -E '^(run|completion)' <<<"$out" | tr '\n' ' ')"
		fi
	}
	fwrefuse bad_argument "run: io-bad-argument: not NAME=PATH, an empty name or path, or a path too long; in:input: no '=' between the tensor's name and the file (in:NAME=PATH, out:NAME=PATH, ref:NAME=PATH)" "program=$work/chain.hwx" "in:input"
	fwrefuse unknown_tensor "run: nope: unknown-tensor: no tensor of the program has that name or BAR; the program's tensors are input, bar6, output_0 (or barN)" "program=$work/chain.hwx" "out:nope=$work/t9.npy"
	fwrefuse npy_shape "npy-shape-mismatch: the file's shape is neither the tensor's logical shape (axes may be split) nor 1-D of its count; the file's shape is (4, 3, 40), tensor input's is (16, 2, 8) (or 1-D (256,))" "program=$work/chain.hwx" "in:input=$work/x.npy"
	fwrefuse missing_file 'file-cannot-open' "program=$work/chain.hwx" "in:input=$work/absent.npy"
	# rtol=/atol=: the same comparison as --rtol/--atol, the same line; a bad one refused by name
	fwtol() { # NAME ATOL WANT_LINE WANT_VERDICT
		local out
		out=$(fw "program=$work/relu.hwx" "in:input=$work/x.npy" "ref:output_0=$work/ref_off.npy" "atol=$2")
		if grep -q "$3" <<<"$out" && grep -q "$4" <<<"$out"; then
			t_pass "run.firmware_ref_tolerance_$1"
		else
			t_fail "run.firmware_ref_tolerance_$1" "$(grep -E '^(output|run|anefw)' <<<"$out" | tr '\n' ' ')"
		fi
	}
	fwtol within 0.06 '^output output_0: 480 values, max abs error 0\.0[45][0-9], 0 outside atol 0\.06 + rtol 0 x |ref|: ok$' \
		'^anefw: done: ok: 1 output within tolerance of its reference$'
	fwtol outside 0.03 ', 480 outside atol 0\.03 + rtol 0 x |ref|: MISMATCH$' '^anefw: done: FAILED: output-mismatch'
	fwrefuse bad_tolerance "error: rtol=abc atol=0: tolerance-bad: a tolerance that is not a decimal number from 0 to 1e6" "program=$work/relu.hwx" rtol=abc
	# the default rule with an infinite reference (above): the same code, the same lines
	for c in "control_within rinf_good ok" "finite_error_mismatch rinf_far MISMATCH"; do
		set -- $c
		out=$(fw "program=$work/relu.hwx" "in:input=$work/xinf.npy" "ref:output_0=$work/$2.npy")
		if grep -q "vs reference (tolerance $itol): $3\$" <<<"$out"; then
			t_pass "run.firmware_ref_infinite_reference_$1"
		else
			t_fail "run.firmware_ref_infinite_reference_$1" "$(grep -E '^(output|run|anefw)' <<<"$out" | tr '\n' ' ')"
		fi
	done
	# an out: path that is a device or a FIFO is refused before QEMU starts (scripts/qemu-run.sh):
	# the firmware writes PATH.part and renames it over PATH, semihosting having no stat; before,
	# out:output_0=/dev/null as root replaced the host's /dev/null (a FIFO stands in for it)
	rm -f "$work/fwfifo"; mkfifo "$work/fwfifo"
	qemu_run --board qemu-virt --timeout 120 "$elf" "program=$work/relu.hwx" "in:input=$work/x.npy" "out:output_0=$work/fwfifo" >"$work/fw.out" 2>&1; rc=$?
	if [ "$rc" -eq 1 ] && [ -p "$work/fwfifo" ] && [ ! -e "$work/fwfifo.part" ] &&
	   grep -q "^error: out:output_0=$work/fwfifo: $work/fwfifo is a device or a FIFO, not a file" "$work/fw.out"; then
		t_pass run.firmware_output_over_a_fifo_refused
	else
		t_fail run.firmware_output_over_a_fifo_refused "exit $rc, $(ls -l "$work/fwfifo" 2>&1 | cut -c1): $(head -c 300 "$work/fw.out" | tr '\n' ' ')"
	fi
	rm -f "$work/fwfifo" "$work/fwfifo.part"
	# an out: path that is a symbolic link is written through (qemu-run.sh gives the firmware
	# the file it names), as the host tool writes it; the rename replaced the link before
	rm -f "$work/fwlink.npy" "$work/fwtarget.npy"; ln -s fwtarget.npy "$work/fwlink.npy"
	out=$(fw "program=$work/relu.hwx" "in:input=$work/x_mix.npy" "out:output_0=$work/fwlink.npy")
	if [ -L "$work/fwlink.npy" ] && cmp -s "$work/fwtarget.npy" "$work/ln/want.npy" && [ ! -e "$work/fwtarget.npy.part" ] &&
	   grep -q '^completion: id 1 done (ok)' <<<"$out"; then
		t_pass run.firmware_output_through_a_symlink_written_through
	else
		t_fail run.firmware_output_through_a_symlink_written_through "$(ls -l "$work"/fw*.npy 2>&1 | tr '\n' ' '): $(grep -E '^(run|completion)' <<<"$out" | tr '\n' ' ')"
	fi
	# a failed run removes an earlier run's file at its out: path (ops_limit=1 refuses the TD)
	"$TOOL" run "$work/relu.hwx" --in input="$work/x_mix.npy" --out output_0="$work/fw_stale.npy" >/dev/null 2>&1
	first=$([ -s "$work/fw_stale.npy" ] && echo written)
	out=$(fw "program=$work/relu.hwx" "in:input=$work/x_mix.npy" "out:output_0=$work/fw_stale.npy" ops_limit=1)
	if [ "$first" = written ] && grep -q '^run: output_0: output-not-produced' <<<"$out" && [ ! -e "$work/fw_stale.npy" ]; then
		t_pass run.firmware_failed_run_removes_a_stale_output
	else
		t_fail run.firmware_failed_run_removes_a_stale_output "first ${first:-not written}: $(grep -E '^(run|anefw)' <<<"$out" | tr '\n' ' ')"
	fi
fi
t_done
