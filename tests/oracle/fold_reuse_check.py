#!/usr/bin/env python3
"""Two palette layers over one OCG record: a folded palette reused by a later TD of another shape.

Usage: fold_reuse_check.py TOOL WORKDIR BITS [--wrong]

Builds (anefw-tool mkprog --raw) `input w=8 h=1 c=4; layer paletteBITS cout=8; layer paletteBITS
cout=8 from=prev`: TD 0 reads 4 inputs a channel, TD 1 reads 8. TD 1's CoeffBaseAddr[0] is then
pointed at TD 0's, so both TDs read OCG record 0 of the kernel unit, TD 1 all 8 of each channel's
indices. Where H13 does not stream the width (1, 2, 3, 6 bits) the control path folds the palette
into fp16 for each TD, and an earlier fold may serve a later TD only when it decodes the same
values. Runs the patched program and compares both layers with numpy computed from the kernel
unit's layout (docs/kunit.md): a channel's indices packed LSB first from its start (S bytes
apart), through the unit's codebook, plus the record's per-channel bias; fp16 rounding once a
layer. --wrong checks the references against TD 1 given TD 0's decode (its first 4 weights a
channel, zeros after): a negative that must fail. Prints one line and exits 0 when every value is
within 2 fp16 ulps plus 1e-3, 1 otherwise.
"""
import json
import subprocess
import sys

import numpy as np


def main():
    tool, work, bits = sys.argv[1], sys.argv[2], int(sys.argv[3])
    wrong = "--wrong" in sys.argv[4:]
    desc = f"{work}/fold.desc"
    raw, patched = f"{work}/fold.raw", f"{work}/fold_patched.raw"
    with open(desc, "w") as f:
        f.write(f"input w=8 h=1 c=4\nlayer palette{bits} cout=8\nlayer palette{bits} cout=8 from=prev\n")
    subprocess.run([tool, "mkprog", "--raw", desc, raw], check=True, capture_output=True)
    j = json.loads(subprocess.run([tool, "inspect", raw, "--raw", "--json"], check=True,
                                  capture_output=True, text=True).stdout)
    regs = [{r["reg"]: r for r in td["registers"]} for td in j["tds"]]
    b0 = regs[0]["KernelDMASrc.CoeffBaseAddr[0]"]
    b1 = regs[1]["KernelDMASrc.CoeffBaseAddr[0]"]
    prog = bytearray(open(raw, "rb").read())
    prog[b1["file_off"]:b1["file_off"] + 4] = int(b0["value"]).to_bytes(4, "little")
    open(patched, "wb").write(prog)
    x = (np.random.default_rng(bits).integers(-8, 9, (4, 1, 8)) / 8).astype(np.float16)
    np.save(f"{work}/x.npy", x)
    r = subprocess.run([tool, "run", patched, "--raw", "--in", f"bar5={work}/x.npy",
                        "--out", f"bar6={work}/o6.npy", "--out", f"bar7={work}/o7.npy"],
                       capture_output=True, text=True)
    if r.returncode:
        print(f"run failed: {r.stdout[-300:]} {r.stderr[-300:]}")
        return 1
    o6 = np.load(f"{work}/o6.npy").astype(np.float64)[:, 0, :]
    o7 = np.load(f"{work}/o7.npy").astype(np.float64)[:, 0, :]
    # the kernel unit (docs/kunit.md): header words, six sections of (offset, size, ., .)
    w = j["weights"]
    u = bytes(prog[w["offset"]:w["offset"] + w["size"]])
    u32 = lambda o: int.from_bytes(u[o:o + 4], "little")
    sec = [(u32(0x20 + 16 * i), u32(0x24 + 16 * i)) for i in range(6)]
    s = u32(0x1c)
    lut = np.frombuffer(u[sec[1][0]:sec[1][0] + 2 * (1 << bits)], np.float16).astype(np.float64)
    bias = np.frombuffer(u[sec[4][0]:sec[4][0] + sec[4][1]], np.float16).astype(np.float64)
    ocg = sec[2][0]
    off0, nch = u32(ocg + 8), u32(ocg + 12)

    def weights(per, keep):
        out = np.zeros((nch, per))
        for c in range(nch):
            start = sec[5][0] + off0 + c * s
            b = np.unpackbits(np.frombuffer(u[start:start + s], np.uint8), bitorder="little")
            for i in range(min(per, keep)):
                out[c, i] = lut[int(sum(int(b[i * bits + k]) << k for k in range(bits)))]
        return out

    e6 = (weights(4, 4) @ x.astype(np.float64)[:, 0, :] + bias[:8, None]).astype(np.float16)
    e7 = (weights(8, 4 if wrong else 8) @ o6 + bias[:8, None]).astype(np.float16)
    bad = 0
    for got, want in ((o6, e6), (o7, e7)):
        want = want.astype(np.float64)
        ulp = np.spacing(np.abs(want).astype(np.float16)).astype(np.float64)
        bad += int(np.sum(np.abs(got - want) > 2 * ulp + 1e-3))
    print(f"palette{bits}, TD 1 over TD 0's record: {bad} of {o6.size + o7.size} values outside; "
          f"largest difference {max(np.abs(o6 - e6).max(), np.abs(o7 - e7).max()):.4g}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
