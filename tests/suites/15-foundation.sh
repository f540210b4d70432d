# The foundation's own checks: the harness counts failures and tests that check nothing, crashes
# are reported and end the run nonzero, .text is read-only, the stack guard page catches overflow,
# an MMU page-table pool too small for the map stops the boot with a panic, instruction counts
# repeat, and entry at EL2 and EL3 reaches EL1 with the MMU on.
. tests/lib.sh

# A failing test is reported as failed, and the target's exit status is the failure count.
for b in $TEST_BOARDS; do
	elf="$BUILD/$b/anefw-tests.elf"
	out=$(qemu_run --board "$b" --timeout 60 "$elf" harness.deliberate_failure 2>&1); rc=$?
	if [ "$rc" -eq 1 ] && echo "$out" | grep -q '^FAIL harness.deliberate_failure' \
		&& echo "$out" | grep -q '^0 passed, 1 failed'; then
		t_pass "foundation.$b.failing_test_is_counted"
	else
		t_fail "foundation.$b.failing_test_is_counted" "exit $rc"
	fi
done
out=$("$BUILD/host/anefw-tests" harness.deliberate_failure 2>&1); rc=$?
if [ "$rc" -eq 1 ] && echo "$out" | grep -q '^0 passed, 1 failed'; then
	t_pass foundation.host.failing_test_is_counted
else
	t_fail foundation.host.failing_test_is_counted "exit $rc"
fi

# A test that ran no checks (a helper returned early) is a failure, not a pass; a test that skips
# before any check is still a skip.
nocheck_ok() { # OUTPUT RC
	[ "$2" -eq 1 ] && echo "$1" | grep -q '^FAIL harness.no_checks: ran no checks' \
		&& echo "$1" | grep -q '^0 passed, 1 failed, 0 skipped'
}
skip_ok() { # OUTPUT RC
	[ "$2" -eq 0 ] && echo "$1" | grep -q '^skip harness.skip_without_checks' \
		&& echo "$1" | grep -q '^0 passed, 0 failed, 1 skipped'
}
for b in $TEST_BOARDS; do
	elf="$BUILD/$b/anefw-tests.elf"
	out=$(qemu_run --board "$b" --timeout 60 "$elf" harness.no_checks 2>&1); rc=$?
	if nocheck_ok "$out" "$rc"; then
		t_pass "foundation.$b.test_without_checks_fails"
	else
		t_fail "foundation.$b.test_without_checks_fails" "exit $rc: $(echo "$out" | tail -n2)"
	fi
	out=$(qemu_run --board "$b" --timeout 60 "$elf" harness.skip_without_checks 2>&1); rc=$?
	if skip_ok "$out" "$rc"; then
		t_pass "foundation.$b.skip_without_checks_is_a_skip"
	else
		t_fail "foundation.$b.skip_without_checks_is_a_skip" "exit $rc: $(echo "$out" | tail -n2)"
	fi
done
out=$("$BUILD/host/anefw-tests" harness.no_checks 2>&1); rc=$?
if nocheck_ok "$out" "$rc"; then
	t_pass foundation.host.test_without_checks_fails
else
	t_fail foundation.host.test_without_checks_fails "exit $rc: $(echo "$out" | tail -n2)"
fi
out=$("$BUILD/host/anefw-tests" harness.skip_without_checks 2>&1); rc=$?
if skip_ok "$out" "$rc"; then
	t_pass foundation.host.skip_without_checks_is_a_skip
else
	t_fail foundation.host.skip_without_checks_is_a_skip "exit $rc: $(echo "$out" | tail -n2)"
fi
# a selector no test answers to (make test-host T=lodaer) is a failure naming it: it ran nothing
# and ended "0 passed, 0 failed, 0 skipped" with status 0. The same words with the name right
# (the control) pass
unknown_ok() { # OUTPUT RC
	[ "$2" -eq 1 ] && echo "$1" | grep -qx 'FAIL lodaer: no test or suite has this name' \
		&& echo "$1" | grep -qx '1 passed, 1 failed, 0 skipped'
}
known_ok() { [ "$2" -eq 0 ] && echo "$1" | grep -qx '1 passed, 0 failed, 0 skipped'; }
for b in host $TEST_BOARDS; do
	if [ "$b" = host ]; then
		out=$("$BUILD/host/anefw-tests" harness.checks_pass lodaer 2>&1); rc=$?
		ko=$("$BUILD/host/anefw-tests" harness.checks_pass 2>&1); krc=$?
	else
		out=$(set -o pipefail; qemu_run --board "$b" --timeout 60 "$BUILD/$b/anefw-tests.elf" harness.checks_pass lodaer 2>&1 | tr -d "\r"); rc=$?
		ko=$(set -o pipefail; qemu_run --board "$b" --timeout 60 "$BUILD/$b/anefw-tests.elf" harness.checks_pass 2>&1 | tr -d "\r"); krc=$?
	fi
	if unknown_ok "$out" "$rc" && known_ok "$ko" "$krc"; then
		t_pass "foundation.$b.unknown_selector_is_a_failure"
	else
		t_fail "foundation.$b.unknown_selector_is_a_failure" "exit $rc: $(echo "$out" | tail -n2); control exit $krc"
	fi
done

# The runner behind `make test` exits nonzero and counts a failing or silent suite.
tmp=$(mktemp -d)
printf 'echo "FAIL x"\necho "0 passed, 1 failed"\nexit 1\n' > "$tmp/a.sh"
printf 'echo "no verdict at all"\n' > "$tmp/b.sh"
out=$(bash tests/run.sh "$tmp" 2>&1); rc=$?
rm -rf "$tmp"
if [ "$rc" -ne 0 ] && echo "$out" | tail -n1 | grep -q '^0 passed, 2 failed'; then
	t_pass foundation.runner_counts_failures
else
	t_fail foundation.runner_counts_failures "exit $rc: $(echo "$out" | tail -n1)"
fi

# Suites run side by side (TEST_JOBS), yet the log reads in name order, each suite's output whole:
# the slow first suite's lines come before the quick second one's.
tmp=$(mktemp -d)
printf 'sleep 2; echo "ok a1"; echo "ok a2"; echo "2 passed, 0 failed"\n' > "$tmp/a.sh"
printf 'echo "ok b1"; echo "1 passed, 0 failed"\n' > "$tmp/b.sh"
out=$(TEST_JOBS=2 bash tests/run.sh "$tmp" 2>&1); rc=$?
rm -rf "$tmp"
order=$(echo "$out" | grep -E '^(=== suite|ok )' | tr '\n' ' ')
if [ "$rc" -eq 0 ] && [ "$order" = "=== suite a ok a1 ok a2 === suite b ok b1 " ] &&
   echo "$out" | tail -n1 | grep -q '^3 passed, 0 failed'; then
	t_pass foundation.runner_parallel_output_in_order
else
	t_fail foundation.runner_parallel_output_in_order "exit $rc: $order"
fi

# A skip fails the run when ../shared is present (nothing the run needs is missing then), and
# is allowed, and said so, when it is absent.
tmp=$(mktemp -d)
mkdir -p "$tmp/suites" "$tmp/shared/fixtures" && touch "$tmp/shared/fixtures/README.md"
printf 'echo "skip y: something"
echo "1 passed, 0 failed, 1 skipped"
' > "$tmp/suites/a.sh"
out=$(SHARED="$tmp/shared" bash tests/run.sh "$tmp/suites" 2>&1); rc=$?
out2=$(SHARED="$tmp/absent" bash tests/run.sh "$tmp/suites" 2>&1); rc2=$?
rm -rf "$tmp"
if [ "$rc" -ne 0 ] && echo "$out" | tail -n1 | grep -q '^1 passed, 1 failed, 1 skipped' &&
   [ "$rc2" -eq 0 ] && echo "$out2" | grep -q 'because ../shared is absent'; then
	t_pass foundation.runner_fails_a_skip_with_shared_present
else
	t_fail foundation.runner_fails_a_skip_with_shared_present "exit $rc/$rc2: $(echo "$out" | tail -n1)"
fi

# Crashes: report printed, run ends with the crash status (100), never a hang.
crash() { # NAME MODE PATTERN
	for b in $TEST_BOARDS; do
		out=$(qemu_run --board "$b" --timeout 30 "$BUILD/$b/anefw-tests.elf" "mode=$2" 2>&1); rc=$?
		if [ "$rc" -eq 100 ] && echo "$out" | grep -q 'anefw crash report' \
			&& echo "$out" | grep -q 'ESR 0x' && echo "$out" | grep -q 'ELR 0x' \
			&& echo "$out" | grep -q 'FAR 0x' && echo "$out" | grep -q '^x30' \
			&& echo "$out" | grep -q "$3"; then
			t_pass "foundation.$b.$1"
		else
			t_fail "foundation.$b.$1" "exit $rc"
			echo "$out" | tail -n 20
		fi
	done
}
crash data_abort_reports_and_exits dataabort 'translation fault on read'
crash text_write_faults textwrite 'permission fault on write'
crash stack_overflow_hits_guard stackoverflow 'main stack guard page'

# The MMU's page-table pool cut to 2 tables (anefw-mmu-pool-test.elf, built by the Makefile): the
# boot stops with a panic and the crash status before main(), instead of running with the MMU off.
for b in $TEST_BOARDS; do
	out=$(qemu_run --board "$b" --timeout 30 "$BUILD/$b/anefw-mmu-pool-test.elf" 2>&1); rc=$?
	if [ "$rc" -eq 100 ] && echo "$out" | grep -q 'anefw panic: MMU: page-table pool exhausted' \
		&& ! echo "$out" | grep -q 'newlib-nano'; then
		t_pass "foundation.$b.mmu_table_pool_exhaustion_panics"
	else
		t_fail "foundation.$b.mmu_table_pool_exhaustion_panics" "exit $rc"
		echo "$out" | tail -n 5
	fi
done

# The pool's bounded wait (hal/aarch64/pool.c, hal/host/hal_host.c; every wait has a bound): with
# the bound set to 2 s, a helper whose task never returns ends the run in the panic naming it, not
# a hang: on a board the boot panic naming core 1 (exit 100), natively the panic line naming
# thread 1 and abort() (SIGABRT, 134). A helper 1 s late, inside the bound, does not (the call
# returns, the test passes), and the check for the panic fails on that run (its negative).
lost_helper_panicked() { # RC OUTPUT WANT_RC WHO
	[ "$1" -eq "$3" ] && grep -q "\*\*\* anefw panic: hal_parallel: no task finished for 2000 ms while $4 \*\*\*" <<<"$2" &&
		! grep -q 'hal_parallel returned' <<<"$2"
}
pool_bound_checks() { # NAME RC_LOST OUT_LOST RC_SLOW OUT_SLOW WANT_RC WHO
	if lost_helper_panicked "$2" "$3" "$6" "$7"; then
		t_pass "foundation.$1.pool_panics_naming_a_lost_helper"
	else
		t_fail "foundation.$1.pool_panics_naming_a_lost_helper" "exit $2: $(tail -n 3 <<<"$3" | tr '\n' ' ')"
	fi
	if [ "$4" -eq 0 ] && grep -q 'hal_parallel returned: every helper finished' <<<"$5" &&
	   grep -q '^ok  *hal.pool_bound_slow_helper' <<<"$5" && ! lost_helper_panicked "$4" "$5" "$6" "$7"; then
		t_pass "foundation.$1.pool_waits_for_a_slow_helper_inside_its_bound"
	else
		t_fail "foundation.$1.pool_waits_for_a_slow_helper_inside_its_bound" "exit $4: $(tail -n 3 <<<"$5" | tr '\n' ' ')"
	fi
}
for b in $TEST_BOARDS; do
	lo=$(qemu_run --board "$b" --timeout 60 "$BUILD/$b/anefw-tests.elf" hal.pool_bound_lost_helper 2>&1); lrc=$?
	so=$(qemu_run --board "$b" --timeout 60 "$BUILD/$b/anefw-tests.elf" hal.pool_bound_slow_helper 2>&1); src=$?
	pool_bound_checks "$b" "$lrc" "$(tr -d '\r' <<<"$lo")" "$src" "$(tr -d '\r' <<<"$so")" 100 \
		'core 1 still had its share (a lost core)'
done
lo=$(timeout 60 "$BUILD/host/anefw-tests" hal.pool_bound_lost_helper 2>&1); lrc=$?
so=$(timeout 60 "$BUILD/host/anefw-tests" hal.pool_bound_slow_helper 2>&1); src=$?
pool_bound_checks host "$lrc" "$lo" "$src" "$so" 134 'thread 1 still ran task [01] of 2 (a lost thread)'

# Instruction counts under -icount are exact: two runs agree, and are nonzero.
for b in $TEST_BOARDS; do
	a=$(qemu_run --board "$b" --icount --timeout 60 "$BUILD/$b/anefw-tests.elf" mode=icount | grep -o 'instructions: [0-9]*')
	c=$(qemu_run --board "$b" --icount --timeout 60 "$BUILD/$b/anefw-tests.elf" mode=icount | grep -o 'instructions: [0-9]*')
	if [ -n "$a" ] && [ "$a" = "$c" ] && [ "$a" != "instructions: 0" ]; then
		t_pass "foundation.$b.icount_repeatable ($a)"
	else
		t_fail "foundation.$b.icount_repeatable" "'$a' vs '$c'"
	fi
done

# Entry at EL2 and EL3 (qemu-virt can start the core there) ends at EL1 with the MMU on.
if echo " $TEST_BOARDS " | grep -q ' qemu-virt '; then
	for el in 1 2 3; do
		out=$(qemu_run --el "$el" --timeout 30 "$BUILD/qemu-virt/anefw-tests.elf" mode=el 2>&1); rc=$?
		if [ "$rc" -eq 0 ] && echo "$out" | grep -q "entered at EL$el, running at EL1, mmu on"; then
			t_pass "foundation.qemu-virt.entry_el$el"
		else
			t_fail "foundation.qemu-virt.entry_el$el" "exit $rc: $out"
		fi
	done
fi

# The test program's command line is read whole or refused: a line of about 3000 bytes (over the
# 1 KiB buffer it had, which lost the line and ran every test without shared= or a selector: the
# fixtures' tests skipped and the run passed) ends with the selector it names; one of 4096 bytes
# or more, which QEMU does not give and the native program does not take, is one failure, named.
pad() { local n=$1 w=""; while [ ${#w} -lt "$n" ]; do w="$w pad=xxxxxxxx"; done; echo "$w"; }
long_ok() { # OUTPUT RC
	[ "$2" -eq 1 ] && echo "$1" | grep -q '^FAIL harness.deliberate_failure' \
		&& echo "$1" | grep -q '^0 passed, 1 failed, 0 skipped'
}
refused_ok() { # OUTPUT RC
	[ "$2" -eq 1 ] && echo "$1" | grep -q '^error: .*command line' \
		&& echo "$1" | grep -q '^0 passed, 1 failed, 0 skipped' && ! echo "$1" | grep -q '^ok '
}
for b in $TEST_BOARDS; do
	elf="$BUILD/$b/anefw-tests.elf"
	out=$(qemu_run --board "$b" --timeout 60 "$elf" $(pad 3000) harness.deliberate_failure 2>&1); rc=$?
	if long_ok "$out" "$rc"; then t_pass "foundation.$b.command_line_3000_bytes_read_whole"
	else t_fail "foundation.$b.command_line_3000_bytes_read_whole" "exit $rc: $(echo "$out" | tail -n2)"; fi
	out=$(qemu_run --board "$b" --timeout 60 "$elf" $(pad 4100) harness.deliberate_failure 2>&1); rc=$?
	if refused_ok "$out" "$rc"; then t_pass "foundation.$b.command_line_too_long_is_a_failure"
	else t_fail "foundation.$b.command_line_too_long_is_a_failure" "exit $rc: $(echo "$out" | tail -n2)"; fi
done
out=$("$BUILD/host/anefw-tests" $(pad 3000) harness.deliberate_failure 2>&1); rc=$?
if long_ok "$out" "$rc"; then t_pass foundation.host.command_line_3000_bytes_read_whole
else t_fail foundation.host.command_line_3000_bytes_read_whole "exit $rc: $(echo "$out" | tail -n2)"; fi
out=$("$BUILD/host/anefw-tests" $(pad 4100) harness.deliberate_failure 2>&1); rc=$?
if refused_ok "$out" "$rc"; then t_pass foundation.host.command_line_too_long_is_a_failure
else t_fail foundation.host.command_line_too_long_is_a_failure "exit $rc: $(echo "$out" | tail -n2)"; fi

# The firmware image itself: `make run` equivalent exits 0 promptly with its banner.
for b in $TEST_BOARDS; do
	out=$(qemu_run --board "$b" --timeout 30 "$BUILD/$b/anefw.elf" 2>&1); rc=$?
	if [ "$rc" -eq 0 ] && echo "$out" | grep -q 'newlib-nano' && echo "$out" | grep -q 'EL1'; then
		t_pass "foundation.$b.firmware_runs"
	else
		t_fail "foundation.$b.firmware_runs" "exit $rc"
	fi
done
# Test data made without ../shared is made again once it is given (and back): every oracle's stamp
# depends on build/testdata/.shared-state, which says which SHARED the data was made from and
# whether its fixtures were there, and is rewritten only when that changes. Before, a make test
# without ../shared left data that a later run with it failed on until a stamp was deleted.
sw=$(mktemp -d); a= b= m1=1 m2=2
state() { make -s BUILD="$sw/b" "$sw/b/testdata/.shared-state" SHARED="$1" >/dev/null 2>&1; }
state "$sw/sh" && a=$(cat "$sw/b/testdata/.shared-state") && m1=$(stat -c %y "$sw/b/testdata/.shared-state")
state "$sw/sh" && m2=$(stat -c %y "$sw/b/testdata/.shared-state")
mkdir -p "$sw/sh/fixtures"
state "$sw/sh" && b=$(cat "$sw/b/testdata/.shared-state")
if [ "$a" = "$sw/sh absent" ] && [ "$m1" = "$m2" ] && [ "$b" = "$sw/sh present" ]; then
	t_pass foundation.testdata_remade_when_shared_changes
else
	t_fail foundation.testdata_remade_when_shared_changes "state '$a' then '$b', rewritten unchanged: $([ "$m1" = "$m2" ] && echo no || echo yes)"
fi
if make -s -p -n BUILD="$sw/b" "$sw/b/testdata/.shared-state" SHARED="$sw/sh" 2>/dev/null |
	grep -q 'testdata/\.gen_%\.stamp:.*testdata/\.shared-state'; then
	t_pass foundation.every_oracle_depends_on_the_shared_state
else
	t_fail foundation.every_oracle_depends_on_the_shared_state "the oracles' stamp rule does not name .shared-state"
fi
rm -rf "$sw"
# A build directory made by another checkout (a copied build/, or BUILD= shared by two trees):
# its include links (build/inc/LAYER/DIR) must be remade to name this tree's sources. Before, the
# stamp named only the layers, so this tree compiled against the other's headers (a helper's clone
# with a copied build/ did, 2026-12-07).
bw=$(mktemp -d)
if git clone -q . "$bw/other" 2>/dev/null &&
   (cd "$bw/other" && make --no-print-directory -s layer-cc BUILD="$bw/build" >/dev/null 2>&1) &&
   l1=$(readlink "$bw/build/inc/fw/fw") &&
   make --no-print-directory -s layer-cc BUILD="$bw/build" >/dev/null 2>&1 &&
   l2=$(readlink "$bw/build/inc/fw/fw") &&
   [ "$l1" = "$bw/other/fw" ] && [ "$l2" = "$PWD/fw" ]; then
	t_pass foundation.include_links_follow_the_tree_that_builds
else
	t_fail foundation.include_links_follow_the_tree_that_builds "links: the other tree's '${l1:-}', then this tree's '${l2:-}' (wanted $bw/other/fw then $PWD/fw)"
fi
rm -rf "$bw"
t_done
