# Layering: dependencies point down, and the build enforces it. Each layer is compiled with an
# include path that links only the layers below it (Makefile LAYERS_*), so an upward include fails
# to build. The layers, from the bottom (TF-A's shape):
#   fw, linker   pure logic; the linker's symbols
#   hal          low-level accessors: mmio, counters, timer, cache maintenance, cpu, semihosting
#   drivers      devices, given their addresses by the board
#   plat         board glue: which devices a board has, at which addresses
#   boot         the image's start, above the board it brings up
#   engine       the engine interface and its model
#   app          the application
#   tools        the host tool
# For every ordered pair of layers a probe in the first includes a header of the second: it must
# build exactly when the second is one the first may use (the table below, stated here apart from
# the Makefile, so a Makefile that lets a layer see more, or less, fails this suite).
set -u
cd "${ANEFW_ROOT:-.}"
. tests/lib.sh
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT

declare -A may=(
	[fw]="fw"
	[linker]="linker"
	[hal]="hal linker"
	[drivers]="drivers hal fw"
	[plat]="plat drivers hal linker fw"
	[boot]="boot plat hal linker"
	[engine]="engine drivers hal fw"
	[app]="app engine plat drivers hal fw"
	[tools]="tools app engine plat drivers hal fw"
)
declare -A header=(
	[fw]=fw/ctrl/ctrl.h [linker]=linker/image_syms.h [hal]=hal/hal.h
	[drivers]=drivers/dma/dma.h [plat]=plat/plat.h [boot]=boot/boot.h
	[engine]=engine/engine.h [app]=app/session.h [tools]=tools/progdesc/progdesc.h
)
order="fw linker hal drivers plat boot engine app tools"

if ! cc=$(make --no-print-directory -s layer-cc 2>"$work/err"); then
	t_fail "layers: make layer-cc" "$(head -3 "$work/err")"
	t_done; exit
fi
probe() { # layer header -> 0 when the probe compiles
	printf '#include "%s"\nint anefw_probe;\n' "$2" > "$work/p.c"
	$cc"$1" "$work/p.c" >"$work/out" 2>&1
}
allowed=0 refused=0
for l in $order; do
	for m in $order; do
		h=${header[$m]}
		if [[ " ${may[$l]} " == *" $m "* ]]; then
			if probe "$l" "$h"; then allowed=$((allowed + 1))
			else t_fail "layers: $l cannot include $h (it may)"; sed 's/^/    /' "$work/out" | head -5; fi
		else
			if probe "$l" "$h"; then t_fail "layers: $l includes $h (an upward include built)"
			else refused=$((refused + 1)); fi
		fi
	done
done
t_pass "layers: $allowed allowed includes build (each layer its own and the layers below)"
t_pass "layers: $refused includes of a layer not below fail to build, both ways for every unrelated pair"

# negative control: the probe itself can tell a header that builds from one that does not
if probe hal "drivers/dma/dma.h"; then t_fail "layers: negative control (hal including drivers/ built)"
elif ! probe drivers "hal/hal.h"; then t_fail "layers: positive control (drivers including hal/ did not build)"
else t_pass "layers: the probe distinguishes (drivers may include hal/hal.h; hal may not include drivers/)"; fi

# the tree itself: fw/ includes only fw/; no layer defines another's functions by a weak override
if grep -rEn '#include "(drivers|hal|plat|boot|engine|app|tools)/' fw/ >"$work/g"; then
	t_fail "layers: fw/ includes another layer"; cat "$work/g"
else
	t_pass "layers: fw/ includes only fw/"
fi
if grep -rEn '^[a-z_].*[ *](hal|plat|board)_[a-z0-9_]+\([^;]*$' drivers/ >"$work/g"; then
	t_fail "layers: drivers/ defines a HAL or board function"; cat "$work/g"
else
	t_pass "layers: drivers/ defines no HAL or board function (the board picks its devices in plat/)"
fi
t_done
