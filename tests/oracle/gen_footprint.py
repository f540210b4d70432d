#!/usr/bin/python3
"""Oracles for the TDs whose kernel-memory footprint was overcounted (tests/unit/test_td_footprint.c;
docs/control-path.md, "Kernel memory"): forms the engine model computes that the control path
refused as kernels-over-kernel-memory until 2026-12-06, because td_footprint counted
NumGroups x Cout x Cin x Kh x Kw for every convolution.

  fp_dw3_c1024:   a depthwise 3x3 convolution (stride 1, zero padding 1) over 1024 channels of
                  2 x 8, each output channel from its own input channel through its own kernel
                  (test_model_depthwise.c's dw_weight, the kernels Apple's H13 form lays out):
                  the sum of products in float64, rounded once to fp16, one fp16 ulp. Counted as
                  a dense convolution its kernels were 1024 x 1024 x 9 x 2 = 18,874,368 bytes
                  (Apple's depthwise 9x1 at 1024 channels had the same count); they are 18,432.
  fp_pass_c4608:  4608 channels of 2 x 8 through an NE pass-through (no kernel) and the PE's
                  x 0.5: 0.5 x, exact. Counted 4608 x 4608 bytes of kernels (KernelFmt int8).
  fp_unit_c4608:  the same through the NE's unit kernel channel by channel (KernelMode 1, no
                  kernel in memory) and the PE's x 2: 2 x, exact.
Written in gen_model.py's file format (OUT/model/<name>.orc), from the definitions only.
"""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gen_model import depthwise_same, dw_weight, ulp16, write  # noqa: E402

SEED = 0xF007


def tensors(x, y, tol):
    c, h, w = x.shape
    return [{'bar': 5, 'role': 0, 'c': c, 'h': h, 'w': w, 'data': x.reshape(-1)},
            {'bar': 4, 'role': 1, 'c': c, 'h': h, 'w': w,
             'data': (y.reshape(-1), np.broadcast_to(tol, y.shape).reshape(-1))}]


def main(out):
    d = os.path.join(out, 'model')
    os.makedirs(d, exist_ok=True)
    rng = np.random.default_rng(SEED)
    c, h, w, k = 1024, 2, 8, 3
    x = rng.uniform(-100, 100, (c, h, w)).astype(np.float16)
    y = depthwise_same(x, dw_weight, k)
    write(os.path.join(d, 'fp_dw3_c1024.orc'), tensors(x, y, ulp16(y)))
    c = 4608
    x = rng.uniform(-100, 100, (c, h, w)).astype(np.float16)
    for name, f in (('fp_pass_c4608', 0.5), ('fp_unit_c4608', 2.0)):
        y = f * x.astype(np.float64)
        write(os.path.join(d, name + '.orc'), tensors(x, y, ulp16(y)))
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1] if len(sys.argv) > 1 else 'build/testdata'))
