#!/usr/bin/python3
"""Oracles for the engine model (tests/unit/test_model_fixtures.c, docs/engine-model.md).

For every real program in ../shared/fixtures this writes OUT/model/<name>.orc: random inputs in
the function's domain and, per output element, the value numpy computes in float64 from the
function the program is named after (not from the model's code) and the tolerance the model
must meet. Written from the fixtures' documented functions and tensor shapes only.

File (little-endian): b"ANEMORC1", u32 ntensors; per tensor: u32 bar, u32 role (0 input,
1 output), u32 C, H, W, u32 row stride, u32 plane stride (bytes), u32 N samples; then for an
input N fp16 values, for an output N float64 expected values and N float64 tolerances.
Element (c, h, w) of a tensor sits at c * plane + h * row + 2 * w and holds sample
((c * H + h) * W + w) mod N. Layout: rows of 64-byte lines (row = roundup(2 W, 64), plane =
row H), the layout every fixture's tensors use.

Tolerances, |model - f(x)| <= tol:
  operations with no table (add, mul, abs, relu, concat, conv): one fp16 ulp of f(x);
  table functions: E(x) + 2 ulp(f(x)), E the record's ideal piecewise-linear interpolation
  error (docs/actlut.md "ideal PWL E"), scaled as the record's mode scales its output, plus the
  error of the fp16 rounding of the LUT input where the program scales x first (exp).
"""
import math
import os
import struct
import sys

import numpy as np

SEED = 0x13A11E
N = 4099  # prime: a wrong row or plane stride lands on different samples


def ulp16(y):
    a = np.abs(np.asarray(y, dtype=np.float64))
    a = np.where(a < 2.0 ** -14, 2.0 ** -14, a)
    e = np.floor(np.log2(a))
    return 2.0 ** (e - 10)


def layout(c, h, w):
    row = (2 * w + 63) // 64 * 64
    return row, row * h


def rand_f16(rng, lo, hi, n=N):
    return rng.uniform(lo, hi, n).astype(np.float16)


def gelu(x):
    return np.array([0.5 * v * (1.0 + math.erf(v / math.sqrt(2.0))) for v in x])


SELU_ALPHA, SELU_SCALE = 1.6732632423543772, 1.0507009873554805  # the standard selu


def selu(x):
    return SELU_SCALE * np.where(x > 0, x, SELU_ALPHA * np.expm1(np.minimum(x, 0.0)))


LOG2E_F16 = float(np.float16(1.4426950408889634))  # exp.bin's NE.PostScale (0x3dc5)


def unary(name, lo, hi, f, tol):
    def make(rng):
        x = rand_f16(rng, lo, hi)
        xd = x.astype(np.float64)
        y = f(xd)
        return [x], y, tol(xd, y) + 0.0 * y
    return make


def table_tol(E):
    return lambda x, y: E + 2.0 * ulp16(y)


def exact_tol(x, y):
    return ulp16(y)


def exp_tol(x, y):
    t = x * LOG2E_F16
    # record E (1.2e-4, relative to the 2^n scale <= y), the fp16 rounding of t, 2 ulp
    return y * (1.2e-4 + np.abs(t) * math.log(2.0) * 2.0 ** -11) + 2.0 * ulp16(y)


def sqrt_tol(x, y):
    return 3.2e-4 * np.sqrt(2.0 * x) + 2.0 * ulp16(y)


def exp2_tol(x, y):
    # exp.bin's record with no scale in front (exp2 as eiln's tables size it: one TD, one record):
    # the record's E relative to the 2^n scale, 2 ulp
    return y * 1.2e-4 + 2.0 * ulp16(y)


def scaled_log2(c):
    # log_b(x) as log2.bin's record then a PE scale by fp16(c) (c = ln 2, log10 2): the 2-TD shape
    # eiln's tables give log.bin and log10.bin; tolerance from the record's E (1.7e-4) and 2 ulp of
    # the fp16 log2 left in L2, times the scale, the scale's own fp16 rounding, and 2 ulp of y
    s = float(np.float16(c))
    def tol(x, y):
        l2 = np.log2(x)
        return s * (1.7e-4 + 2.0 * ulp16(l2)) + np.abs(l2) * abs(s - c) + 2.0 * ulp16(y)
    return tol


INV_EPS = 1e-4  # CoreML's inverse: 1 / (x + epsilon), epsilon 1e-4 by default


def inv_kernel(rng):
    # |x| log-uniform in [2^-9, 1000], either sign: away from the pole at -epsilon, where
    # 1/(x + eps) changes faster than fp16 can follow (docs/engine-model.md, "KernelMode and
    # AccBias": what the model does near 0)
    mag = np.exp(rng.uniform(math.log(2.0 ** -9), math.log(1000.0), N))
    x = (np.where(rng.uniform(0, 1, N) < 0.5, -1.0, 1.0) * mag).astype(np.float16)
    xd = x.astype(np.float64)
    y = 1.0 / (xd + INV_EPS)
    # the reciprocal record's relative E (8.4e-4, docs/actlut.md), the fp16 rounding of
    # x + AccBias (2^-11 relative), 2 ulp
    return [x], y, np.abs(y) * (8.4e-4 + 2.0 ** -11) + 2.0 * ulp16(y)


SOFTMAX_W, SOFTMAX_ROWS = 1600, 41  # softmax.bin: 2560 rows of 1600; 41 distinct rows (prime)
SOFTMAX_TOL = 1.5e-2  # issue 21: reductions, absolute along their axis
SOFTMAX_NAN_ROWS = {5: (17, 0x7e00), 23: (1599, 0xfd01), 31: (0, 0x7c00)}  # row: (lane, fp16)


def softmax_rows(seed, spread_hi):
    # SOFTMAX_ROWS rows of SOFTMAX_W as fp16, each offset by -20..20 and spread (half-width)
    # 0.05..spread_hi, log-uniform, from its own generator
    rng = np.random.default_rng(seed)
    x = np.empty((SOFTMAX_ROWS, SOFTMAX_W))
    spread = np.exp(rng.uniform(math.log(0.05), math.log(spread_hi), SOFTMAX_ROWS))
    offset = rng.uniform(-20.0, 20.0, SOFTMAX_ROWS)
    for r in range(SOFTMAX_ROWS):
        x[r] = offset[r] + spread[r] * rng.uniform(-1.0, 1.0, SOFTMAX_W)
    return x.astype(np.float16)


def softmax_kernel(_rng):
    # softmax along each row of 1600: N = 41 x 1600 samples, so element (h, w) holds sample
    # (h mod 41) x 1600 + w: row h is distinct row h mod 41 (a wrong row, stride or broadcast
    # lands on another row's values). Rows differ in offset (softmax ignores it) and spread (from
    # nearly uniform, outputs ~1/1600, to concentrated, outputs up to ~0.9), so the absolute
    # tolerance has something to catch.
    x16 = softmax_rows(SEED + 21, 12.0)  # its own generator: the other kernels' draws stay
    x16[1] = 0.0
    x16[1, 777] = 9.0  # one lane takes e^9 / (e^9 + 1599) = 0.835 of the mass
    # guide 03 (measured on the M1): the input port turns NaN, of either sign and any payload,
    # into +inf, and softmax puts all the mass on that lane: 1 there, 0 elsewhere (the limit of
    # softmax as one input grows without bound). Row 31 has a plain +inf.
    bits = x16.view(np.uint16)
    for r, (lane, h) in SOFTMAX_NAN_ROWS.items():
        bits[r, lane] = h
    xd = x16.astype(np.float64)
    xd[np.isnan(xd)] = np.inf
    y = np.empty_like(xd)
    tol = np.full_like(xd, SOFTMAX_TOL)
    for r in range(SOFTMAX_ROWS):
        if (xd[r] == np.inf).any():
            top = xd[r] == np.inf
            y[r] = top / top.sum()
            tol[r] = 0.0  # exact: 1 at the lane, 0 elsewhere
        else:
            e = np.exp(xd[r] - xd[r].max())
            y[r] = e / e.sum()
    return [x16.reshape(-1)], y.reshape(-1), tol.reshape(-1)


LN2 = math.log(2.0)


def softmin_chain(_rng):
    # softmin(x) = softmax(-x) along each row of 1600 (test_model_fixtures.c,
    # softmin_as_softmax_of_the_negation): a negation TD (abs.bin's PE TD with PreScale -1 and no
    # |.|) into the intermediate, then softmax.bin's five TDs on it. Rows as softmax's, without
    # NaN or infinity (numpy's softmin of a NaN row is NaN; what the engine does there is
    # softmax's case, tested on softmax.bin itself).
    x16 = softmax_rows(SEED + 2102, 12.0)
    z = -x16.astype(np.float64)
    e = np.exp(z - z.max(axis=1, keepdims=True))
    y = e / e.sum(axis=1, keepdims=True)
    return [x16.reshape(-1)], y.reshape(-1), np.full(y.size, SOFTMAX_TOL)


def log2softmax_chain(_rng):
    # log2(softmax(x)) along each row of 1600 (test_model_fixtures.c,
    # logsoftmax_as_log_of_softmax): softmax.bin's five TDs with the result left in the
    # intermediate, then log2.bin's TD on it: logsoftmax as Core ML's converters emit it, log of
    # softmax (docs/engine-model.md, "Softmin and logsoftmax"). Rows spread at most 2 wide, so
    # every softmax value stays a normal fp16 (>= e^-2 / 1600 = 8.5e-5) and its log is finite.
    x16 = softmax_rows(SEED + 2101, 1.0)
    xd = x16.astype(np.float64)
    m = xd.max(axis=1, keepdims=True)
    lse = np.log(np.exp(xd - m).sum(axis=1, keepdims=True))
    y = (xd - m - lse) / LN2
    # issue 21's reductions' 1.5e-2 on logsoftmax's natural-log scale, as log2
    return [x16.reshape(-1)], y.reshape(-1), np.full(y.size, SOFTMAX_TOL / LN2)


KERNELS = {
    # name: (fixture, C, H, W, input bars, output bar, maker)
    'tanh': ('kernels/unary/tanh.bin', unary('tanh', -5, 5, np.tanh, table_tol(1.5e-3))),
    'sigmoid': ('kernels/unary/sigmoid.bin', unary(
        'sigmoid', -7.9, 7.9, lambda x: 1.0 / (1.0 + np.exp(-x)),
        lambda x, y: 7.5e-4 + 3.0 * ulp16(y))),  # two TDs: odd record, then PE bias 0.5
    'exp': ('kernels/unary/exp.bin', unary(
        'exp', -10, 10, lambda x: np.exp2(x * LOG2E_F16), exp_tol)),
    'log2': ('kernels/unary/log2.bin', unary('log2', 0.01, 1000, np.log2, table_tol(1.7e-4))),
    'sqrt': ('kernels/unary/sqrt.bin', unary('sqrt', 0, 1000, np.sqrt, sqrt_tol)),
    'abs': ('kernels/unary/abs.bin', unary('abs', -1000, 1000, np.abs, exact_tol)),
    'gelu': ('kernels/activation/gelu.bin', unary('gelu', -3.9, 3.9, gelu, table_tol(6.12e-3))),
    'relu6': ('kernels/activation/relu6.bin', unary(
        'relu6', -10, 10, lambda x: np.clip(x, 0, 6), exact_tol)),
    'leakyrelu': ('kernels/activation/leakyrelu.bin', unary(
        'leakyrelu', -100, 100, lambda x: np.where(x < 0, 0.01 * x, x),
        lambda x, y: 2.0e-6 * np.abs(x) + 2.0 * ulp16(y))),  # its slope is fp16 0.010002
    'hardtanh': ('kernels/activation/hardtanh.bin', unary(
        'hardtanh', -3, 3, lambda x: np.clip(x, -1, 1), exact_tol)),
    # issue 21: selu's record (index offset 32, knots at x = -8 + i/4; E 1.21e-2 near 0)
    'selu': ('kernels/activation/selu.bin', unary('selu', -10, 10, selu, table_tol(1.21e-2))),
    # ceil: four TDs, x - trunc(x), its step, trunc(x), then the PE sum: exact
    'ceil': ('kernels/unary/ceil.bin', unary('ceil', -100, 100, np.ceil, exact_tol)),
    # floor as Apple's H13 compiler emits it, built in the test from ceil.bin's TDs: the step of
    # 1 below 0 in place of ceil's, and TD 3 subtracting it (Planar.Cfg.SecSrc 3): exact
    'floor': ('kernels/unary/ceil.bin', unary('floor', -100, 100, np.floor, exact_tol)),
    # inv: a 1x1 convolution with the unit kernel (MACCfg.KernelMode 1) + NE.AccBias 1e-4, then
    # the reciprocal record
    'inv': ('kernels/unary/inv.bin', inv_kernel),
    # softmax: five TDs, the row maximum and the reciprocal of the row sum left in L2 memory
    # (docs/engine-model.md, "Reductions into L2 memory"); input BAR 5 read as 2560 rows of
    # 1600 (TD 0: 2560 groups of one row; TD 1: one group of 2560 rows)
    'softmax': ('kernels/activation/softmax.bin', softmax_kernel),
    # log2(softmax): a chain built in the test from softmax.bin's TDs and log2.bin's
    'log2softmax': ('kernels/activation/softmax.bin', log2softmax_chain),
    # softmax(-x): a chain built in the test from abs.bin's TD and softmax.bin's
    'softmin': ('kernels/activation/softmax.bin', softmin_chain),
    # programs we do not have, built in the test in the shapes eiln's tables give them:
    # exp2 (exp.bin's TD with NE.PostScale 1), log and log10 (sigmoid.bin's two TDs with log2.bin's
    # record and a PE scale of fp16(ln 2) or fp16(log10 2))
    'exp2': ('kernels/unary/exp.bin', unary('exp2', -10, 10, np.exp2, exp2_tol)),
    'log': ('kernels/unary/log2.bin', unary('log', 0.01, 1000, np.log, scaled_log2(math.log(2.0)))),
    'log10': ('kernels/unary/log2.bin', unary('log10', 0.01, 1000, np.log10,
                                              scaled_log2(math.log10(2.0)))),
    # square (one PE TD, as abs.bin: OpMode 4 squares its operand) and cube (two TDs and a
    # one-tensor intermediate: the square, then mul.bin's TD multiplying the input by it)
    'square': ('kernels/unary/abs.bin', unary('square', -200, 200, np.square, exact_tol)),
    # relu through the PE (activation/relu.bin: one TD and 0x4000 bytes of weights like abs.bin,
    # in eiln's tables): abs.bin's TD with Planar.Cfg.ReluEn for its Condition
    'relu_pe': ('kernels/unary/abs.bin', unary('relu_pe', -100, 100, lambda x: np.maximum(x, 0.0),
                                               exact_tol)),
    'cube': ('kernels/unary/abs.bin', unary(
        'cube', -30, 30, lambda x: x ** 3,
        lambda x, y: np.abs(x) * ulp16(x * x) / 2.0 + 2.0 * ulp16(y))),
    # silu (three TDs, one record, a one-tensor intermediate in eiln's tables): sigmoid.bin's two
    # TDs into the intermediate, then mul.bin's TD multiplying the input by it; sigmoid.bin's
    # bound (7.5e-4 + 3 ulp of sigmoid) times |x|, and 2 ulp of y
    'silu': ('kernels/unary/sigmoid.bin', unary(
        'silu', -7.9, 7.9, lambda x: x / (1.0 + np.exp(-x)),
        lambda x, y: np.abs(x) * (7.5e-4 + 3.0 * ulp16(1.0 / (1.0 + np.exp(-x)))) + 2.0 * ulp16(y))),
}


def write(path, tensors):
    with open(path, 'wb') as f:
        f.write(b'ANEMORC1' + struct.pack('<I', len(tensors)))
        for t in tensors:
            row, plane = layout(t['c'], t['h'], t['w'])
            f.write(struct.pack('<8I', t['bar'], t['role'], t['c'], t['h'], t['w'], row, plane,
                                len(t['data'][0]) if t['role'] else len(t['data'])))
            if t['role'] == 0:
                f.write(np.asarray(t['data'], dtype='<f2').tobytes())
            else:
                f.write(np.asarray(t['data'][0], dtype='<f8').tobytes())
                f.write(np.asarray(t['data'][1], dtype='<f8').tobytes())


def main(out):
    d = os.path.join(out, 'model')
    os.makedirs(d, exist_ok=True)
    rng = np.random.default_rng(SEED)
    big = (1, 2560, 1600)  # every eiln kernel: one 1600 x 2560 fp16 plane
    for name, (fx, make) in KERNELS.items():
        ins, y, tol = make(rng)
        c, h, w = big
        write(os.path.join(d, name + '.orc'), [
            {'bar': 5, 'role': 0, 'c': c, 'h': h, 'w': w, 'data': ins[0]},
            {'bar': 4, 'role': 1, 'c': c, 'h': h, 'w': w, 'data': (y, tol)}])
    # binary kernels: RBase0 = BAR 5, RBase1 = BAR 6
    # add.bin and mul.bin; and max, min, sub, ave, built in the test from add.bin's TD (the
    # held-back binary programs are one PE TD each, as add.bin)
    for name, f in (('add', np.add), ('mul', np.multiply), ('max', np.maximum),
                    ('min', np.minimum), ('sub', np.subtract),
                    ('ave', lambda a, b: (a + b) / 2.0),
                    # a + relu(b): add.bin with L2.L2Cfg.Src2ReLU (Apple's x + relu(x))
                    ('add_relub', lambda a, b: a + np.maximum(b, 0.0))):
        a, b = rand_f16(rng, -100, 100), rand_f16(rng, -100, 100)
        y = f(a.astype(np.float64), b.astype(np.float64))
        c, h, w = big
        write(os.path.join(d, name + '.orc'), [
            {'bar': 5, 'role': 0, 'c': c, 'h': h, 'w': w, 'data': a},
            {'bar': 6, 'role': 0, 'c': c, 'h': h, 'w': w, 'data': b},
            {'bar': 4, 'role': 1, 'c': c, 'h': h, 'w': w, 'data': (y, ulp16(y))}])
    # hwx: image (BAR 5) 1 x 1 x 77 -> probs@output (BAR 4)
    x = rand_f16(rng, -20, 20, 77)
    y = np.maximum(x.astype(np.float64), 0)
    write(os.path.join(d, 'hwx_relu.orc'), [
        {'bar': 5, 'role': 0, 'c': 1, 'h': 1, 'w': 77, 'data': x},
        {'bar': 4, 'role': 1, 'c': 1, 'h': 1, 'w': 77, 'data': (y, ulp16(y))}])
    x = rand_f16(rng, -7.9, 7.9, 77)
    y = 1.0 / (1.0 + np.exp(-x.astype(np.float64)))
    write(os.path.join(d, 'hwx_sigmoid.orc'), [
        {'bar': 5, 'role': 0, 'c': 1, 'h': 1, 'w': 77, 'data': x},
        {'bar': 4, 'role': 1, 'c': 1, 'h': 1, 'w': 77,
         'data': (y, 2.98e-3 + 2.0 * ulp16(y))}])
    # conv.hwx, from netplist/simple-conv.plist: 3 -> 3 channels, 1x1 kernel, stride 1, on a
    # 1 x 1 image, weights ../twos.weights (every weight 2.0: the __const section holds 0x4000)
    x = rand_f16(rng, -100, 100, 3)
    wts = np.full((3, 3), 2.0)
    y = wts @ x.astype(np.float64)
    write(os.path.join(d, 'hwx_conv.orc'), [
        {'bar': 5, 'role': 0, 'c': 3, 'h': 1, 'w': 1, 'data': x},
        {'bar': 4, 'role': 1, 'c': 3, 'h': 1, 'w': 1, 'data': (y, ulp16(y))}])
    # concat.hwx: input_0 (BAR 6, 16384 channels) then input_1 (BAR 5, 16 channels), 1 x 1
    a = rand_f16(rng, -60000, 60000, 16384)
    b = rand_f16(rng, -60000, 60000, 16)
    y = np.concatenate([a, b]).astype(np.float64)
    write(os.path.join(d, 'hwx_concat.orc'), [
        {'bar': 6, 'role': 0, 'c': 16384, 'h': 1, 'w': 1, 'data': a},
        {'bar': 5, 'role': 0, 'c': 16, 'h': 1, 'w': 1, 'data': b},
        {'bar': 4, 'role': 1, 'c': 16400, 'h': 1, 'w': 1, 'data': (y, 0.0 * y)}])
    # benchprog's bp_act_n: tanh's record (knots tanh(i/8), |x| clamped to [0, 4], odd: tanh.bin's
    # table) on an elementwise TD over 4 x 2 x 16 (test_model_inspect_agree.c's control beside a
    # longer channel): within tanh.bin's bound, the record's ideal PWL E 1.5e-3 and 2 ulp
    x = rand_f16(rng, -5, 5, 4 * 2 * 16)
    y = np.tanh(x.astype(np.float64))
    write(os.path.join(d, 'ew_tanh.orc'), [
        {'bar': 5, 'role': 0, 'c': 4, 'h': 2, 'w': 16, 'data': x},
        {'bar': 4, 'role': 1, 'c': 4, 'h': 2, 'w': 16, 'data': (y, 1.5e-3 + 2.0 * ulp16(y))}])
    l2_memory(d, np.random.default_rng(SEED + 77))
    depthwise(d, np.random.default_rng(SEED + 78))
    conv_bias(d, np.random.default_rng(SEED + 79))
    conv_stride2(d, np.random.default_rng(SEED + 80))
    matmul_t(d, np.random.default_rng(SEED + 81))
    layer_norm(d, np.random.default_rng(SEED + 82))
    conv_keep(d, np.random.default_rng(SEED + 83))
    bmm(d, np.random.default_rng(SEED + 84))
    division(d, np.random.default_rng(SEED + 85))
    rrelu(d, np.random.default_rng(SEED + 86))
    rsqrt(d, np.random.default_rng(SEED + 87))
    sign(d, np.random.default_rng(SEED + 88))
    add_const(d, np.random.default_rng(SEED + 89))
    pad_form(d, np.random.default_rng(SEED + 90))
    conv_stride2_grouped(d, np.random.default_rng(SEED + 91))
    conv_grouped_ocg(d, np.random.default_rng(SEED + 94))
    depthwise_unicast(d, np.random.default_rng(SEED + 92))
    dw_ox2(d, np.random.default_rng(SEED + 96))
    add_relu(d, np.random.default_rng(SEED + 97))
    return 0


def write_kernel(d, name, x, y, tol):
    # NAME.orc for a one-input kernel of eiln's shape: x into BAR 5, y within tol out of BAR 4,
    # one 1 x 2560 x 1600 fp16 plane each
    c, h, w = 1, 2560, 1600
    write(os.path.join(d, name + '.orc'), [
        {'bar': 5, 'role': 0, 'c': c, 'h': h, 'w': w, 'data': x},
        {'bar': 4, 'role': 1, 'c': c, 'h': h, 'w': w, 'data': (y, tol)}])


def rsqrt(d, rng):
    # 1 / sqrt(x) in the shape eiln's tables give rsqrt.bin (one TD, one 0x80-byte record, as
    # sqrt.bin): built in the test as sqrt.bin with Apple's rsqrt record
    # (build/testdata/actlut/rsqrt_apple.rec, tests/oracle/gen_actlut.py). x log-uniform in
    # [2^-12, 1000]. Tolerance as actlut_check.py's for the record: its ideal piecewise-linear
    # error 1.8e-3 on the mantissa's 1/sqrt(m), m in [0.5, 2), times the scale 2^(-e/2) (e the
    # exponent rounded down to even), and 2 ulp of y
    x = np.exp(rng.uniform(math.log(2.0 ** -12), math.log(1000.0), N)).astype(np.float16)
    xd = x.astype(np.float64)
    y = 1.0 / np.sqrt(xd)
    e = np.floor(np.log2(xd)) + 1
    e = e - np.mod(e, 2)
    tol = 1.8e-3 * np.exp2(-e / 2) + 2.0 * ulp16(y)
    write_kernel(d, 'rsqrt', x, y, tol)


def sign(d, rng):
    # numpy's sign (-1, 0 or 1; 0 at +-0), exactly: the held-back sign.bin has one TD and one
    # record; built in the test as leakyrelu.bin with the linear-only sign record of
    # tests/oracle/gen_actlut.py (`sign_linear_shape`). x uniform in [-100, 100], one in 16
    # replaced by +-0 or a subnormal as small as 2^-24 (the record's clamp)
    x = rand_f16(rng, -100, 100)
    k = rng.integers(0, 16, N) == 0
    tiny = np.array([0.0, -0.0, 2.0 ** -24, -(2.0 ** -24), 2.0 ** -20, -(2.0 ** -17)])
    x[k] = tiny[rng.integers(0, tiny.size, int(k.sum()))].astype(np.float16)
    y = np.sign(x.astype(np.float64))
    write_kernel(d, 'sign', x, y, 0.0 * y)


RRELU_LOWER, RRELU_UPPER = 1.0 / 8.0, 1.0 / 3.0  # torch.nn.RReLU's defaults


def rrelu(d, rng):
    # torch's RReLU in evaluation mode: a leaky ReLU whose slope is the mean of its bounds,
    # (1/8 + 1/3) / 2 = 11/48 (coremltools' torch frontend lowers rrelu to leaky_relu with that
    # alpha; eiln's tables give rrelu.bin leakyrelu.bin's shape: one TD, one 0x80-byte record).
    # Built in the test as leakyrelu.bin with its record's left slope (slot 37) fp16(11/48);
    # tolerance: that slope's fp16 rounding times |x|, and 2 ulp of y
    alpha = (RRELU_LOWER + RRELU_UPPER) / 2.0
    a16 = float(np.float16(alpha))
    x = rand_f16(rng, -100, 100)
    xd = x.astype(np.float64)
    y = np.where(xd < 0, alpha * xd, xd)
    tol = np.abs(xd) * abs(a16 - alpha) + 2.0 * ulp16(y)
    write_kernel(d, 'rrelu', x, y, tol)


def division(d, rng):
    # a / b in the shape eiln's tables give div.bin (two TDs, one record, a one-tensor
    # intermediate): inv.bin's TD on b (BAR 6) into the intermediate, then mul.bin's TD
    # multiplying a (BAR 5) by it. inv.bin's TD computes CoreML's inverse, 1 / (b + 1e-4), so
    # the program computes a / (b + 1e-4). |b| log-uniform in [2^-4, 1000], either sign (away
    # from the pole, as inv's oracle); a in [-100, 100]
    mag = np.exp(rng.uniform(math.log(2.0 ** -4), math.log(1000.0), N))
    b = (np.where(rng.uniform(0, 1, N) < 0.5, -1.0, 1.0) * mag).astype(np.float16)
    a = rand_f16(rng, -100, 100)
    ad, bd = a.astype(np.float64), b.astype(np.float64)
    r = 1.0 / (bd + INV_EPS)
    y = ad * r
    # inv's bound on r (the record's 8.4e-4, x + AccBias's rounding, 2 ulp), carried through
    # the product, then 2 ulp of y
    tol = np.abs(ad) * (np.abs(r) * (8.4e-4 + 2.0 ** -11) + 2.0 * ulp16(r)) + 2.0 * ulp16(y)
    c, h, w = 1, 2560, 1600
    write(os.path.join(d, 'div.orc'), [
        {'bar': 5, 'role': 0, 'c': c, 'h': h, 'w': w, 'data': a},
        {'bar': 6, 'role': 0, 'c': c, 'h': h, 'w': w, 'data': b},
        {'bar': 4, 'role': 1, 'c': c, 'h': h, 'w': w, 'data': (y, tol)}])


LAYER_NORM = (  # name, C, H, W, eps as fp16 bits, axes (test_model_norm.c's programs)
    ('ln_sub', 6, 4, 40, 0x00a8, (2,)), ('ln_fused', 24, 1, 64, 0x3400, (2,)),
    ('ln_chw', 16, 8, 8, 0x00a8, (0, 1, 2)), ('ln_hw', 24, 6, 8, 0x00a8, (1, 2)),
    ('ln_hw16', 40, 3, 16, 0x3400, (1, 2)), ('ln_hw1', 32, 1, 64, 0x00a8, (1, 2)))


def layer_norm(d, rng):
    """Layer normalisation over the last axis (W) of x [C, H, W], over H and W, or over all three,
    no affine:
    (x - mean) / sqrt(var + eps), var the biased variance, in float64 from the definition (eps the
    fp16 value the program holds: Apple's 0x00a8 = 1.0014e-5, and 0.25). Each row gets its own
    offset and spread. Tolerance: the fp16 rounding of the mean (|dm| <= ulp(mean)/2, over sigma),
    of the centred value, of 1/sqrt and of the result (2^-9 |y| with margin), and one ulp of y."""
    for name, c, h, w, eps_bits, axes in LAYER_NORM:
        eps = float(np.array([eps_bits], dtype='<u2').view(np.float16)[0])
        off = rng.uniform(-6, 6, (c, h, 1))
        spread = rng.uniform(0.2, 3, (c, h, 1))
        x = (off + spread * rng.standard_normal((c, h, w))).astype(np.float16)
        xd = x.astype(np.float64)
        m = xd.mean(axis=axes, keepdims=True)
        var = ((xd - m) ** 2).mean(axis=axes, keepdims=True)
        y = (xd - m) / np.sqrt(var + eps)
        sd = np.sqrt(var + eps)
        tol = np.abs(y) * 2.0 ** -9 + np.broadcast_to(ulp16(m) / sd, y.shape) + ulp16(y)
        write(os.path.join(d, name + '.orc'),
              [{'bar': 5, 'role': 0, 'c': c, 'h': h, 'w': w, 'data': x.reshape(-1)},
               {'bar': 4, 'role': 1, 'c': c, 'h': h, 'w': w,
                'data': (y.reshape(-1), tol.reshape(-1))}])


def add_const(d, rng):
    """x [C, H, W] + k[c]: Apple's add of a constant from a file, as test_model_norm.c builds it
    (a normalize with SecSrc 2 whose pair is the constant and a row of ones). The program reads
    the constant as a [1, 2, C] tensor: row 0 k, row 1 ones. The sum in float64, rounded once to
    fp16 (both fp16 in [-8, 8], so their fp32 sum is exact): within half an ulp of y."""
    for name, c, h, w in (('add_const', 48, 1, 1), ('add_const_hw', 16, 3, 8)):
        x = rng.uniform(-8, 8, (c, h, w)).astype(np.float16)
        k = rng.uniform(-8, 8, c).astype(np.float16)
        tab = np.stack([k, np.ones(c, dtype=np.float16)])
        y = x.astype(np.float64) + k.astype(np.float64)[:, None, None]
        write(os.path.join(d, name + '.orc'),
              [{'bar': 5, 'role': 0, 'c': c, 'h': h, 'w': w, 'data': x.reshape(-1)},
               {'bar': 6, 'role': 0, 'c': 1, 'h': 2, 'w': c, 'data': tab.reshape(-1)},
               {'bar': 4, 'role': 1, 'c': c, 'h': h, 'w': w,
                'data': (y.reshape(-1), ulp16(y).reshape(-1) / 2.0)}])


def dw_weight(o, i):
    """Depthwise kernel element i (ky-major) of channel o, as test_model_depthwise.c writes it:
    a multiple of 1/4 in [-5/4, 5/4], some 0."""
    return ((o * 7 + i * 3) % 11 - 5) / 4.0


def depthwise_same(x, weight, k):
    """The depthwise k x k convolution of x [C, H, W] (stride 1, zero padding k // 2), channel o's
    kernel element i (ky-major) weight(o, i): each output the sum of its channel's products, in
    float64 (the callers round once to fp16 by their tolerance)."""
    c, h, w = x.shape
    wt = np.array([[weight(o, i) for i in range(k * k)] for o in range(c)]).reshape(c, k, k)
    p = k // 2
    xp = np.zeros((c, h + 2 * p, w + 2 * p))
    xp[:, p:p + h, p:p + w] = x.astype(np.float64)
    y = np.zeros((c, h, w))
    for ky in range(k):
        for kx in range(k):
            y += wt[:, ky, kx][:, None, None] * xp[:, ky:ky + h, kx:kx + w]
    return y


def depthwise(d, rng):
    """Depthwise k x k convolutions (stride 1, zero padding k // 2), each output channel from its
    own input channel (Apple's H13 form; test_model_depthwise.c builds them with bp_dwconv): the
    sum of products in float64, rounded once to fp16."""
    for name, c, h, w, k in (('dw3', 32, 5, 12, 3), ('dw5', 8, 6, 9, 5)):
        x = rng.uniform(-100, 100, (c, h, w)).astype(np.float16)
        y = depthwise_same(x, dw_weight, k)
        write(os.path.join(d, name + '.orc'),
              [{'bar': 5, 'role': 0, 'c': c, 'h': h, 'w': w, 'data': x.reshape(-1)},
               {'bar': 4, 'role': 1, 'c': c, 'h': h, 'w': w,
                'data': (y.reshape(-1), ulp16(y.reshape(-1)))}])
    # a 5x5 over a 1-wide input (padding 2 reaches past the one output column: for kernel
    # columns 0, 1, 3 and 4 no output reads the input); its own generator, the others' draws kept
    r1 = np.random.default_rng(0x5d1)
    x = r1.uniform(-100, 100, (16, 2, 1)).astype(np.float16)
    y = depthwise_same(x, dw_weight, 5)
    write(os.path.join(d, 'dw5_w1.orc'),
          [{'bar': 5, 'role': 0, 'c': 16, 'h': 2, 'w': 1, 'data': x.reshape(-1)},
           {'bar': 4, 'role': 1, 'c': 16, 'h': 2, 'w': 1, 'data': (y.reshape(-1), ulp16(y.reshape(-1)))}])


def dw_bias(o):
    """Channel o's bias in test_model_depthwise.c's Ox 2 program: a multiple of 1/4 in [-1, 1]."""
    return ((o * 5 + 2) % 9 - 4) / 4.0


def add_relu(d, rng):
    """relu(a + b): add.bin's TD with Planar.Cfg.ReluEn, as Apple's H13 chain_add_relu_c512 sets it
    (Planar.Cfg 0x80020: an add, then the ReLU; docs/engine-model.md, the thirteenth sweep). a and b
    into BARs 5 and 6, the result out of BAR 4, within an fp16 ulp of the float64 value."""
    a, b = rand_f16(rng, -100, 100), rand_f16(rng, -100, 100)
    y = np.maximum(a.astype(np.float64) + b.astype(np.float64), 0.0)
    c, h, w = (1, 2560, 1600)
    write(os.path.join(d, 'add_relu.orc'), [
        {'bar': 5, 'role': 0, 'c': c, 'h': h, 'w': w, 'data': a},
        {'bar': 6, 'role': 0, 'c': c, 'h': h, 'w': w, 'data': b},
        {'bar': 4, 'role': 1, 'c': c, 'h': h, 'w': w, 'data': (y, ulp16(y))}])


def dw_ox2(d, rng):
    """The depthwise 1x9 "same" convolution with a bias that Apple's depthwise 1x9 with
    Common.ConvCfg.Ox 2 computes (docs/engine-model.md, "Ox 2 computes"; test_model_depthwise.c
    builds it with bp_dwox2): x [32, 1, 15], channel o's taps dw_weight(o, i), i = 0..8, its bias
    dw_bias(o); y[o, x] = bias + sum_i t(o, i) x[o, x + i - 4] (zero outside), stride 1, in
    float64, rounded once to fp16 (one ulp)."""
    c, w, k = 32, 15, 9
    x = rng.uniform(-100, 100, (c, 1, w)).astype(np.float16)
    t = np.array([[dw_weight(o, i) for i in range(k)] for o in range(c)])
    b = np.array([dw_bias(o) for o in range(c)])
    xp = np.zeros((c, 1, w + k - 1))
    xp[:, :, 4:4 + w] = x.astype(np.float64)
    y = b[:, None, None] + sum(t[:, i, None, None] * xp[:, :, i:i + w] for i in range(k))
    write(os.path.join(d, 'dw_ox2.orc'),
          [{'bar': 5, 'role': 0, 'c': c, 'h': 1, 'w': w, 'data': x.reshape(-1)},
           {'bar': 4, 'role': 1, 'c': c, 'h': 1, 'w': w, 'data': (y.reshape(-1), ulp16(y.reshape(-1)))}])


def dwu_weight(o, j):
    """Output o's kernel element j (input channel 2o + j) of the UnicastCin 2 depthwise convolution,
    as test_model_depthwise.c writes it in fp16: a multiple of 1/4 in [-5/4, 5/4], some 0."""
    return ((o * 5 + j * 3 + 1) % 11 - 5) / 4.0


def dwu_byte(o, j):
    """The same as a KernelFmt 1 byte, read as the signed integer it holds (-128 .. 127; half of
    them 0x80 .. 0xff)."""
    return (o * 37 + j * 101 + 11) % 256 - 128


def depthwise_unicast(d, rng):
    """1x1 depthwise convolutions with GroupConvCfg.UnicastCin 2 (Apple's H13 less: output o from
    input channels 2o and 2o + 1; test_model_depthwise.c builds them with bp_dwconv_n), 40 outputs
    (not a multiple of 16, as Apple's less over 375 lays out): the sum w0 x[2o] + w1 x[2o + 1] in
    float64, rounded once to fp16. dwu2: fp16 weights; dwu2i: KernelFmt 1 bytes, signed."""
    c, h, w = 40, 3, 5
    for name, wf in (('dwu2', dwu_weight), ('dwu2i', dwu_byte)):
        x = rng.uniform(-100, 100, (2 * c, h, w)).astype(np.float16).astype(np.float64)
        wt = np.array([[wf(o, j) for j in range(2)] for o in range(c)])
        y = wt[:, 0, None, None] * x[0::2] + wt[:, 1, None, None] * x[1::2]
        write(os.path.join(d, name + '.orc'),
              [{'bar': 5, 'role': 0, 'c': 2 * c, 'h': h, 'w': w, 'data': x.reshape(-1)},
               {'bar': 4, 'role': 1, 'c': c, 'h': h, 'w': w,
                'data': (y.reshape(-1), ulp16(y.reshape(-1)))}])


PAD_FORM = (('pf_dw16', 16, 5, 12, 3), ('pf_dw8', 8, 6, 9, 5),  # name, c, h, w, k
            ('pf_dw16k1', 16, 5, 12, 1))  # 1x1: one mask byte, as under SmallSourceMode


def pf_weight(o, i):
    """Kernel element i (ky-major) of channel o in Apple's pad form (test_model_depthwise.c builds
    it with bp_convb, sparse 2): 1 or 0, as the binary form's marks give them."""
    return 1.0 if (o * 7 + i * 3) % 11 < 5 else 0.0


def pad_form(d, rng):
    """Depthwise k x k convolutions (stride 1, zero padding k // 2) whose kernels are 1 where
    marked, 0 elsewhere (NE.KernelCfg's SparseBinary with the palette (1.0, +0): Apple's H13 pad):
    each output the sum of its channel's marked inputs, in float64, rounded once to fp16; inputs
    multiples of 1/64 in [-4, 4] (every fp32 partial sum exact)."""
    for name, c, h, w, k in PAD_FORM:
        x = (rng.integers(-256, 257, (c, h, w)) / 64.0).astype(np.float16)
        y = depthwise_same(x, pf_weight, k)
        write(os.path.join(d, name + '.orc'),
              [{'bar': 5, 'role': 0, 'c': c, 'h': h, 'w': w, 'data': x.reshape(-1)},
               {'bar': 4, 'role': 1, 'c': c, 'h': h, 'w': w,
                'data': (y.reshape(-1), ulp16(y.reshape(-1)))}])


def cb_weight(o, i):
    """Kernel element i ((ci, ky, kx) order) of output o, as test_model_bias.c writes it: a
    multiple of 1/4 in [-5/4, 5/4], some 0."""
    return ((o * 7 + i * 3) % 11 - 5) / 4.0


def cb_bias(o):
    """Output o's bias, as test_model_bias.c writes it: a multiple of 1/2 in [-4, 4]."""
    return ((o * 5) % 17 - 8) / 2.0


CONV_BIAS = (  # name, cin, cout, w, h, k, OCGSize, relu (test_model_bias.c's shapes)
    ('cb_mod16', 5, 20, 9, 4, 3, 0, 0), ('cb_ocg2', 64, 64, 16, 2, 1, 2, 0),
    ('cb_tail', 24, 48, 8, 3, 1, 1, 0), ('cb_passes3x3', 3, 64, 7, 5, 3, 1, 0),
    ('cb_relu', 16, 32, 10, 2, 1, 0, 1), ('cb_tail768', 8, 768, 4, 1, 1, 5, 0),
    ('cb_all16x6', 8, 96, 4, 2, 1, 3, 0), ('cb_all16x3', 5, 48, 6, 2, 1, 2, 0),
    ('cb_first5x8', 8, 40, 4, 2, 1, 3, 0), ('cb_tail3', 4, 176, 3, 2, 1, 3, 0))


def conv_bias(d, rng):
    """Convolutions with a bias (NE.MACCfg.BiasMode; test_model_bias.c builds them with
    benchprog's bp_convb and bp_dwconv): y[o] = b[o] + sum over ci, ky, kx of w[o][ci][ky][kx] x
    x[ci][y + ky - k/2][x + kx - k/2] (0 outside), then max(y, 0) with relu; in float64, rounded
    once to fp16. The inputs are multiples of 1/64 in [-4, 4]: every partial sum is exact in
    fp32 as in float64, so the one rounding is the output's."""
    def conv(x, wt, b, k):
        c, h, w = x.shape
        p = k // 2
        xp = np.zeros((c, h + 2 * p, w + 2 * p))
        xp[:, p:p + h, p:p + w] = x.astype(np.float64)
        y = np.zeros((wt.shape[0], h, w)) + b[:, None, None]
        for ky in range(k):
            for kx in range(k):
                y += np.einsum('oc,chw->ohw', wt[:, :, ky, kx], xp[:, ky:ky + h, kx:kx + w])
        return y

    def f16(shape):
        return (rng.integers(-256, 257, shape) / 64.0).astype(np.float16)

    for name, cin, cout, w, h, k, _ocg, relu in CONV_BIAS:
        x = f16((cin, h, w))
        per = cin * k * k
        wt = np.array([[cb_weight(o, i) for i in range(per)] for o in range(cout)]).reshape(cout, cin, k, k)
        b = np.array([cb_bias(o) for o in range(cout)])
        y = conv(x, wt, b, k)
        if relu:
            y = np.maximum(y, 0.0)
        write(os.path.join(d, name + '.orc'),
              [{'bar': 5, 'role': 0, 'c': cin, 'h': h, 'w': w, 'data': x.reshape(-1)},
               {'bar': 4, 'role': 1, 'c': cout, 'h': h, 'w': w,
                'data': (y.reshape(-1), ulp16(y.reshape(-1)))}])
    # cb_relu's convolution with the activation LUT's tanh record at the head of each
    # coefficient channel instead of the ReLU (test_model_bias.c: Apple's matmul with a fused
    # gelu lays its channels out so): tanh of the sum, within the 33-knot bound
    name, cin, cout, w, h, k = 'cb_lut', 16, 32, 10, 2, 1
    x = f16((cin, h, w))
    wt = np.array([[cb_weight(o, i) for i in range(cin)] for o in range(cout)]).reshape(cout, cin, 1, 1)
    y = np.tanh(conv(x, wt, np.array([cb_bias(o) for o in range(cout)]), 1)).reshape(-1)
    write(os.path.join(d, name + '.orc'),
          [{'bar': 5, 'role': 0, 'c': cin, 'h': h, 'w': w, 'data': x.reshape(-1)},
           {'bar': 4, 'role': 1, 'c': cout, 'h': h, 'w': w, 'data': (y, 1.2e-2 + 2e-2 * np.abs(y))}])
    # a depthwise 3x3 over 32 channels with a bias: each channel through its own kernel
    c, h, w, k = 32, 5, 12, 3
    x = f16((c, h, w))
    y = np.zeros((c, h, w))
    for ch in range(c):
        wt = np.array([cb_weight(ch, i) for i in range(k * k)]).reshape(1, 1, k, k)
        y[ch] = conv(x[ch:ch + 1], wt, np.array([cb_bias(ch)]), k)[0]
    write(os.path.join(d, 'cb_dw3.orc'),
          [{'bar': 5, 'role': 0, 'c': c, 'h': h, 'w': w, 'data': x.reshape(-1)},
           {'bar': 4, 'role': 1, 'c': c, 'h': h, 'w': w, 'data': (y.reshape(-1), ulp16(y.reshape(-1)))}])


STRIDE2 = (  # name, cin, cout, w, h, k, OCGSize, bias (0 none, 1 BiasMode's cb_bias, 2 NE.AccBias
    # ACC_BIAS for every output), SmallSourceMode, depthwise, stride (test_model_bias.c)
    ('s2_k3_mod16', 5, 20, 9, 7, 3, 0, 1, 1, 0, 2), ('s2_k1_ocg2', 64, 64, 16, 4, 1, 2, 1, 1, 0, 2),
    ('s2_k3_ocg3', 8, 128, 11, 6, 3, 3, 0, 1, 0, 2), ('s2_k3_ssm0', 6, 32, 10, 5, 3, 1, 1, 0, 0, 2),
    ('s2_dw', 32, 32, 12, 5, 3, 0, 1, 0, 1, 2), ('s2_k5', 3, 16, 13, 9, 5, 0, 1, 1, 0, 2),
    ('s2_dw_accb', 32, 32, 12, 5, 3, 0, 2, 0, 1, 2), ('cb_accb', 16, 32, 10, 3, 3, 0, 2, 0, 0, 1))
ACC_BIAS = 0.25  # fp16 0x3400


def conv_stride2(d, rng):
    """Stride-2 convolutions, as Apple's H13 compiler writes them with phase-sparse kernels
    (test_model_bias.c builds them with benchprog's bp_convb), and a stride-1 one with NE.AccBias:
    y[o][i][j] = b[o] + sum over ci, ky, kx of w[o][ci][ky][kx] x x[ci][s i + ky - k/2][s j + kx -
    k/2] (0 outside), the output (n - 1) / s + 1 along each axis; a depthwise one takes channel o
    alone. float64, rounded once; inputs multiples of 1/64 (every fp32 partial sum exact)."""
    for name, cin, cout, w, h, k, _ocg, bias, _ssm, dw, st in STRIDE2:
        x = (rng.integers(-256, 257, (cin, h, w)) / 64.0).astype(np.float16)
        p = k // 2
        xp = np.zeros((cin, h + 2 * p + 1, w + 2 * p + 1))
        xp[:, p:p + h, p:p + w] = x.astype(np.float64)
        ho, wo = (h - 1) // st + 1, (w - 1) // st + 1
        per = (1 if dw else cin) * k * k
        wt = np.array([[cb_weight(o, i) for i in range(per)] for o in range(cout)])
        wt = wt.reshape(cout, 1 if dw else cin, k, k)
        b = (np.array([cb_bias(o) for o in range(cout)]) if bias == 1 else
             np.full(cout, ACC_BIAS) if bias == 2 else np.zeros(cout))
        y = np.zeros((cout, ho, wo)) + b[:, None, None]
        for ky in range(k):
            for kx in range(k):
                win = xp[:, ky:ky + st * ho:st, kx:kx + st * wo:st]
                if dw:
                    y += wt[:, 0, ky, kx][:, None, None] * win
                else:
                    y += np.einsum('oc,chw->ohw', wt[:, :, ky, kx], win)
        write(os.path.join(d, name + '.orc'),
              [{'bar': 5, 'role': 0, 'c': cin, 'h': h, 'w': w, 'data': x.reshape(-1)},
               {'bar': 4, 'role': 1, 'c': cout, 'h': ho, 'w': wo,
                'data': (y.reshape(-1), ulp16(y.reshape(-1)))}])


STRIDE2_GROUPED = (  # name, groups, cin and cout a group, w, h, k (test_model_bias.c): a bias
    # (cb_bias), SmallSourceMode, stride 2, 'same' (padding k / 2)
    ('s2_g4', 4, 16, 16, 10, 7, 3),  # Apple's grouped 3x3 stride 2: 4 groups of 16 -> 16
    ('s2_g3', 3, 5, 8, 9, 6, 3))     # 24 outputs: channels 0-7 two records, 8-15 one


def grouped_conv(d, rng, name, groups, cin, cout, w, h, k, st):
    """NAME.orc for a grouped convolution from the definition, stride st, 'same': output o of
    group gi (o over all groups, o = gi cout + j) is y[o][i][j'] = b[o] + sum over the group's
    input channels ci and ky, kx of w[o][ci][ky][kx] x x[gi cin + ci][st i + ky - k/2]
    [st j' + kx - k/2] (0 outside); weights and biases gen_model's cb_weight and cb_bias (w[o]
    the (ci, ky, kx) elements of output o). Inputs multiples of 1/64 (every fp32 partial sum
    exact); float64, rounded once."""
    x = (rng.integers(-256, 257, (groups * cin, h, w)) / 64.0).astype(np.float16)
    p = k // 2
    ho, wo = (h - 1) // st + 1, (w - 1) // st + 1
    xp = np.zeros((groups * cin, st * ho + k, st * wo + k))
    xp[:, p:p + h, p:p + w] = x.astype(np.float64)
    per = cin * k * k
    wt = np.array([[cb_weight(o, i) for i in range(per)] for o in range(groups * cout)])
    wt = wt.reshape(groups * cout, cin, k, k)
    b = np.array([cb_bias(o) for o in range(groups * cout)])
    y = np.zeros((groups * cout, ho, wo)) + b[:, None, None]
    for gi in range(groups):
        os_, is_ = slice(gi * cout, (gi + 1) * cout), slice(gi * cin, (gi + 1) * cin)
        for ky in range(k):
            for kx in range(k):
                y[os_] += np.einsum('oc,chw->ohw', wt[os_, :, ky, kx],
                                    xp[is_, ky:ky + st * ho:st, kx:kx + st * wo:st])
    write(os.path.join(d, name + '.orc'),
          [{'bar': 5, 'role': 0, 'c': groups * cin, 'h': h, 'w': w, 'data': x.reshape(-1)},
           {'bar': 4, 'role': 1, 'c': groups * cout, 'h': ho, 'w': wo,
            'data': (y.reshape(-1), ulp16(y.reshape(-1)))}])


def conv_stride2_grouped(d, rng):
    """Grouped stride-2 convolutions (grouped_conv), phase-sparse in the program."""
    for name, groups, cin, cout, w, h, k in STRIDE2_GROUPED:
        grouped_conv(d, rng, name, groups, cin, cout, w, h, k, 2)


GROUPED_OCG = (  # name, groups, cin and cout a group, w, h, k, OCGSize, stride (test_model_bias.c):
    # a bias (cb_bias), 'same' (padding k / 2); each group's cout one whole pass, 16 x 2^OCGSize;
    # stride 2 as phase-sparse records (SmallSourceMode), stride 1 dense
    ('g_ocg1', 3, 8, 32, 9, 5, 3, 1, 1),     # Apple's 4 x 16 -> 32 with OCGSize 1, smaller
    ('g_ocg2', 2, 8, 64, 7, 4, 3, 2, 1),     # Apple's 4 x 64 -> 64 with OCGSize 2, smaller
    ('g_ocg2s2', 2, 8, 64, 10, 7, 3, 2, 2),  # Apple's 4 x 16 -> 64 stride 2 with OCGSize 2
    ('g_ocg1s2', 3, 5, 32, 9, 6, 3, 1, 2))


def conv_grouped_ocg(d, rng):
    """Grouped convolutions (grouped_conv) whose kernels lie in OCGSize runs, one pass a group."""
    for name, groups, cin, cout, w, h, k, _ocg, st in GROUPED_OCG:
        grouped_conv(d, rng, name, groups, cin, cout, w, h, k, st)


CONV_KEEP = ('conv_keep', 48, 32, 40)  # name, cin, cout, w (test_model_bias.c, bp_convkeep)


def conv_keep(d, rng):
    """A 1x1 convolution cin -> cout over w positions, y[o] = sum over ci of w[o][ci] x[ci], the
    weights gen_model's cb_weight (test_model_bias.c builds it with bp_convkeep: two TDs, the
    second reading x where the first kept it); x multiples of 1/64 in [-4, 4]; in float64,
    rounded once."""
    name, cin, cout, w = CONV_KEEP
    x = (rng.integers(-256, 257, (cin, 1, w)) / 64.0).astype(np.float16)
    wt = np.array([[cb_weight(o, i) for i in range(cin)] for o in range(cout)])
    y = np.einsum('oc,chw->ohw', wt, x.astype(np.float64))
    write(os.path.join(d, name + '.orc'),
          [{'bar': 5, 'role': 0, 'c': cin, 'h': 1, 'w': w, 'data': x.reshape(-1)},
           {'bar': 4, 'role': 1, 'c': cout, 'h': 1, 'w': w, 'data': (y.reshape(-1), ulp16(y.reshape(-1)))}])


BMM = ('bmm', 2, 24, 40, 48)  # name, B, M, K, N (test_model_bias.c, benchprog's bp_bmm)
BMM_MANY = ('bmm_many', 4, 40, 16, 24)  # one row a TD: 160 TDs


def bmm(d, rng):
    """A batched matmul y[b] = x[b] @ w[b], x [B, M, K] and w [B, K, N] both inputs (BAR 6, read by
    the kernel DMA, and BAR 5), multiples of 1/64 in [-2, 2]; in float64, rounded once. The output
    B x M rows of N. bmm_const: the same x by a constant w (cb_weight), the program's weights;
    bmm_many: another shape, one row a TD (160 TDs)."""
    def save(name, b, m, k, n, x, w, with_w):
        y = np.matmul(x.astype(np.float64), w.astype(np.float64)).reshape(-1)
        ts = [{'bar': 6, 'role': 0, 'c': b * m, 'h': 1, 'w': k, 'data': x.reshape(-1)}]
        if with_w:
            ts.append({'bar': 5, 'role': 0, 'c': b * k, 'h': 1, 'w': n, 'data': w.reshape(-1)})
        ts.append({'bar': 4, 'role': 1, 'c': b * m, 'h': 1, 'w': n, 'data': (y, ulp16(y))})
        write(os.path.join(d, name + '.orc'), ts)

    name, b, m, k, n = BMM
    x = (rng.integers(-128, 129, (b, m, k)) / 64.0).astype(np.float16)
    w = (rng.integers(-128, 129, (b, k, n)) / 64.0).astype(np.float16)
    save(name, b, m, k, n, x, w, True)
    # Apple's rb form: w the program's constant, w[b][k][j] = cb_weight(b K + k, j)
    wc = np.array([[cb_weight(c, j) for j in range(n)] for c in range(b * k)]).reshape(b, k, n)
    save(name + '_const', b, m, k, n, x, wc, False)
    name, b, m, k, n = BMM_MANY
    x = (rng.integers(-128, 129, (b, m, k)) / 64.0).astype(np.float16)
    w = (rng.integers(-128, 129, (b, k, n)) / 64.0).astype(np.float16)
    save(name, b, m, k, n, x, w, True)


MATMUL_T = (  # name, M, K, N, OCGSize, bias, relu (test_model_bias.c, benchprog's bp_matmul)
    ('mm_t', 24, 40, 48, 1, 1, 0), ('mm_t_relu', 8, 64, 64, 2, 1, 1))


def matmul_t(d, rng):
    """x [M, K] times W^T (W [N, K], transpose_y) plus b, then max(., 0) with relu, as Apple's
    H13 compiler writes it (two TDs, the result written transposed by the tile DMA): in float64,
    rounded once; x multiples of 1/64 in [-4, 4]; the output M rows of N."""
    for name, m, k, n, _ocg, bias, relu in MATMUL_T:
        x = (rng.integers(-256, 257, (m, 1, k)) / 64.0).astype(np.float16)
        wt = np.array([[cb_weight(o, i) for i in range(k)] for o in range(n)])
        y = x.astype(np.float64)[:, 0, :] @ wt.T
        if bias:
            y = y + np.array([cb_bias(o) for o in range(n)])[None, :]
        if relu:
            y = np.maximum(y, 0.0)
        y = y.reshape(m, 1, n)
        write(os.path.join(d, name + '.orc'),
              [{'bar': 5, 'role': 0, 'c': m, 'h': 1, 'w': k, 'data': x.reshape(-1)},
               {'bar': 4, 'role': 1, 'c': m, 'h': 1, 'w': n,
                'data': (y.reshape(-1), ulp16(y.reshape(-1)))}])


def l2_memory(d, rng):
    """Programs with operands and results in L2 memory, as Apple's H13 programs keep them
    (test_model_l2mem.c builds them with benchprog's bp_pen; docs/engine-model.md, "L2 memory
    and broadcasts"): numpy's broadcasting rules, each result rounded once to fp16."""
    def t(bar, shape, data):
        c, h, w = shape
        return {'bar': bar, 'role': 0, 'c': c, 'h': h, 'w': w, 'data': data.reshape(-1)}

    def out(bar, y):
        c, h, w = y.shape
        return {'bar': bar, 'role': 1, 'c': c, 'h': h, 'w': w,
                'data': (y.reshape(-1), ulp16(y.reshape(-1)))}

    def f16(shape, lo=-100, hi=100):
        return rng.uniform(lo, hi, shape).astype(np.float16)

    x = f16((8, 4, 24))
    # x + z with z [8,1,1], [1,4,24] and [1,1,1] broadcast (Src2Broadcast W|H, C, W|H|C), and
    # x - z with z [8,1,1] (SecSrc 3)
    for name, zs, f in (('l2_bcast_c', (8, 1, 1), np.add), ('l2_bcast_hw', (1, 4, 24), np.add),
                        ('l2_bcast_one', (1, 1, 1), np.add), ('l2_bcast_sub', (8, 1, 1), np.subtract)):
        z = f16(zs)
        y = f(x.astype(np.float64), z.astype(np.float64))
        write(os.path.join(d, name + '.orc'), [t(5, x.shape, x), t(6, zs, z), out(4, y)])
    # np.tile of x [3,1,40] along H, 6 times (Src1Broadcast H on a source kept in L2)
    a = f16((3, 1, 40))
    y = np.tile(a.astype(np.float64), (1, 6, 1))
    write(os.path.join(d, 'l2_tile_h.orc'), [t(5, a.shape, a), out(4, y)])
    # Apple's tile of [1,8,1,375] to [1,8,375,375] under relu (its source bound as 6144 bytes,
    # one row of 375 a plane: the engine reads the source broadcast along H, row 0 alone)
    a = f16((8, 1, 375))
    y = np.maximum(np.tile(a.astype(np.float64), (1, 375, 1)), 0.0)
    write(os.path.join(d, 'l2_tile8.orc'), [t(5, a.shape, a), out(4, y)])
    # np.tile along W ([3,6,1] to [3,6,40]) and along C ([1,6,40] to [3,6,40]) the same way
    a = f16((3, 6, 1))
    write(os.path.join(d, 'l2_tile_w.orc'), [t(5, a.shape, a), out(4, np.tile(a.astype(np.float64), (1, 1, 40)))])
    a = f16((1, 6, 40))
    write(os.path.join(d, 'l2_tile_c.orc'), [t(5, a.shape, a), out(4, np.tile(a.astype(np.float64), (3, 1, 1)))])
    # x - z, x and z [16,1,1], z kept in L2 as one row of 16 (OutTranspose, Src2Transpose)
    a, z = f16((16, 1, 1)), f16((16, 1, 1))
    y = a.astype(np.float64) - z.astype(np.float64)
    write(os.path.join(d, 'l2_transpose.orc'), [t(5, a.shape, a), t(6, z.shape, z), out(4, y)])
    # x + x/2 for x [4,3,20]: TD 0 keeps x in L2 (SourceType 1) and leaves x/2 there, TD 1 adds
    # the two from L2 (x/2 is exact in fp16 here: |x| >= 1)
    a = f16((4, 3, 20), 1, 100) * np.where(rng.uniform(size=(4, 3, 20)) < 0.5, -1, 1).astype(np.float16)
    y = a.astype(np.float64) + a.astype(np.float64) / 2.0
    write(os.path.join(d, 'l2_keep.orc'), [t(5, a.shape, a), out(4, y)])
    # TileDMADst.DMAConfig.En clear with WBase bound (docs/engine-model.md, "The destination
    # DMA's En with WBase bound"): relu(x) through WBase, expt2's form; and Apple's staging of an
    # operand (the eighth and ninth sweeps' matmuls): TD 0 keeps x [4,3,20] in L2 memory and
    # writes it through WBase = BAR 3 both, TD 1 reads it from L2 and halves it into BAR 4
    # (their own generator: the draws above and below stay as they were)
    a = np.random.default_rng(SEED + 2121).uniform(-100, 100, (4, 3, 20)).astype(np.float16)
    xd = a.astype(np.float64)
    write(os.path.join(d, 'dst_en_clear_relu.orc'), [t(5, a.shape, a), out(4, np.maximum(xd, 0.0))])
    write(os.path.join(d, 'dst_en_clear_stage.orc'), [t(5, a.shape, a), out(3, xd), out(4, xd / 2.0)])
    # reductions over planes read from L2 memory, as Apple's softmax over rows of 128 (each row
    # of x [1,16,48] a plane of 3 x 16): x - max(row), and x * (1 / sum(row)) (the reciprocal
    # rounded to fp16, then the product: two roundings)
    a = f16((1, 16, 48))
    y = a.astype(np.float64) - a.astype(np.float64).max(axis=2, keepdims=True)
    write(os.path.join(d, 'l2_reduce_max.orc'), [t(5, a.shape, a), out(4, y)])
    a = f16((1, 16, 48), 0.5, 4)
    xd = a.astype(np.float64)
    y = xd / xd.sum(axis=2, keepdims=True)
    o = out(4, y)
    o['data'] = (y.reshape(-1), np.abs(y.reshape(-1)) * 2.0 ** -10 + 2.0 * ulp16(y.reshape(-1)))
    write(os.path.join(d, 'l2_reduce_rsum.orc'), [t(5, a.shape, a), o])
    # x * z for x, z [16,3,8], interleaved in L2 (z at channel 2c, x at 2c + 1) and multiplied by
    # the NE's channel products (MACCfg.OpMode 2 with ElemMultMode, as Apple's pow): one rounding
    a, z = f16((16, 3, 8)), f16((16, 3, 8))
    y = a.astype(np.float64) * z.astype(np.float64)
    write(os.path.join(d, 'l2_rcas.orc'), [t(5, a.shape, a), t(6, z.shape, z), out(4, y)])
    # reductions whose results leave by the tile DMA, one value a plane (Apple's reduce_sum, mean
    # and max over H and W): x [16,4,8] to [16,1,1]
    a = f16((16, 4, 8))
    xd = a.astype(np.float64)
    for name, y in (('red_sum', xd.sum(axis=(1, 2), keepdims=True)),
                    ('red_mean', xd.mean(axis=(1, 2), keepdims=True)),
                    ('red_max', xd.max(axis=(1, 2), keepdims=True)),
                    ('red_min', xd.min(axis=(1, 2), keepdims=True)),
                    # the largest magnitude (Planar.Cfg.Condition 1 on the maximum) and the mean
                    # of squares plus an eps of 64 (PreScale's low half): Apple's rms_norm chain
                    ('red_amax', np.abs(xd).max(axis=(1, 2), keepdims=True)),
                    ('red_msq_eps', (xd * xd).mean(axis=(1, 2), keepdims=True) + 64.0)):
        write(os.path.join(d, name + '.orc'), [t(5, a.shape, a), out(4, y)])
    # the mean over every axis of x [16,8,8] to one value (Apple's reduce_mean over axes 1-3 of
    # [1,128,16,16]: one reduction TD reading x as 1 x 16 x 8 x 8, C x D x H x W); x multiples of
    # 1/64 in [-8, 8], so the fp32 sum is exact and y is rounded once (its own generator: the
    # draws above are unchanged)
    a = (np.round(np.random.default_rng(SEED + 93).uniform(-8, 8, (16, 8, 8)) * 64) / 64).astype(np.float16)
    write(os.path.join(d, 'red_mean_all.orc'),
          [t(5, a.shape, a), out(4, a.astype(np.float64).mean().reshape(1, 1, 1))])
    # reductions over C, as Apple's reduce_sum and reduce_mean over axis 1: x [16,3,5] to y [3,5]
    # (laid out as 3 planes of one row of 5: the result's row h is group h's)
    a = f16((16, 3, 5))
    xd = a.astype(np.float64)
    for name, y in (('red_c_sum', xd.sum(axis=0)), ('red_c_mean', xd.mean(axis=0))):
        write(os.path.join(d, name + '.orc'), [t(5, a.shape, a), out(4, y.reshape(3, 1, 5))])
    # the largest over C, as Apple's reduce_max over axis 1 (the NE's MACCfg.OpMode 3, UnicastCin
    # 64): x [64,4,8] to [1,4,8]; and over groups of 4 channels side by side: x [12,3,8] to [3,3,8]
    a = f16((64, 4, 8))
    write(os.path.join(d, 'red_c_max.orc'), [t(5, a.shape, a), out(4, a.astype(np.float64).max(axis=0, keepdims=True))])
    a = f16((12, 3, 8))
    y = a.astype(np.float64).reshape(3, 4, 3, 8).max(axis=1)
    write(os.path.join(d, 'red_c_max4.orc'), [t(5, a.shape, a), out(4, y)])
    # (last: the draws above stay as they were)
    # the argument of gelu's tanh as Apple's macOS GPT-2 gelu computes it in L2 memory, one fp16
    # rounding a TD: x*x; that times x times fp16(0.0447) (over the first operand); (x + that)
    # times fp16(0.7979) (over the second operand); then out by DMA
    a = f16((2, 3, 40), -4, 4)
    xd = a.astype(np.float64)
    r16 = lambda v: v.astype(np.float16).astype(np.float64)
    y0 = r16(xd * xd)
    y1 = r16(y0 * float(np.float16(0.044708)) * xd)
    y = r16((xd + y1) * float(np.float16(0.797852)))
    o = out(4, y)
    o['data'] = (y.reshape(-1), 2.0 * ulp16(y.reshape(-1)))
    write(os.path.join(d, 'l2_gelu_arg.orc'), [t(5, a.shape, a), o])
    # the mean of products of two operands over each plane (Common.Cfg.TaskType 6 with OpMode 1:
    # the macOS GPT-2 softmax and layer_norm backward kernels): x, z [16,4,8] to [16,1,1] with
    # FinalScale 1/32, and the same written as one row of 16 (PECfg.OutputTranspose); one fp16
    # rounding of a sum of exact products in fp32 (its error bound 2^-18 of the sum of |x z|)
    a, z = f16((16, 4, 8), -4, 4), f16((16, 4, 8), -4, 4)
    pr = a.astype(np.float64) * z.astype(np.float64)
    y = pr.mean(axis=(1, 2), keepdims=True)
    tol = 2.0 * ulp16(y.reshape(-1)) + 2.0 ** -18 * np.abs(pr).mean(axis=(1, 2)).reshape(-1)
    o = out(4, y)
    o['data'] = (y.reshape(-1), tol)
    write(os.path.join(d, 'red_dot.orc'), [t(5, a.shape, a), t(6, z.shape, z), o])
    o = out(4, y.reshape(1, 1, 16))
    o['data'] = (y.reshape(-1), tol)
    write(os.path.join(d, 'red_dot_t.orc'), [t(5, a.shape, a), t(6, z.shape, z), o])
    # Apple's H13 softmax over C (and over H, its H laid along the TD's C), its first two TDs:
    # the NE's channel maxima of x [16,3,8] read by the tile DMA and kept in L2 (SourceType 1),
    # then x - max over C from L2 (max broadcast along C), one rounding. Position (0, *) has every
    # channel equal; position (1, *) large magnitudes (|x| up to 30000, the difference in fp16
    # range)
    a = f16((16, 3, 8))
    a[:, 0, :] = a[0, 0, :]
    a[:, 1, :] = f16((16, 8), -30000, 30000)
    y = a.astype(np.float64) - a.astype(np.float64).max(axis=0, keepdims=True)
    write(os.path.join(d, 'sm_c_sub.orc'), [t(5, a.shape, a), out(4, y)])
    # its TD 3: the sum over C of the exponentials (x [16,3,8] in [0, 1]) by the NE's unit kernel
    # over 16 -> 1 channel, into [1,3,8]: the sum in fp32 rounded once (its error at most an fp16
    # ulp and 2^-20 of the sum of |x|)
    a = f16((16, 3, 8), 0, 1)
    a[:, 0, :] = a[0, 0, :]
    xd = a.astype(np.float64)
    y = xd.sum(axis=0, keepdims=True)
    o = out(4, y)
    o['data'] = (y.reshape(-1), ulp16(y.reshape(-1)) + 2.0 ** -20 * np.abs(xd).sum(axis=0).reshape(-1))
    write(os.path.join(d, 'sm_c_sum.orc'), [t(5, a.shape, a), o])
    # Apple's softmax over C of [1,C,1,1], its TDs 0 and 1 (docs/engine-model.md, "Softmax over
    # channels"): the largest of x [16,1,1], then x - max kept in L2 memory as one row of 16 and
    # written through WBase = BAR 3 (Common.PECfg.OutputTranspose, the destination's En clear)
    # both; TD 2 copies the row from L2 to BAR 4. BAR 3 and BAR 4 hold y as [1,1,16], one rounding
    # (its own generator: the draws above stay as they were)
    a = np.random.default_rng(SEED + 2131).uniform(-100, 100, (16, 1, 1)).astype(np.float16)
    y = (a.astype(np.float64) - a.astype(np.float64).max()).reshape(1, 1, 16)
    write(os.path.join(d, 'sm_c_row.orc'), [t(5, a.shape, a), out(3, y), out(4, y)])
    # the same with TD 1's WBase unbound (the thirteenth sweep's probe): BAR 4 alone
    write(os.path.join(d, 'sm_c_row_l2.orc'), [t(5, a.shape, a), out(4, y)])


if __name__ == '__main__':
    sys.exit(main(sys.argv[1] if len(sys.argv) > 1 else 'build/testdata'))
