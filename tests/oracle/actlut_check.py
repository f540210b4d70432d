#!/usr/bin/python3
"""Accuracy and behaviour check of one activation LUT record (docs/actlut.md).

usage: actlut_check.py TOOL FUNC RECORD [--offset N] [--slope A] [--workdir D]

Runs `TOOL lut-eval RECORD OUT --offset N` and checks the 65,536 outputs:
 1. bit-exact against the exact model of the documented semantics (actlut_model.py);
 2. accuracy against FUNC in float64 for every finite fp16 input in the domain the record
    serves: |out - f(x)| <= E * scale + 2 ulp(f(x)), E = the largest error of ideal piecewise-
    linear interpolation of f through the same knot positions (in the LUT input variable),
    scale = the output scaling of the mode (2^n for exp2, 2^(e/2) for sqrt, ...);
 3. NaN inputs give NaN; infinities, zeros and clamps give the documented values; tails follow
    their lines (clamped) within 1 ulp of float64.
Prints one summary line (largest abs / rel error) and exits 1 on any violation.
FUNC: relu relu6 leakyrelu hardtanh sigmoid sigmoid_m05 tanh gelu silu selu exp2 log2 sqrt rsqrt
reciprocal trunc frac_trunc step (sigmoid_m05 = sigmoid(x) - 0.5, what the unary/sigmoid kernel
record computes; exp is checked as exp2 since the record computes 2^t; selu with the standard
alpha 1.6732632423543772 and scale 1.0507009873554805; frac_trunc = x - trunc(x); step = 1 for
x > 0 else 0: the three records of unary/ceil.bin).
"""
import math
import os
import subprocess
import sys
import tempfile

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import actlut_model as M  # noqa: E402

erf = np.frompyfunc(math.erf, 1, 1)
SELU_ALPHA, SELU_SCALE = 1.6732632423543772, 1.0507009873554805  # the standard selu constants


def funcs(slope):
    with np.errstate(all='ignore'):
        return {
            'relu': lambda x: np.maximum(x, 0.0),
            'relu6': lambda x: np.clip(x, 0.0, 6.0),
            'leakyrelu': lambda x: np.where(x < 0, slope * x, x),
            'hardtanh': lambda x: np.clip(x, -1.0, 1.0),
            'sigmoid': lambda x: 1.0 / (1.0 + np.exp(-x)),
            'sigmoid_m05': lambda x: 0.5 * np.tanh(0.5 * x),
            'tanh': np.tanh,
            'gelu': lambda x: 0.5 * x * (1.0 + erf(x / math.sqrt(2.0)).astype(np.float64)),
            'silu': lambda x: x / (1.0 + np.exp(-x)),
            'exp2': np.exp2,
            'exp': np.exp2,
            'log2': np.log2,
            'sqrt': np.sqrt,
            'rsqrt': lambda x: 1.0 / np.sqrt(x),
            'reciprocal': lambda x: 1.0 / x,
            'selu': lambda x: SELU_SCALE * np.where(x > 0, x, SELU_ALPHA * np.expm1(np.minimum(x, 0.0))),
            'trunc': np.trunc,
            'frac_trunc': lambda x: np.where(np.isfinite(x), x - np.trunc(x), 0.0),
            'step': lambda x: np.where(x > 0, 1.0, 0.0),
            'step_neg': lambda x: np.where(x < 0, 1.0, 0.0),
        }


def ulp(y):
    a = np.abs(y)
    e = np.floor(np.log2(np.where(a > 0, a, 1.0)))
    return np.exp2(np.maximum(e, -14) - 10)


def pwl_error(g, pos, lo_seg, hi_seg):
    """largest |chord - g| over segments lo_seg..hi_seg-1 (knot positions pos)"""
    worst = 0.0
    for i in range(lo_seg, hi_seg):
        t = np.linspace(pos[i], pos[i + 1], 257)
        ga, gb = g(np.array([pos[i]]))[0], g(np.array([pos[i + 1]]))[0]
        chord = ga + (gb - ga) * (t - pos[i]) / (pos[i + 1] - pos[i])
        worst = max(worst, float(np.max(np.abs(chord - g(t)))))
    return worst


def main(argv):
    args = argv[1:]
    opts = {'--offset': '0', '--slope': '0.01', '--workdir': None}
    pos = []
    i = 0
    while i < len(args):
        if args[i] in opts:
            opts[args[i]] = args[i + 1]
            i += 2
        else:
            pos.append(args[i])
            i += 1
    if len(pos) != 3:
        print(__doc__)
        return 2
    tool, fname, recpath = pos
    off = int(opts['--offset'], 0)
    F = funcs(float(opts['--slope']))
    if fname not in F:
        print('unknown FUNC', fname)
        return 2
    f = F[fname]
    raw = open(recpath, 'rb').read()[off:off + M.NBYTES]
    rec = M.Record(raw)
    wd = opts['--workdir'] or tempfile.mkdtemp()
    out_path = os.path.join(wd, 'lut-%s-%d.out' % (os.path.basename(recpath), off))
    r = subprocess.run([tool, 'lut-eval', recpath, out_path, '--offset', str(off)],
                       capture_output=True, text=True)
    if r.returncode != 0:
        print('FAIL lut-eval exited %d: %s' % (r.returncode, r.stderr.strip()))
        return 1
    out = np.fromfile(out_path, dtype='<u2')
    if out.size != 65536:
        print('FAIL lut-eval wrote %d values' % out.size)
        return 1
    fails = []

    # 1. bit-exact against the documented model
    model = np.array(rec.table(), dtype=np.uint16)
    bad = np.nonzero(model != out)[0]
    if bad.size:
        fails.append('%d outputs differ from the model (first x=0x%04x: got 0x%04x, model 0x%04x)'
                     % (bad.size, bad[0], out[bad[0]], model[bad[0]]))

    # 2. accuracy in the served domain
    bits = np.arange(65536, dtype=np.uint32).astype(np.uint16)
    x = bits.view(np.float16).astype(np.float64)
    y = out.view(np.float16).astype(np.float64)
    s = rec.s
    h16 = lambda v: float(np.array([v], dtype=np.uint16).view(np.float16)[0])
    in_lo, in_hi = h16(s[0]), h16(s[1])
    finite = np.isfinite(x)
    k = rec.kind
    with np.errstate(all='ignore'):
        ref = f(x).astype(np.float64)
        scale = np.ones_like(x)
        if k == 'linear':
            E = 0.0
            served = finite & (x >= in_lo) & (x <= in_hi)
        else:
            step = 2.0 ** -rec.scale
            if k in ('frac', 'int'):  # exact: no table
                E = 0.0
                served = finite & (x >= in_lo) & (x <= in_hi)
                p = None
            elif k == 'plain':  # the operation gives the index offset (16 gelu, 32 selu)
                p = -rec.off * step + step * np.arange(33)
                lo, hi = max(p[0], in_lo), min(p[32], in_hi)
                served = finite & (x >= lo) & (x <= hi)
                seg = (max(0, int((lo - p[0]) / step)), min(32, int(math.ceil((hi - p[0]) / step))))
                E = pwl_error(f, p, *seg)
            elif k == 'odd':
                p = step * np.arange(33) - rec.off * step
                hi = min(p[32], in_hi)
                served = finite & (np.abs(x) <= hi)
                E = pwl_error(f, p, 0, min(32, int(math.ceil(hi / step))))
            elif k == 'exp2':
                p = step * np.arange(33)
                served = finite & (x >= in_lo) & (x <= in_hi) & (np.abs(ref) <= 65504)
                E = pwl_error(np.exp2, p, 0, min(32, int(math.ceil(1 / step))))
                scale = np.exp2(np.floor(x))
            elif k in ('log2', 'recip'):
                p = step * np.arange(33)
                g = (lambda w: np.log2(0.5 + w)) if k == 'log2' else (lambda w: 1.0 / (0.5 + w))
                E = pwl_error(g, p, 0, min(32, int(math.ceil(0.5 / step))))
                # the float split clamps |x|
                served = finite & (x != 0) & (np.abs(x) >= in_lo) & (np.abs(x) <= in_hi) & (np.abs(ref) <= 65504)
                if k == 'log2':
                    served &= x > 0
                else:
                    e = np.floor(np.log2(np.abs(np.where(x != 0, x, 1)))) + 1
                    scale = np.exp2(-e)
            else:  # sqrt, rsqrt
                p = step * np.arange(33)
                g = np.sqrt if k == 'sqrt' else (lambda m: 1.0 / np.sqrt(m))
                E = pwl_error(g, p, int(0.5 / step), min(32, int(math.ceil(2 / step))))
                served = finite & (x > 0) & (np.abs(x) >= in_lo) & (np.abs(x) <= in_hi) & (np.abs(ref) <= 65504)
                e = np.floor(np.log2(np.where(x > 0, x, 1))) + 1
                e = e - (e % 2)
                scale = np.exp2(e / 2 if k == 'sqrt' else -e / 2)
        err = np.abs(y - ref)
        bar = E * scale + 2 * ulp(ref)
        viol = served & ~(err <= bar)
        rel = err / np.maximum(np.abs(ref), 2.0 ** -24)
    if viol.any():
        j = np.nonzero(viol)[0][0]
        fails.append('%d served inputs beyond the bar (first x=%r: got %r, f=%r, bar %.3g)'
                     % (int(viol.sum()), x[j], y[j], ref[j], bar[j]))
    max_abs = float(np.max(err[served])) if served.any() else 0.0
    normal = served & (np.abs(ref) >= 2.0 ** -14)  # relative error where fp16 is normal
    max_rel = float(np.max(rel[normal])) if normal.any() else 0.0

    # 3. specials
    nan_in = np.isnan(x)
    if not np.all(np.isnan(y[nan_in])):
        fails.append('a NaN input did not give NaN')
    def expect(xb, want, what):
        got = int(out[xb])
        if got != want:
            fails.append('%s: x=0x%04x gave 0x%04x, documented 0x%04x' % (what, xb, got, want))
    if k == 'log2':
        expect(0x0000, M.NINF, 'log2(0)')
        expect(0x7c00, M.PINF, 'log2(inf)')
    if k == 'sqrt':
        expect(0x0000, 0x0000, 'sqrt(0)')
        expect(0x7c00, M.PINF, 'sqrt(inf)')
    if k == 'rsqrt':
        expect(0x0000, M.PINF, 'rsqrt(0)')
        expect(0x7c00, 0x0000, 'rsqrt(inf)')
    if k == 'recip':
        expect(0x0000, M.PINF, 'recip(+0)')
        expect(0x8000, M.PINF, 'recip(-0) (guide 03: the zero loses its sign)')
        expect(0x7c00, 0x0000, 'recip(inf)')
        expect(0xfc00, 0x8000, 'recip(-inf)')
    if k in ('log2', 'sqrt', 'rsqrt'):
        # guide 03: log(-1), sqrt(-1), rsqrt(-1) give +0; so does every x < 0
        neg = (bits & 0x8000).astype(bool) & ((bits & 0x7fff) != 0) & ~nan_in
        if not np.all(out[neg] == 0):
            fails.append('%s of a negative input is not +0' % k)
        if k == 'rsqrt':
            expect(0x8000, M.PINF, 'rsqrt(-0) (guide 03)')
    if k == 'exp2':
        if in_hi >= 16:
            expect(0x7c00, M.PINF if np.isinf(in_hi) else int(out[np.float16(in_hi).view(np.uint16)]), 'exp2(+inf)')
    # clamp: beyond the input clamp the output holds the value at the clamp
    if k in ('plain', 'linear', 'exp2') and np.isfinite(in_hi):
        at = int(np.array([in_hi], dtype=np.float16).view(np.uint16)[0])
        beyond = finite & (x > in_hi)
        if not np.all(out[beyond | (bits == 0x7c00)] == out[at]):
            fails.append('inputs above the input clamp do not hold the value at the clamp')
    if k in ('plain', 'linear', 'exp2') and np.isfinite(in_lo):
        at = int(np.array([in_lo], dtype=np.float16).view(np.uint16)[0])
        beyond = finite & (x < in_lo)
        if not np.all(out[beyond | (bits == 0xfc00)] == out[at]):
            fails.append('inputs below the input clamp do not hold the value at the clamp')
    # tails: the clamped line within 1 ulp of float64
    if k in ('plain', 'odd', 'linear'):
        a_l, b_l, a_r, b_r = (h16(v) for v in s[37:41])
        o_lo, o_hi = sorted((h16(s[2]), h16(s[3])))  # the range between the end values
        v = np.clip(np.abs(x) if k == 'odd' else x, in_lo, in_hi)
        if k == 'linear':  # the lines either side of 0; v = +-0 reads a knot (docs/actlut.md)
            left, right = finite & (v < 0), finite & (v > 0)
        else:
            p0 = -rec.off * 2.0 ** -rec.scale
            p32 = p0 + 32 * 2.0 ** -rec.scale
            left, right = finite & (v < p0), finite & (v > p32)
        with np.errstate(all='ignore'):
            line = np.where(left, a_l * v + b_l, a_r * v + b_r)
            line = np.clip(line, o_lo, o_hi)
            if k == 'odd':
                line = np.where(np.signbit(x), -line, line)
            # a line beyond the fp16 range rounds to infinity (selu's slope 1.05 near 65504)
            line = np.where(np.abs(line) >= 65520, np.sign(line) * np.inf, line)
        tl = left | right
        with np.errstate(all='ignore'):
            terr = np.where(y[tl] == line[tl], 0.0, np.abs(y[tl] - line[tl]))
        if tl.any() and not np.all(terr <= ulp(line[tl]) + 1e-300):
            fails.append('tail values off their documented line by more than 1 ulp')
    nserved = int(served.sum())
    print('%-12s kind=%-6s s=%-2d served=%5d  max_abs=%.3g  max_rel=%.3g  pwl_E=%.3g  %s'
          % (fname, k, rec.scale if k != 'linear' else 64, nserved, max_abs, max_rel, E,
             'OK' if not fails else 'FAIL'))
    for m in fails:
        print('  FAIL', m)
    return 1 if fails else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
