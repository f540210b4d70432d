# Seed directories for fuzz_agree: the real programs as the tool reads them (the fixtures' .hwx
# files, raw kernel streams and hostile streams, when ../shared is there), and the programs of
# tests/oracle/mkprog's descriptions and default.hwx, written under $BUILD/fuzz-seeds/fuzz_agree.
[ -n "${SHARED:-}" ] && for d in "$SHARED/fixtures/hwx" "$SHARED"/fixtures/kernels/*/ "$SHARED/fixtures/hostile"; do
	[ -d "$d" ] && echo "${d%/}"
done
out="${BUILD:-build}/fuzz-seeds/fuzz_agree"
mkdir -p "$out" || exit 0
[ -f "${BUILD:-build}/default.hwx" ] && cp "${BUILD:-build}/default.hwx" "$out/mkprog-default.hwx"
tool="${BUILD:-build}/host/anefw-tool"
if [ -x "$tool" ]; then
	for d in tests/oracle/mkprog/*.desc; do
		[ -f "$d" ] || continue
		n=$(basename "$d" .desc)
		"$tool" mkprog "$d" "$out/mkprog-$n.hwx" >/dev/null 2>&1 || rm -f "$out/mkprog-$n.hwx"
		"$tool" mkprog --raw "$d" "$out/mkprog-$n.bin" >/dev/null 2>&1 || rm -f "$out/mkprog-$n.bin"
	done
fi
echo "$out"
exit 0
