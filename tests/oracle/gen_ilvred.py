#!/usr/bin/python3
"""Oracles for reductions over a channel-interleaved tile source (tests/unit/test_model_ilvred.c;
docs/engine-model.md, "Reductions over a channel-interleaved source").

The shape of Apple's H13 softmax over the last axis of [1,8,375,375], TDs 2-3, small: x [16,5,27]
(C, H, W) goes out interleaved by 8 and is read back as 5 groups (h) of 16 planes (c) of one row
of 27 (w); each plane reduced to one value, by the tile DMA to [80,1,1] (element h*16 + c):
  ilv_red_max:  max over w of x[c, h, :], exact (one of the fp16 inputs);
  ilv_red_rsum: 1 / sum over w of x[c, h, :] (x > 0, as the exponentials softmax sums), one fp16
                rounding of the reciprocal of an fp32 sum (its error far under 2^-18 relative).
  ilv_red_norm: x / sum over w of x[c, h, :], the reciprocal from L2 memory times x read back
                interleaved as a second operand (its TD 4): x fp16(1 / sum), two fp16 roundings.
  ilv_keep:     2x into BAR 4 and x / 2 into BAR 7 (exact): x read from BAR 3 and kept in L2
                memory as it is read (SourceType 1), the kept copy read back (the controls of the
                fourth review's refusal of that form read interleaved).
  ilv_l2sec:    y + x, y read from BAR 3 and x from L2 memory as the second operand, within
                one ulp (the control of the refusal of that form beside y read interleaved).
Rows 0 of every channel hold 27 equal values, rows 1 large magnitudes. Written in the file format
gen_model.py writes (OUT/model/<name>.orc), from the definitions only.
"""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gen_model import ulp16, write  # noqa: E402

SEED = 0x11E7D
C, H, W = 16, 5, 27


def t(bar, shape, data):
    c, h, w = shape
    return {'bar': bar, 'role': 0, 'c': c, 'h': h, 'w': w, 'data': data.reshape(-1)}


def out(bar, y, tol):
    c, h, w = y.shape
    return {'bar': bar, 'role': 1, 'c': c, 'h': h, 'w': w, 'data': (y.reshape(-1), tol.reshape(-1))}


def per_plane(r):
    # r [C, H] (one value a plane (c, h)) laid as the reduction writes it: group h, plane c
    return r.T.reshape(H * C, 1, 1)


def main(o):
    d = os.path.join(o, 'model')
    os.makedirs(d, exist_ok=True)
    rng = np.random.default_rng(SEED)
    # the maximum: signed values, equal rows (h 0) and large magnitudes (h 1)
    x = rng.uniform(-100, 100, (C, H, W)).astype(np.float16)
    x[:, 0, :] = x[:, 0, :1]
    x[:, 1, :] = rng.uniform(-60000, 60000, (C, W)).astype(np.float16)
    y = per_plane(x.astype(np.float64).max(axis=2))
    write(os.path.join(d, 'ilv_red_max.orc'), [t(5, x.shape, x), out(4, y, 0.0 * y)])
    # the reciprocal of the sum: positive values, equal rows and large magnitudes (sums to 1.6e6,
    # reciprocals down in fp16's subnormals)
    x = rng.uniform(0.5, 4, (C, H, W)).astype(np.float16)
    x[:, 0, :] = x[:, 0, :1]
    x[:, 1, :] = rng.uniform(1000, 60000, (C, W)).astype(np.float16)
    y = per_plane(1.0 / x.astype(np.float64).sum(axis=2))
    write(os.path.join(d, 'ilv_red_rsum.orc'), [t(5, x.shape, x), out(4, y, ulp16(y) + 2.0 ** -18 * np.abs(y))])
    # x / sum over w (x > 0): TD 1's reciprocals into L2 memory, TD 2 multiplies them (broadcast
    # along w) by x read back interleaved as its second operand (Apple's softmax TD 4): two
    # roundings (the reciprocal's, then the product's)
    x = rng.uniform(0.5, 4, (C, H, W)).astype(np.float16)
    x[:, 0, :] = x[:, 0, :1]
    x[:, 1, :] = rng.uniform(1000, 60000, (C, W)).astype(np.float16)
    xd = x.astype(np.float64)
    # (the reciprocal is an fp16 value in L2 memory: subnormal for the large rows, whose sums pass
    # 2^14, so the reference keeps it so; one ulp of it either way, as an fp32 sum may round it)
    r16 = (1.0 / xd.sum(axis=2, keepdims=True)).astype(np.float16).astype(np.float64)
    y = xd * r16
    write(os.path.join(d, 'ilv_red_norm.orc'), [t(5, x.shape, x), out(4, y, 2.0 * ulp16(y) + xd * ulp16(r16))])
    # the fourth review's L2 forms (their controls: every interleave 1): x [16,5,27] (magnitudes
    # in [1/4, 4], so halving and doubling are exact) read from BAR 3 by a TD that keeps it in L2
    # as it reads it (SourceType 1) and doubles it into BAR 4, the kept copy halved into BAR 7
    x = (rng.uniform(0.25, 4, (C, H, W)) * rng.choice([-1.0, 1.0], (C, H, W))).astype(np.float16)
    xd = x.astype(np.float64)
    write(os.path.join(d, 'ilv_keep.orc'), [t(5, x.shape, x), out(4, 2 * xd, 0.0 * xd), out(7, xd / 2, 0.0 * xd)])
    # y (BAR 5, read back from BAR 3) + x (BAR 6, from L2 memory as the second operand): one
    # fp16 rounding of the sum
    y = rng.uniform(-4, 4, (C, H, W)).astype(np.float16)
    s16 = (y.astype(np.float64) + xd)
    write(os.path.join(d, 'ilv_l2sec.orc'), [t(5, y.shape, y), t(6, x.shape, x), out(4, s16, ulp16(s16))])
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1] if len(sys.argv) > 1 else 'build/testdata'))
