# Every unit test on the target under QEMU, for each board under test: one verdict line in all.
. tests/lib.sh
p=0; f=0; s=0
for b in $TEST_BOARDS; do
	out=$(mktemp)
	QEMU_TIMEOUT=${TARGET_TEST_TIMEOUT:-600} qemu_run --board "$b" "$BUILD/$b/anefw-tests.elf" \
		shared="$SHARED" data="$BUILD/testdata" 2>&1 | sed "s/^/[$b] /" | tee "$out"
	rc=${PIPESTATUS[0]}
	line=$(grep -E '^\['"$b"'\] [0-9]+ passed, [0-9]+ failed' "$out" | tail -n1)
	rm -f "$out"
	if [ -z "$line" ]; then
		echo "FAIL target tests on $b gave no verdict (exit $rc)"
		f=$((f + 1)); continue
	fi
	set -- $(echo "$line" | sed -E 's/^\[[^]]*\] ([0-9]+) passed, ([0-9]+) failed, ([0-9]+) skipped.*/\1 \2 \3/')
	p=$((p + $1)); f=$((f + $2)); s=$((s + $3))
	if [ "$rc" -ne "$2" ]; then
		echo "FAIL target exit status $rc does not equal the failure count $2 on $b"
		f=$((f + 1))
	fi
done
echo "$p passed, $f failed, $s skipped"
[ "$f" -eq 0 ]
