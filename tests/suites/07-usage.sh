# A tool people can use without reading its source (issue 24): every command answers --help and
# `help COMMAND`, the version comes from git describe (with a fallback without git), `make help`
# lists targets and variables, and the installed tool is always the kind of build asked for.
set -u
cd "${ANEFW_ROOT:-.}"
. tests/lib.sh
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
TOOL=$BUILD/host/anefw-tool

# every command the global help lists answers --help, -h and `help COMMAND` on stdout, exit 0
"$TOOL" help >"$work/help" 2>&1
cmds=$(sed -nE 's/^  ([a-z][a-z0-9-]*)( .*)?$/\1/p' "$work/help" | sort -u)
n=$(echo "$cmds" | wc -w)
if [ "$n" -ge 10 ]; then t_pass "help: lists $n commands"; else t_fail "help: lists $n commands" "$(cat "$work/help")"; fi
for c in $cmds; do
	bad=""
	for form in "$c --help" "$c -h" "help $c" "$c x --help"; do
		# shellcheck disable=SC2086
		out=$("$TOOL" $form 2>&1); rc=$?
		first=$(echo "$out" | head -n1)
		case "$first" in "usage: anefw-tool $c "*|"usage: anefw-tool $c") ;; *) bad="$bad [$form: '$first']";; esac
		[ "$rc" -eq 0 ] || bad="$bad [$form: exit $rc]"
	done
	if [ -z "$bad" ]; then t_pass "help: $c --help, -h, help $c"; else t_fail "help: $c" "$bad"; fi
done
# negative controls: an unknown command, to help and alone, is an error (exit 2) naming it
out=$("$TOOL" help no-such-cmd 2>&1); rc=$?
if [ "$rc" -eq 2 ] && echo "$out" | grep -qx "anefw-tool help: unknown command 'no-such-cmd'"; then
	t_pass "help: an unknown command is refused (exit 2)"
else t_fail "help: help no-such-cmd" "exit $rc: $(echo "$out" | head -n1)"; fi
out=$("$TOOL" no-such-cmd --help 2>&1); rc=$?
if [ "$rc" -eq 2 ] && echo "$out" | grep -qx "anefw-tool: unknown command 'no-such-cmd'"; then
	t_pass "help: no-such-cmd --help is refused (exit 2)"
else t_fail "help: no-such-cmd --help" "exit $rc: $(echo "$out" | head -n1)"; fi

# a command with forms (decode FORM, bytes-moved's options) shows every form's arguments in its
# --help: each usage line an error prints appears there (decode --help said only "..." before)
miss=""
for f in palette sparse affine blockwise e4m3 tflm; do
	u=$("$TOOL" decode "$f" 2>&1 | sed -n "s/^anefw-tool decode $f: usage: //p")
	[ -n "$u" ] || { miss="$miss [decode $f: no usage line]"; continue; }
	# the help may wrap a long line: compare with runs of blanks squeezed
	"$TOOL" decode --help | tr -s ' \n' '  ' | grep -qF -- "$(tr -s ' ' <<<"$u")" || miss="$miss [$u]"
done
u=$("$TOOL" bytes-moved --chip 2>&1 | sed -n 's/^anefw-tool bytes-moved: usage: bytes-moved //p')
for o in --form --count --nonzeros --scales --bits --vector --groups --offset --asymmetric; do
	grep -qF -- "$o" <<<"$u" || { miss="$miss [bytes-moved usage lacks $o]"; continue; }
	"$TOOL" bytes-moved --help | grep -qF -- "$o" || miss="$miss [bytes-moved --help: $o]"
done
if [ -z "$miss" ]; then t_pass "help: decode and bytes-moved --help give each form's arguments"
else t_fail "help: forms' arguments" "$miss"; fi

# a bad value or an extra argument says what was expected and what was found (the value given,
# or "nothing"; the extra argument and the one taken); before 2026-12-07 each said only what
# it wanted ("--threads wants 1..64", "too many arguments", "only one FILE", "unknown argument
# '--td'" for a --td with no value), and remote shutdown read and loaded a PROGRAM it was given
bad=""
use() { # want args...: the tool's whole output (exit 2, or 1 for a file) is want
	local want=$1 out rc; shift
	out=$("$TOOL" "$@" 2>&1); rc=$?
	{ [ "$rc" -eq 2 ] || [ "$rc" -eq 1 ]; } && [ "$out" = "$want" ] || bad="$bad [$*: exit $rc: $out]"
}
use "anefw-tool run: --threads wants 1..64, got '0'" run p.hwx --threads 0
use "anefw-tool run: --threads wants 1..64, got nothing" run p.hwx --threads
use "anefw-tool run: --ops-limit wants 1..2^62 operations (fw/td td_ops: multiply-accumulates and pooling taps a task; the host's default 2^40), got '2^70'" run p.hwx --ops-limit 2^70
use "anefw-tool run: too many arguments: 'x.npy' after PROGRAM 'p.hwx' (one PROGRAM; tensors are --in/--out/--ref NAME=FILE)" run p.hwx x.npy
use "anefw-tool submit: too many arguments: 'x' after FILE 'p.hwx' (one FILE)" submit p.hwx x
use "anefw-tool inspect: only one FILE: 'b' after 'a'" inspect a b
use "anefw-tool census: one PROGRAM: 'b' after 'a'" census a b
use "anefw-tool census: --td wants 0..511, got nothing" census a --td
use "anefw-tool bench-model: --act wants W:H:C, got nothing" bench-model --act
use "anefw-tool remote: --wait needs SECONDS (0..600), got '700'" remote --connect 127.0.0.1:1 --wait 700 shutdown
use "anefw-tool remote: too many arguments: 'b' after run a" remote --connect 127.0.0.1:1 run a b
use "anefw-tool remote: shutdown takes no PROGRAM, got 'README.md'" remote --connect 127.0.0.1:1 shutdown README.md
if [ -z "$bad" ]; then t_pass "usage: a bad value or an extra argument says what was found"
else t_fail "usage: what was found" "$bad"; fi

# every option a command's --help gives is in its row of docs/tool.md's table ("Every command and
# its options") and every one there in its --help; and the command parses each (none refused as
# unknown; decode's and bytes-moved's are parsed per form, above, and accel runs a command).
# census took no --raw or --hwx and submit no --hwx before 2026-12-07, and tool.md had no table
bad=""
for c in $cmds; do
	h=$("$TOOL" help "$c" | grep -oE -- '--[a-z][a-z0-9-]*' | sort -u)
	row=$(grep -E "^\| $c \|" docs/tool.md | head -n1)
	[ -n "$row" ] || { bad="$bad [$c: no row in docs/tool.md]"; continue; }
	d=$(cut -d'|' -f3 <<<"$row" | grep -oE -- '--[a-z][a-z0-9-]*' | sort -u)
	[ "$h" = "$d" ] || bad="$bad [$c: --help has $(echo $h), docs/tool.md $(echo $d)]"
	case $c in decode|bytes-moved|accel) continue;; esac
	for o in $h; do
		out=$(timeout 20 "$TOOL" "$c" "$o" 2>&1 </dev/null)
		! grep -qE "unknown (option|argument) '$o'" <<<"$out" || bad="$bad [$c $o: $out]"
	done
done
if [ -z "$bad" ]; then t_pass "usage: every option of every command in docs/tool.md"
else t_fail "usage: every option of every command in docs/tool.md" "$bad"; fi

# version: git describe at build time
out=$("$TOOL" version); want=$(git describe --tags --always 2>/dev/null)
case "$out" in
"anefw-tool $want (anefw host tools)"|"anefw-tool $want-dirty (anefw host tools)") t_pass "version: $out";;
*) t_fail "version" "'$out', git describe says '$want'";;
esac
out=$(GIT_DIR=/nonexistent make --no-print-directory -s version)
if [ "$out" = "unknown" ]; then t_pass "version: without git the build says unknown"; else t_fail "version: without git" "'$out'"; fi

# make help: the targets and variables
make --no-print-directory -s help >"$work/mh" 2>&1
miss=""
for w in run test test-host test-target tools serve bench fuzz soak clean help BOARD= ARGS= T= SANITIZE= PORT=; do
	grep -q "^  $w" "$work/mh" || miss="$miss $w"
done
if [ -z "$miss" ]; then t_pass "make help: lists the targets and variables"; else t_fail "make help: missing" "$miss"; fi

# builds never mix: the installed tool follows the kind asked for, whatever the timestamps
# (-o: the kind's own build counts as up to date and older than the installed copy)
b=$work/b; mkdir -p "$b/host/opt" "$b/host/san"
echo plain >"$b/host/opt/anefw-tool"; echo san >"$b/host/san/anefw-tool"
touch -d '2 hours ago' "$b/host/san/anefw-tool"; touch -d '1 hour ago' "$b/host/opt/anefw-tool"
inst() { make --no-print-directory -s BUILD="$b" "$@" "$b/host/anefw-tool" >/dev/null 2>&1; cat "$b/host/anefw-tool" 2>/dev/null; }
k1=$(inst -o "$b/host/opt/anefw-tool")
k2=$(inst SANITIZE=1 -o "$b/host/san/anefw-tool")
k3=$(inst -o "$b/host/opt/anefw-tool")
if [ "$k1 $k2 $k3" = "plain san plain" ]; then
	t_pass "build: tools, tools SANITIZE=1, tools install plain, san, plain"
else t_fail "build: installed kinds" "'$k1 $k2 $k3' (want 'plain san plain')"; fi
t_done
