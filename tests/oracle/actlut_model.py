"""Exact model of the 33-knot activation LUT record, written from docs/actlut.md.

Every result is the exact rational value of the documented formula, rounded once to fp16
(nearest, ties to even). Python integers keep everything exact (no floating point here).
"""
import struct

SLOTS = 43
NBYTES = 86
QNAN, PINF, NINF = 0x7e00, 0x7c00, 0xfc00
# mode word fields (docs/actlut.md): bits 3:0 the operation, 5 sign of x to the output, 6 |x|,
# 7 negative x gives +0 (float split only); bit 4 and bits 8..15 unknown
OP, SIGN, ABS, FLUSH, KNOWN = 0x0f, 0x20, 0x40, 0x80, 0xef
FSPLIT_OPS = {5: 'sqrt', 6: 'rsqrt', 7: 'recip', 9: 'log2'}
OTHER_OPS = {3: 'frac', 4: 'int', 10: 'exp2'}


def mode_kind(m):
    """the kind a mode word decodes to, or raises ValueError with the error's name"""
    op = m & OP
    if m & ~KNOWN:
        raise ValueError('mode')
    if op == 8 or op > 10:
        raise ValueError('mode')
    if (m & SIGN) and not (m & ABS):
        raise ValueError('mode bits')
    if (m & FLUSH) and (m & SIGN):
        raise ValueError('mode bits')
    if op in FSPLIT_OPS:
        if not (m & ABS) or not (m & (FLUSH | SIGN)):
            raise ValueError('mode bits')
        return FSPLIT_OPS[op]
    if m & FLUSH:
        raise ValueError('mode bits')
    if op in OTHER_OPS:
        return OTHER_OPS[op]
    if m & ABS:
        return 'odd' if m & SIGN else 'even'
    return 'plain'


def is_nan(h): return (h & 0x7c00) == 0x7c00 and (h & 0x3ff) != 0
def is_inf(h): return (h & 0x7fff) == 0x7c00


def decompose(h):
    """finite fp16 -> (m, e) with value m * 2^e"""
    e = (h >> 10) & 0x1f
    m = h & 0x3ff
    if e == 0:
        ex = -24
    else:
        m |= 0x400
        ex = e - 25
    return (-m if h & 0x8000 else m), ex


def key(h):
    return -(h & 0x7fff) if h & 0x8000 else (h & 0x7fff)


def round_fp16(y, e):
    """y * 2^e (y int) -> nearest fp16 bit pattern, ties to even, overflow to infinity"""
    if y == 0:
        return 0
    sign = 0x8000 if y < 0 else 0
    m = -y if y < 0 else y
    top = m.bit_length() - 1 + e
    if top > 15:
        return sign | PINF
    q = max(top - 10, -24)
    sh = q - e
    if sh <= 0:
        s = m << -sh
    else:
        s = m >> sh
        rem = m - (s << sh)
        half = 1 << (sh - 1)
        if rem > half or (rem == half and (s & 1)):
            s += 1
    if s == 0:
        return sign
    if s >= 2048:
        s >>= 1
        q += 1
    if q > 5:
        return sign | PINF
    if s < 1024:
        return sign | s
    return sign | ((q + 25) << 10) | (s - 1024)


def fix(h, frac):
    m, e = decompose(h)
    return m * (1 << (e + frac)) if e + frac >= 0 else None


class Record:
    def __init__(self, raw):
        if len(raw) < NBYTES:
            raise ValueError('short record')
        self.s = list(struct.unpack('<43H', bytes(raw[:NBYTES])))
        s = self.s
        if any(is_nan(v) for v in s[:41]):
            raise ValueError('nan')
        if any(is_inf(v) for v in s[4:41]):
            raise ValueError('inf coefficient')
        if key(s[0]) > key(s[1]):
            raise ValueError('clamp order')
        self.scale = s[41]
        if not (self.scale <= 20 or self.scale == 64):
            raise ValueError('scale')
        self.mode = s[42]
        self.kind = mode_kind(self.mode)
        op = self.mode & OP
        if self.scale == 64:
            if op > 2:
                raise ValueError('linear mode word')
            self.kind = 'linear'
        if (self.mode & ABS) and key(s[1]) < 0:
            raise ValueError('mode slots')
        if op in FSPLIT_OPS and key(s[1]) <= 0:
            raise ValueError('mode slots')
        if op in (3, 4) and any(v & 0x7fff for v in s[4:41]):
            raise ValueError('op table')
        self.off = 16 * op if op <= 2 else 0
        self.knot = [fix(h, 24) for h in s[4:37]]

    # --- pieces, all values as integers at 2^-48 (v at 2^-24) ---
    def tail(self, right, V, vinf):
        s = self.s
        a, b = (s[39], s[40]) if right else (s[37], s[38])
        ma, ea = decompose(a)
        mb, eb = decompose(b)
        inf = 0
        y = 0
        if vinf and ma != 0:
            inf = 1 if (ma > 0) == (vinf > 0) else -1
        else:
            y = (0 if vinf else ma * V * (1 << (ea + 24))) + mb * (1 << (eb + 48))
        lo, hi = s[2], s[3]
        if key(lo) > key(hi):  # end values of a decreasing function
            lo, hi = hi, lo
        if is_inf(lo):
            if not lo & 0x8000:
                return 0, 1
        elif inf < 0 or (inf == 0 and y < fix(lo, 48)):
            inf, y = 0, fix(lo, 48)
        if is_inf(hi):
            if hi & 0x8000:
                return 0, -1
        elif inf > 0 or (inf == 0 and y > fix(hi, 48)):
            inf, y = 0, fix(hi, 48)
        return y, inf

    def core(self, V, vinf, off):
        sh = 24 - self.scale
        lo_v = -off * (1 << sh)
        hi_v = (32 - off) * (1 << sh)
        if vinf < 0 or (not vinf and V < lo_v):
            return self.tail(False, V, vinf)
        if vinf > 0 or V > hi_v:
            return self.tail(True, V, vinf)
        U = V * (1 << self.scale) + off * (1 << 24)
        i = min(U >> 24, 31)
        f = U - (i << 24)
        k = self.knot
        return k[i] * (1 << 24) + (k[i + 1] - k[i]) * f, 0

    @staticmethod
    def fin(yv, e):
        y, inf = yv
        if inf:
            return PINF if inf > 0 else NINF
        return round_fp16(y, e)

    @staticmethod
    def clamp(x, lo, hi):
        if key(x) < key(lo):
            return lo
        if key(x) > key(hi):
            return hi
        return x

    @staticmethod
    def split(x):
        m, e = decompose(x & 0x7fff)
        while m < 0x400:
            m <<= 1
            e -= 1
        return m, e + 11

    def fsplit(self, a):
        m, e = self.split(a)
        op = self.mode & OP
        neg = op in (6, 7)
        if op in (7, 9):  # m in [0.5, 1), v = m - 0.5
            y, inf = self.core((m << 13) - (1 << 23), 0, 0)
            if neg:
                return self.fin((y, inf), -48 - e)
            if not inf:
                y += e << 48
            return self.fin((y, inf), -48)
        V = m << 13
        if e & 1:
            V *= 2
            e -= 1
        return self.fin(self.core(V, 0, 0), -48 - e // 2 if neg else -48 + e // 2)

    def eval(self, x):
        if is_nan(x):
            return QNAN
        s, md = self.s, self.mode
        lo, hi = s[0], s[1]
        sign = x & 0x8000
        op = md & OP
        if op in FSPLIT_OPS:
            neg = op in (6, 7)
            if (x & 0x7fff) == 0:
                sign = 0
            if sign and (md & FLUSH):
                return 0
            a = self.clamp(x & 0x7fff, lo, hi)
            if (a & 0x7fff) == 0:
                r = NINF if op == 9 else (PINF if neg else 0)
            elif is_inf(a):
                r = 0 if neg else PINF
            else:
                r = self.fsplit(a)
            return r ^ sign
        if md & ABS:
            a = self.clamp(x & 0x7fff, lo, hi)
        else:
            a = self.clamp(x, lo, hi)
            sign = 0
        vi = (-1 if a & 0x8000 else 1) if is_inf(a) else 0
        if self.kind == 'linear':  # spacing 2^-64: lines either side, knot `off` at v = 0
            V = 0 if vi else fix(a, 24)
            if not vi and V == 0:
                r = self.fin((self.knot[self.off] << 24, 0), -48)
            else:
                r = self.fin(self.tail(vi > 0 or V > 0, V, vi), -48)
        elif op == 10:
            if vi:
                r = 0 if vi < 0 else PINF
            else:
                V = fix(a, 24)
                n = V >> 24
                r = self.fin(self.core(V - (n << 24), 0, 0), -48 + n)
        elif op in (3, 4):
            if vi:
                r = 0 if op == 3 else a
            else:
                V = fix(a, 24)
                n = V >> 24
                r = round_fp16(V - (n << 24), -24) if op == 3 else round_fp16(n, 0)
        else:
            r = self.fin(self.core(0 if vi else fix(a, 24), vi, self.off), -48)
        if (md & SIGN) and not is_nan(r):
            r ^= sign
        return r

    def table(self):
        return [self.eval(x) for x in range(65536)]
