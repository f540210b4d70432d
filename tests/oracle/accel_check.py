#!/usr/bin/python3
"""Checks Asahi ANE userspace running against anefw (tests/suites/80-accel.sh, docs/asahi.md).

  accel_check.py CASE ANEC WORKDIR [--wrong] -- COMMAND...

Writes seeded inputs for CASE (dense N x C x H x W fp16 files, the layout libane's tile send
takes), runs COMMAND with the input and output paths appended (IN... -- OUT...), and compares
every output with numpy's value of the function the program computes, computed in float64 from
the function's definition, within the tolerance the engine-model oracle uses for it
(tests/oracle/gen_model.py's rules: one fp16 ulp for exact operations, the table's
interpolation error plus 2 ulp for LUT functions). --wrong checks against a deliberately wrong
reference (the function plus 1) and so must fail: the checker's negative test.
Exit 0 when every output matches, 1 on a mismatch or a failed command.
"""
import math
import os
import subprocess
import sys

import numpy as np

SEED = 0xACCE1


def ulp16(y):
    a = np.abs(np.asarray(y, dtype=np.float64))
    a = np.where(a < 2.0 ** -14, 2.0 ** -14, a)
    return 2.0 ** (np.floor(np.log2(a)) - 10)


def exact(x, y):
    return ulp16(y)


def table(e):
    return lambda x, y: e + 2.0 * ulp16(y)


def sigmoid(x):
    return 1.0 / (1.0 + np.exp(-x))


def softmax_rows(a):
    # softmax.bin: along each row of 1600 of its 2560 x 1600 input (flat in its anec: one row)
    x = a.reshape(2560, 1600)
    e = np.exp(x - x.max(axis=1, keepdims=True))
    return (e / e.sum(axis=1, keepdims=True)).reshape(1, 1, 2560, 1600)


BIG = (1, 1, 2560, 1600)  # every eiln kernel: one 2560 x 1600 plane
# name: (input shapes (N, C, H, W), input range, function of the inputs, tolerance)
CASES = {
    'relu': ([(1, 1, 1, 77)], (-20, 20), lambda a: np.maximum(a, 0), exact),
    'hsigmoid': ([(1, 1, 1, 77)], (-7.9, 7.9), sigmoid,
                 lambda x, y: 2.98e-3 + 2.0 * ulp16(y)),
    # conv.hwx: 3 -> 3 channels, 1x1, every weight 2.0 (its netplist's twos.weights)
    'conv': ([(1, 3, 1, 1)], (-100, 100),
             lambda a: np.broadcast_to((2.0 * a.sum(axis=1, keepdims=True)), a.shape), exact),
    # concat.hwx: src0 = BAR 5 = input_1 (16 channels), src1 = BAR 6 = input_0 (16384);
    # the output is input_0 then input_1
    'concat': ([(1, 16, 1, 1), (1, 16384, 1, 1)], (-60000, 60000),
               lambda a, b: np.concatenate([b, a], axis=1), lambda x, y: 0.0 * y),
    'add': ([BIG, BIG], (-100, 100), np.add, exact),
    'mul': ([BIG, BIG], (-100, 100), np.multiply, exact),
    'relu6': ([BIG], (-10, 10), lambda a: np.clip(a, 0, 6), exact),
    'sigmoid': ([BIG], (-7.9, 7.9), sigmoid, lambda x, y: 7.5e-4 + 3.0 * ulp16(y)),
    'tanh': ([BIG], (-5, 5), np.tanh, table(1.5e-3)),
    # its input is the 2560 rows of 1600 its TDs read (fw/tensors; one dense row in convert's
    # anec until 2026-12-07, the same bytes): the file is those rows, one after the other
    'softmax': ([(1, 1, 1, 4096000)], (-6, 6), softmax_rows,
                lambda x, y: 1.5e-2 * np.abs(y) + 2.0 * ulp16(y)),
}


def main(argv):
    sep = argv.index('--')
    name, anec, work = argv[1], argv[2], argv[3]
    wrong = '--wrong' in argv[4:sep]
    cmd = argv[sep + 1:]
    shapes, (lo, hi), f, tol = CASES[name]
    rng = np.random.default_rng(SEED + sum(map(ord, name)))
    ins, paths = [], []
    for i, s in enumerate(shapes):
        x = rng.uniform(lo, hi, s).astype(np.float16)
        p = os.path.join(work, '%s.in%d.bin' % (name, i))
        x.tofile(p)
        ins.append(x.astype(np.float64))
        paths.append(p)
    y = f(*ins)
    if wrong:
        y = y + 1.0
    outp = os.path.join(work, '%s.out0.bin' % name)
    if os.path.exists(outp):
        os.unlink(outp)
    try:
        r = subprocess.run(cmd + [anec] + paths + ['--', outp], capture_output=True, text=True,
                           timeout=120)
    except subprocess.TimeoutExpired:
        print('%s: the client did not finish in 120 s' % name)
        return 1
    if r.returncode != 0:
        print('%s: the client failed (%d): %s' % (name, r.returncode, (r.stderr or r.stdout).strip()))
        return 1
    got = np.fromfile(outp, dtype='<f2').astype(np.float64)
    if got.size != y.size:
        print('%s: %d output values, expected %d' % (name, got.size, y.size))
        return 1
    y = np.asarray(y, dtype=np.float64).reshape(-1)
    t = np.asarray(tol(ins[0].reshape(-1) if len(ins) == 1 else y, y)).reshape(-1)
    err = np.abs(got - y)
    bad = int(np.count_nonzero(~(err <= t)))
    k = int(np.argmax(err - t))
    print('%s: %d values, max abs error %.3g (tolerance at worst %.3g), %d outside' %
          (name, y.size, float(err.max()), float(t[k]), bad))
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
