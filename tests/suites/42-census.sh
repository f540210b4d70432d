# anefw-tool census (issue 21, "fail loudly"): every bit of every register word a TD writes is
# flipped and the program run again; each flip is refused, changes the outputs or changes
# nothing, and the fields no flip at any TD reads are listed. On hwx/relu.hwx (77 values: the
# whole census takes a fraction of a second): the tool runs and counts every flip; fields the
# model reads are found read (the destination address: refused out of its grant; NE.PostScale:
# the outputs change), a cache hint is listed unread; the checker fails when asked to find a
# field read that is not (negative control); bad arguments are refused with exit 2. The flips the
# census accepts with changed outputs, on conv.hwx and add.bin, against numpy (flip_check.py, below).
. tests/lib.sh
TOOL="$BUILD/host/anefw-tool"
if ! have_shared; then
	t_skip census "../shared absent"
	t_done
	exit
fi
f="$SHARED/fixtures/hwx/relu.hwx"
out=$("$TOOL" census "$f" 2>&1); rc=$?
# relu.hwx's one TD writes 140 register words: 4480 flips
if [ "$rc" -eq 0 ] && grep -Eq "^census .*relu.hwx: 4480 flips: refused [1-9][0-9]*, changed [1-9][0-9]*, same [0-9]+; [0-9]+ of [0-9]+ fields" <<<"$out"; then
	t_pass census.every_flip_counted
else
	t_fail census.every_flip_counted "exit $rc: $(tail -n 3 <<<"$out")"
fi
# read FIELD KIND: the field's line at TD 0 has KIND ("refused" or "changed") above 0
read_as() {
	grep -E "^td 0 $1 \(bits [0-9]+\.\.[0-9]+, value [0-9]+\): " <<<"$out" |
		grep -Eq "$2 [1-9][0-9]*"
}
if read_as 'TileDMADst\.BaseAddr\.Addr' refused && read_as 'NE\.PostScale\.PostScale' changed &&
   read_as 'Common\.ChCfg\.InFmt' refused; then
	t_pass census.fields_the_model_reads_are_found_read
else
	t_fail census.fields_the_model_reads_are_found_read "$(grep -E 'BaseAddr\.Addr|PostScale\.PostScale|InFmt' <<<"$out")"
fi
if grep -q '^unread at every TD: TileDMASrc.DMAConfig.CacheHint, values 0x2$' <<<"$out" &&
   grep -Eq '^td 0 TileDMASrc\.DMAConfig\.CacheHint \(bits 6\.\.9, value 2\): refused 0, changed 0, same 4: unread$' <<<"$out"; then
	t_pass census.a_cache_hint_is_listed_unread
else
	t_fail census.a_cache_hint_is_listed_unread "$(grep CacheHint <<<"$out" | head -n 3)"
fi
# negative control: the checker does not find the cache hint read
if read_as 'TileDMASrc\.DMAConfig\.CacheHint' changed || read_as 'TileDMASrc\.DMAConfig\.CacheHint' refused; then
	t_fail census.checker_fails_on_an_unread_field "the cache hint was found read"
else
	t_pass census.checker_fails_on_an_unread_field
fi
# --quiet keeps only the unread lines and the summary
q=$("$TOOL" census "$f" --quiet 2>&1)
if ! grep -q '^td .*changed [1-9]' <<<"$q" && grep -q '^census ' <<<"$q" && [ "$(grep -c ': unread$' <<<"$q")" -gt 0 ]; then
	t_pass census.quiet_lists_only_what_nothing_reads
else
	t_fail census.quiet_lists_only_what_nothing_reads "$(head -n 3 <<<"$q")"
fi
for bad in "" "$f --td 1" "$f --td x" "$f --what" "$f $f"; do
	# shellcheck disable=SC2086
	o=$("$TOOL" census $bad 2>&1); rc=$?
	if [ "$rc" -eq 2 ] && grep -q 'anefw-tool census' <<<"$o"; then
		t_pass "census.refuses '${bad#"$f"}'"
	else
		t_fail "census.refuses '${bad#"$f"}'" "exit $rc: $o"
	fi
done
# a TD the program does not have: the count in the singular for one TD, and the range --td takes
# ("has 1 TDs, no TD 1" before); a file that does not load says it as validate does, and what the
# file is (the error's name alone before: "not loaded: unknown_register" for a text file)
bad=""
o=$("$TOOL" census "$f" --td 1 2>&1); rc=$?
[ "$rc" -eq 2 ] && [ "$o" = "anefw-tool census: $f has 1 TD, no TD 1 (--td takes 0 to 0)" ] || bad="$bad [--td 1: exit $rc: $o]"
v=$("$TOOL" validate README.md 2>&1)
o=$("$TOOL" census README.md 2>&1); rc=$?
[ "$rc" -eq 1 ] && [ "$o" = "$(sed 's/^README.md: /anefw-tool census: README.md: /; 1s/^/anefw-tool census: README.md: not loaded: /' <<<"$v")" ] &&
	grep -q "this is a text file" <<<"$o" || bad="$bad [README.md: exit $rc: $o]"
if [ -z "$bad" ]; then t_pass census.refusals_say_what_the_program_has
else t_fail census.refusals_say_what_the_program_has "$bad"; fi
# the program-format options run and inspect take, parsed by the same code (tool_take_format):
# --hwx on relu.hwx counts the same 4480 flips; --raw on it is refused as inspect --raw refuses
# it; both are a usage error, as in run (census took neither before: "unknown argument '--raw'")
bad=""
o=$("$TOOL" census "$f" --hwx --quiet 2>&1); rc=$?
[ "$rc" -eq 0 ] && grep -q "^census .*relu.hwx: 4480 flips" <<<"$o" || bad="$bad [--hwx: exit $rc: $(tail -n1 <<<"$o")]"
i=$("$TOOL" inspect --raw "$f" 2>&1)
o=$("$TOOL" census --raw "$f" 2>&1); rc=$?
w=${i/"anefw-tool inspect: $f: "/"anefw-tool census: $f: not loaded: "}
[ "$rc" -eq 1 ] && [ -n "$i" ] && [ "$o" = "${w//anefw-tool inspect: /anefw-tool census: }" ] ||
	bad="$bad [--raw: exit $rc: $o (inspect: $i)]"
o=$("$TOOL" census "$f" --raw --hwx 2>&1); rc=$?
r=$("$TOOL" run "$f" --raw --hwx 2>&1)
[ "$rc" -eq 2 ] && [ "$o" = "${r/anefw-tool run:/anefw-tool census:}" ] || bad="$bad [--raw --hwx: exit $rc: $o (run: $r)]"
if [ -z "$bad" ]; then t_pass census.takes_the_program_format_options_of_run_and_inspect
else t_fail census.takes_the_program_format_options_of_run_and_inspect "$bad"; fi
# a program that loads and does not run as it is says why as run does, with the TD and the
# particulars (the error's name alone before: "does not run as it is: bar-not-granted")
if have_shared; then
	h="$SHARED/fixtures/hostile/oom-weights-10g.bin"
	r=$("$TOOL" run "$h" 2>&1 | sed -n 's/^submit: refused: //p')
	o=$("$TOOL" census "$h" 2>&1); rc=$?
	if [ "$rc" -eq 1 ] && [ -n "$r" ] && [ "$o" = "anefw-tool census: $h does not run as it is: $r" ]; then
		t_pass census.a_program_that_does_not_run_says_why_as_run_does
	else t_fail census.a_program_that_does_not_run_says_why_as_run_does "exit $rc: $o (run: $r)"; fi
fi
# The flips the census finds accepted with changed outputs compute what the register map and
# docs/engine-model.md say the field means ("The census's accepted flips against numpy"): 12
# one-bit flips in conv.hwx's register words and 12 in add.bin's, each run on random inputs and its
# output buffer compared, byte for byte, with numpy's reading of the flipped registers
# (tests/oracle/flip_check.py); its negative holds each output to the unflipped reading.
if have_shared; then
	work=$(mktemp -d)
	if out=$("$PYTHON" tests/oracle/flip_check.py "$TOOL" "$SHARED" "$work" 2>&1); then
		t_pass census.accepted_flips_compute_the_fields_documented_reading
	else
		t_fail census.accepted_flips_compute_the_fields_documented_reading "$(grep -v '^ok' <<<"$out" | head -n 5)"
	fi
	if out=$("$PYTHON" tests/oracle/flip_check.py "$TOOL" "$SHARED" "$work" --wrong 2>&1); then
		t_pass census.flip_checker_fails_on_the_unflipped_reading
	else
		t_fail census.flip_checker_fails_on_the_unflipped_reading "$(grep -v '^ok' <<<"$out" | head -n 5)"
	fi
	rm -rf "$work"
fi
t_done
