# Every unit test on the target under QEMU, for each board under test: one verdict line in all.
# The boards run side by side (each QEMU into its own file); their outputs are shown in order.
# The bound is wide (1500 s; about 100 s each on an idle machine): beside other suites on a
# loaded machine, two QEMUs at once took over 600 s.
. tests/lib.sh
p=0; f=0; s=0
tmp=$(mktemp -d)
for b in $TEST_BOARDS; do
	( QEMU_TIMEOUT=${TARGET_TEST_TIMEOUT:-1500} qemu_run --board "$b" "$BUILD/$b/anefw-tests.elf" \
		shared="$SHARED" data="$BUILD/testdata" >"$tmp/$b.out" 2>&1
	  echo $? >"$tmp/$b.rc" ) &
done
wait
for b in $TEST_BOARDS; do
	out="$tmp/$b.out"
	sed "s/^/[$b] /" "$out"
	rc=$(cat "$tmp/$b.rc")
	line=$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$out" | tail -n1)
	if [ -z "$line" ]; then
		echo "FAIL target tests on $b gave no verdict (exit $rc)"
		f=$((f + 1)); continue
	fi
	set -- $(echo "$line" | sed -E 's/^([0-9]+) passed, ([0-9]+) failed, ([0-9]+) skipped.*/\1 \2 \3/')
	p=$((p + $1)); f=$((f + $2)); s=$((s + $3))
	if [ "$rc" -ne "$2" ]; then
		echo "FAIL target exit status $rc does not equal the failure count $2 on $b"
		f=$((f + 1))
	fi
done
rm -rf "$tmp"
echo "$p passed, $f failed, $s skipped"
[ "$f" -eq 0 ]
