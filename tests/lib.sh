# Shared by suite scripts (sourced). Environment from the Makefile: ANEFW_ROOT, BUILD, SHARED,
# PYTHON, TEST_BOARDS.
: "${ANEFW_ROOT:=$(pwd)}" "${BUILD:=$ANEFW_ROOT/build}" "${SHARED:=$ANEFW_ROOT/../shared}"
: "${PYTHON:=/usr/bin/python3}" "${TEST_BOARDS:=qemu-virt raspi3b}"
cd "$ANEFW_ROOT" || exit 1
T_PASS=0; T_FAIL=0; T_SKIP=0
t_pass() { echo "ok   $1"; T_PASS=$((T_PASS + 1)); }
t_fail() { echo "FAIL $1${2:+: $2}"; T_FAIL=$((T_FAIL + 1)); }
# A skip is only for what the run was not given: ../shared absent (tests/run.sh fails a run that
# skipped anything with ../shared present). Something make test builds and cannot find is a
# failure (t_fail), never a skip.
t_skip() { echo "skip $1${2:+: $2}"; T_SKIP=$((T_SKIP + 1)); }
# Checks for a board the run was not asked to test (TEST_BOARDS): said, not counted.
t_not_run() { echo "not run $1${2:+: $2}"; }
# t_check NAME COMMAND...: passes when the command exits 0
t_check() { local n=$1; shift; if "$@" >/dev/null 2>&1; then t_pass "$n"; else t_fail "$n"; fi; }
t_done() { echo "$T_PASS passed, $T_FAIL failed, $T_SKIP skipped"; [ "$T_FAIL" -eq 0 ]; }
# Where the fixtures are, or empty when ../shared is absent.
have_shared() { [ -f "$SHARED/fixtures/README.md" ]; }
qemu_run() { bash scripts/qemu-run.sh "$@"; }
# qemu_bg ARGS...: qemu_run in the background, its pid in QPID. The pid is the process that
# becomes QEMU's `timeout` (qemu-run.sh execs it), so killing QPID ends QEMU too: `qemu_run ... &`
# would give the pid of a subshell whose death leaves QEMU running until its time limit.
qemu_bg() { bash scripts/qemu-run.sh "$@" & QPID=$!; }
