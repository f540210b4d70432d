#!/usr/bin/env python3
"""The census's accepted flips against numpy (issue 21; docs/engine-model.md, "The census's
accepted flips against numpy").

Usage: flip_check.py TOOL SHARED WORKDIR [--wrong]

For one bit flipped in one register word of a real program (conv.hwx, the kernels' add.bin), each
a flip `anefw-tool census` finds accepted with changed outputs, the program is run through
`anefw-tool run` on random finite fp16 inputs (raw buffers, so every byte a stride or base could
reach is a known value) and its output buffer compared with numpy's reading of the flipped
registers: the register map's fields (fw/regmap) and the meanings docs/engine-model.md gives them
("Registers the model interprets", "Kernel layout", "Numerics"), computed here from those words
and not from the model. Exact (every output byte). The word is found by name with `inspect
--json`, and must hold the value the case names (a changed fixture says so). --wrong compares
each output with the reading of the unflipped program instead: every case must then disagree,
so a flip the model left out would fail the check. Prints one line a case and exits 0 when every
case agrees (with --wrong: when every case disagrees), 1 otherwise.
"""
import json
import os
import subprocess
import sys

import numpy as np

F16, F32 = np.float16, np.float32

# (program, register, its value in the program, bit flipped, what the flip means)
CASES = [
    ("hwx/conv.hwx", "Common.Cin", 0x3, 0, "Cin 3 -> 2: two input channels"),
    ("hwx/conv.hwx", "Common.ConvCfg", 0x5000A021, 1, "Kw 1 -> 3 over a 1-wide input: taps past it 0"),
    ("hwx/conv.hwx", "Common.ConvCfg", 0x5000A021, 8, "Kh 1 -> 9 over a 1-high input"),
    ("hwx/conv.hwx", "Common.GroupConvCfg", 0x10001, 14, "UnicastEn (UnicastCin 1): depthwise"),
    ("hwx/conv.hwx", "Common.Cfg", 0x04144405, 28, "OutTranspose: C and W swapped at WBase"),
    ("hwx/conv.hwx", "TileDMASrc.PlaneStride", 0x40, 6, "source plane stride 0x40 -> 0"),
    ("hwx/conv.hwx", "NE.KernelCfg", 0x82, 1, "KernelFmt 2 -> 0: the weights' bytes as int8"),
    ("hwx/conv.hwx", "NE.MACCfg", 0x101C00, 4, "BiasMode: each kernel's first fp16 its bias"),
    ("hwx/conv.hwx", "NE.MACCfg", 0x101C00, 16, "NonlinearMode 0 -> 1: ReLU"),
    ("hwx/conv.hwx", "NE.AccBias", 0x0, 14, "AccBias 0 -> 2.0"),
    ("hwx/conv.hwx", "NE.PostScale", 0x3C00, 15, "PostScale 1 -> -1"),
    ("hwx/conv.hwx", "NE.PostScale", 0x3C00, 0, "PostScale 1 -> 1 + 2^-10"),
    ("kernels/binary/add.bin", "Planar.Cfg", 0x80000, 2, "OpMode add -> mul"),
    ("kernels/binary/add.bin", "Planar.Cfg", 0x80000, 3, "OpMode add -> max"),
    ("kernels/binary/add.bin", "Planar.Cfg", 0x80000, 4, "OpMode add -> square of the sum"),
    ("kernels/binary/add.bin", "Planar.Cfg", 0x80000, 5, "ReluEn"),
    ("kernels/binary/add.bin", "Planar.Cfg", 0x80000, 18, "SecSrc 2 -> 3: a - b"),
    ("kernels/binary/add.bin", "L2.L2Cfg", 0x0, 4, "Src2ReLU: a + relu(b)"),
    ("kernels/binary/add.bin", "Planar.PreScale", 0x3C000000, 31, "PreScale 1 -> -1"),
    ("kernels/binary/add.bin", "Planar.PreScale", 0x3C000000, 30, "PreScale 1 -> +inf"),
    ("kernels/binary/add.bin", "Planar.BiasScale", 0x3C000000, 14, "Bias 0 -> 2.0"),
    ("kernels/binary/add.bin", "Planar.BiasScale", 0x3C000000, 31, "Scale 1 -> -1"),
    ("kernels/binary/add.bin", "Planar.BiasScale", 0x3C000000, 30, "Scale 1 -> +inf (0 x inf is +0)"),
]


def bits(v, lsb, width):
    return (v >> lsb) & ((1 << width) - 1)


def h2f(u):
    return np.array([u & 0xFFFF], np.uint16).view(F16)[0].astype(F32)


def round16(r):
    """one rounding to fp16 (nearest even, overflow to inf); a NaN is +0 (guide 03)"""
    with np.errstate(all="ignore"):
        y = np.asarray(r, F32).astype(F16)
    y[np.isnan(y)] = F16(0)
    return y


def relu(v):
    return np.where(v > 0, v, F32(0)).astype(F32)


def tensor(buf, base, c, h, w, ps, rs):
    """element (c, h, w) at base + c PS + h RS + 2 w"""
    x = np.zeros((c, h, w), F32)
    for ci in range(c):
        for hi in range(h):
            o = base + ci * ps + hi * rs
            x[ci, hi] = np.frombuffer(buf[o:o + 2 * w], F16).astype(F32)
    return x


def reading(R, ins, weights, out_len):
    """the output buffer the registers R (name -> word) give for the input buffers"""
    cin, cout = R["Common.Cin"] & 0x1FFFF, R["Common.Cout"] & 0x1FFFF
    win, hin = bits(R["Common.InDim"], 0, 15), bits(R["Common.InDim"], 16, 15)
    wout, hout = bits(R["Common.OutDim"], 0, 15), bits(R["Common.OutDim"], 16, 15)
    cc = R["Common.ConvCfg"]
    kw, kh, sx, sy, px, py = (bits(cc, 0, 5), bits(cc, 5, 5), bits(cc, 13, 2), bits(cc, 15, 2),
                              bits(cc, 17, 5), bits(cc, 22, 5))
    gc = R["Common.GroupConvCfg"]
    assert bits(gc, 0, 13) == 1, "one group"
    depthwise = bits(gc, 14, 1) and bits(gc, 16, 16) == 1
    cfg = R["Common.Cfg"]
    addr = lambda n: R[n] & ~0x3F
    x = tensor(ins["r0"], addr("TileDMASrc.BaseAddr"), cin, hin, win,
               addr("TileDMASrc.PlaneStride"), addr("TileDMASrc.RowStride"))
    mac = R["NE.MACCfg"]
    if mac:
        assert bits(mac, 0, 3) == 0 and bits(mac, 3, 1) == 0, "a convolution, kernels in memory"
        kfmt, bias_first = bits(R["NE.KernelCfg"], 0, 2), bits(mac, 4, 1)
        ps, accb = h2f(R["NE.PostScale"]), h2f(R["NE.AccBias"])
        nin = 1 if depthwise else cin
        y = np.zeros((cout, hout, wout), F32)
        for o in range(cout):
            # OCGSize 0: output o's kernel at the start of coefficient channel o (o < 16), its
            # bias first with BiasMode, then Cin Kh Kw taps in (ci, ky, kx) order
            base = R["KernelDMASrc.CoeffBaseAddr[%d]" % o] & ~0x3F
            n = nin * kh * kw + bias_first
            if kfmt == 2:
                k = np.frombuffer(weights[base:base + 2 * n], F16).astype(F32)
            else:
                k = np.frombuffer(weights[base:base + n], np.int8).astype(F32)
            b, k = (k[0], k[1:]) if bias_first else (F32(0), k)
            k = k.reshape(nin, kh, kw)
            for oy in range(hout):
                for ox in range(wout):
                    acc = F32(0)  # fp32, in the order ci, ky, kx; outside the input: nothing
                    for ci in range(nin):
                        for ky in range(kh):
                            for kx in range(kw):
                                iy, ix = oy * sy + ky - py, ox * sx + kx - px
                                if 0 <= iy < hin and 0 <= ix < win:
                                    acc = F32(acc + F32(x[o if depthwise else ci, iy, ix] * k[ci, ky, kx]))
                    y[o, oy, ox] = F32((acc + b + accb) * ps)
        y = round16(y).astype(F32)
        if bits(mac, 16, 2) == 1:
            y = relu(y)
        assert bits(mac, 16, 2) in (0, 1)
    else:
        y = x
    if bits(cfg, 4, 4):  # the PE: a PreScale, the operation with b, |.|, (+ Bias) x Scale, ReLU
        pc = R["Planar.Cfg"]
        op, rl, cond, sec = bits(pc, 2, 3), bits(pc, 5, 1), bits(pc, 6, 4), bits(pc, 18, 2)
        assert sec in (2, 3) and cond in (0, 1) and not bits(pc, 0, 2) and not bits(pc, 12, 2)
        b = tensor(ins["r1"], addr("TileDMASrc.Src2BaseAddr"), cin, hin, win,
                   addr("TileDMASrc.Src2PlaneStride"), addr("TileDMASrc.Src2RowStride"))
        if bits(R["L2.L2Cfg"], 4, 1):
            b = relu(b)
        if sec == 3:
            b = -b
        bs = R["Planar.BiasScale"]
        fs = np.array([R["Planar.FinalScale"]], np.uint32).view(F32)[0]
        with np.errstate(all="ignore"):
            r = (y * h2f(R["Planar.PreScale"] >> 16)).astype(F32)
            r = [r + b, r * b, np.maximum(r, b), np.minimum(r, b), (r + b) * (r + b)][op].astype(F32)
            if cond:
                r = np.abs(r)
            r = ((r + h2f(bs)) * h2f(bs >> 16)).astype(F32)
            if rl:
                r = relu(r)
            y = (r * fs).astype(F32)
    y = round16(y)
    out = np.zeros(out_len, np.uint8)
    db, drs, dps = addr("TileDMADst.BaseAddr"), addr("TileDMADst.RowStride"), addr("TileDMADst.PlaneStride")
    for c in range(y.shape[0]):
        for h in range(y.shape[1]):
            if bits(cfg, 28, 1):  # OutTranspose: element (c, h, w) at the destination's (w, h, c)
                for w in range(y.shape[2]):
                    o = db + w * dps + h * drs + 2 * c
                    out[o:o + 2] = np.frombuffer(y[c, h, w:w + 1].tobytes(), np.uint8)
            else:
                o = db + c * dps + h * drs
                out[o:o + 2 * y.shape[2]] = np.frombuffer(y[c, h].tobytes(), np.uint8)
    return out


def registers(tool, path):
    j = json.loads(subprocess.run([tool, "inspect", "--json", path], capture_output=True,
                                  text=True, check=True).stdout)
    return {r["reg"]: (r["file_off"], r["value"]) for r in j["tds"][0]["registers"]}, j


def main():
    tool, shared, work = sys.argv[1], sys.argv[2], sys.argv[3]
    wrong = "--wrong" in sys.argv[4:]
    os.makedirs(work, exist_ok=True)
    rng = np.random.default_rng(21)
    bad = 0
    for prog, reg, value, bit, what in CASES:
        src = os.path.join(shared, "fixtures", prog)
        regs, j = registers(tool, src)
        buf = bytearray(open(src, "rb").read())
        off, v = regs[reg]
        if v != value:
            print("FAIL %s %s: holds 0x%x, the case 0x%x" % (prog, reg, v, value))
            bad += 1
            continue
        R0 = {n: w for n, (_, w) in regs.items()}
        R1 = dict(R0)
        R1[reg] = v ^ (1 << bit)
        buf[off:off + 4] = R1[reg].to_bytes(4, "little")
        flipped = os.path.join(work, "flip.bin")
        open(flipped, "wb").write(bytes(buf))
        hwx = prog.endswith(".hwx")
        # the buffers: the hwx's windows, the raw program's BARs (RBase0 5, RBase1 6, WBase 4)
        size = 0xC0 if hwx else 0x7D0000
        names = {"r0": "image" if hwx else "bar5", "r1": "bar6", "w": "probs@output" if hwx else "bar4"}
        ins, args = {}, []
        for k in (("r0",) if hwx else ("r0", "r1")):
            # (conv.hwx's three outputs are one sum, 2 (x0 + x1 + x2): below 0 so the ReLU shows)
            a = rng.uniform(-4, 1 if hwx else 4, size // 2).astype(F16)
            a[a == 0] = F16(1)
            ins[k] = a.tobytes()
            p = os.path.join(work, k + ".bin")
            open(p, "wb").write(ins[k])
            args += ["--in", "%s=%s" % (names[k], p)]
        outp = os.path.join(work, "out.bin")
        if os.path.exists(outp):
            os.remove(outp)
        r = subprocess.run([tool, "run", flipped] + args + ["--out", "%s=%s" % (names["w"], outp)],
                           capture_output=True, text=True)
        if r.returncode != 0 or not os.path.exists(outp):
            print("FAIL %s %s bit %d (%s): run exit %d: %s" % (prog, reg, bit, what, r.returncode,
                                                              (r.stdout + r.stderr).strip()[-300:]))
            bad += 1
            continue
        got = np.fromfile(outp, np.uint8)
        # the weights as the kernel BAR (1) holds them: the program's weights section
        wgt = bytes(buf[j["weights"]["offset"]:j["weights"]["offset"] + j["weights"]["size"]])
        ref = reading(R0 if wrong else R1, ins, wgt, len(got))
        n = int((got.view(np.uint16) != ref.view(np.uint16)).sum())
        ok = (n == 0) != wrong
        bad += not ok
        print("%s %s %s bit %d (%s): %d of %d values differ from the %s reading" %
              ("ok  " if ok else "FAIL", prog, reg, bit, what, n, len(got) // 2,
               "unflipped" if wrong else "flipped"))
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
