#!/usr/bin/python3
"""Golden vectors for the weight codecs: gen_codecs.py DIR writes DIR/codecs/.

Case files (<decoder>.cases), all little-endian u32: "ACV1", case count, then per case
  nparams, params..., nblobs, (blob length, blob bytes padded to 4)...
with the expected output as the last blob. Parameters and blobs per decoder:
  palette:   bits vector groups count        | indices lut(fp16) expected(fp16)
  sparse:    count                           | mask values(fp16) expected(fp16)
  affine:    type(0 int8,1 uint8) channels count has_zp | q scale(fp16) zp expected
  blockwise: type block count has_offset (0 none, 1 fp16, 2 int8, 3 uint8) | q scale(fp16) offset(fp16) expected
  tflm:      bits type(0..3) channels alt count | bitstring table expected
fp8 tables (raw): e4m3_to_fp16.bin, e5m2_to_fp16.bin (256 u16), fp16_to_{e4m3,e5m2}_{nan,sat}.bin
(65536 bytes, indexed by the fp16 pattern).
cli/: inputs and expected outputs for the anefw-tool command lines in cli/cases.txt.
"""
import os
import struct
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import codec_oracle as O  # noqa: E402

N_CASES = 10000


def blob(b):
    b = bytes(b)
    return struct.pack("<I", len(b)) + b + b"\0" * (-len(b) % 4)


def case(params, blobs):
    out = struct.pack("<I", len(params)) + b"".join(struct.pack("<I", p) for p in params)
    return out + struct.pack("<I", len(blobs)) + b"".join(blob(b) for b in blobs)


def write_cases(path, cases):
    with open(path, "wb") as f:
        f.write(b"ACV1" + struct.pack("<I", len(cases)))
        for c in cases:
            f.write(c)


def rand_f16(rng, n, finite=True):
    """Random fp16 patterns covering all binades, subnormals and both signs."""
    h = rng.integers(0, 65536, n, dtype=np.uint32).astype(np.uint16)
    if finite:
        bad = (h & 0x7c00) == 0x7c00
        h[bad] &= 0xbbff  # clear one exponent bit: finite
    return h


def small_count(rng, hi=40):
    r = rng.random()
    if r < 0.05:
        return 0
    if r < 0.98:
        return int(rng.integers(1, hi))
    return int(rng.integers(hi, 600))


def gen_palette(rng):
    cases = []
    for _ in range(N_CASES):
        bits = int(rng.choice(O.PALETTE_BITS))
        vector = int(rng.choice(O.PALETTE_VECTORS))
        groups = int(rng.integers(1, 5))
        while groups * (1 << bits) * vector > 640:  # keep the file small: shrink big codebooks
            if groups > 1:
                groups -= 1
            else:
                vector = 1 if vector <= 2 else 2
        per = small_count(rng)
        nidx = per * groups
        count = nidx * vector
        idx = rng.integers(0, 1 << bits, nidx)
        data = O.pack_lsb_first(idx, bits)
        lut = rand_f16(rng, groups * (1 << bits) * vector, finite=False)
        exp = O.palette_decode(data, lut, bits, vector, groups, count)
        cases.append(case([bits, vector, groups, count], [data, lut.tobytes(), exp.tobytes()]))
    return cases


def gen_sparse(rng):
    cases = []
    for _ in range(N_CASES):
        count = small_count(rng, 100)
        density = rng.random()
        keep = rng.random(count) < density
        mask = np.packbits(keep.astype(np.uint8), bitorder="little").tobytes()
        vals = rand_f16(rng, int(keep.sum()), finite=False)
        exp = O.sparse_decode(mask, vals, count)
        cases.append(case([count], [mask, vals.tobytes(), exp.tobytes()]))
    return cases


def gen_affine(rng):
    cases = []
    for _ in range(N_CASES):
        qtype = int(rng.integers(0, 2))
        big = rng.random() < 0.01
        channels = int(rng.integers(1, 3 if big else 6))
        run = int(rng.integers(512, 600)) if big else small_count(rng, 30)
        count = run * channels
        q = rng.integers(0, 256, count, dtype=np.uint32).astype(np.uint8)
        nscale = channels if rng.random() < 0.5 else 1
        scale = rand_f16(rng, nscale)
        has_zp = int(rng.random() < 0.6)
        zp = rng.integers(0, 256, channels if rng.random() < 0.5 else 1, dtype=np.uint32).astype(np.uint8) if has_zp else None
        tname = "int8" if qtype == 0 else "uint8"
        exp = O.affine_decode(q.tobytes(), tname, scale, zp.tobytes() if has_zp else None, channels)
        cases.append(case([qtype, channels, count, has_zp],
                          [q.tobytes(), scale.tobytes(), zp.tobytes() if has_zp else b"", exp.tobytes()]))
    return cases


def gen_blockwise(rng):
    cases = []
    for _ in range(N_CASES):
        qtype = int(rng.integers(0, 2))
        block = int(rng.choice([1, 2, 3, 4, 8, 16, 32, 64])) if rng.random() < 0.98 else 512
        nblocks = int(rng.integers(0, 8))
        count = block * nblocks
        q = rng.integers(0, 256, count, dtype=np.uint32).astype(np.uint8)
        scale = rand_f16(rng, nblocks)
        has_off = int(rng.random() < 0.6)
        off = rand_f16(rng, nblocks) if has_off else None
        if has_off and rng.random() < 0.5:  # offsets near the quantized range, often integers
            off = np.array([O.f16_bits(np.array([v]))[0] for v in rng.integers(-130, 260, nblocks) / (1 << int(rng.integers(0, 4)))],
                           dtype=np.uint16).reshape(-1)
        tname = "int8" if qtype == 0 else "uint8"
        otype = "fp16"
        if has_off and rng.random() < 0.4:  # offsets in a quantized type: 2 = int8, 3 = uint8
            has_off = int(rng.integers(2, 4))
            otype = "int8" if has_off == 2 else "uint8"
            off = rng.integers(0, 256, nblocks, dtype=np.uint32).astype(np.uint8)
        exp = O.blockwise_decode(q.tobytes(), tname, block, scale, off.tobytes() if has_off >= 2 else off, otype)
        cases.append(case([qtype, block, count, has_off],
                          [q.tobytes(), scale.tobytes(), off.tobytes() if has_off else b"", exp.tobytes()]))
    return cases


TFLM_NAMES = ["int8", "int16", "int32", "float32", "int64", "bool"]  # enum codec_tflm_type order


def gen_tflm(rng):
    cases = []
    for _ in range(N_CASES):
        bits = int(rng.integers(1, 8))
        tcode = int(rng.integers(0, 6)) if rng.random() < 0.5 else 0
        esz = O.TFLM_TYPES[TFLM_NAMES[tcode]]
        channels = 1 if rng.random() < 0.4 else int(rng.integers(1, 6))
        alt = int(channels > 1 and rng.random() < 0.5)
        run = small_count(rng, 40) if rng.random() < 0.9 else int(rng.integers(60, 700))  # some block runs
        count = run * channels
        stride = int(rng.integers(1, min(1 << bits, 128) + 1)) if rng.random() < 0.5 else min(1 << bits, 128)
        idx = rng.integers(0, stride, count)
        data = O.pack_msb_first(idx, bits)
        table = rng.integers(0, 256, stride * channels * esz, dtype=np.uint32).astype(np.uint8).tobytes()
        exp = O.tflm_decode(data, bits, table, esz, channels, alt, count)
        assert exp is not None
        cases.append(case([bits, tcode, channels, alt, count], [data, table, exp]))
    return cases


def gen_fp8(d):
    O.fp8_to_fp16_table("e4m3").astype("<u2").tofile(os.path.join(d, "e4m3_to_fp16.bin"))
    O.fp8_to_fp16_table("e5m2").astype("<u2").tofile(os.path.join(d, "e5m2_to_fp16.bin"))
    for sat, tag in ((False, "nan"), (True, "sat")):
        O.fp16_to_e4m3_all(sat).tofile(os.path.join(d, "fp16_to_e4m3_%s.bin" % tag))
        O.fp16_to_e5m2_all(sat).tofile(os.path.join(d, "fp16_to_e5m2_%s.bin" % tag))


def wr(path, b):
    with open(path, "wb") as f:
        f.write(bytes(b))


def gen_cli(rng, d):
    """Files for the anefw-tool command lines; cases.txt: NAME<TAB>ARGS ({D} = this dir,
    output written to {OUT}, expected in NAME.expect)."""
    lines = []
    # palette, several widths, a vector palette and grouped codebooks
    for bits, vector, groups in ((1, 1, 1), (2, 1, 2), (3, 2, 1), (4, 1, 1), (4, 1, 3), (6, 4, 2), (8, 5, 1), (8, 1, 4)):
        nidx = groups * int(rng.integers(50, 400))
        count = nidx * vector
        idx = rng.integers(0, 1 << bits, nidx)
        data = O.pack_lsb_first(idx, bits)
        lut = rand_f16(rng, groups * (1 << bits) * vector, finite=False)
        name = "palette_b%d_v%d_g%d" % (bits, vector, groups)
        wr(os.path.join(d, name + ".in"), data)
        wr(os.path.join(d, name + ".lut"), lut.tobytes())
        wr(os.path.join(d, name + ".expect"), O.palette_decode(data, lut, bits, vector, groups, count).tobytes())
        extra = (" --vector %d" % vector if vector != 1 else "") + (" --groups %d" % groups if groups != 1 else "")
        lines.append("%s\tdecode palette --bits %d --count %d --lut {D}/%s.lut%s {D}/%s.in {OUT}" % (name, bits, count, name, extra, name))
    # sparse at 37% density
    count = 5000
    keep = rng.random(count) < 0.37
    mask = np.packbits(keep.astype(np.uint8), bitorder="little").tobytes()
    vals = rand_f16(rng, int(keep.sum()))
    wr(os.path.join(d, "sparse.mask"), mask)
    wr(os.path.join(d, "sparse.values"), vals.tobytes())
    wr(os.path.join(d, "sparse.expect"), O.sparse_decode(mask, vals, count).tobytes())
    lines.append("sparse\tdecode sparse --count %d {D}/sparse.mask {D}/sparse.values {OUT}" % count)
    # affine: per-tensor int8 symmetric, per-channel uint8 with zero points
    for name, tname, channels, nzp in (("affine_int8", "int8", 1, 0), ("affine_uint8_pc", "uint8", 4, 4), ("affine_int8_pc", "int8", 3, 1)):
        count = channels * 700
        q = rng.integers(0, 256, count, dtype=np.uint32).astype(np.uint8)
        scale = rand_f16(rng, channels)
        zp = rng.integers(0, 256, nzp, dtype=np.uint32).astype(np.uint8) if nzp else None
        wr(os.path.join(d, name + ".q"), q.tobytes())
        wr(os.path.join(d, name + ".scale"), scale.tobytes())
        args = "decode affine --type %s --count %d --scale {D}/%s.scale" % (tname, count, name)
        if zp is not None:
            wr(os.path.join(d, name + ".zp"), zp.tobytes())
            args += " --zero-point {D}/%s.zp" % name
        if channels > 1:
            args += " --channels %d" % channels
        wr(os.path.join(d, name + ".expect"), O.affine_decode(q.tobytes(), tname, scale, zp.tobytes() if zp is not None else None, channels).tobytes())
        lines.append("%s\t%s {D}/%s.q {OUT}" % (name, args, name))
    # blockwise with and without offsets; offsets fp16 (--offset-type fp16) or in a quantized
    # type (given, or by default the data's own type)
    for name, tname, block, otype, flag in (("blockwise_int8", "int8", 32, None, None),
                                            ("blockwise_uint8_off", "uint8", 16, "fp16", "fp16"),
                                            ("blockwise_int8_qoff", "int8", 32, "int8", None),
                                            ("blockwise_uint8_qoff", "uint8", 64, "uint8", None),
                                            ("blockwise_int8_uoff", "int8", 8, "uint8", "uint8"),
                                            ("blockwise_uint8_ioff", "uint8", 4, "int8", "int8")):
        nb = 100
        count = nb * block
        q = rng.integers(0, 256, count, dtype=np.uint32).astype(np.uint8)
        scale = rand_f16(rng, nb)
        off = None
        if otype == "fp16":
            off = rand_f16(rng, nb).tobytes()
        elif otype:
            off = rng.integers(0, 256, nb, dtype=np.uint32).astype(np.uint8).tobytes()
        wr(os.path.join(d, name + ".q"), q.tobytes())
        wr(os.path.join(d, name + ".scale"), scale.tobytes())
        args = "decode blockwise --type %s --count %d --block %d --scale {D}/%s.scale" % (tname, count, block, name)
        if otype:
            wr(os.path.join(d, name + ".offset"), off)
            args += " --offset {D}/%s.offset" % name
        if flag:
            args += " --offset-type %s" % flag
        offv = np.frombuffer(off, dtype="<u2") if otype == "fp16" else off
        wr(os.path.join(d, name + ".expect"), O.blockwise_decode(q.tobytes(), tname, block, scale, offv, otype or "fp16").tobytes())
        lines.append("%s\t%s {D}/%s.q {OUT}" % (name, args, name))
    # fp8 both ways, exhaustive
    codes = np.arange(256, dtype=np.uint8).tobytes()
    wr(os.path.join(d, "fp8_codes.in"), codes)
    wr(os.path.join(d, "e4m3_decode.expect"), O.fp8_to_fp16_table("e4m3").astype("<u2").tobytes())
    wr(os.path.join(d, "e5m2_decode.expect"), O.fp8_to_fp16_table("e5m2").astype("<u2").tobytes())
    lines.append("e4m3_decode\tdecode e4m3 {D}/fp8_codes.in {OUT}")
    lines.append("e5m2_decode\tdecode e5m2 {D}/fp8_codes.in {OUT}")
    wr(os.path.join(d, "fp16_all.in"), np.arange(65536, dtype="<u2").tobytes())
    for kind in ("e4m3", "e5m2"):
        for sat in (False, True):
            fn = O.fp16_to_e4m3_all if kind == "e4m3" else O.fp16_to_e5m2_all
            name = "%s_enc_%s" % (kind, "sat" if sat else "nan")
            wr(os.path.join(d, name + ".expect"), fn(sat).tobytes())
            lines.append("%s\tencode %s%s {D}/fp16_all.in {OUT}" % (name, kind, " --saturate" if sat else ""))
    # tflm: each width, the three channel layouts, all types
    for bits in range(1, 8):
        for tname, channels, alt in (("int8", 1, 0), ("int16", 4, 0), ("int32", 3, 1), ("float32", 2, 0),
                                     ("int64", 2, 1), ("bool", 1, 0), ("int16", 4, 1)):
            esz = O.TFLM_TYPES[tname]
            count = channels * 300
            stride = min(1 << bits, 128)
            idx = rng.integers(0, stride, count)
            data = O.pack_msb_first(idx, bits)
            table = rng.integers(0, 256, stride * channels * esz, dtype=np.uint32).astype(np.uint8).tobytes()
            name = "tflm_b%d_%s_c%d%s" % (bits, tname, channels, "_alt" if alt else "")
            wr(os.path.join(d, name + ".in"), data)
            wr(os.path.join(d, name + ".table"), table)
            wr(os.path.join(d, name + ".expect"), O.tflm_decode(data, bits, table, esz, channels, alt, count))
            args = "decode tflm --bits %d --count %d --type %s --table {D}/%s.table" % (bits, count, tname, name)
            if channels > 1:
                args += " --channels %d" % channels
            if alt:
                args += " --alt-axis"
            lines.append("%s\t%s {D}/%s.in {OUT}" % (name, args, name))
    with open(os.path.join(d, "cases.txt"), "w") as f:
        f.write("\n".join(lines) + "\n")


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: gen_codecs.py DIR")
    d = os.path.join(sys.argv[1], "codecs")
    os.makedirs(os.path.join(d, "cli"), exist_ok=True)
    seed = 0x5eed_c0dec
    for i, (name, fn) in enumerate((("palette", gen_palette), ("sparse", gen_sparse), ("affine", gen_affine),
                                    ("blockwise", gen_blockwise), ("tflm", gen_tflm))):
        write_cases(os.path.join(d, name + ".cases"), fn(np.random.default_rng(seed + i)))
    gen_fp8(d)
    gen_cli(np.random.default_rng(seed + 100), os.path.join(d, "cli"))


if __name__ == "__main__":
    main()
