"""Exact model of the 33-knot activation LUT record, written from docs/actlut.md.

Every result is the exact rational value of the documented formula, rounded once to fp16
(nearest, ties to even). Python integers keep everything exact (no floating point here).
"""
import struct

SLOTS = 43
NBYTES = 86
QNAN, PINF, NINF = 0x7e00, 0x7c00, 0xfc00
MODES = {0x01: 'plain', 0x60: 'odd', 0x0a: 'exp2', 0xc9: 'log2', 0xc5: 'sqrt',
         0x1c9: 'recip', 0x1c5: 'rsqrt'}


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
        if key(s[0]) > key(s[1]) or key(s[2]) > key(s[3]):
            raise ValueError('clamp order')
        self.scale = s[41]
        if not (self.scale <= 20 or self.scale == 64):
            raise ValueError('scale')
        if s[42] not in MODES:
            raise ValueError('mode')
        self.kind = MODES[s[42]]
        if self.scale == 64:
            if self.kind != 'plain':
                raise ValueError('linear mode word')
            self.kind = 'linear'
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

    def eval(self, x):
        if is_nan(x):
            return QNAN
        s, k = self.s, self.kind
        lo, hi = s[0], s[1]
        vinf_of = lambda h: (-1 if h & 0x8000 else 1) if is_inf(h) else 0
        if k == 'linear':
            x = self.clamp(x, lo, hi)
            vi = vinf_of(x)
            V = 0 if vi else fix(x, 24)
            return self.fin(self.tail(not (vi < 0 or V < 0), V, vi), -48)
        if k == 'plain':
            x = self.clamp(x, lo, hi)
            vi = vinf_of(x)
            return self.fin(self.core(0 if vi else fix(x, 24), vi, 16), -48)
        if k == 'odd':
            sign = x & 0x8000
            a = self.clamp(x & 0x7fff, lo, hi)
            vi = vinf_of(a)
            r = self.fin(self.core(0 if vi else fix(a, 24), vi, 0), -48)
            return r if is_nan(r) else r ^ sign
        if k == 'exp2':
            x = self.clamp(x, lo, hi)
            if is_inf(x):
                return 0 if x & 0x8000 else PINF
            V = fix(x, 24)
            n = V >> 24
            return self.fin(self.core(V - (n << 24), 0, 0), -48 + n)
        if k in ('log2', 'recip'):
            x = self.clamp(x, lo, hi)
            sign = x & 0x8000
            rc = k == 'recip'
            if (x & 0x7fff) == 0:
                return (sign | PINF) if rc else NINF
            if sign and not rc:
                return QNAN
            if is_inf(x):
                return sign if rc else PINF
            m, e = self.split(x)
            V = (m << 13) - (1 << 23)
            y, inf = self.core(V, 0, 0)
            if rc:
                return self.fin((y, inf), -48 - e) ^ sign
            if not inf:
                y += e << 48
            return self.fin((y, inf), -48)
        # sqrt / rsqrt
        x = self.clamp(x, lo, hi)
        rs = k == 'rsqrt'
        if (x & 0x7fff) == 0:
            return PINF if rs else 0
        if x & 0x8000:
            return QNAN
        if is_inf(x):
            return 0 if rs else PINF
        m, e = self.split(x)
        V = m << 13
        if e & 1:
            V *= 2
            e -= 1
        r = self.core(V, 0, 0)
        return self.fin(r, -48 - e // 2 if rs else -48 + e // 2)

    def table(self):
        return [self.eval(x) for x in range(65536)]
