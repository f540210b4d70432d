#!/usr/bin/env python3
"""Every file path a document names exists (issue 24, section 7).

Usage: docpaths.py ROOT DOC...   prints each missing path as "DOC:LINE: PATH" and exits 1 when
there is one. A path is a word in backquotes or a Markdown link target whose first component is
one of the tree's top folders. `<name>` and `NN` placeholders match any name, `*` globs, `{h,c}`
expands, and a path without extension also matches PATH.c or PATH.h (a module named by its stem).
Links in docs/ are taken relative to docs/.
"""
import glob
import os
import re
import sys

ROOTS = ('app', 'boot', 'build', 'docs', 'drivers', 'engine', 'fw', 'hal', 'linker', 'scripts',
         'tests', 'tools')
SKIP_ROOTS = ('build',)  # products: made by the build, not in the tree


def expand(p):
    m = re.search(r'\{([^{}]*)\}', p)
    if not m:
        return [p]
    return [q for alt in m.group(1).split(',') for q in expand(p[:m.start()] + alt + p[m.end():])]


def exists(root, p):
    p = re.sub(r'<[^>/]*>', '*', p)
    for q in expand(p):
        for cand in (q, q + '.c', q + '.h'):
            if glob.glob(os.path.join(root, cand)):
                return True
    return False


def main():
    root, docs = sys.argv[1], sys.argv[2:]
    missing = 0
    for doc in docs:
        rel = os.path.relpath(doc, root)
        with open(doc, encoding='utf-8') as f:
            for ln, line in enumerate(f, 1):
                for m in re.finditer(r'`([^`\s]+)`|\]\(([^)\s#]+)', line):
                    p = m.group(1) or m.group(2)
                    if m.group(2):
                        if '://' in p:
                            continue
                        p = os.path.normpath(os.path.join(os.path.dirname(rel), p))
                    p = p.rstrip('.,:;')
                    top = p.split('/')[0]
                    if '/' not in p or top not in ROOTS or top in SKIP_ROOTS:
                        continue
                    if not exists(root, p):
                        print(f'{rel}:{ln}: {p}')
                        missing += 1
    return 1 if missing else 0


if __name__ == '__main__':
    sys.exit(main())
