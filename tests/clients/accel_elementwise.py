#!/usr/bin/python3
"""An Asahi-ANE Python client in the style of allbilly/ane's examples: it opens
/dev/accel/accel0, makes buffer objects with BO_INIT, maps them, writes its own register
program (one H13 task descriptor: the planar engine combining two fp16 tiles element by
element), and SUBMITs it: add, mul, max and min of two 1 x C x H x W tensors, checked against
numpy. Run under `anefw-tool accel` (docs/asahi.md); prints "ok NAME" / "FAIL NAME: why" and
"N passed, N failed"; exit 1 when any failed. --wrong checks against a wrong reference (the
negative test: it must fail). --out DIR writes each output as DIR/NAME.bin.

The TD: a 10-word header (TID, NID, end of network, the BARs: RBase0 = 5 the first source,
RBase1 = 6 the second, WBase = 4 the result), then register blocks, each a command word (count-1
in bits 26-31, the byte address in bits 0-25) and its values: Common (shapes, fp16 formats,
a 1x1 elementwise window), TileDMASrc (both sources' strides and formats), L2 (the staging of
source and result), Planar (Cfg: the operation and the second tile source; the scales) and
TileDMADst. The NE is not in the path.
"""
import errno
import fcntl
import mmap
import os
import struct
import sys

import numpy as np

C, H, W = 3, 8, 96        # a small tensor: three planes of 8 rows of 96 fp16 values
ROW = (W * 2 + 63) // 64 * 64
PLANE = ROW * H
TILE = 0x4000             # BOs in libane's 16 KiB tiles
OPS = {'add': (0, np.add), 'mul': (1, np.multiply), 'max': (2, np.maximum), 'min': (3, np.minimum)}


def iowr(nr, size):
    return (3 << 30) | (size << 16) | (ord('d') << 8) | nr


SUBMIT_FMT = '<QII32III'
BO_INIT = iowr(0x41, 24)
BO_FREE = iowr(0x42, 8)
SUBMIT = iowr(0x43, struct.calcsize(SUBMIT_FMT))


def block(addr, vals):
    return [((len(vals) - 1) << 26) | addr] + list(vals)


def bars(slots):
    """Header words 8 and 9: per slot (RBase0, RBase1, WBase, TBase; KBase0..3) a 5-bit BAR
    index and an enable bit, 6 bits apart."""
    w8 = w9 = 0
    for slot, bar in slots.items():
        v = (bar & 0x1f) | 0x20
        if slot < 4:
            w8 |= v << (6 * slot)
        else:
            w9 |= v << (6 * (slot - 4))
    return w8, w9


def f16(x):
    return int(np.float16(x).view(np.uint16))


def td(op):
    w8, w9 = bars({0: 5, 1: 6, 2: 4})
    hdr = [1 << 25,            # end of network (one TD), TID 0, NID 0
           0x2d0,              # exe cycles
           0x422, 0, 0xfff86a, 0,
           0x30009800,         # flags
           0,                  # next pointer: none
           w8, w9]
    fp16 = 2
    common = [
        (H << 16) | W,         # InDim: Hin, Win
        1,
        (fp16 << 4) | fp16,    # ChCfg: InFmt, OutFmt fp16
        C,                     # Cin
        C,                     # Cout
        (H << 16) | W,         # OutDim: Hout, Wout
        1,
        0x5000a021,            # ConvCfg: 1x1 window, stride 1, one output per input
        0x2041,
        0x10001,               # GroupConvCfg: one group, unicast Cin
        0x20,                  # TileCfg: tile height
        0x59, 0, 0x33, 0, 0]
    src = [0x33881, 0x33880, 0,            # DMAConfig (enabled, cache hints), second source's
           ROW, PLANE, PLANE, PLANE,       # row, plane, depth, group strides
           0, ROW, PLANE, PLANE, PLANE,    # the second source's
           0, 0, 0x1002031, 0x2030] + [0] * 12   # Fmt: fp16, interleave 1
    l2 = [0, 0x1500172, 0, 0x400, 0x400, 0x400, 0x400, 0x8040, 0x400, 0x400, 0x400, 0x400,
          0x50017a, 0x10040, 0, 0, 0, 0]
    planar = [(2 << 18) | (op << 2),       # Cfg: SecSrc 2 (the second tile source), OpMode
              f16(1.0) << 16,              # BiasScale: scale 1, bias 0
              f16(1.0) << 16,              # PreScale
              0x3f800000]                  # FinalScale: fp32 1.0
    dst = [0x40000c1, 0, ROW, PLANE, PLANE, PLANE, 0x1302031]
    words = hdr + block(0x1f800, [0] * 62) + block(0x0, common) + block(0x13800, src) + \
        block(0x4800, l2) + block(0x8800, planar) + block(0xc800, [0] * 5) + block(0x17800, dst)
    return struct.pack('<%dI' % len(words), *words)


class Dev:
    def __init__(self):
        self.fd = os.open('/dev/accel/accel0', os.O_RDWR)
        self.bos = []

    def bo(self, size):
        b = bytearray(struct.pack('<IIQQ', 0, 0, size, 0))
        fcntl.ioctl(self.fd, BO_INIT, b, True)
        h, _, _, off = struct.unpack('<IIQQ', b)
        m = mmap.mmap(self.fd, size, mmap.MAP_SHARED, mmap.PROT_READ | mmap.PROT_WRITE, offset=off)
        self.bos.append((h, m))
        return h, m

    def close(self):
        for h, m in self.bos:
            m.close()
            fcntl.ioctl(self.fd, BO_FREE, bytearray(struct.pack('<II', h, 0)), True)
        os.close(self.fd)


def tiles(n):
    return (n + TILE - 1) // TILE * TILE


def to_tile(x):
    t = np.zeros((C, PLANE // 2), dtype=np.float16)
    for c in range(C):
        for h in range(H):
            t[c, h * ROW // 2:h * ROW // 2 + W] = x[c, h]
    return t.tobytes()


def from_tile(b):
    t = np.frombuffer(b[:C * PLANE], dtype=np.float16).reshape(C, PLANE // 2)
    return np.stack([np.stack([t[c, h * ROW // 2:h * ROW // 2 + W] for h in range(H)])
                     for c in range(C)])


def run(d, name, a, b):
    op, _ = OPS[name]
    prog = td(op)
    cmd_h, cmd = d.bo(TILE)
    cmd[:len(prog)] = prog
    bt_h, bt = d.bo(TILE)                  # the bootstrap BO: the first TD, NID 0x40
    first = bytearray(prog)
    w0 = struct.unpack_from('<I', first, 0)[0]
    struct.pack_into('<I', first, 0, (w0 & 0xf00ffff) | (0x40 << 16))
    bt[:len(first)] = bytes(first)
    dst_h, dst = d.bo(tiles(C * PLANE))
    s0_h, s0 = d.bo(tiles(C * PLANE))
    s1_h, s1 = d.bo(tiles(C * PLANE))
    s0[:C * PLANE] = to_tile(a)
    s1[:C * PLANE] = to_tile(b)
    handles = [0] * 32
    handles[0], handles[4], handles[5], handles[6] = cmd_h, dst_h, s0_h, s1_h
    fcntl.ioctl(d.fd, SUBMIT, bytearray(struct.pack(SUBMIT_FMT, len(prog), 1, len(prog),
                                                     *handles, bt_h, 0)), True)
    return from_tile(bytes(dst[:C * PLANE]))


def main(argv):
    wrong = '--wrong' in argv
    outdir = argv[argv.index('--out') + 1] if '--out' in argv else None
    rng = np.random.default_rng(0xE1E)
    a = rng.uniform(-50, 50, (C, H, W)).astype(np.float16)
    b = rng.uniform(-50, 50, (C, H, W)).astype(np.float16)
    d = Dev()
    npass = nfail = 0
    for name, (_, f) in OPS.items():
        try:
            got = run(d, name, a, b)
        except OSError as e:
            print('FAIL %s: SUBMIT failed: %s' % (name, errno.errorcode.get(e.errno, e.errno)))
            nfail += 1
            continue
        if outdir:
            got.astype('<f2').tofile(os.path.join(outdir, name + '.bin'))
        # numpy in float64, rounded once to fp16 (the engine's result format)
        ref = f(a.astype(np.float64), b.astype(np.float64)).astype(np.float16)
        if wrong:
            ref = (ref.astype(np.float64) + 1).astype(np.float16)
        bad = int(np.count_nonzero(got != ref))
        if bad:
            print('FAIL %s: %d of %d values differ (first: %s vs %s)' % (
                name, bad, got.size, got[got != ref][0], ref[got != ref][0]))
            nfail += 1
        else:
            print('ok   %s: %d values exact' % (name, got.size))
            npass += 1
    d.close()
    print('%d passed, %d failed' % (npass, nfail))
    return 1 if nfail else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
