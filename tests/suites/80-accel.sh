# Asahi ANE userspace against anefw (docs/asahi.md): libanefw-accel.so makes /dev/accel/accel0
# an anefw device for the process that preloads it (`anefw-tool accel`).
#  - eiln's libane, built unchanged from ../shared/clients, with a small client
#    (tests/clients/libane_run.c), runs anec files `anefw-tool convert` wrote from the shared
#    fixtures; every output is checked against numpy (tests/oracle/accel_check.py), and the
#    checker fails on a wrong reference; without the library the client finds no device.
#  - a Python client in allbilly's style (tests/clients/accel_elementwise.py) writes its own
#    register program for add, mul, max and min through the planar engine; exact against numpy.
#  - a hostile Python client (tests/clients/accel_hostile.py): every misuse gets its errno.
#  - the firmware backend: the same clients through `make serve`'s firmware on each board under
#    test (QEMU on 127.0.0.1) give byte-identical outputs; its wait for an answer (--timeout)
#    against a scripted peer that never answers, and a closed link told apart from it.
. tests/lib.sh
TOOL="$BUILD/host/anefw-tool"
LIB="$BUILD/host/libanefw-accel.so"
work=$(mktemp -d)
pids=
trap 'for p in $pids; do kill "$p" 2>/dev/null; done; rm -rf "$work"' EXIT

t_check accel.library_built test -s "$LIB"
# the library exports the interposed calls and nothing of anefw's own
if nm -D --defined-only "$LIB" | awk '{print $3}' | grep -qv -E '^(open|open64|__open_2|__open64_2|openat|openat64|__openat_2|__openat64_2|close|ioctl|mmap|mmap64|fstat|fstat64|stat|stat64|fstatat|fstatat64|dup|dup2|dup3|fcntl|fcntl64|_init|_fini)$'; then
	t_fail accel.library_exports_only_interposed_calls "$(nm -D --defined-only "$LIB" | head -5)"
else t_pass accel.library_exports_only_interposed_calls; fi

if ! have_shared; then
	t_skip accel.libane "../shared absent: no libane sources, no fixtures"
	t_done; exit $?
fi

# ---- libane, unchanged, and the client ----
L="$SHARED/clients/eiln-libane"
C="$BUILD/accel-clients"
mkdir -p "$C"
if [ ! -f /usr/include/libdrm/drm.h ]; then
	t_fail accel.libane_built "no /usr/include/libdrm/drm.h (libdrm-dev; scripts/setup-deps.sh installs it)"
elif gcc -std=gnu99 -O2 -I "$L/libane" -I /usr/include/libdrm -I "$L/ane/src/uapi/drm" \
		-c "$L/libane/ane.c" -o "$C/ane.o" 2>"$work/cc.log" &&
	gcc -std=gnu99 -O2 -Wall -Wextra -Werror -I "$L/libane" tests/clients/libane_run.c "$C/ane.o" \
		-o "$C/libane_run" 2>>"$work/cc.log"; then
	t_pass accel.libane_built
else t_fail accel.libane_built "$(head -5 "$work/cc.log")"; fi
RUN="$C/libane_run"

# ---- anec files from the shared fixtures ----
conv() { "$TOOL" convert "$SHARED/fixtures/$1" "$work/$2.anec" >>"$work/convert.log" 2>&1; }
ok=1
conv hwx/relu.hwx relu && conv hwx/sigmoid.hwx hsigmoid && conv hwx/conv.hwx conv &&
	conv hwx/concat.hwx concat && conv kernels/binary/add.bin add && conv kernels/binary/mul.bin mul &&
	conv kernels/activation/relu6.bin relu6 && conv kernels/unary/sigmoid.bin sigmoid &&
	conv kernels/unary/tanh.bin tanh && conv kernels/activation/softmax.bin softmax || ok=0
if [ $ok = 1 ]; then t_pass accel.fixtures_converted; else t_fail accel.fixtures_converted "$(tail -3 "$work/convert.log")"; fi
# every shared fixture converts (none is refused by the layout checks below)
nconv=0; bad=
for f in "$SHARED"/fixtures/hwx/*.hwx "$SHARED"/fixtures/kernels/*/*.bin; do
	"$TOOL" convert "$f" "$work/all.anec" >/dev/null 2>"$work/all.log" && nconv=$((nconv + 1)) ||
		bad="$bad ${f##*/}: $(head -c 160 "$work/all.log")"
done
if [ -z "$bad" ]; then t_pass "accel.every_fixture_converts ($nconv)"; else t_fail accel.every_fixture_converts "$bad"; fi

# ---- what convert refuses (docs/asahi.md, "What convert refuses") ----
# edited copies of conv.hwx and relu.hwx (TD 0's fields, at the offsets inspect --json gives;
# convert derives the tensors from the edited TDs): each refusal by name with exit 1 and no file,
# each beside a control edited the same way but within libane's layout, which converts, and
# where it runs, computes the right values through libane (the old convert wrote these with the
# wrong layout: libane put the values where the TD does not read them)
edit_td() { # IN OUT REG:LSB:WIDTH=VALUE...
	"$PYTHON" - "$TOOL" "$@" <<'PY'
import json, struct, subprocess, sys
tool, src, dst = sys.argv[1:4]
regs = json.loads(subprocess.run([tool, "inspect", "--json", src], capture_output=True,
                                 check=True).stdout)["tds"][0]["registers"]
b = bytearray(open(src, "rb").read())
for a in sys.argv[4:]:
    spec, v = a.split("=")
    name, lsb, width = spec.split(":")
    w = [r for r in regs if r["reg"] == name]
    if not w:
        sys.exit("no write of " + name)
    off, lsb, mask = w[-1]["file_off"], int(lsb), (1 << int(width)) - 1
    old = struct.unpack_from("<I", b, off)[0]
    struct.pack_into("<I", b, off, (old & ~(mask << lsb)) | ((int(v, 0) & mask) << lsb))
open(dst, "wb").write(bytes(b))
PY
}
# set_bar IN OUT BAR ADDR: the .hwx's BAR table slot BAR (after slots 0 and 1, as inspect lists
# them) set to ADDR
set_bar() {
	"$PYTHON" - "$TOOL" "$@" <<'PY'
import json, struct, subprocess, sys
tool, src, dst, bar, addr = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5], 0)
bars = {x["index"]: x["addr"] for x in json.loads(subprocess.run(
    [tool, "inspect", "--json", src], capture_output=True, check=True).stdout)["bars"]}
b = bytearray(open(src, "rb").read())
key = struct.pack("<QQ", bars[0], bars[1])
assert b.count(key) == 1, "the BAR table is not found once"
struct.pack_into("<Q", b, b.find(key) + 8 * bar, addr)
open(dst, "wb").write(bytes(b))
PY
}
refused_conv() { # NAME ERROR PROGRAM
	local out rc
	rm -f "$work/r_$1.anec"
	out=$("$TOOL" convert "$3" "$work/r_$1.anec" 2>&1); rc=$?
	if [ "$rc" -eq 1 ] && grep -q "^convert: tensor .* at BAR [0-9]*: $2: " <<<"$out" && [ ! -e "$work/r_$1.anec" ]; then
		t_pass "accel.convert_refuses.$1"
	else t_fail "accel.convert_refuses.$1" "exit $rc: $out"; fi
}
H="$SHARED/fixtures/hwx"
edit_td "$H/conv.hwx" "$work/e_off.hwx" TileDMASrc.BaseAddr:0:32=0x40
refused_conv tensor_offset convert-tensor-offset "$work/e_off.hwx"
edit_td "$H/conv.hwx" "$work/e_plane.hwx" TileDMASrc.RowStride:0:32=128 TileDMASrc.PlaneStride:0:32=192
refused_conv plane_stride convert-plane-stride "$work/e_plane.hwx"
edit_td "$H/conv.hwx" "$work/e_planeok.hwx" TileDMASrc.RowStride:0:32=128 TileDMASrc.PlaneStride:0:32=256
if "$TOOL" convert "$work/e_planeok.hwx" "$work/planeok.anec" >/dev/null 2>&1 &&
   "$PYTHON" tests/oracle/accel_check.py conv "$work/planeok.anec" "$work" -- "$TOOL" accel -- "$RUN" >"$work/planeok.log" 2>&1; then
	t_pass accel.convert_plane_of_two_rows_computes
else t_fail accel.convert_plane_of_two_rows_computes "$(tail -2 "$work/planeok.log")"; fi
edit_td "$H/relu.hwx" "$work/e_grp.hwx" Common.GroupConvCfg:0:13=2 TileDMASrc.GroupStride:0:32=384 TileDMADst.GroupStride:0:32=384
refused_conv group_stride convert-group-stride "$work/e_grp.hwx"
edit_td "$H/relu.hwx" "$work/e_grpok.hwx" Common.GroupConvCfg:0:13=2 TileDMASrc.GroupStride:0:32=192 TileDMADst.GroupStride:0:32=192
if "$TOOL" convert "$work/e_grpok.hwx" "$work/grpok.anec" >/dev/null 2>&1; then
	t_pass accel.convert_groups_c_planes_apart_convert
else t_fail accel.convert_groups_c_planes_apart_convert; fi
edit_td "$H/relu.hwx" "$work/e_byte.hwx" Common.ChCfg:0:2=0 TileDMASrc.Fmt:0:14=0 L2.SourceCfg:6:2=0
refused_conv one_byte convert-one-byte-tensor "$work/e_byte.hwx"
# a tile source on the weights or the __text (review H F7): the .hwx's BAR 5 moved onto them
wa=$("$TOOL" inspect --json "$H/relu.hwx" | "$PYTHON" -c 'import json,sys; b={x["index"]: x["addr"] for x in json.load(sys.stdin)["bars"]}; print(b[1], b[0], b[5])')
set_bar "$H/relu.hwx" "$work/e_src5.hwx" 5 "${wa##* }" # the control: its own address again
if "$TOOL" convert "$work/e_src5.hwx" "$work/src5.anec" >/dev/null 2>&1 && cmp -s "$work/e_src5.hwx" "$H/relu.hwx"; then
	t_pass accel.convert_source_on_its_window_converts
else t_fail accel.convert_source_on_its_window_converts; fi
wa=${wa% *}
set_bar "$H/relu.hwx" "$work/e_srcw.hwx" 5 "${wa% *}"
refused_conv source_on_weights convert-reads-program-data "$work/e_srcw.hwx"
set_bar "$H/relu.hwx" "$work/e_srct.hwx" 5 "${wa#* }"
refused_conv source_on_text convert-reads-program-data "$work/e_srct.hwx"
# a mkprog program has its output at BAR 6 and its input at 5, where libane wants them at 4 and
# 5: refused by name with the role, the BAR and the BAR wanted (the rule alone before, unnamed;
# found 2026-12-07); its raw stream too. The control: relu.hwx (output 4, input 5) converts.
printf 'input w=8 h=2 c=16\nlayer int8 cout=16\n' >"$work/one.desc"
"$TOOL" mkprog "$work/one.desc" "$work/one.hwx" >/dev/null && "$TOOL" mkprog --raw "$work/one.desc" "$work/one.bin" >/dev/null
refused_conv output_at_bar_6 convert-bar-order "$work/one.hwx"
refused_conv output_at_bar_6_raw convert-bar-order "$work/one.bin"
out=$("$TOOL" convert "$work/one.hwx" "$work/one.anec" 2>&1)
if grep -qF "; it is the program's output, at BAR 6; its 1 output and 1 input want it at BAR 4" <<<"$out" &&
   "$TOOL" convert "$H/relu.hwx" "$work/relu_again.anec" >/dev/null 2>&1; then
	t_pass accel.convert_bar_order_says_where
else t_fail accel.convert_bar_order_says_where "$out"; fi
# an output named .npy or .hwx is refused before anything is read, no file (an anec was written
# under the .npy name before; found 2026-12-07); .anec and anecc's .ane are written (the control)
bad=""
for x in npy hwx; do
	rm -f "$work/named.$x"
	out=$("$TOOL" convert "$H/relu.hwx" "$work/named.$x" 2>&1); rc=$?
	[ "$rc" -eq 1 ] && [ ! -e "$work/named.$x" ] && [ ! -e "$work/named.$x.part" ] &&
		grep -q "^convert: $work/named.$x: convert-output-name: " <<<"$out" || bad="$bad [.$x: exit $rc: $out]"
done
"$TOOL" convert "$H/relu.hwx" "$work/named.ane" >/dev/null 2>&1 && "$TOOL" validate "$work/named.ane" >/dev/null 2>&1 || bad="$bad [.ane not written]"
if [ -z "$bad" ]; then t_pass accel.convert_output_named_another_format_refused
else t_fail accel.convert_output_named_another_format_refused "$bad"; fi
# the containers are what anefw's own commands read too
if "$TOOL" validate "$work/concat.anec" >/dev/null 2>&1 &&
   "$TOOL" inspect "$work/add.anec" | grep -q "input        src1 " ; then
	t_pass accel.anec_validates_and_names_tensors
else t_fail accel.anec_validates_and_names_tensors; fi

check() { # case backend... : numpy's check of the client under the library
	local c=$1; shift
	"$PYTHON" tests/oracle/accel_check.py "$c" "$work/$c.anec" "$work" -- \
		"$TOOL" accel "$@" -- "$RUN" >"$work/check_$c.log" 2>&1
}
for c in relu hsigmoid conv concat add mul relu6 sigmoid tanh softmax; do
	if check "$c"; then t_pass "accel.libane.$c"; else t_fail "accel.libane.$c" "$(tail -2 "$work/check_$c.log")"; fi
	cp "$work/$c.out0.bin" "$work/$c.local.bin" 2>/dev/null
done
# the checker fails on a wrong answer
if ! "$PYTHON" tests/oracle/accel_check.py relu "$work/relu.anec" "$work" --wrong -- "$TOOL" accel -- "$RUN" \
	>"$work/wrong.log" 2>&1 && grep -q outside "$work/wrong.log"; then
	t_pass accel.checker_fails_on_wrong_reference
else t_fail accel.checker_fails_on_wrong_reference "$(tail -2 "$work/wrong.log")"; fi
# without the library there is no device: the outputs above came through it
if ! "$RUN" "$work/relu.anec" "$work/relu.in0.bin" -- "$work/none.bin" >"$work/nolib.log" 2>&1; then
	t_pass accel.no_device_without_library
else t_fail accel.no_device_without_library; fi

# ---- a Python client in allbilly's style: its own register program, add/mul/max/min ----
mkdir -p "$work/ew_local"
if timeout 120 "$TOOL" accel -- "$PYTHON" tests/clients/accel_elementwise.py --out "$work/ew_local" \
	>"$work/ew.log" 2>&1; then
	t_pass accel.python_register_program_add_mul_max_min
else t_fail accel.python_register_program_add_mul_max_min "$(grep FAIL "$work/ew.log" | head -2)"; fi
if ! timeout 120 "$TOOL" accel -- "$PYTHON" tests/clients/accel_elementwise.py --wrong >"$work/eww.log" 2>&1 &&
   grep -q "0 passed, 4 failed" "$work/eww.log"; then
	t_pass accel.python_checker_fails_on_wrong_reference
else t_fail accel.python_checker_fails_on_wrong_reference; fi

# ---- bad use ----
if timeout 120 "$TOOL" accel -- "$PYTHON" tests/clients/accel_hostile.py "$SHARED/fixtures/kernels/binary/add.bin" \
	>"$work/hostile.log" 2>&1; then
	t_pass accel.hostile_client_every_misuse_errno
else t_fail accel.hostile_client_every_misuse_errno "$(grep FAIL "$work/hostile.log" | head -3)"; fi
# with ANEFW_ACCEL_LOG the reason is named on stderr
timeout 120 "$TOOL" accel --log -- "$PYTHON" tests/clients/accel_hostile.py "$SHARED/fixtures/kernels/binary/add.bin" \
	>"$work/hostile_log.log" 2>&1
if grep -q "anefw-accel: SUBMIT: BO too small" "$work/hostile_log.log"; then
	t_pass accel.log_names_the_reason
else t_fail accel.log_names_the_reason; fi
# a program the loader refuses and a grant the control path refuses are said as the tool says
# them (ldr_print_refusal's order: the name, its words, the offset in the command BO's stream,
# the values; the control path's refusal with its TD and values, session_print_refusal), where
# the library had its own texts: no offset, and "(td -1, BAR 5; -1: none)"
if grep -qE "^anefw-accel: SUBMIT: program rejected: [a-z_]+: [^;]* at file offset 0x[0-9a-f]+" "$work/hostile_log.log" &&
   grep -qxF "anefw-accel: SUBMIT: submit refused: grant-too-large bar 5 (0x20000000 bytes, a submission holds at most 0x10000000 a grant): a grant larger than a submission may hold (max_grant)" "$work/hostile_log.log"; then
	t_pass accel.log_says_refusals_as_the_tool_does
else t_fail accel.log_says_refusals_as_the_tool_does "$(grep -E 'rejected|refused' "$work/hostile_log.log" | head -n 4)"; fi
# one of the five ioctls by its number with another argument size is named, with both sizes
# ("ioctl 0xc0106441: not one of VERSION, BO_INIT, ..." of BO_INIT itself before); still EINVAL.
# An ioctl no driver has keeps its line (the control)
out=$(timeout 60 "$TOOL" accel --log -- "$PYTHON" -c '
import errno, fcntl, os
fd = os.open("/dev/accel/accel0", os.O_RDWR)
for cmd in (0xc0106441, 0xc008644f):
    try:
        fcntl.ioctl(fd, cmd, bytearray(16), True); print("succeeded")
    except OSError as e:
        print(errno.errorcode[e.errno])' 2>&1)
if [ "$(grep -c '^EINVAL$' <<<"$out")" = 2 ] &&
   grep -qxF "anefw-accel: ioctl 0xc0106441: BO_INIT (nr 0x41) with a 16-byte argument (read-write); the Asahi driver's is 0xc0186441, 24 bytes (read-write): refused" <<<"$out" &&
   grep -qxF "anefw-accel: ioctl 0xc008644f: not one of VERSION, BO_INIT, BO_FREE, GEM_CLOSE, SUBMIT" <<<"$out"; then
	t_pass accel.ioctl_of_another_size_named
else t_fail accel.ioctl_of_another_size_named "$out"; fi
if ! "$TOOL" accel --backend bogus -- true 2>/dev/null; then t_pass accel.bad_backend_refused
else t_fail accel.bad_backend_refused; fi
# a tcp port outside 1..65535, an unknown option and a log level but 2 are usage errors (exit
# 2) before anything runs: the port went to getaddrinfo, which took 99999 as 34463, and an
# unknown option or level was run as the command ("cannot run --frob", "cannot run 3", 127)
bad=""
for p in 99999 0; do
	out=$("$TOOL" accel --backend "tcp:127.0.0.1:$p" -- true 2>&1); rc=$?
	[ "$rc" -eq 2 ] && [ "$out" = "anefw-tool accel: backend 'tcp:127.0.0.1:$p': expected local or tcp:HOST:PORT, PORT a number 1 to 65535" ] ||
		bad="$bad [$p: exit $rc: $out]"
done
out=$("$TOOL" accel --frob -- true 2>&1); rc=$?
[ "$rc" -eq 2 ] && [ "$out" = "anefw-tool accel: unknown option '--frob' (the command goes after --)" ] ||
	bad="$bad [--frob: exit $rc: $out]"
out=$("$TOOL" accel --log 3 -- true 2>&1); rc=$?
[ "$rc" -eq 2 ] && [ "$out" = "anefw-tool accel: --log takes nothing or 2, got '3'" ] ||
	bad="$bad [--log 3: exit $rc: $out]"
if [ -z "$bad" ]; then t_pass accel.bad_port_and_unknown_option_are_usage_errors
else t_fail accel.bad_port_and_unknown_option_are_usage_errors "$bad"; fi
# the tcp backend's wait for an answer (--timeout S, ANEFW_ACCEL_TIMEOUT): against a scripted peer
# that never answers the LOAD (tests/clients/link_peer.py stall-load, a service still working) the
# client's submits fail (each after --timeout's 2 s, the wait named) instead of after 60 s each; a
# peer that closes the link at the LOAD is named as a closed link (the checker tells the two apart);
# --timeout 0, and --timeout with the local backend, are usage errors; a malformed
# ANEFW_ACCEL_TIMEOUT set by hand is said once and fails every submit
accel_peer() { # mode -> the client's output in $work/ap_$1.log, its exit status
	"$PYTHON" tests/clients/link_peer.py "$1" 0 >"$work/ap_port" 2>/dev/null &
	local ppid=$! i=0 rc=0
	pids="$pids $ppid"
	while [ ! -s "$work/ap_port" ] && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
	timeout 60 "$TOOL" accel --backend "tcp:127.0.0.1:$(cat "$work/ap_port")" --timeout 2 --log -- \
		"$PYTHON" tests/clients/accel_elementwise.py >"$work/ap_$1.log" 2>&1 || rc=$?
	wait "$ppid" 2>/dev/null; rm -f "$work/ap_port"
	return $rc
}
t0=$(date +%s%N)
accel_peer stall-load; rc=$?
ms=$(( ($(date +%s%N) - t0) / 1000000 ))
if [ "$rc" -ne 0 ] && [ "$ms" -ge 2000 ] && [ "$ms" -lt 30000 ] &&
   grep -q "anefw-accel: SUBMIT: .*tcp backend: no answer to load in 2000 ms" "$work/ap_stall-load.log"; then
	t_pass "accel.tcp_timeout_gives_up_on_a_silent_service ($ms ms)"
else t_fail accel.tcp_timeout_gives_up_on_a_silent_service "exit $rc after $ms ms: $(grep anefw-accel "$work/ap_stall-load.log" | head -2)"; fi
# a refused LOAD is said by its cause's name and words, as anefw-tool remote says it (the name
# alone before): link_peer.py drop-write 0 refuses it as arena-too-large
if ! accel_peer drop-write &&
   grep -q "anefw-accel: SUBMIT: firmware refused load: program-refused: arena-too-large: the grants do not fit one submission's arena (refused)" "$work/ap_drop-write.log"; then
	t_pass accel.tcp_refusal_says_the_cause_in_words
else t_fail accel.tcp_refusal_says_the_cause_in_words "$(grep anefw-accel "$work/ap_drop-write.log" | head -2)"; fi
if ! accel_peer close-load && grep -q "anefw-accel: SUBMIT: .*tcp backend: the link closed during load" "$work/ap_close-load.log" &&
   ! grep -q "no answer to" "$work/ap_close-load.log"; then
	t_pass accel.tcp_closed_link_is_not_a_timeout
else t_fail accel.tcp_closed_link_is_not_a_timeout "$(grep anefw-accel "$work/ap_close-load.log" | head -2)"; fi
bad=
out=$("$TOOL" accel --backend tcp:127.0.0.1:1 --timeout 0 -- true 2>&1); rc=$?
[ "$rc" -eq 2 ] && [ "$out" = "anefw-tool accel: --timeout needs SECONDS (1..86400), got '0'" ] || bad="$bad zero:$rc:$out"
out=$("$TOOL" accel --timeout 5 -- true 2>&1); rc=$?
[ "$rc" -eq 2 ] && [ "$out" = "anefw-tool accel: --timeout is the tcp backend's wait for an answer; the backend is 'local'" ] || bad="$bad local:$rc:$out"
out=$(ANEFW_ACCEL_TIMEOUT=5x ANEFW_ACCEL_LOG=1 LD_PRELOAD="$LIB" /bin/true 2>&1)
[ "$out" = "anefw-accel: ANEFW_ACCEL_TIMEOUT='5x': expected seconds 1..86400; every submit fails with EINVAL" ] || bad="$bad env:$out"
if [ -z "$bad" ]; then t_pass accel.bad_timeout_refused
else t_fail accel.bad_timeout_refused "$bad"; fi
# ANEFW_ACCEL_BACKEND set by hand with a port outside 1..65535 is said at once, as --backend says
# it (it was taken, and each submit failed later as "cannot connect"); a valid port is the control
bad=
for p in 99999 0 x; do
	out=$(ANEFW_ACCEL_BACKEND="tcp:127.0.0.1:$p" ANEFW_ACCEL_LOG=1 LD_PRELOAD="$LIB" /bin/true 2>&1)
	[ "$out" = "anefw-accel: ANEFW_ACCEL_BACKEND='tcp:127.0.0.1:$p': expected local or tcp:HOST:PORT, PORT a number 1 to 65535; every submit fails with EINVAL" ] ||
		bad="$bad [$p: $out]"
done
out=$(ANEFW_ACCEL_BACKEND=tcp:127.0.0.1:5555 ANEFW_ACCEL_LOG=1 LD_PRELOAD="$LIB" /bin/true 2>&1)
[ -z "$out" ] || bad="$bad [5555: $out]"
if [ -z "$bad" ]; then t_pass accel.backend_env_port_outside_1_to_65535_named
else t_fail accel.backend_env_port_outside_1_to_65535_named "$bad"; fi

# ---- the firmware backend: the same clients on each board's firmware (make serve) ----
# port_closed PORT: nothing accepts a connection on 127.0.0.1:PORT
port_closed() { "$PYTHON" -c 'import socket, sys; s = socket.socket(); sys.exit(0 if s.connect_ex(("127.0.0.1", int(sys.argv[1]))) else 1)' "$1"; }
free_port() { "$PYTHON" -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
for b in $TEST_BOARDS; do
	[ "$b" = qemu-virt ] || { t_not_run "accel.tcp.$b" "the firmware backend runs on qemu-virt (the serial link of $b is slower)"; continue; }
	if [ ! -f "$BUILD/$b/anefw.elf" ]; then t_fail "accel.tcp.$b" "no $BUILD/$b/anefw.elf"; continue; fi
	port=$(free_port)
	qemu_bg --board "$b" --timeout 900 --link-tcp "$port" "$BUILD/$b/anefw.elf" serve=1 \
		>"$work/serve_$b.log" 2>&1
	qpid=$QPID; pids="$pids $qpid"
	for c in relu hsigmoid conv; do
		if check "$c" --backend "tcp:127.0.0.1:$port" && cmp -s "$work/$c.out0.bin" "$work/$c.local.bin"; then
			t_pass "accel.tcp.$b.$c.same_as_local"
		else t_fail "accel.tcp.$b.$c.same_as_local" "$(tail -2 "$work/check_$c.log")"; fi
	done
	mkdir -p "$work/ew_$b"
	if timeout 120 "$TOOL" accel --backend "tcp:127.0.0.1:$port" -- "$PYTHON" tests/clients/accel_elementwise.py \
		--out "$work/ew_$b" >"$work/ew_$b.log" 2>&1 && diff -r "$work/ew_local" "$work/ew_$b" >/dev/null; then
		t_pass "accel.tcp.$b.python_register_program_same_as_local"
	else t_fail "accel.tcp.$b.python_register_program_same_as_local" "$(tail -2 "$work/ew_$b.log")"; fi
	# stopping the service ends QEMU (its port closes): the suite leaves nothing running. The
	# check's negative: while the service runs, its port is open
	if port_closed "$port"; then t_fail "accel.tcp.$b.port_check_sees_the_running_service"
	else t_pass "accel.tcp.$b.port_check_sees_the_running_service"; fi
	kill "$qpid" 2>/dev/null; wait "$qpid" 2>/dev/null
	if port_closed "$port"; then t_pass "accel.tcp.$b.service_ends_when_stopped"
	else t_fail "accel.tcp.$b.service_ends_when_stopped" "QEMU still listens on $port after its pid was killed"; fi
done
t_done
