#!/usr/bin/python3
"""References for the engine model's convolutions (tests/unit/test_model_conv.c), from the
definition docs/engine-model.md ("Numerics", "Convolutions with a bias") gives the MAC:

  - the operands: fp16 inputs and weights; the tile DMA's input port makes a NaN input +inf, and
    the MAC's input port makes a subnormal input or weight +0 (guide 03);
  - output (g, o, y, x) sums, in fp32 and in the order ci, ky, kx, the products w x in (exact in
    fp32: fp16 x fp16) of its taps: input (ci, y Sy - Py + ky, x Sx - Px + kx) of group g, a tap
    outside the input adding nothing, and a 0 weight or a 0 input (after the port) adding nothing
    (the engine's 0 x inf is +0, guide 03: an infinite weight times a 0 input as a 0 weight times
    an infinite input); the sum starts at +0;
  - a bias (NE.MACCfg.BiasMode's, one an output, or NE.AccBias, one for every output) is added to
    the taps' fp32 sum in fp32;
  - the port: the value rounded once to fp16 (nearest, ties to even; NaN made +0). With two or
    more terms (Cin Kh Kw, plus one for a bias) it saturates at 2^15: the bias alone is the first
    partial the port sees, then the taps' running sum plus the bias after each term, each rounded
    to fp16; the first of them whose magnitude reaches 2^15 makes the output the infinity of its
    sign, whatever follows. Where the whole sum is infinite, the port's own rules for it apply
    instead (an infinity stays). An output whose sum meets infinities of both signs (inf - inf
    between partials, a partial past 2^15 then an infinity of the other sign, an infinite bias) is
    refused by the model since a seventh review; no case here holds one.

NE.PostScale is 1 in every case (x 1 changes nothing). Computed with numpy from those words only,
not from the model's code or the test's.

File (little-endian): b"ANECONV1", u32 ncases; per case sixteen u32 (Kw, Kh, Sx, Sy, Px, Py,
NumGroups, Cin, Cout, Win, Hin, Wout, Hout, OCGSize, 1 when BiasMode's biases follow, NE.AccBias
as fp16 bits or 0), then fp16 arrays: the inputs [G][Cin][Hin][Win], the weights
[G Cout][Cin][Kh][Kw], the biases [G Cout] (when present), the expected outputs [G][Cout][Hout][Wout].
The cases of each file are in the order the test takes them (written beside each below).
"""
import os
import struct
import sys

import numpy as np

SEED = 0xC0417


class Case:
    def __init__(self, shape, ocg=0):
        (self.kw, self.kh, self.sx, self.sy, self.px, self.py, self.G, self.cin, self.cout,
         self.win, self.hin, self.w, self.h) = shape
        self.ocg = ocg
        self.x = np.zeros((self.G, self.cin, self.hin, self.win), np.uint16)
        self.wt = np.zeros((self.G * self.cout, self.cin, self.kh, self.kw), np.uint16)
        self.bias = None    # fp16 bits [G Cout], BiasMode's
        self.accbias = 0    # fp16 bits, NE.AccBias (0: none)


def f16(v):
    return int(np.array(v, np.float16).view(np.uint16))


def rnd_h(rng, n):
    # random fp16 of either sign, exponent 12..16 (|v| in [1/8, 4)), any mantissa
    return ((rng.integers(0, 2, n) << 15) | ((12 + rng.integers(0, 5, n)) << 10) |
            rng.integers(0, 1024, n)).astype(np.uint16)


def rnd_w(rng, n):
    # weights as rnd_h, one in six a zero of either sign
    w = rnd_h(rng, n)
    zero = rng.integers(0, 6, n) == 0
    w[zero] = (rng.integers(0, 2, n)[zero] << 15).astype(np.uint16)
    return w


def operand(bits, port_nan):
    # fp16 bits -> float64 through the input ports: NaN -> +inf (the tile DMA's, inputs only),
    # subnormal -> +0 (the MAC's)
    v = bits.view(np.float16).astype(np.float64)
    if port_nan:
        v = np.where(np.isnan(v), np.inf, v)
    return np.where((np.abs(v) < 2.0 ** -14) & (v != 0), 0.0, v)


def to16(v32):
    # fp32 -> fp16 at a rounding point: nearest even, NaN made +0
    h = np.asarray(v32, np.float32).astype(np.float16)
    return np.where(np.isnan(h), np.float16(0.0), h)


def reference(k):
    """The expected fp16 outputs [G][Cout][Hout][Wout] as bits."""
    x = operand(k.x, True)
    wt = operand(k.wt, False).reshape(k.G, k.cout, k.cin, k.kh, k.kw)
    nb = k.bias is not None or k.accbias != 0
    if k.bias is not None:
        b = operand(k.bias, False).reshape(k.G, k.cout)
    else:
        b = np.full((k.G, k.cout), operand(np.array([k.accbias], np.uint16), False)[0])
    b32 = b.astype(np.float32)[:, :, None, None]
    taps2 = k.cin * k.kh * k.kw + (1 if nb else 0) >= 2
    out = np.zeros((k.G, k.cout, k.h, k.w), np.uint16)
    ys = np.arange(k.h)[:, None] * k.sy - k.py
    xs = np.arange(k.w)[None, :] * k.sx - k.px
    with np.errstate(invalid='ignore', over='ignore'):
        for g in range(k.G):
            acc = np.zeros((k.cout, k.h, k.w), np.float32)
            bg = b32[g]
            first = np.zeros((k.cout, k.h, k.w), np.float64)  # the first saturated partial's sign
            if taps2 and nb:  # the bias alone
                p = to16(np.broadcast_to(bg, acc.shape)).astype(np.float64)
                first = np.where(np.abs(p) >= 2.0 ** 15, np.sign(p), first)
            for ci in range(k.cin):
                for ky in range(k.kh):
                    for kx in range(k.kw):
                        iy, ix = ys + ky, xs + kx
                        inside = (iy >= 0) & (iy < k.hin) & (ix >= 0) & (ix < k.win)
                        xv = np.where(inside, x[g, ci, np.clip(iy, 0, k.hin - 1), np.clip(ix, 0, k.win - 1)], 0.0)
                        wv = wt[g, :, ci, ky, kx][:, None, None]
                        take = inside[None, :, :] & (wv != 0.0) & (xv != 0.0)[None, :, :]
                        prod = (wv * xv[None, :, :]).astype(np.float32)  # exact
                        acc = np.where(take, acc + prod, acc).astype(np.float32)
                        if taps2:
                            p = to16(acc + bg).astype(np.float64)
                            hit = take & (first == 0) & (np.abs(p) >= 2.0 ** 15)
                            first = np.where(hit, np.sign(p), first)
            tot = (acc + bg).astype(np.float32)
            # infinities of both signs in one sum (NaN, or an infinity against the first partial
            # past 2^15): the model refuses the TD, so no case here may hold one
            if np.isnan(tot).any() or (taps2 and (np.isinf(tot) & (first != 0) & (np.sign(tot) != first)).any()):
                raise SystemExit('gen_conv: a case whose sum meets infinities of both signs')
            y = to16(tot).astype(np.float64)
            if taps2:
                finite = np.isfinite(tot)
                y = np.where(finite & (first != 0), first * np.inf, y)
                y = np.where(finite & (first == 0) & (np.abs(y) >= 2.0 ** 15), np.sign(y) * np.inf, y)
            out[g] = y.astype(np.float16).view(np.uint16)
    return out


def write(path, cases):
    with open(path, 'wb') as f:
        f.write(b'ANECONV1' + struct.pack('<I', len(cases)))
        for k in cases:
            f.write(struct.pack('<16I', k.kw, k.kh, k.sx, k.sy, k.px, k.py, k.G, k.cin, k.cout,
                                k.win, k.hin, k.w, k.h, k.ocg, 0 if k.bias is None else 1, k.accbias))
            f.write(k.x.astype('<u2').tobytes())
            f.write(k.wt.astype('<u2').tobytes())
            if k.bias is not None:
                f.write(np.asarray(k.bias, '<u2').tobytes())
            f.write(reference(k).astype('<u2').tobytes())


def random_shape(rng):
    # conv_matches_reference's shapes: kernels 1..5 x 1..3, strides 1..3 x 1..2, padding under
    # the window, 1..2 groups, 1..7 inputs, 1..9 outputs, widths 1..40, every output's window
    # reaching into the input
    r = lambda n: int(rng.integers(0, n))
    kw, kh, sx, sy = 1 + r(5), 1 + r(3), 1 + r(3), 1 + r(2)
    px, py = r(min(kw, 3)), r(min(kh, 2))
    G, cin, cout, win, hin = 1 + r(2), 1 + r(7), 1 + r(9), 1 + r(40), 1 + r(5)
    wmax, hmax = (win - 1 + px) // sx + 1, (hin - 1 + py) // sy + 1
    w, h = 1 + r(min(wmax, 37)), 1 + r(min(hmax, 4))
    return (kw, kh, sx, sy, px, py, G, cin, cout, win, hin, w, h)


def filled(rng, shape, ocg=0, zeros=True):
    k = Case(shape, ocg)
    k.x = rnd_h(rng, k.x.size).reshape(k.x.shape)
    k.wt = (rnd_w if zeros else rnd_h)(rng, k.wt.size).reshape(k.wt.shape)
    return k


def random_cases(rng):
    # 60 finite, 60 with one input +-inf, 60 with one weight +inf
    cases = []
    for mode in range(3):
        for _ in range(60):
            k = filled(rng, random_shape(rng))
            if mode == 1:
                k.x.reshape(-1)[rng.integers(0, k.x.size)] = 0x7c00 if rng.integers(0, 2) else 0xfc00
            if mode == 2:
                k.wt.reshape(-1)[rng.integers(0, k.wt.size)] = 0x7c00
            cases.append(k)
    return cases


# conv_partial_past_2_15_overflows_the_output's and conv_bias_past_2_15_is_the_first_partial's
# shapes: (shape, y, x, output channel, an infinite weight elsewhere, an infinite input in the row)
INTERIOR = [
    ((1, 1, 1, 1, 0, 0, 1, 2, 5, 8, 1, 8, 1), 0, 3, 2, 0, 0),
    ((1, 1, 1, 1, 0, 0, 1, 3, 9, 24, 1, 24, 1), 0, 17, 6, 0, 0),
    ((1, 1, 1, 1, 0, 0, 1, 2, 5, 8, 4, 8, 4), 2, 5, 1, 0, 0),
    ((3, 3, 1, 1, 1, 1, 1, 2, 6, 64, 5, 64, 5), 3, 4, 4, 0, 0),
    ((1, 1, 1, 1, 0, 0, 1, 2, 5, 8, 4, 8, 4), 1, 6, 0, 1, 0),
    ((1, 1, 1, 1, 0, 0, 1, 2, 5, 8, 4, 8, 4), 3, 1, 3, 0, 1),
]
BIAS_SHAPES = [INTERIOR[0], ((1, 1, 1, 1, 0, 0, 1, 64, 64, 64, 1, 64, 1), 0, 17, 6, 0, 0)] + INTERIOR[2:]
# (w0, w1, the output at (oc, y, x) by hand)
INTERIOR_VALS = [(2.0, 1.5, np.inf), (-2.0, -1.5, -np.inf), (2.0, 4.0, np.inf), (1.5, 2.0, -10000.0)]
# (B, w0, w1, by hand, B is NE.AccBias)
BIAS_VALS = [(40000.0, 0.0, 1.0, np.inf, 0), (-40000.0, 1.0, 0.0, -np.inf, 0), (30000.0, 0.0, 1.0, 10000.0, 0),
             (32752.0, 0.0, 1.0, 12752.0, 0), (40000.0, 0.0, 1.0, np.inf, 1)]


def interior_case(sh, w0, w1, B, acc, want):
    # every input 0.5 but 20000 on input channel 0 and -20000 on channel 1 at (y, x); every weight
    # 1/4 but output oc's: w0 at channel 0's centre tap, w1 at channel 1's, 0 elsewhere; with the
    # infinite weight, output oc+1's first; with the infinite input, channel 0's at (y, x + 2)
    shape, y, x, oc, infw, infi = sh
    k = Case(shape)
    k.x[:] = f16(0.5)
    k.x[0, 0, y, x] = f16(20000.0)
    k.x[0, 1, y, x] = f16(-20000.0)
    if infi:  # (of the bias's sign: against a bias past 2^15 of the other sign it is refused)
        k.x[0, 0, y, (x + 2) % k.win] = 0xfc00 if B < 0 else 0x7c00
    k.wt[:] = f16(0.25)
    k.wt[oc] = 0
    k.wt[oc, 0, k.kh // 2, k.kw // 2] = f16(w0)
    k.wt[oc, 1, k.kh // 2, k.kw // 2] = f16(w1)
    if infw:
        k.wt[(oc + 1) % k.cout, 0, 0, 0] = 0x7c00
    if acc:
        k.accbias = f16(B)
    elif B:
        k.bias = np.zeros(k.G * k.cout, np.uint16)
        k.bias[oc] = f16(B)
    got = reference(k)[0, oc, y, x].view(np.float16)
    if got != want:  # the definition against the hand arithmetic of the test's comments
        raise SystemExit('gen_conv: %r: %r, by hand %r' % (sh, got, want))
    return k


OCG_RUNS = [  # conv_kernels_in_runs_of_two_to_the_ocgsize: (shape, OCGSize)
    ((1, 1, 1, 1, 0, 0, 1, 40, 64, 9, 2, 9, 2), 2), ((3, 3, 1, 1, 1, 1, 1, 5, 24, 11, 4, 11, 4), 3),
    ((1, 1, 1, 1, 0, 0, 1, 16, 32, 7, 1, 7, 1), 5), ((1, 1, 1, 1, 0, 0, 1, 128, 512, 3, 1, 3, 1), 5),
    ((1, 1, 1, 1, 0, 0, 1, 32, 192, 5, 2, 5, 2), 2), ((1, 1, 1, 1, 0, 0, 1, 24, 512, 4, 1, 4, 1), 4),
    ((1, 1, 1, 1, 0, 0, 1, 3, 64, 4, 1, 4, 1), 1), ((1, 1, 1, 1, 0, 0, 1, 8, 384, 3, 2, 3, 2), 4),
    ((1, 1, 1, 1, 0, 0, 1, 8, 176, 3, 2, 3, 2), 3),
]
OCG_PASS = [  # conv_kernels_under_one_pass_by_the_channels_enabled: its six forms, then the two wrong
    ((1, 1, 1, 1, 0, 0, 1, 40, 96, 5, 2, 5, 2), 3), ((3, 3, 1, 1, 1, 1, 1, 5, 96, 6, 3, 6, 3), 3),
    ((1, 1, 1, 1, 0, 0, 1, 8, 48, 6, 2, 6, 2), 2), ((1, 1, 1, 1, 0, 0, 1, 8, 48, 6, 2, 6, 2), 2),
    ((1, 1, 1, 1, 0, 0, 1, 700, 96, 2, 1, 2, 1), 3), ((1, 1, 1, 1, 0, 0, 1, 8, 64, 6, 2, 6, 2), 2),
    ((1, 1, 1, 1, 0, 0, 1, 2, 96, 6, 2, 6, 2), 3), ((1, 1, 1, 1, 0, 0, 1, 8, 48, 6, 2, 6, 2), 2),
]
THREADS = [  # conv_threads_bit_identical's shapes, each in four modes
    (3, 3, 1, 1, 1, 1, 1, 32, 36, 40, 12, 40, 12), (1, 1, 1, 1, 0, 0, 1, 256, 64, 64, 1, 64, 1),
    (3, 2, 2, 1, 0, 1, 2, 24, 20, 45, 9, 22, 10), (1, 1, 1, 1, 0, 0, 1, 512, 130, 16, 3, 16, 3),
    (3, 2, 1, 2, 1, 0, 1, 16, 2, 4096, 14, 4096, 7), (1, 1, 1, 1, 0, 0, 1, 300, 70, 50, 1, 50, 1),
]
SIMD_WIDTHS = [3, 16, 23, 40, 56, 64, 72, 88, 112, 136, 200]


def threads_cases(rng):
    # mode 0 finite; 1 one input +inf; 2 three NaN inputs (0x7e00, 0xfe01, 0xfe01: +inf at the
    # port); 3 one weight -inf in the last output channel
    cases = []
    for shape in THREADS:
        for mode in range(4):
            k = filled(rng, shape)
            k.wt[k.wt == 0x8000] = 0  # (+0 weights here, as the test had them)
            x, w = k.x.reshape(-1), k.wt.reshape(-1)
            if mode == 1:
                x[rng.integers(0, x.size)] = 0x7c00
            if mode == 2:
                # in one input channel, no two in one output's window: infinities of both signs
                # meeting in one sum are refused (a seventh review), not computed
                xs = k.x.reshape(k.G, k.cin, k.hin, k.win)
                g, ci, at = rng.integers(0, k.G), rng.integers(0, k.cin), []
                while len(at) < 3:
                    y, xx = rng.integers(0, k.hin), rng.integers(0, k.win)
                    if all(abs(y - b) >= k.kh or abs(xx - a) >= k.kw for b, a in at):
                        at.append((y, xx))
                for n, (y, xx) in enumerate(at):
                    xs[g, ci, y, xx] = 0xfe01 if n else 0x7e00
            if mode == 3:
                w[w.size - 1 - rng.integers(0, w.size // k.cout)] = 0xfc00
            cases.append(k)
    return cases


def rounding_case():
    # conv_rounds_to_nearest_whatever_the_threads_mode: 300 -> 64 over 72, every output
    # 1 x 1 + 1 x 2^-11 + 2^-14 x 2^-14, every other weight and input 0
    k = Case((1, 1, 1, 1, 0, 0, 1, 300, 64, 72, 1, 72, 1))
    k.x[0, 0], k.x[0, 1], k.x[0, 2] = f16(1.0), f16(2.0 ** -11), f16(2.0 ** -14)
    k.wt[:, 0], k.wt[:, 1], k.wt[:, 2] = f16(1.0), f16(1.0), f16(2.0 ** -14)
    return k


def zero_inf_cases(rng):
    # conv_infinite_weight_times_a_zero_input_adds_nothing: 40 random shapes, one input in three a
    # zero of either sign or a subnormal (+0 at the MAC's port), one weight +-inf
    cases = []
    for _ in range(40):
        k = filled(rng, random_shape(rng))
        x, w = k.x.reshape(-1), k.wt.reshape(-1)
        z = np.flatnonzero(rng.integers(0, 3, x.size) == 0)
        x[z] = np.array([0x0000, 0x8000, 0x0001, 0x83ff], np.uint16)[rng.integers(0, 4, z.size)]
        w[rng.integers(0, w.size)] = 0x7c00 if rng.integers(0, 2) else 0xfc00
        cases.append(k)
    return cases


def main(o):
    d = os.path.join(o, 'conv')
    os.makedirs(d, exist_ok=True)
    write(os.path.join(d, 'random.cnv'), random_cases(np.random.default_rng(SEED)))
    # the interior partial: case i, value v at i x 4 + v; the bias: case i, value v at i x 5 + v
    write(os.path.join(d, 'interior.cnv'), [interior_case(sh, w0, w1, 0.0, 0, want)
                                            for sh in INTERIOR for (w0, w1, want) in INTERIOR_VALS])
    write(os.path.join(d, 'bias.cnv'), [interior_case(sh, w0, w1, B, acc, want)
                                        for sh in BIAS_SHAPES for (B, w0, w1, want, acc) in BIAS_VALS])
    rng = np.random.default_rng(SEED + 1)
    write(os.path.join(d, 'ocg_runs.cnv'), [filled(rng, s, ocg, False) for s, ocg in OCG_RUNS])
    write(os.path.join(d, 'ocg_pass.cnv'), [filled(rng, s, ocg, False) for s, ocg in OCG_PASS])
    write(os.path.join(d, 'threads.cnv'), threads_cases(np.random.default_rng(SEED + 2)))
    write(os.path.join(d, 'rounding.cnv'), [rounding_case()])
    rng = np.random.default_rng(SEED + 3)
    # conv_simd_levels_match_reference: width i, shape sh at i x 2 + sh
    write(os.path.join(d, 'simd.cnv'), [
        filled(rng, (3, 1, 1, 1, 1, 0, 1, 5, 6, wd, 3, wd, 3) if sh else (1, 1, 1, 1, 0, 0, 1, 40, 9, wd, 1, wd, 1))
        for wd in SIMD_WIDTHS for sh in range(2)])
    write(os.path.join(d, 'zero_inf.cnv'), zero_inf_cases(np.random.default_rng(SEED + 4)))
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1] if len(sys.argv) > 1 else 'build/testdata'))
