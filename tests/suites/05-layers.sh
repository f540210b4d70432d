# Layering: dependencies point down, and the build enforces it. Each layer is compiled with an
# include path that links only the layers below it (Makefile LAYERS_*), so an upward include fails
# to build. A probe including a lower layer must compile; one including a higher layer must not.
set -u
cd "${ANEFW_ROOT:-.}"
. tests/lib.sh
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
probe() { # layer header -> 0 when the probe compiles
	printf '#include "%s"\nint anefw_probe;\n' "$2" > "$work/p.c"
	make --no-print-directory -s layer-probe LAYER="$1" PROBE="$work/p.c" >"$work/out" 2>&1
}
allowed() {
	if probe "$1" "$2"; then t_pass "layers: $1 may include $2"; else t_fail "layers: $1 cannot include $2"; sed 's/^/    /' "$work/out" | head -5; fi
}
refused() {
	if probe "$1" "$2"; then t_fail "layers: $1 includes $2 (an upward include built)"; else t_pass "layers: $1 including $2 fails to build"; fi
}
allowed fw fw/ctrl/ctrl.h
refused fw drivers/dma/dma.h
refused fw hal/hal.h
refused fw engine/engine.h
refused fw app/session.h
allowed drivers hal/hal.h
refused drivers engine/engine.h
allowed engine fw/ctrl/ctrl.h
refused engine app/session.h
allowed app engine/engine.h
refused hal boot/boot.h
refused hal engine/engine.h
refused boot app/job.h
# the grep the issue asked for, on the tree itself
if grep -rEn '#include "(drivers|hal|boot|engine|app|tools)/' fw/ >"$work/g"; then
	t_fail "layers: fw/ includes another layer"; cat "$work/g"
else
	t_pass "layers: fw/ includes only fw/"
fi
if grep -rEn '#include "boot/' hal/ >"$work/g"; then t_fail "layers: hal/ includes boot/"; cat "$work/g"; else t_pass "layers: hal/ does not include boot/"; fi
t_done
