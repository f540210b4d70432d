# Seed directories for fuzz_submit: the real programs prefixed with the submission header
# (mode: default grants; raw streams flagged), written under $BUILD/fuzz-seeds/fuzz_submit, and
# the mkprog programs the build wrote and those of tests/oracle/mkprog (kernel-unit weights the
# firmware folds or the model decodes).
out="${BUILD:-build}/fuzz-seeds/fuzz_submit"
mkdir -p "$out" || exit 0
if [ -n "${SHARED:-}" ] && [ -d "$SHARED/fixtures" ]; then
	for f in "$SHARED"/fixtures/hwx/*.hwx; do
		[ -f "$f" ] && { printf '\002\000'; cat "$f"; } > "$out/$(basename "$f")"
	done
	for f in "$SHARED"/fixtures/kernels/*/*.bin; do
		[ -f "$f" ] && { printf '\003\000'; cat "$f"; } > "$out/$(basename "$f")"
	done
	# the raw streams a wider campaign found asking for 10 and 67 GB (issue 22)
	for f in "$SHARED"/fixtures/hostile/oom-*.bin; do
		[ -f "$f" ] && { printf '\003\000'; cat "$f"; } > "$out/hostile-$(basename "$f")"
	done
fi
# raw task streams from other directories (FUZZ_RAW_SEEDS, e.g. the sweeps' streams in scratch:
# given to FUZZ_SEEDS as they are, their first bytes would be read as this target's header)
i=0
for d in ${FUZZ_RAW_SEEDS:-}; do
	i=$((i + 1))
	for f in "$d"/*; do
		[ -f "$f" ] && { printf '\003\000'; cat "$f"; } > "$out/raw$i-$(basename "$f")"
	done
done
for f in "${BUILD:-build}"/default.hwx; do
	[ -f "$f" ] && { printf '\002\000'; cat "$f"; } > "$out/mkprog-$(basename "$f")"
done
# every oracle description's program (palettes folded and streamed, sparse, int8, chains)
tool="${BUILD:-build}/host/anefw-tool"
if [ -x "$tool" ]; then
	for d in tests/oracle/mkprog/*.desc; do
		[ -f "$d" ] || continue
		n=$(basename "$d" .desc)
		"$tool" mkprog "$d" "$out/.mk.hwx" >/dev/null 2>&1 &&
			{ printf '\002\000'; cat "$out/.mk.hwx"; } > "$out/mkprog-$n"
	done
	rm -f "$out/.mk.hwx"
fi
echo "$out"
exit 0
