#!/bin/bash
# Host instructions per element of the TFLM decoder under callgrind (issue 14), beside `make
# bench` (which measures the target under QEMU icount). Builds tests/bench/host/tflm_callgrind.c
# with gcc -O2 for this machine (x86-64, as the issue measured TFLM's DecompressToBuffer), runs
# it once under valgrind --tool=callgrind and prints one line per case: instructions per element
# (the decode call only: stats zeroed before, dumped after), 1 Mi elements, full value tables.
# Usage: bash tests/bench/tflm-callgrind.sh [TYPE]   (TYPE: int8 int16 int32 int64 float32 bool)
# TFLM's figures from the issue (tflite-micro 90b983c2, gcc -O2, x86-64, callgrind):
#   int8 per tensor aligned: anefw 0.06..0.46 of TFLM; int8 width 4 unaligned: TFLM 6.06;
#   int16: TFLM 12.0..23.6 (alternate axis 14.2..26.9).
set -e
root=$(cd "$(dirname "$0")/../.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
command -v valgrind >/dev/null || { echo "valgrind missing: not measured"; exit 0; }
[ -f /usr/include/valgrind/callgrind.h ] || { echo "valgrind/callgrind.h missing: not measured"; exit 0; }
gcc -O2 -std=gnu11 -I"$root" -o "$work/tflm_cg" "$root/tests/bench/host/tflm_callgrind.c" \
	"$root"/fw/codec/*.c "$root"/fw/common/*.c
(cd "$work" && valgrind --tool=callgrind --callgrind-out-file="$work/cg.out" "$work/tflm_cg" "$@" \
	>"$work/run.log" 2>&1) || { cat "$work/run.log"; echo "FAIL: the measured decoder gave a wrong output"; exit 1; }
# one row per type / layout / alignment / tables, one column per width
printf '%-34s' "type layout alignment tables"; for w in 1 2 3 4 5 6 7; do printf ' %6s' "w$w"; done; echo
for f in "$work"/cg.out.*; do
	name=$(sed -n 's/^desc: Trigger: Client Request: //p' "$f")
	[ -n "$name" ] || continue
	tot=$(sed -n 's/^summary: //p;s/^totals: //p' "$f" | head -n1 | awk '{print $1}')
	echo "$name $tot"
done | awk '{ split($1, k, "/"); row = k[1] " " k[3] " " k[4] " " k[5]; v[row, k[2]] = $2 / 1048576; rows[row] = 1 }
	END { for (row in rows) { printf "%-34s", row; for (w = 1; w <= 7; w++) printf " %6.2f", v[row, w]; printf "\n" } }' | sort
