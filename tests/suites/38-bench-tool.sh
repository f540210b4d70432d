# anefw-tool bench-model (the host half of `make bench`): a small run computes and checks its
# outputs and prints its figures; bad arguments are refused. The figures themselves are not
# judged (benchmarks measure, tests do not time).
. tests/lib.sh
TOOL="$BUILD/host/anefw-tool"
out=$("$TOOL" bench-model --repeat 1 --threads 1 --conv 512:32:8 --add 64:4:2 2>&1); rc=$?
if [ "$rc" -eq 0 ] && grep -q '^model conv 512x32 1x1 over 8x1 positions, 1 thread: 131072 MACs, best [0-9.]* s' <<<"$out" &&
   grep -q '^model add 64x4x2 fp16: 512 elements, best [0-9.]* s' <<<"$out"; then
	t_pass bench_tool.small_run_checked
else
	t_fail bench_tool.small_run_checked "exit $rc: $out"
fi
# a 3x3 convolution (outputs checked per position: the taps inside the input) and a CIN other
# than 512, on one thread and on two (issue 26)
out=$("$TOOL" bench-model --repeat 1 --threads 2 --conv 96:16:8 --conv3 16:32:12 --add 8:2:2 2>&1); rc=$?
if [ "$rc" -eq 0 ] && grep -q '^model conv 96x16 1x1 over 8x1 positions, 2 threads: 12288 MACs' <<<"$out" &&
   grep -q '^model conv 16x32 3x3 over 12x12 positions, 1 thread: 663552 MACs' <<<"$out" &&
   grep -q '^model conv 16x32 3x3 over 12x12 positions, 2 threads: 663552 MACs, best [0-9.]* s, .*x one thread' <<<"$out"; then
	t_pass bench_tool.conv3_and_threads_checked
else
	t_fail bench_tool.conv3_and_threads_checked "exit $rc: $out"
fi
for bad in "--conv 512:17:8" "--conv3 16:17:8" "--add 0:1:1" "--repeat 0" "--threads 0" "--what"; do
	# shellcheck disable=SC2086
	out=$("$TOOL" bench-model $bad 2>&1); rc=$?
	if [ "$rc" -eq 2 ] && grep -q 'anefw-tool bench-model:' <<<"$out"; then
		t_pass "bench_tool.refuses ${bad%% *}"
	else
		t_fail "bench_tool.refuses ${bad%% *}" "exit $rc: $out"
	fi
done
# make bench's cores probe (tests/bench/host/cores_probe.c, built by tests/bench/model_host.sh):
# it builds warning-free and prints its one line with figures (not judged)
probe=$(mktemp)
if ${CC:-cc} -O2 -Wall -Wextra -Werror -pthread -o "$probe" tests/bench/host/cores_probe.c 2>&1 &&
   out=$("$probe" 2>&1) &&
   grep -Eq '^bench: cores probe: (a cache line.s round trip between cores 0 and 1 [0-9]+ ns \(median [0-9]+\); both cores at once [0-9]+\.[0-9]+ of one alone|core 1 not usable here, not measured|cores 0 and 1 not both usable here, not measured)$' <<<"$out"; then
	t_pass bench_tool.cores_probe_builds_and_reports
else
	t_fail bench_tool.cores_probe_builds_and_reports "${out:-the probe did not build}"
fi
rm -f "$probe"
t_done
