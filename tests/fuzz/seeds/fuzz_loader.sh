# Seed directories for fuzz_loader: the real programs (when ../shared is there) and the
# generated loader corpus.
[ -n "${SHARED:-}" ] && for d in "$SHARED/fixtures/hwx" "$SHARED"/fixtures/kernels/*/; do
	[ -d "$d" ] && echo "${d%/}"
done
[ -d "${BUILD:-build}/testdata/loader_corpus" ] && echo "${BUILD:-build}/testdata/loader_corpus"
exit 0
