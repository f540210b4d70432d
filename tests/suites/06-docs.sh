# The docs name what exists: every file path README.md and docs/*.md name (in backquotes or as a
# link) is in the tree (tests/docpaths.py), with a negative control that a missing one is caught.
set -u
cd "${ANEFW_ROOT:-.}"
. tests/lib.sh
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
if "$PYTHON" tests/docpaths.py . README.md docs/*.md >"$work/out" 2>&1; then
	t_pass "docs: every path README.md and docs/*.md name exists"
else
	t_fail "docs: paths named that do not exist"; sed 's/^/    /' "$work/out"
fi
# negative control: a doc naming a file that is not there, beside ones that are
mkdir -p "$work/docs"
printf 'see `fw/td/td.c`, `fw/cmd/cmd.{h,c}`, `hal/<board>/`, [x](../README.md)\nand `tools/no-such-file.c` here\n' >"$work/docs/neg.md"
cp -r README.md fw hal tools "$work/" 2>/dev/null
out=$("$PYTHON" tests/docpaths.py "$work" "$work/docs/neg.md" 2>&1); rc=$?
if [ "$rc" -eq 1 ] && [ "$out" = "docs/neg.md:2: tools/no-such-file.c" ]; then
	t_pass "docs: a missing path is reported with its line (negative control)"
else
	t_fail "docs: negative control" "exit $rc, output '$out'"
fi
t_done
