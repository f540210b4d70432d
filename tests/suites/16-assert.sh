# ASSERT on the target (issue 23 section 5; fw/common/assert.h): the test image's mode=assert
# asserts a false condition; the run must stop with the boot panic naming the condition, file and
# line, and exit with the crash status (100), never carry on. The host side is the unit test
# assert.false_condition_aborts_with_file_and_line (a forked child dies of SIGABRT).
. tests/lib.sh
for b in $TEST_BOARDS; do
	elf="$BUILD/$b/anefw-tests.elf"
	if [ ! -f "$elf" ]; then
		t_fail "assert.$b.panics" "no $elf (make test-build builds it)"
		continue
	fi
	out=$(qemu_run --board "$b" --timeout 30 "$elf" mode=assert 2>&1); rc=$?
	out=$(tr -d '\r' <<<"$out")
	if [ "$rc" -eq 100 ] &&
	   grep -q '\*\*\* anefw panic: assertion failed: zero == 1 at tests/target/target_tests.c:[0-9][0-9]* \*\*\*' <<<"$out" &&
	   ! grep -q 'did not stop' <<<"$out"; then
		t_pass "assert.$b.false_condition_panics_with_file_line_exit_100"
	else
		t_fail "assert.$b.false_condition_panics_with_file_line_exit_100" "exit $rc: $(tail -n 3 <<<"$out" | tr '\n' ' ')"
	fi
done
t_done
