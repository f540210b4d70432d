"""Reference decoders for the weight codecs, written from the documents (guide-07, guide-25,
guide-36, tflm-compression.txt) with numpy, independently of fw/codec/. Values go through
numpy's float64 (exact for every product and difference here) and one cast to float16, which
rounds to nearest even; fp8 encodes pick the nearest grid point with ties to the even code.
Every function returns numpy arrays; fp16 results are uint16 bit patterns."""
import numpy as np

PALETTE_BITS = (1, 2, 3, 4, 6, 8)
PALETTE_VECTORS = tuple(v for v in range(32) if (0x36 >> v) & 1)  # guide-25: mask 0x36


def f16_bits(x64):
    """float64 array -> fp16 bit patterns (one RNE rounding)."""
    with np.errstate(over="ignore"):  # overflow to infinity is the defined result
        return np.asarray(x64, dtype=np.float64).astype(np.float16).view(np.uint16)


def f16_values(bits):
    return np.asarray(bits, dtype=np.uint16).view(np.float16).astype(np.float64)


# ---------------- palette (guide-07 worked example: low nibble first) ----------------
def pack_lsb_first(indices, bits):
    idx = np.asarray(indices, dtype=np.uint64)
    if idx.size == 0:
        return b""
    planes = ((idx[:, None] >> np.arange(bits, dtype=np.uint64)) & 1).astype(np.uint8)
    return np.packbits(planes.reshape(-1), bitorder="little").tobytes()


def unpack_lsb_first(data, bits, n):
    raw = np.unpackbits(np.frombuffer(data, dtype=np.uint8), bitorder="little")
    planes = raw[: n * bits].reshape(n, bits).astype(np.uint32)
    return (planes << np.arange(bits, dtype=np.uint32)).sum(axis=1).astype(np.int64)


def palette_decode(data, lut, bits, vector, groups, count):
    """lut: uint16 array of groups * 2^bits * vector values; codebook[g][index][v]."""
    nidx = count // vector
    idx = unpack_lsb_first(data, bits, nidx)
    cb = np.asarray(lut, dtype=np.uint16).reshape(groups, 1 << bits, vector)
    per = nidx // groups if groups else 0
    g = np.arange(nidx) // per if per else np.zeros(0, dtype=np.int64)
    return cb[g, idx, :].reshape(-1).astype(np.uint16)


# ---------------- structured sparsity (guide-25 listing 25.2 / 25.3) ----------------
def sparse_decode(mask, values, count):
    keep = np.unpackbits(np.frombuffer(mask, dtype=np.uint8), bitorder="little")[:count].astype(bool)
    out = np.zeros(count, dtype=np.uint16)
    out[keep] = np.asarray(values, dtype=np.uint16)
    return out


# ---------------- affine and blockwise ----------------
def q_values(qbytes, qtype):
    dt = np.int8 if qtype == "int8" else np.uint8
    return np.frombuffer(bytes(qbytes), dtype=dt).astype(np.float64)


def affine_decode(qbytes, qtype, scale_bits, zp_bytes, channels):
    """w = scale * (q - zero_point), scale and zero point scalar or per channel."""
    q = q_values(qbytes, qtype)
    run = len(q) // channels
    ch = np.arange(len(q)) // run if run else np.zeros(0, dtype=np.int64)
    s = f16_values(scale_bits)
    s = s[ch] if len(s) > 1 else np.full(len(q), s[0])
    if zp_bytes is None:
        z = np.zeros(len(q))
    else:
        z = q_values(zp_bytes, qtype)
        z = z[ch] if len(z) > 1 else np.full(len(q), z[0])
    return f16_bits(s * (q - z))


def blockwise_decode(qbytes, qtype, block, scale_bits, offset_bits, offset_type="fp16"):
    """w = scale[b] * (q - offset[b]) per contiguous block b. The offset is optional; it is fp16
    bit patterns (offset_type "fp16") or raw int8 / uint8 bytes (Core ML's
    constexpr_blockwise_shift_scale keeps it in the data's type)."""
    q = q_values(qbytes, qtype)
    b = np.arange(len(q)) // block
    s = f16_values(scale_bits)[b]
    if offset_bits is None:
        o = np.zeros(len(q))
    elif offset_type == "fp16":
        o = f16_values(offset_bits)[b]
    else:
        o = q_values(bytes(offset_bits), offset_type)[b]
    return f16_bits(s * (q - o))


# ---------------- fp8 (guide-36) ----------------
def e4m3_value(code):
    """E4M3FN: bias 7, 3 mantissa bits, no infinity, S.1111.111 is NaN."""
    s = -1.0 if code & 0x80 else 1.0
    e = (code >> 3) & 15
    m = code & 7
    if e == 15 and m == 7:
        return float("nan")
    if e == 0:
        return s * m / 8.0 * 2.0 ** -6
    return s * (1 + m / 8.0) * 2.0 ** (e - 7)


def e5m2_value(code):
    """E5M2: bias 15, 2 mantissa bits, IEEE-style infinities and NaNs."""
    s = -1.0 if code & 0x80 else 1.0
    e = (code >> 2) & 31
    m = code & 3
    if e == 31:
        return s * float("inf") if m == 0 else float("nan")
    if e == 0:
        return s * m / 4.0 * 2.0 ** -14
    return s * (1 + m / 4.0) * 2.0 ** (e - 15)


def fp8_to_fp16_table(kind):
    out = np.zeros(256, dtype=np.uint16)
    for c in range(256):
        v = e4m3_value(c) if kind == "e4m3" else e5m2_value(c)
        if v != v:
            out[c] = (0xfe00 if c & 0x80 else 0x7e00) if kind == "e4m3" else c << 8
        elif v == 0:
            out[c] = 0x8000 if c & 0x80 else 0
        else:
            out[c] = int(f16_bits(np.array([v]))[0])
    return out


def _nearest_code(x, grid_vals, grid_codes):
    """Nearest grid value to each |x|, ties to the even code. grid sorted ascending."""
    pos = np.searchsorted(grid_vals, x)
    pos = np.clip(pos, 1, len(grid_vals) - 1)
    lo, hi = grid_vals[pos - 1], grid_vals[pos]
    dlo, dhi = x - lo, hi - x
    pick_hi = (dhi < dlo) | ((dhi == dlo) & (grid_codes[pos] % 2 == 0))
    return np.where(pick_hi, grid_codes[pos], grid_codes[pos - 1])


def fp16_to_e4m3_all(saturate):
    """All 65536 fp16 inputs -> E4M3FN, round to nearest even; overflow saturates to 0x7e or
    gives NaN 0x7f by the mode; infinities follow the mode; NaN gives NaN."""
    h = np.arange(65536, dtype=np.uint32)
    x = f16_values(h.astype(np.uint16))
    sign = np.where(h & 0x8000, 0x80, 0).astype(np.uint32)
    codes = np.arange(0, 0x7f)  # finite positive codes 0..0x7e
    vals = np.array([e4m3_value(c) for c in codes])
    # the next grid step past 448 would be 480 with code 0x7f: choosing it means overflow
    vals = np.append(vals, 480.0)
    codes = np.append(codes, 0x7f)
    ax = np.abs(x)
    finite = np.isfinite(ax)
    c = np.zeros(65536, dtype=np.int64)
    c[finite] = _nearest_code(np.minimum(ax[finite], 1e9), vals, codes)
    over = (~finite & ~np.isnan(ax)) | (finite & ((c == 0x7f) | (ax > 480)))
    c = np.where(over, 0x7e if saturate else 0x7f, c)
    c = np.where(np.isnan(ax), 0x7f, c)
    return (c.astype(np.uint32) | sign).astype(np.uint8)


def fp16_to_e5m2_all(saturate):
    """All 65536 fp16 inputs -> E5M2: RNE to the 2-bit mantissa grid, overflow to infinity
    (or 0x7b when saturating finite values), infinity kept, NaN -> 0x7e with the sign."""
    h = np.arange(65536, dtype=np.uint32)
    x = f16_values(h.astype(np.uint16))
    sign = np.where(h & 0x8000, 0x80, 0).astype(np.uint32)
    codes = np.arange(0, 0x7c)
    vals = np.array([e5m2_value(c) for c in codes])
    vals = np.append(vals, 65536.0)  # the next step past 57344: infinity
    codes = np.append(codes, 0x7c)
    ax = np.abs(x)
    finite = np.isfinite(ax)
    c = np.full(65536, 0x7c, dtype=np.int64)
    c[finite] = _nearest_code(ax[finite], vals, codes)
    if saturate:
        c = np.where(finite & (c == 0x7c), 0x7b, c)
    c = np.where(np.isnan(ax), 0x7e, c)
    return (c.astype(np.uint32) | sign).astype(np.uint8)


# ---------------- TFLM LUT bitstrings ----------------
TFLM_TYPES = {"int8": 1, "int16": 2, "int32": 4, "float32": 4, "int64": 8, "bool": 1}


def pack_msb_first(indices, bits):
    idx = np.asarray(indices, dtype=np.uint64)
    if idx.size == 0:
        return b""
    planes = ((idx[:, None] >> np.arange(bits - 1, -1, -1, dtype=np.uint64)) & 1).astype(np.uint8)
    return np.packbits(planes.reshape(-1), bitorder="big").tobytes()


def tflm_decode(data, bits, table, elem_size, channels, alt_axis, count):
    """Indices big-endian bit order; per-channel value tables concatenated with a fixed stride.
    Returns output bytes, or None when an index is beyond its channel's table."""
    raw = np.unpackbits(np.frombuffer(data, dtype=np.uint8), bitorder="big")
    planes = raw[: count * bits].reshape(count, bits).astype(np.uint32)
    idx = (planes << np.arange(bits - 1, -1, -1, dtype=np.uint32)).sum(axis=1).astype(np.int64)
    vals = np.frombuffer(table, dtype=np.uint8).reshape(-1, elem_size)
    stride = len(vals) // channels
    if count and np.any(idx >= stride):
        return None
    e = np.arange(count)
    ch = e % channels if alt_axis else e // (count // channels) if count else e
    return vals[ch * stride + idx].tobytes()
