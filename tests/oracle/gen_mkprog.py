#!/usr/bin/python3
"""Oracle for mkprog programs (docs/control-path.md, "Program descriptions"), written from the
description format and its documented weight generator only, not from the C code.

For app/default.desc and every tests/oracle/mkprog/*.desc this writes to OUT/mkprog/:
  NAME.desc               the description (the tests build the program from it)
  NAME.orc                the input and every TD output (outputs and intermediates), in the
                          model oracle's format (tests/oracle/gen_model.py): per element the
                          expected value and the tolerance, one fp16 ulp of the expected value
  NAME.ref.OUTPUT.npy     the expected value of each program output (float16, shape [C, H, W]),
                          named as the container names its windows (output_0, output_1, ...)
`gen_mkprog.py --refs DESC PREFIX` writes only DESC's PREFIX.OUTPUT.npy files: the Makefile
writes build/default.ref.OUTPUT.npy so, and `make run` passes them to the firmware as
ref:OUTPUT=PATH.

The input is the one `anefw-tool run` and the firmware use when no input is given
(docs/control-path.md, "Running programs on data": xorshift32 from seed 0x5eed0000 + BAR 5,
values (x mod 2048 - 1024) / 1024 in C order).

Each statement is one TD: a weight layer computes, per output channel o and element (h, w),
    y[o, h, w] = fp16((sum over i of W[o, i] x[i, h, w]) * scale[o] + bias[o])
with W the decoded weights (int8 values; palette codebook entries; sparse kept values, 0
elsewhere), scale the per-channel post-scale (1/64 for int8 layers, 1 otherwise) and bias the
documented per-channel bias; an activation applies its function to each element and rounds to
fp16; a pool takes the average (padding counted as zeros), maximum or minimum of each k x k
window at its stride and rounds to fp16. Every tensor is fp16 in memory, so each TD's output is rounded to fp16 before the next
statement reads it (from=prev).
"""
import glob
import os
import struct
import sys

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
INPUT_BAR = 5
FIRST_OUTPUT_BAR = 6
ACTS = ('relu', 'relu6', 'leakyrelu', 'hardtanh')
POOLS = ('avg', 'max', 'min')
M32 = 0xffffffff


class DescError(Exception):
    pass


def parse(text):
    """The description format: returns (w, h, c, statements)."""
    d = {'w': 32, 'h': 2, 'c': 16}
    st = []
    for ln, line in enumerate(text.split('\n'), 1):
        words = line.split('#', 1)[0].split()
        if not words:
            continue
        if words[0] == 'input':
            for kv in words[1:]:
                k, v = kv.split('=')
                d[k] = int(v)
            continue
        s = {'from_prev': False, 'seed': len(st) + 1, 'cin': None, 'cout': 16,
             'density': 50}
        if words[0] == 'streams':
            # the per-channel scale and bias sections' number format: the values are the same
            # (every one is exact in fp16), so nothing here depends on it
            continue
        if words[0] == 'pool':
            if words[1] not in POOLS:
                raise DescError('line %d: pool %s' % (ln, words[1]))
            s['kind'] = 'pool'
            s['pool'] = words[1]
            s['k'] = 2
            rest = words[2:]
        elif words[0] == 'activation':
            if words[1] not in ACTS:
                raise DescError('line %d: activation %s' % (ln, words[1]))
            s['kind'] = 'act'
            s['act'] = words[1]
            rest = words[2:]
        elif words[0] == 'layer':
            k = words[1]
            if k in ('int8', 'sparse'):
                s['kind'] = k
            elif k.startswith('palette') and k[7:] in ('1', '2', '3', '4', '6', '8'):
                s['kind'] = 'palette'
                s['bits'] = int(k[7:])
            else:
                raise DescError('line %d: layer %s' % (ln, k))
            rest = words[2:]
        else:
            raise DescError('line %d: %s' % (ln, words[0]))
        for kv in rest:
            k, v = kv.split('=')
            if k == 'from':
                s['from_prev'] = v == 'prev'
            else:
                s[k] = int(v)
        st.append(s)
    for i, s in enumerate(st):
        c = st[i - 1]['cout'] if s['from_prev'] else d['c']
        win, hin = (st[i - 1]['wout'], st[i - 1]['hout']) if s['from_prev'] else (d['w'], d['h'])
        s['wout'], s['hout'] = win, hin
        if s['kind'] == 'pool':
            # stride defaults to the window (when the 2-bit field holds it), padding to 0
            s.setdefault('stride', s['k'] if s['k'] <= 3 else 1)
            s.setdefault('pad', 0)
            s['wout'] = (win + 2 * s['pad'] - s['k']) // s['stride'] + 1
            s['hout'] = (hin + 2 * s['pad'] - s['k']) // s['stride'] + 1
        if s['kind'] in ('act', 'pool'):
            s['cin'] = s['cout'] = c
        elif s['cin'] is None:
            s['cin'] = c
        assert s['cin'] == c
    return d['w'], d['h'], d['c'], st


def rnd(state):
    """The generator: s = s * 1103515245 + 12345 (mod 2^32); the draw is s >> 16."""
    state[0] = (state[0] * 1103515245 + 12345) & M32
    return state[0] >> 16


def weights(s):
    """Statement s's weights as float64 [cout, cin], drawn channel by channel, weight by weight."""
    state = [(s['seed'] * 2654435761 + 1) & M32]
    cin, cout = s['cin'], s['cout']
    wt = np.zeros((cout, cin))
    for o in range(cout):
        for i in range(cin):
            if s['kind'] == 'int8':
                b = rnd(state) & 0xff
                wt[o, i] = b - 256 if b >= 128 else b
            elif s['kind'] == 'palette':
                bits = s['bits']
                idx = rnd(state) & ((1 << bits) - 1)
                wt[o, i] = (idx - (1 << (bits - 1))) / 8.0
            else:  # sparse
                if rnd(state) % 100 < s['density']:
                    v = rnd(state) % 14 + 1
                    if rnd(state) & 1:
                        v = -v
                    wt[o, i] = v / 16.0
    return wt


def bias(j, cout):
    """Statement j's (0-based) per-channel bias: ((o + j) mod 7 - 3) / 8."""
    return np.array([((o + j) % 7 - 3) / 8.0 for o in range(cout)])


LEAKY_SLOPE = float(np.float16(0.01))  # the record's left slope, fp16 0.01 = 0.010002136


def activation(name, x):
    if name == 'relu':
        return np.maximum(x, 0.0)
    if name == 'relu6':
        return np.clip(x, 0.0, 6.0)
    if name == 'hardtanh':
        return np.clip(x, -1.0, 1.0)
    return np.where(x < 0, x * LEAKY_SLOPE, x)


def pool(s, x):
    """A k x k window at the given stride, the padding on every side: the average counts the
    padding as zeros (sum / k^2), the maximum and minimum take only the input's elements."""
    k, st, p = s['k'], s['stride'], s['pad']
    c, h, w = x.shape
    fill = {'avg': 0.0, 'max': -np.inf, 'min': np.inf}[s['pool']]
    xp = np.full((c, h + 2 * p, w + 2 * p), fill)
    xp[:, p:p + h, p:p + w] = x
    y = np.empty((c, s['hout'], s['wout']))
    for oy in range(s['hout']):
        for ox in range(s['wout']):
            win = xp[:, oy * st:oy * st + k, ox * st:ox * st + k].reshape(c, -1)
            if s['pool'] == 'avg':
                y[:, oy, ox] = win.sum(axis=1) / (k * k)
            elif s['pool'] == 'max':
                y[:, oy, ox] = win.max(axis=1)
            else:
                y[:, oy, ox] = win.min(axis=1)
    return y


def seed_input(c, h, w, bar=INPUT_BAR):
    s = (0x5eed0000 + bar) & M32
    out = np.empty(c * h * w)
    for k in range(c * h * w):
        s ^= (s << 13) & M32
        s ^= s >> 17
        s ^= (s << 5) & M32
        out[k] = ((s % 2048) - 1024) / 1024.0
    return out.reshape(c, h, w).astype(np.float16)


def run(desc_text):
    """Returns (input [c, h, w] fp16, [(bar, role-name, y fp16 [cout, h, w])] per TD)."""
    w, h, c, st = parse(desc_text)
    x = seed_input(c, h, w)
    outs = []
    prev = None
    for j, s in enumerate(st):
        src = prev if s['from_prev'] else x
        xd = src.astype(np.float64)
        if s['kind'] == 'act':
            y = activation(s['act'], xd)
        elif s['kind'] == 'pool':
            y = pool(s, xd)
        else:
            wt = weights(s)
            acc = np.einsum('oi,ihw->ohw', wt, xd)
            scale = 1.0 / 64 if s['kind'] == 'int8' else 1.0
            y = acc * scale + bias(j, s['cout'])[:, None, None]
        prev = y.astype(np.float16)
        outs.append(prev)
    # which TD outputs are program outputs (windows) and which intermediates (read by the next)
    names = []
    k = 0
    for j in range(len(st)):
        if j + 1 < len(st) and st[j + 1]['from_prev']:
            names.append(None)
        else:
            names.append('output_%d' % k)
            k += 1
    return x, [(FIRST_OUTPUT_BAR + j, names[j], outs[j]) for j in range(len(st))]


def ulp16(y):
    a = np.abs(y.astype(np.float64))
    a = np.where(a < 2.0 ** -14, 2.0 ** -14, a)
    return 2.0 ** (np.floor(np.log2(a)) - 10)


def layout(h, w):
    row = (2 * w + 63) // 64 * 64
    return row, row * h


def write_orc(path, x, outs):
    c, h, w = x.shape
    with open(path, 'wb') as f:
        f.write(b'ANEMORC1' + struct.pack('<I', 1 + len(outs)))
        row, plane = layout(h, w)
        f.write(struct.pack('<8I', INPUT_BAR, 0, c, h, w, row, plane, x.size))
        f.write(x.astype('<f2').tobytes())
        for bar, _, y in outs:
            oc, oh, ow = y.shape
            row, plane = layout(oh, ow)
            f.write(struct.pack('<8I', bar, 1, oc, oh, ow, row, plane, y.size))
            f.write(y.astype('<f8').tobytes())
            f.write(ulp16(y).astype('<f8').tobytes())


def write_npy(path, y):
    np.save(path, y.astype('<f2'), allow_pickle=False)


def main(out):
    d = os.path.join(out, 'mkprog')
    os.makedirs(d, exist_ok=True)
    descs = [os.path.join(ROOT, 'app', 'default.desc')]
    descs += sorted(glob.glob(os.path.join(ROOT, 'tests', 'oracle', 'mkprog', '*.desc')))
    names = []
    for p in descs:
        name = os.path.splitext(os.path.basename(p))[0]
        text = open(p).read()
        x, outs = run(text)
        with open(os.path.join(d, name + '.desc'), 'w') as f:
            f.write(text)
        write_orc(os.path.join(d, name + '.orc'), x, outs)
        for _, oname, y in outs:
            if oname:
                write_npy(os.path.join(d, '%s.ref.%s.npy' % (name, oname)), y)
        names.append(name)
    with open(os.path.join(d, 'list.txt'), 'w') as f:
        f.write(''.join(n + '\n' for n in names))


def refs(desc, prefix):
    """PREFIX.OUTPUT.npy for each output of DESC (make run's references)."""
    _, outs = run(open(desc).read())
    for _, oname, y in outs:
        if oname:
            write_npy('%s.%s.npy' % (prefix, oname), y)


if __name__ == '__main__':
    if len(sys.argv) == 4 and sys.argv[1] == '--refs':
        refs(sys.argv[2], sys.argv[3])
    else:
        main(sys.argv[1] if len(sys.argv) > 1 else 'build/testdata')
