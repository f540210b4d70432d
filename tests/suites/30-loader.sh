# Program loader: anefw-tool inspect agrees with the independent Python reader on every fixture
# (TD count, per-TD write counts, enabled coefficient channels); validate names the expected
# error for every program of the malformed corpus; the firmware loads a program over
# semihosting; a short libFuzzer pass over the loader and printer.
. tests/lib.sh
TOOL="$BUILD/host/anefw-tool"
CORPUS="$BUILD/testdata/loader_corpus"
REF=tests/oracle/hwx_ref.py

# compare NAME FILE [--raw]: tool JSON vs reference JSON
compare() {
	local name=$1 file=$2; shift 2
	local a b
	a=$("$TOOL" inspect --json "$@" "$file" 2>&1) || { t_fail "$name" "inspect failed: $a"; return; }
	b=$("$PYTHON" "$REF" "$file" "$@" 2>&1) || { t_fail "$name" "reference failed: $b"; return; }
	local why
	why=$("$PYTHON" - "$a" "$b" <<'PY'
import json, sys
a, b = json.loads(sys.argv[1]), json.loads(sys.argv[2])
ta, tb = a['tds'], b['tds']
if a['generation'] != b['generation']:
    print('generation %s vs %s' % (a['generation'], b['generation'])); sys.exit(1)
if len(ta) != len(tb):
    print('td count %d vs %d' % (len(ta), len(tb))); sys.exit(1)
for i, (x, y) in enumerate(zip(ta, tb)):
    if x['writes'] != y['writes']:
        print('td %d writes %d vs %d' % (i, x['writes'], y['writes'])); sys.exit(1)
    cx = [[c['ch'], c['base'], c['size']] for c in x['coeff']]
    if cx != y['coeff']:
        print('td %d coeff %s vs %s' % (i, cx, y['coeff'])); sys.exit(1)
print('%d tds, writes %s, coeff channels %s' % (len(ta), [t['writes'] for t in ta],
      [len(t['coeff']) for t in ta]))
PY
) && t_pass "$name ($why)" || t_fail "$name" "$why"
}

if have_shared; then
	for f in "$SHARED"/fixtures/hwx/*.hwx "$SHARED"/fixtures/kernels/*/*.bin; do
		rel=${f#"$SHARED"/fixtures/}
		compare "loader.ref.$rel" "$f"
	done
else
	t_skip loader.ref.fixtures "../shared fixtures absent"
fi
compare loader.ref.synthetic_hwx "$CORPUS/valid_hwx.bin"
compare loader.ref.synthetic_raw "$CORPUS/valid_raw.bin" --raw

# validate on the malformed corpus: the expected named error and a nonzero exit; a program the
# corpus calls valid loads (inspect exits 0: validate goes on to the tensors and the control
# path, which the corpus' loader fixtures do not pass, below)
n=0; bad=0
while read -r file expect mode; do
	case $file in '#'*|'') continue ;; esac
	flag=; [ "$mode" = raw ] && flag=--raw; [ "$mode" = hwx ] && flag=--hwx
	out=$("$TOOL" validate $flag "$CORPUS/$file" 2>&1); rc=$?
	n=$((n + 1))
	if [ "$expect" = ok ]; then
		out=$("$TOOL" inspect $flag "$CORPUS/$file" 2>&1); rc=$?
		[ "$rc" -eq 0 ] || { bad=$((bad + 1)); echo "  $file: expected it to load, got '$(head -n1 <<<"$out")' (exit $rc)"; }
	else
		if [ "$rc" -ne 1 ] || [ "${out%%:*}" != "$expect" ]; then
			bad=$((bad + 1)); echo "  $file: expected $expect, got '$out' (exit $rc)"
		fi
	fi
done < "$CORPUS/index.txt"
if [ "$n" -ge 32 ] && [ "$bad" -eq 0 ]; then
	t_pass "loader.validate.corpus ($n programs)"
else
	t_fail loader.validate.corpus "$bad of $n wrong"
fi

# validate never crashes on junk: empty, tiny, random-looking bytes, the magic alone
tmp=$(mktemp -d)
: > "$tmp/empty"
printf '\xce\xfa\xef\xbe' > "$tmp/magic"
"$PYTHON" -c "
import sys
x = 12345
b = bytearray()
for i in range(5000):
    x = (x * 1103515245 + 12345) & 0x7fffffff
    b.append(x >> 16 & 0xff)
open(sys.argv[1], 'wb').write(b)" "$tmp/junk"
crash=0
for f in "$tmp"/*; do
	for flag in "" --raw --hwx; do
		"$TOOL" validate $flag "$f" >/dev/null 2>&1; rc=$?
		[ "$rc" -eq 1 ] || { crash=1; echo "  $f $flag: exit $rc"; }
	done
done
rm -rf "$tmp"
[ "$crash" -eq 0 ] && t_pass loader.validate.junk_rejected_cleanly || t_fail loader.validate.junk_rejected_cleanly

# a program the loader refuses is said alike by every command, in one order: the named error
# with its offset and values first (validate's first line, behind the command's lead), then
# what the file is, with its path. run and remote left out the offset, submit the path (a text
# file: README.md, refused at file offset 0x2c)
v=$("$TOOL" validate README.md 2>&1); bad=""
v1=$(head -n1 <<<"$v"); v2=$(sed -n 2p <<<"$v")
[ "$(wc -l <<<"$v")" -eq 2 ] && grep -q " at file offset 0x2c" <<<"$v1" && [ "${v2%%: *}" = README.md ] || bad="[validate: $v]"
alike() { # lead lead2 command [args...]: the command's two lines, leads and all
	local l1=$1 l2=$2 got; shift 2
	got=$("$TOOL" "$@" 2>&1)
	[ "$got" = "$l1$v1
$l2${v2}" ] || bad="$bad [$1: $(tr '\n' '|' <<<"$got")]"
}
alike "run: program: " "run: " run README.md
alike "submit: program rejected: " "submit: " submit README.md
alike "remote: program: " "remote: " remote --connect 127.0.0.1:1 run README.md
alike "anefw-tool inspect: README.md: " "anefw-tool inspect: " inspect README.md
alike "anefw-tool census: README.md: not loaded: " "anefw-tool census: " census README.md
d=$(mktemp -d); alike "convert: README.md: program rejected: " "convert: " convert README.md "$d/x.anec"; rm -rf "$d"
if [ -z "$bad" ]; then t_pass loader.refusal_said_alike_by_every_command
else t_fail loader.refusal_said_alike_by_every_command "$bad"; fi

# validate says what run refuses before the engine, in run's words: the tensors (run's first
# check after the loader) and the control path's plan with the default grants (it said ok for
# the corpus' valid_hwx.bin, whose tensors cannot be derived, and for ../shared's two hostile
# programs, which run refuses at once); what it does not check is said with its ok
check_validate() { # file -> "" or the mismatch
	local v r rc vrc
	v=$("$TOOL" validate "$1" 2>&1); vrc=$?
	r=$("$TOOL" run "$1" 2>&1); rc=$?
	local first; first=$(grep -m1 '^run: program: \|^submit: refused: ' <<<"$r" | sed 's/^run: program: //; s/^submit: refused: //')
	[ "$vrc" -eq 1 ] && [ "$rc" -eq 1 ] && [ -n "$first" ] && [ "$(head -n1 <<<"$v")" = "$first${2:-}" ] ||
		echo "[$(basename "$1"): validate exit $vrc: $(head -n2 <<<"$v" | tr '\n' ' '); run exit $rc: $first]"
}
# run's tensors line and validate's are one text from one function (tio_print_underivable),
# with the control path's refusal whole: its TD and range (run said "zero-dimension" alone,
# validate that and the TD on a second line), said once
bad=$(check_validate "$CORPUS/valid_hwx.bin")
[ "$("$TOOL" validate "$CORPUS/valid_hwx.bin" 2>&1)" = "tensors-underivable: the program's tensors cannot be derived; zero-dimension td 0 dst: a zero dimension or a zero-length buffer" ] ||
	bad="$bad [valid_hwx.bin: the control path's line]"
# and inspect's tensors line the same refusal, from the same function (fw/ctrl ctrl_status_print;
# "tensors: cannot be derived: zero-dimension" before)
[ "$("$TOOL" inspect "$CORPUS/valid_hwx.bin" 2>&1 | tail -n1)" = "tensors: cannot be derived: zero-dimension td 0 dst: a zero dimension or a zero-length buffer" ] ||
	bad="$bad [valid_hwx.bin: inspect's tensors line: $("$TOOL" inspect "$CORPUS/valid_hwx.bin" 2>&1 | tail -n1)]"
# inspect --json gives the same refusal whole (tensors_error_text) beside its name
# (tensors_error, the key for programs; the name alone before), and convert says it whole too
j=$("$TOOL" inspect --json "$CORPUS/valid_hwx.bin" 2>&1 | "$PYTHON" -c 'import json, sys; d = json.load(sys.stdin); print(d["tensors"], d["tensors_error"], "|", d["tensors_error_text"])')
[ "$j" = "None zero-dimension | zero-dimension td 0 dst: a zero dimension or a zero-length buffer" ] ||
	bad="$bad [valid_hwx.bin: inspect --json's tensors_error: $j]"
d=$(mktemp -d)
c=$("$TOOL" convert "$CORPUS/valid_hwx.bin" "$d/x.anec" 2>&1); rc=$?
[ "$rc" -eq 1 ] && [ ! -e "$d/x.anec" ] &&
	[ "$c" = "convert: $CORPUS/valid_hwx.bin: the tensors cannot be derived: zero-dimension td 0 dst: a zero dimension or a zero-length buffer" ] ||
	bad="$bad [valid_hwx.bin: convert exit $rc: $c]"
rm -rf "$d"
if have_shared; then
	for f in "$SHARED"/fixtures/hostile/*.bin; do bad="$bad$(check_validate "$f")"; done
	out=$("$TOOL" validate "$SHARED/fixtures/hwx/relu.hwx" 2>&1); rc=$?
	[ "$rc" -eq 0 ] && [ "$out" = "ok: it loads, its tensors derive and the control path takes it with the default grants; the engine model is not run, so its refusals (engine-fault) show only in run and submit" ] ||
		bad="$bad [relu.hwx: exit $rc: $out]"
fi
if [ -z "$bad" ]; then t_pass loader.validate.says_what_run_refuses_before_the_engine
else t_fail loader.validate.says_what_run_refuses_before_the_engine "$bad"; fi

# a cut program says what the file holds against what was expected (the error's name alone
# before): relu.hwx cut inside its load commands, inside __TEXT and inside its header, and
# tanh.bin (a raw stream) cut inside its weights, which is not "not an ANE program" (its TD
# decodes). Expected values read from the files by python (sizeofcmds at +20; the segment
# command at 0x68, fileoff +40, filesize +48) and hwx_ref.py (the coefficient channel); the
# weights of a raw stream start at the 16-byte boundary after its 0x274-byte TD, 0x280
if have_shared; then
	tmp=$(mktemp -d)
	R="$SHARED/fixtures/hwx/relu.hwx" K="$SHARED/fixtures/kernels/unary/tanh.bin"
	head -c 40 "$R" >"$tmp/c40.hwx"; head -c 4000 "$R" >"$tmp/c4000.hwx"; head -c 10 "$R" >"$tmp/c10.hwx"
	head -c 700 "$K" >"$tmp/c700.bin"
	read -r cmds seg fo fs <<<"$("$PYTHON" -c "
import struct, sys
b = open(sys.argv[1], 'rb').read()
s = struct.unpack_from('<I', b, 20)[0]
print(hex(s), b[0x68 + 8:0x68 + 24].split(b'\0')[0].decode(), hex(struct.unpack_from('<Q', b, 0x68 + 40)[0]), hex(struct.unpack_from('<Q', b, 0x68 + 48)[0]))" "$R")"
	read -r cch cbase csize <<<"$("$PYTHON" tests/oracle/hwx_ref.py "$K" --raw | "$PYTHON" -c "
import json, sys
c = json.load(sys.stdin)['tds'][0]['coeff'][0]
print(c[0], hex(c[1]), hex(c[2]))")"
	bad=""
	want() { # file expected-line
		local out rc; out=$("$TOOL" validate "$1" 2>&1); rc=$?
		[ "$rc" -eq 1 ] && [ "$out" = "$2" ] || bad="$bad [$(basename "$1"): exit $rc: $out]"
	}
	want "$tmp/c40.hwx" "cmd_outside_file: load commands extend outside the file: the load commands end at $(printf '0x%x' $((0x20 + cmds))) (sizeofcmds $cmds), the file is 0x28 bytes"
	want "$tmp/c4000.hwx" "segment_outside_file: segment file range outside the file at file offset 0x68: segment $seg: file $fo + $fs bytes, the file is 0xfa0 bytes"
	want "$tmp/c10.hwx" "truncated: file shorter than its header: the file is 0xa bytes, a .hwx header 0x20"
	# a .hwx read as a raw stream says so (--raw on relu.hwx: unknown_register alone before);
	# a raw stream read as a .hwx says its magic (bad_magic alone before)
	out=$("$TOOL" validate --raw "$R" 2>&1); rc=$?
	[ "$rc" -eq 1 ] && [ "$out" = "unknown_register: write to a register outside the register map at file offset 0x2c: the file starts with the .hwx magic 0xbeefface: a container, read as a raw task stream (without --raw it is read as a .hwx)" ] ||
		bad="$bad [--raw relu.hwx: exit $rc: $out]"
	want4=$("$PYTHON" -c "import struct,sys; print('0x%08x' % struct.unpack_from('<I', open(sys.argv[1],'rb').read(), 0)[0])" "$K")
	out=$("$TOOL" validate --hwx "$K" 2>&1); rc=$?
	[ "$rc" -eq 1 ] && [ "$out" = "bad_magic: not a .hwx container (bad magic): magic $want4, a .hwx has 0xbeefface" ] ||
		bad="$bad [--hwx tanh.bin: exit $rc: $out]"
	want "$tmp/c700.bin" "coeff_outside_weights: enabled coefficient buffer outside the weights: td 0 coefficient channel $cch: $cbase + $csize bytes, the weights 0x3c bytes"
	# a raw stream cut inside its TDs says it is cut, with the lengths, and what its header
	# decodes to (it was "not an ANE program" before): tanh.bin cut at 100 bytes (inside the
	# record at 0x28, its word count from the command word's [31:26]) and at 10 (inside the
	# header: word 0's tid and end-of-network bit), softmax.bin at 700 (TD 1 at TD 0's next
	# pointer, word 7, sized by TD 0's NextSize, word 1 [24:16], in words less one)
	head -c 100 "$K" >"$tmp/c100.bin"; head -c 10 "$K" >"$tmp/c10.bin"; head -c 700 "$SHARED/fixtures/kernels/activation/softmax.bin" >"$tmp/s700.bin"
	read -r rn rend tid nptr nsz eon <<<"$("$PYTHON" -c "
import struct, sys
k = open(sys.argv[1], 'rb').read(); s = open(sys.argv[2], 'rb').read()
n = (struct.unpack_from('<I', k, 0x28)[0] >> 26) + 1
w0 = struct.unpack_from('<I', k, 0)[0]
print(n, hex(0x28 + 4 + 4 * n), w0 & 0xffff, hex(struct.unpack_from('<I', s, 28)[0]),
      hex(((struct.unpack_from('<I', s, 4)[0] >> 16 & 0x1ff) + 1) * 4),
      'end of network' if w0 >> 25 & 1 else 'not the last')" "$K" "$SHARED/fixtures/kernels/activation/softmax.bin")"
	cut="a raw task stream cut short: the file ends inside a task descriptor (its header decodes)"
	want "$tmp/c100.bin" "stream_overrun: register-write stream runs past its task descriptor at file offset 0x28: td 0's record at 0x28 writes $rn registers, to $rend; the file ends at 0x64 (a whole TD is 0x274 bytes)
$tmp/c100.bin: $cut"
	want "$tmp/c10.bin" "truncated: file shorter than its header: the file is 0xa bytes, a task descriptor's header 0x28; its first word reads as one: tid $tid, $eon
$tmp/c10.bin: a raw task stream cut short: the file ends inside its first task descriptor's header, whose words read as one"
	want "$tmp/s700.bin" "td_outside_text: task descriptor outside the raw task stream at file offset $nptr: td 1 at $nptr + $nsz bytes, the file is 0x2bc bytes
$tmp/s700.bin: $cut"
	# a raw stream cut where its only TD's writes begin (tanh.bin at 40 bytes: the header alone;
	# at 48: two padding words after it) is cut short, and validate, run and submit say so alike;
	# validate said ok while run refused it ("tensors-underivable: ... zero-dimension"). A raw
	# stream's TD is outside the stream, not __text (it said "outside __text", above too). The
	# whole tanh.bin validates (the control)
	head -c 40 "$K" >"$tmp/h40.bin"; { head -c 40 "$K"; head -c 8 /dev/zero; } >"$tmp/h48.bin"
	bad0=$bad; bad=""
	want "$tmp/h40.bin" "td_outside_text: task descriptor outside the raw task stream: td 0 at 0x0 + 0x274 bytes, the file is 0x28 bytes: the task descriptor's 0x28-byte header alone, no register written
$tmp/h40.bin: $cut"
	want "$tmp/h48.bin" "td_outside_text: task descriptor outside the raw task stream: td 0 at 0x0 + 0x274 bytes, the file is 0x30 bytes: the task descriptor's 0x28-byte header and padding, no register written
$tmp/h48.bin: $cut"
	v=$("$TOOL" validate "$tmp/h40.bin" 2>&1 | head -n1)
	out=$("$TOOL" run "$tmp/h40.bin" 2>&1); rc=$?
	[ "$rc" -eq 1 ] && [ "$(head -n1 <<<"$out")" = "run: program: $v" ] || bad="$bad [run h40.bin: exit $rc: $out]"
	out=$("$TOOL" submit "$tmp/h40.bin" 2>&1); rc=$?
	[ "$rc" -eq 1 ] && [ "$(head -n1 <<<"$out")" = "submit: program rejected: $v" ] || bad="$bad [submit h40.bin: exit $rc: $out]"
	out=$("$TOOL" validate "$K" 2>&1); rc=$?
	[ "$rc" -eq 0 ] && [ "${out%%:*}" = "ok" ] || bad="$bad [tanh.bin whole: exit $rc: $out]"
	if [ -z "$bad" ]; then t_pass loader.validate.raw_stream_cut_after_its_header_is_cut_short
	else t_fail loader.validate.raw_stream_cut_after_its_header_is_cut_short "$bad"; fi
	bad=$bad0
	# a chain that ends without end-of-network says where and what the TD holds (the name
	# alone before): tanh.bin with EON (word 0 bit 25) cleared, whose TD decodes (its 140
	# writes), is a broken chain, not "not an ANE program"; a TD of zeros (libane's command
	# buffer after a short read of a cut anec) has no writes: no program there
	"$PYTHON" -c "
import struct, sys
b = bytearray(open(sys.argv[1], 'rb').read()); w = struct.unpack_from('<I', b, 0)[0]
struct.pack_into('<I', b, 0, w & ~(1 << 25)); open(sys.argv[2], 'wb').write(b)
open(sys.argv[3], 'wb').write(bytes(0x280))" "$K" "$tmp/noeon.bin" "$tmp/zeros.bin"
	bad0=$bad; bad=""
	want "$tmp/noeon.bin" "chain_break: task descriptor chain ends without end-of-network: td 0 at 0x0 + 0x274 bytes: end-of-network clear, next pointer 0, 140 register writes"
	out=$("$TOOL" validate "$tmp/zeros.bin" 2>&1); rc=$?
	[ "$rc" -eq 1 ] && [ "$(head -n1 <<<"$out")" = "chain_break: task descriptor chain ends without end-of-network: td 0 at 0x0 + 0x274 bytes: end-of-network clear, next pointer 0, 0 register writes (an empty task descriptor: no program there)" ] ||
		bad="$bad [zeros.bin: exit $rc: $out]"
	if [ -z "$bad" ]; then t_pass loader.validate.chain_break_says_where_and_what_the_td_holds
	else t_fail loader.validate.chain_break_says_where_and_what_the_td_holds "$bad"; fi
	bad=$bad0
	# a text file is still no ANE program (its first word reads as no header)
	out=$("$TOOL" validate README.md 2>&1); rc=$?
	[ "$rc" -eq 1 ] && grep -q "^README.md: this is a text file, not an ANE program" <<<"$out" ||
		bad="$bad [README.md: exit $rc: $out]"
	# submit and convert say it as validate does (they printed the name alone)
	v=$("$TOOL" validate "$tmp/c4000.hwx" 2>&1)
	out=$("$TOOL" submit "$tmp/c4000.hwx" 2>&1); rc=$?
	[ "$rc" -eq 1 ] && [ "$out" = "submit: program rejected: $v" ] || bad="$bad [submit: exit $rc: $out]"
	out=$("$TOOL" convert "$tmp/c4000.hwx" "$tmp/c.anec" 2>&1); rc=$?
	[ "$rc" -eq 1 ] && [ "$out" = "convert: $tmp/c4000.hwx: program rejected: $v" ] && [ ! -e "$tmp/c.anec" ] ||
		bad="$bad [convert: exit $rc: $out]"
	out=$("$TOOL" submit README.md 2>&1); rc=$?
	[ "$rc" -eq 1 ] && grep -qx "submit: README.md: this is a text file, not an ANE program .*" <<<"$out" ||
		bad="$bad [submit README.md: exit $rc: $out]"
	rm -rf "$tmp"
	if [ -z "$bad" ]; then t_pass loader.validate.cut_programs_say_what_was_expected
	else t_fail loader.validate.cut_programs_say_what_was_expected "$bad"; fi
else
	t_skip loader.validate.cut_programs_say_what_was_expected "no ../shared"
fi

# the firmware: program= over semihosting, same summary as inspect
work_fw=$(mktemp -d)
for b in $TEST_BOARDS; do
	elf="$BUILD/$b/anefw.elf"
	out=$(qemu_run --board "$b" --timeout 60 "$elf" "program=$CORPUS/valid_hwx.bin" trace=1 2>&1); rc=$?
	# the firmware's summary, between "program: valid" and "anefw: done", is the host tool's
	# inspect output line for line
	"$TOOL" inspect "$CORPUS/valid_hwx.bin" >"$work_fw/want"
	echo "$out" | tr -d '\r' | sed -n '/^program: valid/,/^anefw: done/p' | sed '1d;$d' >"$work_fw/got"
	want=$(grep -c . "$work_fw/want")
	# valid_hwx.bin is a loader fixture, not a computable program: its TDs hold none of the
	# values every real TD has and write an output of no channels through WBase (bound, with
	# TileDMADst.DMAConfig.En clear: written all the same, fw/td td_dst_writes), which the control
	# path refuses by name at TD 0 before the engine runs; the load and the summary are what this
	# checks, then that refusal and nothing else
	if echo "$out" | grep -q '^anefw: done: FAILED: submission 1 refused: zero-dimension' &&
	   echo "$out" | grep -q '^submit: refused: zero-dimension td 0 dst' &&
	   [ "$want" -gt 0 ] && cmp -s "$work_fw/want" "$work_fw/got" &&
	   echo "$out" | grep -q '^tds: 2'; then
		t_pass "loader.$b.firmware_loads_program ($want summary lines, the same as inspect's)"
	else
		t_fail "loader.$b.firmware_loads_program" "exit $rc: $(diff "$work_fw/want" "$work_fw/got" | head -4 | tr '\n' ' ')"
	fi
	out=$(qemu_run --board "$b" --timeout 60 "$elf" "program=$CORPUS/chain_self_loop.bin" 2>&1); rc=$?
	if [ "$rc" -ne 0 ] && echo "$out" | grep -q 'rejected: chain_loop'; then
		t_pass "loader.$b.firmware_rejects_bad_program"
	else
		t_fail "loader.$b.firmware_rejects_bad_program" "exit $rc"
	fi
	out=$(qemu_run --board "$b" --timeout 60 "$elf" 2>&1); rc=$?
	if [ "$rc" -eq 0 ] && echo "$out" | grep -q 'no program given'; then
		t_pass "loader.$b.firmware_without_program"
	else
		t_fail "loader.$b.firmware_without_program" "exit $rc"
	fi
done
rm -rf "$work_fw"

# a short fuzzing pass (make fuzz runs it longer)
FUZZ="$BUILD/host/fuzz/fuzz_loader"
if [ -x "$FUZZ" ]; then
	work=$(mktemp -d)
	seeds=("$CORPUS")
	while IFS= read -r d; do [ -d "$d" ] && seeds+=("$d"); done < <(BUILD="$BUILD" SHARED="$SHARED" bash tests/fuzz/seeds/fuzz_loader.sh)
	if "$FUZZ" -max_total_time=8 -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 -artifact_prefix="$work/" \
		"$work" "${seeds[@]}" >"$work/log" 2>&1; then
		t_pass "loader.fuzz_8s ($(grep -o 'stat::number_of_executed_units: [0-9]*' "$work/log" | awk '{print $2}') runs)"
		rm -rf "$work"
	else
		t_fail loader.fuzz_8s "see $work/log"
		tail -n 20 "$work/log"
	fi
else
	t_fail loader.fuzz_8s "no $FUZZ (make test builds it: make fuzz-build)"
fi
t_done
