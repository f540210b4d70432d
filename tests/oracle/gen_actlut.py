#!/usr/bin/python3
"""Golden vectors for the activation LUT: gen_actlut.py DIR writes DIR/actlut/.

For each case NAME: NAME.rec (one 86-byte record) and NAME.out (65,536 little-endian fp16, the
output for every input bit pattern 0x0000..0xffff, from the exact model in actlut_model.py).
list.txt names the cases, one a line. Records are built here with numpy (every mode, edge
scales, clamps and tails that reach infinities); knots of the random cases come from a fixed seed.

With the fixtures present (SHARED, default ../shared beside the tree), it also writes
DIR/actlut_fixtures/NAME.out, the model's 65,536 outputs for the real records the engine-model
test applies (tests/unit/test_ctrl_act.c): NAME is the fixture's path under fixtures/ with '/'
as '_', then '@' and the record's offset in hex (kernels_unary_tanh.bin@280.out).
"""
import math
import os
import struct
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import actlut_model as M  # noqa: E402

INF = float('inf')


def h(v):
    return int(np.array([v], dtype=np.float16).view(np.uint16)[0])


def record(in_lo, in_hi, out_lo, out_hi, knots, tails, scale, mode):
    s = [h(in_lo), h(in_hi), h(out_lo), h(out_hi)] + [h(k) for k in knots] + [h(t) for t in tails]
    s += [scale, mode]
    assert len(s) == 43
    return struct.pack('<43H', *s)


def cases():
    rng = np.random.default_rng(20240611)
    sig = lambda x: 1 / (1 + math.exp(-x))
    c = {}
    c['plain_sigmoid'] = record(-9.9375, 8.3203, 0, 1, [sig(-8 + i / 2) for i in range(33)],
                                [1.73e-4, 1.72e-3, 1.524e-3, 0.9873], 1, 0x01)
    c['odd_tanh'] = record(0, 4, 0, 1, [math.tanh(i / 8) for i in range(33)], [0, 0, 0, 1], 3, 0x60)
    c['odd_wide_inf'] = record(0, INF, 0, INF, list(rng.uniform(-2, 2, 33)), [0.5, 0, 0.25, 3], 0, 0x60)
    c['exp2'] = record(-25, 16, 0, INF, [2 ** (i / 32) for i in range(33)], [0, 0, 0, 0], 5, 0x0a)
    c['exp2_s6_tails'] = record(-INF, INF, -4, 4, [2 ** (i / 64) for i in range(33)],
                                [0, 0, 1.5, 0.7], 6, 0x0a)
    c['log2'] = record(0, INF, -INF, 0, [math.log2(0.5 + i / 64) for i in range(33)], [0, 0, 0, 0], 6, 0xc9)
    c['log2_neg'] = record(-INF, INF, -INF, INF, [math.log2(0.5 + i / 64) for i in range(33)],
                           [0, 0, 0, 0], 6, 0xc9)
    c['sqrt'] = record(0, INF, 0, INF, [0] * 8 + [math.sqrt(i / 16) for i in range(8, 33)],
                       [0, 0, 0, 0], 4, 0xc5)
    c['recip'] = record(-INF, INF, -INF, INF, [1 / (0.5 + i / 64) for i in range(33)], [0, 0, 0, 0], 6, 0x67)
    c['rsqrt'] = record(0, INF, 0, INF, [1.5] * 8 + [1 / math.sqrt(i / 16) for i in range(8, 33)],
                        [0, 0, 0, 0], 4, 0xc6)
    # issue 14: the compiler's shapes. Reciprocal-like and rsqrt records open 0, +inf, +inf, 0
    # (input clamp [0, inf] on |x|, end values +inf at 0 and 0 at +inf: decreasing).
    c['recip_real_shape'] = record(0, INF, INF, 0, [1 / (0.5 + i / 64) for i in range(33)],
                                   [0, 0, 0, 0], 6, 0x67)
    c['recip_flush_word_c7'] = record(0, INF, INF, 0, [1 / (0.5 + i / 64) for i in range(33)],
                                    [0, 0, 0, 0], 6, 0xc7)
    c['rsqrt_real_shape'] = record(0, INF, INF, 0, [0] * 8 + [1 / math.sqrt(i / 16) for i in range(8, 33)],
                                   [-1, 3, 0.5, -2], 4, 0xc6)
    # a step function: linear only (no knots), tails 0 and 1, with mode words other than 1
    for w in (0x00, 0x40, 0x41, 0x60):
        c['step_linear_mode_%02x' % w] = record(-INF, INF, 0, 1, [0] * 33, [0, 0, 0, 1], 64, w)
    # words never seen, decoded by their bits: plain without bit 0, even (|x|), odd with bit 0,
    # log2 and exp2 without / with bit 0, exp2 of |x|, sqrt with the sign restored
    c['plain_word_00'] = record(-8, 8, 0, 1, [sig(-8 + i / 2) for i in range(33)], [0, 0, 0, 1], 1, 0x00)
    c['even_word_41'] = record(-1, 6, -0.5, 2, list(rng.uniform(-1, 1, 33)), [0.25, -1, -0.5, 1.5], 2, 0x41)
    c['odd_word_61'] = record(0, 4, 0, 1, [math.tanh(i / 8) for i in range(33)], [0, 0, 0, 1], 3, 0x61)
    c['exp2_abs_word_4a'] = record(-8, 8, 0, INF, [2 ** (i / 32) for i in range(33)], [0, 0, 0, 0], 5, 0x4a)
    c['sqrt_signed_word_65'] = record(-INF, INF, 0, INF, [0] * 8 + [math.sqrt(i / 16) for i in range(8, 33)],
                                      [0, 0, 0, 0], 4, 0x65)
    # issue 21: operation 2 (index offset 32, knots end at x = 0) as activation/selu.bin has it,
    # the frac (3) and int (4) operations as unary/ceil.bin has them (|x|, sign restored) and
    # without |x| (x - floor(x), floor(x)), the step that follows them (knot 16, 0, at 0), and
    # the table operations 0..2 on |x| and on x (offsets 0, 16, 32)
    al, sc = 1.6732632423543772, 1.0507009873554805
    selu = lambda x: sc * (x if x > 0 else al * math.expm1(x))
    c['selu_word_02'] = record(-8, INF, -al * sc, INF, [selu(-8 + i / 4) for i in range(33)],
                               [0, -al * sc, sc, 0], 2, 0x02)
    c['frac_word_63'] = record(-INF, INF, 0, 0, [0] * 33, [0, 0, 0, 0], 0, 0x63)
    c['int_word_64'] = record(-INF, INF, -INF, INF, [0] * 33, [0, 0, 0, 0], 5, 0x64)
    c['frac_word_03'] = record(-INF, INF, 0, 0, [0] * 33, [0, 0, 0, 0], 0, 0x03)
    c['int_word_04_clamped'] = record(-300.5, 1000.25, 0, 0, [0] * 33, [0, 0, 0, 0], 3, 0x04)
    c['step_ceil_shape'] = record(-2 ** -24, 2 ** -24, 0, 1, [0] * 33, [0, 0, 0, 1], 64, 0x01)
    for w in (0x00, 0x02, 0x40, 0x42, 0x62):
        c['table_word_%02x' % w] = record(-INF, INF, -INF, INF, list(rng.uniform(-4, 4, 33)),
                                          [0.5, -1, -0.25, 2], 3, w)
    c['sqrt_s2_tails'] = record(-INF, INF, -1, 3, list(rng.uniform(0, 2, 33)), [2, 0.5, -1, 3], 2, 0xc5)
    # knot spacing 2^-64 (issue 21, this round): only v = +-0 falls among the knots and reads
    # knot `off`; every nonzero v takes a line. floor's step (1 below 0, 0 above and at 0), the
    # select program's indicators x != 0 (both lines 1, knots 0) and x == 0 (knots 1, lines 0),
    # and operations 0 and 2 reading knots 0 and 32 (docs/actlut.md, "Linear-only records")
    # (step_floor_shape is Apple's floor step, slot for slot; 50-actlut.sh composes floor with it)
    c['step_floor_shape'] = record(-2 ** -24, 2 ** -24, 1, 0, [0] * 33, [0, 1, 0, 0], 64, 0x01)
    c['indicator_nonzero'] = record(-2 ** -24, 2 ** -24, 1, 1, [0] * 33, [0, 1, 0, 1], 64, 0x01)
    # sign as a record of the same family (a prediction: docs/actlut.md, "sign, atan and
    # frac"): clamp +-2^-24, end values -1 and 1, left line -1, right line 1, knots 0 (0 at +-0)
    c['sign_linear_shape'] = record(-2 ** -24, 2 ** -24, -1, 1, [0] * 33, [0, -1, 0, 1], 64, 0x01)
    c['indicator_zero'] = record(-2 ** -24, 2 ** -24, 0, 0, [1] * 32 + [0], [0, 0, 0, 0], 64, 0x01)
    for w in (0x00, 0x02):
        c['linear_knot_at_zero_%02x' % w] = record(-INF, INF, -INF, INF, [i / 8 - 1 for i in range(33)],
                                                   [0.5, -1, 2, 3], 64, w)
    # the rsqrt record Apple's compiler emits (docs/actlut.md, "rsqrt"): knots 1/sqrt(i/16) from
    # i = 8, 0 below, s 4, no tails
    c['rsqrt_apple'] = record(0, INF, INF, 0, [0] * 8 + [1 / math.sqrt(i / 16) for i in range(8, 33)],
                              [0, 0, 0, 0], 4, 0xc6)
    c['linear_leaky'] = record(-INF, INF, -INF, INF, [0] * 33, [0.1, 0, 1, 0], 64, 0x01)
    c['linear_clamped'] = record(-100, 50, -2, 3, [0] * 33, [-0.75, 0.5, 2.5, -1], 64, 0x01)
    c['linear_inf_zero_slope'] = record(-INF, INF, -INF, INF, [0] * 33, [0, 7, -3, 1], 64, 0x01)
    c['plain_s0_random'] = record(-INF, INF, -30000, 30000, list(rng.uniform(-60000, 60000, 33)),
                                  [-3000, 5, 1000, -7], 0, 0x01)
    c['plain_s20_random'] = record(-1, 1, -INF, INF, list(rng.uniform(-1e-3, 1e-3, 33)),
                                   [-0.5, 0.25, 0.125, -0.0625], 20, 0x01)
    c['plain_outlo_posinf'] = record(-INF, INF, INF, INF, list(rng.uniform(-1, 1, 33)), [1, 0, 1, 0], 4, 0x01)
    return c


# The real records test_ctrl_act.c applies: (path under fixtures/, the record's offset)
# (docs/actlut.md, "Real records").
FIXTURE_RECORDS = [
    ('kernels/unary/tanh.bin', 0x280), ('kernels/unary/log2.bin', 0x280),
    ('kernels/unary/sqrt.bin', 0x280), ('kernels/activation/gelu.bin', 0x280),
    ('kernels/activation/relu6.bin', 0x280), ('kernels/activation/leakyrelu.bin', 0x280),
    ('kernels/activation/hardtanh.bin', 0x280), ('kernels/activation/selu.bin', 0x280),
]


def fixture_tables(out):
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    shared = os.environ.get('SHARED') or os.path.join(root, '..', 'shared')
    if not os.path.isfile(os.path.join(shared, 'fixtures', 'README.md')):
        return
    d = os.path.join(out, 'actlut_fixtures')
    os.makedirs(d, exist_ok=True)
    for rel, off in FIXTURE_RECORDS:
        raw = open(os.path.join(shared, 'fixtures', rel), 'rb').read()[off:off + M.NBYTES]
        table = np.array(M.Record(raw).table(), dtype='<u2')
        with open(os.path.join(d, '%s@%x.out' % (rel.replace('/', '_'), off)), 'wb') as f:
            f.write(table.tobytes())


def main():
    fixture_tables(sys.argv[1])
    out = os.path.join(sys.argv[1], 'actlut')
    os.makedirs(out, exist_ok=True)
    names = []
    for name, raw in cases().items():
        rec = M.Record(raw)
        table = np.array(rec.table(), dtype='<u2')
        with open(os.path.join(out, name + '.rec'), 'wb') as f:
            f.write(raw)
        with open(os.path.join(out, name + '.out'), 'wb') as f:
            f.write(table.tobytes())
        names.append(name)
    with open(os.path.join(out, 'list.txt'), 'w') as f:
        f.write('\n'.join(names) + '\n')


if __name__ == '__main__':
    main()
