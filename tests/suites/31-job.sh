# The firmware's main job as a user meets it (issue 24): a summary (per TD what it computes, the
# grants, what was folded and moved, each output's check) ending in one verdict line, "anefw:
# done: ok ..." or "anefw: done: FAILED: <the first error>"; the whole dump only with trace=1; a
# typo on the command line is an error naming the key and listing the keys; a file that is no
# program says so. On qemu-virt (the job is the same code on every board).
set -u
cd "${ANEFW_ROOT:-.}"
. tests/lib.sh
TOOL="$BUILD/host/anefw-tool"
elf="$BUILD/qemu-virt/anefw.elf"
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
if [ ! -f "$elf" ] || [[ " $TEST_BOARDS " != *" qemu-virt "* ]]; then
	t_skip job "qemu-virt not tested"; t_done; exit
fi
fw() { (set -o pipefail; qemu_run --board qemu-virt --timeout 120 "$elf" "$@" 2>&1 | tr -d '\r'); }
KEYS="program=PATH in:NAME=PATH out:NAME=PATH ref:NAME=PATH rtol=R atol=A trace=1 fault=KIND serve=1 threads=N ops_limit=N"
"$TOOL" mkprog app/default.desc "$work/p.hwx" >/dev/null 2>&1
"$PYTHON" tests/oracle/gen_mkprog.py --refs app/default.desc "$work/ref" >/dev/null 2>&1
"$PYTHON" - "$work" <<'PY'
import sys, numpy as np
w = sys.argv[1]
np.save(w + "/bad_shape.npy", np.zeros((1, 1, 77), np.float16))
r = np.load(w + "/ref.output_0.npy"); r.flat[5] += 1
np.save(w + "/wrong_ref.npy", r)
PY
last_is() { # name want output rc wantrc
	local last; last=$(tail -n1 <<<"$3")
	if [ "$4" -eq "$5" ] && [ "$last" = "$2" ]; then t_pass "$1"; else t_fail "$1" "exit $4, last line '$last'"; fi
}

# a typo is an error: exit 1, the key named, the keys listed, first and last
out=$(fw "programm=$work/p.hwx"); rc=$?
if grep -qxF "error: unknown key 'programm' on the command line; the keys are: $KEYS" <<<"$out"; then
	t_pass job.typo_named_with_the_keys; else t_fail job.typo_named_with_the_keys "$out"; fi
last_is job.typo_is_the_verdict "anefw: done: FAILED: unknown key 'programm' on the command line (the keys: $KEYS)" "$out" "$rc" 1
# a key given twice with two values is an error naming both words, nothing run (program=a
# program=b ran a and said nothing of b); ref: given four times, as make run gives it
# (job.default_program_verdict), and trace=0 repeated (job.command_line_3000_bytes_read_whole)
# are the controls
out=$(fw "program=$work/p.hwx" "program=$work/absent.hwx"); rc=$?
if grep -qxF "error: program= given twice on the command line ('program=$work/p.hwx' and 'program=$work/absent.hwx'); each key but in:, out: and ref: takes one value" <<<"$out" &&
   ! grep -q '^completion:' <<<"$out"; then
	t_pass job.key_given_twice_named; else t_fail job.key_given_twice_named "exit $rc: $(grep -E '^(error|program|anefw)' <<<"$out" | cut -c1-160)"; fi
last_is job.key_given_twice_is_the_verdict "anefw: done: FAILED: program= given twice on the command line" "$out" "$rc" 1
# trace= and serve= take 0 or 1: another value is an error naming it, nothing run (trace=2 ran
# without the trace and said done: ok; serve=0 served, and under QEMU waited for the time limit)
for kv in trace=2 serve=0x; do
	out=$(fw "$kv" "program=$work/p.hwx"); rc=$?
	if grep -qxF "error: $kv: takes 0 or 1" <<<"$out" && ! grep -q '^completion:\|^serve:' <<<"$out"; then
		t_pass "job.${kv%%=*}_value_other_than_0_or_1_named"; else t_fail "job.${kv%%=*}_value_other_than_0_or_1_named" "exit $rc: $(grep -E '^(error|serve|completion|anefw)' <<<"$out" | cut -c1-160)"; fi
	last_is "job.${kv%%=*}_value_other_than_0_or_1_is_the_verdict" "anefw: done: FAILED: $kv: takes 0 or 1" "$out" "$rc" 1
done
# trace=0 runs as no trace= does (the control: so before too); serve=0 too (it served before)
plain=$(fw "program=$work/p.hwx")
for kv in trace=0 serve=0; do
	out=$(fw "$kv" "program=$work/p.hwx"); rc=$?
	if [ "$rc" -eq 0 ] && [ "$(grep -v '^command line:\|^model threads:' <<<"$out")" = "$(grep -v '^command line:\|^model threads:' <<<"$plain")" ] &&
	   grep -q '^anefw: done: ok' <<<"$out"; then
		t_pass "job.${kv/=/_}_runs_as_without_it"; else t_fail "job.${kv/=/_}_runs_as_without_it" "exit $rc: $(tail -n2 <<<"$out")"; fi
done
# make help lists every key the firmware takes (it listed six of the ten: no rtol=, atol=,
# serve=, threads=, ops_limit=)
mh=$(make --no-print-directory -s help 2>&1); miss=""
for k in $KEYS; do grep -qF -- "$k" <<<"$mh" || miss="$miss $k"; done
if [ -z "$miss" ]; then t_pass job.make_help_lists_every_key; else t_fail job.make_help_lists_every_key "missing:$miss"; fi
out=$(fw "program=$work/p.hwx" trase=1); rc=$?
last_is job.unknown_key_beside_a_program "anefw: done: FAILED: unknown key 'trase' on the command line (the keys: $KEYS)" "$out" "$rc" 1
if ! grep -q '^completion:' <<<"$out"; then t_pass job.unknown_key_runs_nothing; else t_fail job.unknown_key_runs_nothing; fi
out=$(fw trace=1); rc=$?
last_is job.no_program_with_other_keys "anefw: done: FAILED: no program given (program=PATH)" "$out" "$rc" 1
# program= with no value names it (it said "program: cannot open : no such file or directory")
out=$(fw program=); rc=$?
if grep -qxF "error: program= with no value on the command line; expected program=PATH, a .hwx or raw task stream on the host" <<<"$out" &&
   ! grep -q 'cannot open' <<<"$out"; then t_pass job.empty_program_named
else t_fail job.empty_program_named "exit $rc: $(grep -E '^(error|program|anefw)' <<<"$out" | cut -c1-160)"; fi
last_is job.empty_program_is_the_verdict "anefw: done: FAILED: program= with no value (expected program=PATH)" "$out" "$rc" 1
# fault= with no value names it ("fault: unknown kind  (dma-hang, ...)" before, the kind empty)
out=$(fw "program=$work/p.hwx" fault=); rc=$?
if grep -qxF "fault: fault= with no value; expected fault=KIND, KIND one of dma-hang, dma-error, wrong-task, readback" <<<"$out" &&
   ! grep -q '^completion:' <<<"$out"; then t_pass job.empty_fault_named
else t_fail job.empty_fault_named "exit $rc: $(grep -E '^(fault|anefw)' <<<"$out" | cut -c1-160)"; fi
last_is job.empty_fault_is_the_verdict "anefw: done: FAILED: fault= with no value (expected fault=KIND)" "$out" "$rc" 1
out=$(fw); rc=$?
last_is job.empty_command_line_boots_only "anefw: done: ok" "$out" "$rc" 0

# the summary: per TD what it computes; no register dump without trace=1, the dump with it
refs=(); for f in "$work"/ref.*.npy; do n=${f##*/ref.}; refs+=("ref:${n%.npy}=$f"); done
out=$(fw "program=$work/p.hwx" "${refs[@]}"); rc=$?
nl=$(grep -c . <<<"$out")
last_is job.default_program_verdict "anefw: done: ok: 4 outputs within tolerance of their references" "$out" "$rc" 0
if [ "$(grep -c '^td [0-3]: computes: source: RBase0, 16 x 2 x 32 fp16' <<<"$out")" -eq 4 ] &&
   grep -q '^td 3: computes: .*nonlinear: the activation LUT' <<<"$out" &&
   ! grep -q '^program: valid' <<<"$out" && [ "$nl" -le 40 ]; then
	t_pass "job.summary_without_dump ($nl lines)"
else t_fail job.summary_without_dump "$nl lines"; fi
tout=$(fw "program=$work/p.hwx" trace=1 "${refs[@]}")
tl=$(grep -c . <<<"$tout")
if grep -q '^program: valid' <<<"$tout" && grep -q '^memory map:' <<<"$tout" && [ "$tl" -gt $((nl * 5)) ]; then
	t_pass "job.trace_adds_the_dump ($tl lines)"
else t_fail job.trace_adds_the_dump "$tl lines"; fi
# negative control: a wrong reference fails, and the verdict says so
out=$(fw "program=$work/p.hwx" "ref:output_0=$work/wrong_ref.npy"); rc=$?
last_is job.mismatch_is_the_verdict "anefw: done: FAILED: output-mismatch: an output differs from its reference (the MISMATCH lines above)" "$out" "$rc" 1

# an input of the wrong shape: said with both shapes, and again as the verdict; nothing runs
out=$(fw "program=$work/p.hwx" "in:input=$work/bad_shape.npy"); rc=$?
if grep -qF "run: $work/bad_shape.npy: npy-shape-mismatch: the file's shape is neither the tensor's logical shape (axes may be split) nor 1-D of its count; the file's shape is (1, 1, 77), tensor input's is (16, 2, 32) (or 1-D (1024,))" <<<"$out" &&
   ! grep -q '^completion:' <<<"$out"; then
	t_pass job.wrong_shape_named; else t_fail job.wrong_shape_named "$(grep '^run:' <<<"$out")"; fi
last_is job.wrong_shape_is_the_verdict "anefw: done: FAILED: npy-shape-mismatch: the file's shape is neither the tensor's logical shape (axes may be split) nor 1-D of its count (the run: line above)" "$out" "$rc" 1

# threads=N, the engine model's cores (hal/aarch64/pool.c): a 1x1 convolution of four rows,
# 256 -> 256 channels (rows on threads), gives the same output bytes on 1 and 2 cores, each
# within numpy's reference, and core 1 takes part; the count is checked against the board's
printf 'input w=64 h=4 c=256\nlayer int8 cout=256\n' >"$work/big.desc"
"$TOOL" mkprog "$work/big.desc" "$work/big.hwx" >/dev/null 2>&1
"$PYTHON" tests/oracle/gen_mkprog.py --refs "$work/big.desc" "$work/bigref" >/dev/null 2>&1
for t in 1 2; do
	out=$(fw "program=$work/big.hwx" threads=$t "out:output_0=$work/t$t.npy" \
		"ref:output_0=$work/bigref.output_0.npy"); rc=$?
	last_is "job.threads_${t}_within_the_reference" "anefw: done: ok: 1 output within tolerance of its reference" "$out" "$rc" 0
	if grep -qx "model threads: $t" <<<"$out"; then t_pass "job.threads_${t}_in_force"
	else t_fail "job.threads_${t}_in_force" "$(grep '^model threads' <<<"$out")"; fi
done
share=$(grep '^model threads: the model.s tasks by thread:' <<<"$out")
if [[ "$share" =~ " 1: "([0-9]+)"%" ]] && [ "${BASH_REMATCH[1]}" -gt 0 ]; then
	t_pass "job.threads_2_core_1_takes_part ($share)"
else t_fail job.threads_2_core_1_takes_part "'$share'"; fi
if [ -s "$work/t1.npy" ] && cmp -s "$work/t1.npy" "$work/t2.npy"; then
	t_pass job.threads_same_bytes; else t_fail job.threads_same_bytes; fi
for bad in 3 0 x "" 99999999999999999999; do
	out=$(fw "program=$work/big.hwx" "threads=$bad"); rc=$?
	if grep -qxF "error: threads=$bad: wants a count of cores, 1 .. 2 (this board's)" <<<"$out" &&
	   ! grep -q '^completion:' <<<"$out"; then t_pass "job.threads_${bad:-empty}_refused"
	else t_fail "job.threads_${bad:-empty}_refused" "$(grep -i 'threads' <<<"$out")"; fi
	last_is "job.threads_${bad:-empty}_is_the_verdict" "anefw: done: FAILED: threads=$bad: wants 1 .. 2" "$out" "$rc" 1
done
long=$(printf '1%.0s' $(seq 30))
out=$(fw "program=$work/big.hwx" "threads=$long"); rc=$?
if grep -qxF "error: threads=(24 characters or more): wants a count of cores, 1 .. 2 (this board's)" <<<"$out"; then
	t_pass job.threads_too_long_refused; else t_fail job.threads_too_long_refused "$(grep -i 'threads' <<<"$out")"; fi
last_is job.threads_too_long_is_the_verdict "anefw: done: FAILED: threads=(24 characters or more): wants 1 .. 2" "$out" "$rc" 1

# ops_limit=N, the model's compute limit (docs/robustness.md, "Compute"): the default program's
# four TDs cost 32768 + 16384 + 32768 + 1024 (inspect's "operations"); at their sum it runs, one
# less refuses TD 3 by name; 0 and a word are errors naming the key
out=$(fw "program=$work/p.hwx" ops_limit=82944); rc=$?
last_is job.ops_limit_at_the_sum_runs "anefw: done: ok: ran; no output checked (ref:NAME=PATH compares one with a reference)" "$out" "$rc" 0
out=$(fw "program=$work/p.hwx" ops_limit=82943); rc=$?
if grep -q "^submit: engine failed: engine-fault: td 3, unit engine: beyond-model-capacity: the task's operations" <<<"$out"; then
	t_pass job.ops_limit_refuses_td_3
else
	t_fail job.ops_limit_refuses_td_3 "$(grep -E '^(submit|anefw)' <<<"$out" | head -3 | tr '\n' ' ')"
fi
last_is job.ops_limit_past_is_the_verdict "anefw: done: FAILED: submission 1 failed: engine-fault" "$out" "$rc" 1
for bad in 0 many; do
	out=$(fw "program=$work/p.hwx" "ops_limit=$bad"); rc=$?
	if grep -q "^error: ops_limit=$bad: wants 1 .. 2^62 operations a task" <<<"$out"; then
		t_pass "job.ops_limit_${bad}_named"
	else
		t_fail "job.ops_limit_${bad}_named" "$(grep -E '^error' <<<"$out" | head -2 | tr '\n' ' ')"
	fi
	last_is "job.ops_limit_${bad}_is_the_verdict" "anefw: done: FAILED: ops_limit=$bad: wants 1 .. 2^62" "$out" "$rc" 1
done

# the command line is read whole or refused (semihosting SYS_GET_CMDLINE): a line of ~3000 bytes
# (over the old 1023-byte buffer) is read and runs (the wrong reference's MISMATCH is the
# verdict: the words were all read); one of 4096 bytes or more, which QEMU does not give, is an
# error, not an empty line (it was "done: ok", exit 0)
pad() { local n=$1 w=""; while [ ${#w} -lt "$n" ]; do w="$w trace=0"; done; echo "$w"; }
out=$(fw "program=$work/p.hwx" $(pad 3000) "ref:output_0=$work/wrong_ref.npy"); rc=$?
last_is job.command_line_3000_bytes_read_whole "anefw: done: FAILED: output-mismatch: an output differs from its reference (the MISMATCH lines above)" "$out" "$rc" 1
out=$(fw "program=$work/p.hwx" $(pad 4100) "ref:output_0=$work/wrong_ref.npy"); rc=$?
if grep -q '^error: the command line could not be read: the host refused it' <<<"$out" &&
   ! grep -q '^completion:' <<<"$out"; then
	t_pass job.command_line_too_long_named; else t_fail job.command_line_too_long_named "$(grep -E '^(error|command line|anefw)' <<<"$out" | cut -c1-160)"; fi
last_is job.command_line_too_long_is_the_verdict "anefw: done: FAILED: the command line could not be read (4096 bytes or more?)" "$out" "$rc" 1
# program=PATH over the 511-byte path buffer is named as such, not "no program given"; a path
# of 511 bytes is taken (and not found: the file does not exist)
p511="$work/$(printf 'd%.0s' $(seq $((511 - ${#work} - 1))))"
out=$(fw "program=${p511}x"); rc=$?
if grep -qxF "error: program=PATH: the path is longer than 511 bytes, the longest taken" <<<"$out"; then
	t_pass job.program_path_too_long_named; else t_fail job.program_path_too_long_named "$(grep -E '^(error|anefw)' <<<"$out" | cut -c1-160)"; fi
last_is job.program_path_too_long_is_the_verdict "anefw: done: FAILED: program=PATH: the path is longer than 511 bytes" "$out" "$rc" 1
out=$(fw "program=$p511"); rc=$?
if [ "$rc" -eq 1 ] && ! grep -q "longer than 511\|no program given" <<<"$out" && grep -q "$p511" <<<"$out"; then
	t_pass job.program_path_of_511_bytes_taken; else t_fail job.program_path_of_511_bytes_taken "exit $rc: $(grep -E '^(error|program|anefw)' <<<"$out" | cut -c1-160)"; fi

# a file that is no program says so
out=$(fw "program=README.md"); rc=$?
last_is job.text_file_is_no_program "anefw: done: FAILED: program rejected: unknown_register: this is a text file, not an ANE program (a .hwx starts with the magic 0xbeefface; a raw task stream with a task descriptor)" "$out" "$rc" 1
out=$(fw "program=$work/bad_shape.npy"); rc=$?
if [ "$rc" -eq 1 ] && grep -q "^program: $work/bad_shape.npy: this is a NumPy .npy file, not an ANE program" <<<"$out"; then
	t_pass job.npy_is_no_program; else t_fail job.npy_is_no_program "exit $rc"; fi

# a file that does not open says why (the host's errno over semihosting), for the program, an
# input and an output in a directory that does not exist (it said "cannot open" alone); the
# run beside it with every path there is the control (job.refs_checked above)
out=$(fw "program=$work/absent.hwx"); rc=$?
last_is job.absent_program_says_why "anefw: done: FAILED: program: cannot open $work/absent.hwx: no such file or directory" "$out" "$rc" 1
# a directory given as the program says so ("short read" before: it opens, and its reads fail)
out=$(fw "program=$work"); rc=$?
last_is job.program_that_is_a_directory_says_so "anefw: done: FAILED: program: $work: it is a directory, not a program file" "$out" "$rc" 1
out=$(fw "program=$work/p.hwx" "in:input=$work/absent.npy"); rc=$?
if [ "$rc" -eq 1 ] && grep -qxF "run: $work/absent.npy: file-cannot-open: the file cannot be opened; no such file or directory" <<<"$out"; then
	t_pass job.absent_input_says_why; else t_fail job.absent_input_says_why "exit $rc: $(grep '^run:' <<<"$out")"; fi
# an input or a reference that names a directory says so (it said "file-read-failed: a short
# read, or a length the HAL cannot give": a directory opens over semihosting and its reads fail;
# an output, before the run: it ran, then "file-write-failed"); no submission
for kv in "in:input" "ref:output_0" "out:output_0"; do
	out=$(fw "program=$work/p.hwx" "$kv=$work"); rc=$?
	if [ "$rc" -eq 1 ] && ! grep -q '^completion:' <<<"$out" &&
	   grep -qx "run: $work: file-is-a-directory: the path names a directory, not a file\(; (checked before the run: nothing was run)\)\?" <<<"$out"; then
		t_pass "job.${kv%%:*}_that_is_a_directory_says_so"; else t_fail "job.${kv%%:*}_that_is_a_directory_says_so" "exit $rc: $(grep '^run:\|^completion' <<<"$out")"; fi
done
# an output in a missing directory is said before the run (it was found after it, the outputs
# lost): no submission, no file made
out=$(fw "program=$work/p.hwx" "out:output_0=$work/nodir/y.npy"); rc=$?
if [ "$rc" -eq 1 ] && [ ! -e "$work/nodir" ] && ! grep -q '^completion:' <<<"$out" &&
   grep -qxF "run: $work/nodir/y.npy: file-cannot-open: the file cannot be opened; its directory $work/nodir: no such file or directory (checked before the run: nothing was run)" <<<"$out"; then
	t_pass job.output_in_a_missing_directory_says_why; else t_fail job.output_in_a_missing_directory_says_why "exit $rc: $(grep '^run:\|^completion' <<<"$out")"; fi
t_done
