#!/usr/bin/env bash
# make census: anefw-tool census (docs/engine-model.md, "The register census") of every program
# in the shared fixtures, one report each in OUTDIR (the fields no flip reads, per TD and for the
# whole program), then the fields no flip reads in any of them. Long: a kernel fixture's 8 MiB
# tensors make it about 90 s a TD. A measurement, not a test.
# Usage: scripts/census.sh ANEFW_TOOL SHARED OUTDIR
set -u
tool=$1 shared=$2 out=$3
mkdir -p "$out"
progs=$(ls "$shared"/fixtures/hwx/*.hwx "$shared"/fixtures/kernels/*/*.bin 2>/dev/null)
if [ -z "$progs" ]; then
	echo "census: no programs under $shared/fixtures"
	exit 1
fi
n=0
for p in $progs; do
	name=$(basename "$(dirname "$p")")_$(basename "$p")
	if "$tool" census "$p" --quiet >"$out/$name.txt" 2>&1; then
		tail -n 1 "$out/$name.txt"
		n=$((n + 1))
	else
		echo "census: $p: $(tail -n 1 "$out/$name.txt")"
	fi
done
# the fields (or a register's other bits) unread at every TD of every program
grep -h '^unread at every TD: ' "$out"/*.txt | sed 's/^unread at every TD: //; s/, values .*//' |
	sort | uniq -c | awk -v n="$n" '$1 == n { $1 = ""; print "unread in all " n " programs:" $0 }' |
	tee "$out/unread-everywhere.txt"
echo "census: $n programs, reports in $out"
