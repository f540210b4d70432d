# Hardening (issue 8): the firmware's fault= key on each board. For every injected fault the
# first submission fails with its named error in the engine domain (a watchdog, never a hang),
# the second runs normally on the reset engine, and the firmware still answers ("anefw: done",
# exit 0); an unknown fault kind is refused. The fault, watchdog and soak unit tests run in the
# unit suites (faults.*, soak.*).
. tests/lib.sh
TOOL="$BUILD/host/anefw-tool"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
prog="$work/default.hwx"

if ! "$TOOL" mkprog app/default.desc "$prog" >/dev/null 2>&1; then
	t_fail hard.program "mkprog failed"
	t_done
	exit
fi

declare -A want=([dma-hang]=watchdog-expired [dma-error]=engine-dma-error
		 [wrong-task]=engine-completion-wrong-task [readback]=engine-register-readback-mismatch)
for b in $TEST_BOARDS; do
	elf="$BUILD/$b/anefw.elf"
	[ -f "$elf" ] || { t_fail "hard.$b.faults" "no $elf (make test builds it)"; continue; }
	for k in dma-hang dma-error wrong-task readback; do
		out=$(qemu_run --board "$b" --timeout 60 "$elf" "program=$prog" trace=0 "fault=$k" 2>&1)
		rc=$?; out=$(tr -d '\r' <<<"$out")
		if [ "$rc" -eq 0 ] &&
		   grep -q "^completion: id 1 failed (${want[$k]}) domain engine " <<<"$out" &&
		   grep -q "^fault: $k injected 1 time, submission 1 failed" <<<"$out" &&
		   grep -q '^completion: id 2 done (ok) domain none code 0' <<<"$out" &&
		   grep -q '^anefw: done' <<<"$out"; then
			t_pass "hard.$b.fault.$k (${want[$k]}, next submission done)"
		else
			t_fail "hard.$b.fault.$k" "exit $rc: $(grep -E '^(completion|fault|anefw):' <<<"$out" | tr '\n' ' ')"
		fi
	done
	out=$(qemu_run --board "$b" --timeout 60 "$elf" "program=$prog" fault=bogus 2>&1)
	rc=$?; out=$(tr -d '\r' <<<"$out")
	if [ "$rc" -eq 1 ] && grep -q '^fault: unknown kind bogus' <<<"$out"; then
		t_pass "hard.$b.fault.unknown_refused"
	else
		t_fail "hard.$b.fault.unknown_refused" "exit $rc"
	fi
done
t_done
