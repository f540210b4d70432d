# Seed directories for fuzz_loader: the real programs and the hostile streams (when ../shared is
# there) and the generated loader corpus.
[ -n "${SHARED:-}" ] && for d in "$SHARED/fixtures/hwx" "$SHARED"/fixtures/kernels/*/ "$SHARED/fixtures/hostile"; do
	[ -d "$d" ] && echo "${d%/}"
done
[ -d "${BUILD:-build}/testdata/loader_corpus" ] && echo "${BUILD:-build}/testdata/loader_corpus"
exit 0
