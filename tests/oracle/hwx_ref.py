#!/usr/bin/env python3
"""Independent reference reader for ANE programs, written from the format facts (the .hwx guide,
the H13 register maps and the fixtures README), not from the C loader.

usage: hwx_ref.py FILE [--raw]
Prints one JSON object: {"format", "generation", "tds": [{"offset", "writes", "coeff":
[[ch, base, size], ...]}]} where coeff lists the kernel-DMA coefficient channels enabled in the
register state after that TD (state carries over from TD to TD).
"""
import json
import struct
import sys

SUBTYPE_GEN = {4: 13, 5: 14, 6: 15, 7: 16, 9: 17, 10: 18}
H13_HEADER = 40          # ten header words
H13_TD_BYTES = 0x274     # TD size when nothing says otherwise (fixtures README)
COEFF_CFG, COEFF_BASE, COEFF_SIZE = 0x1F808, 0x1F848, 0x1F888


def container(data):
    """Returns (text_bytes, first_td_offset, first_td_size) from a .hwx file."""
    magic, cputype, subtype, _ft, ncmds, _sz = struct.unpack_from('<6I', data, 0)
    if magic != 0xBEEFFACE or cputype != 0x80:
        raise ValueError('not an ANE container')
    gen = SUBTYPE_GEN[subtype]
    text = None
    td_addr = td_words = None
    pos = 32
    for _ in range(ncmds):
        cmd, size = struct.unpack_from('<II', data, pos)
        if cmd == 0x19:  # LC_SEGMENT_64
            nsects = struct.unpack_from('<I', data, pos + 64)[0]
            for k in range(nsects):
                s = pos + 72 + 80 * k
                sect = data[s:s + 16].rstrip(b'\0')
                seg = data[s + 16:s + 32].rstrip(b'\0')
                addr, ssize = struct.unpack_from('<QQ', data, s + 32)
                off = struct.unpack_from('<I', data, s + 48)[0]
                if (seg, sect) == (b'__TEXT', b'__text'):
                    text = (addr, data[off:off + ssize])
        elif cmd == 0x4:  # thread: flavor 1 carries BARs, TD address, TD size
            flavor, count = struct.unpack_from('<II', data, pos + 8)
            if flavor == 1:
                state = pos + 16
                td_addr = struct.unpack_from('<Q', data, state + 0x800)[0]
                td_words = struct.unpack_from('<I', data, state + 0x808)[0] + 1
        pos += size
    if text is None:
        raise ValueError('no __TEXT,__text')
    first = td_addr - text[0] if td_addr is not None else 0
    first_size = 4 * td_words if td_words is not None else H13_TD_BYTES
    return gen, text[1], first, first_size


def walk(area, first, first_size):
    regs = {}
    tds = []
    off, size = first, first_size
    seen = set()
    while True:
        if off in seen or off + size > len(area):
            raise ValueError('bad chain')
        seen.add(off)
        w = struct.unpack_from('<%dI' % (size // 4), area, off)
        writes = 0
        i = H13_HEADER // 4
        while i < len(w):
            head = w[i]
            i += 1
            if head == 0:
                continue
            n = (head >> 26) + 1
            a = head & 0x3FFFFFF
            if i + n > len(w):
                raise ValueError('stream overrun')
            for j in range(n):
                regs[a + 4 * j] = w[i + j]
            i += n
            writes += n
        coeff = []
        for ch in range(16):
            if regs.get(COEFF_CFG + 4 * ch, 0) & 1:
                base = regs.get(COEFF_BASE + 4 * ch, 0) >> 6 << 6   # 64-byte units from bit 6
                bsize = regs.get(COEFF_SIZE + 4 * ch, 0) >> 6 << 6
                coeff.append([ch, base, bsize])
        tds.append({'offset': off, 'writes': writes, 'coeff': coeff})
        eon = (w[0] >> 25) & 1
        if eon:
            break
        next_size = (w[1] >> 16) & 0x1FF
        off, size = w[7], 4 * (next_size + 1)
    return tds


def main():
    path = sys.argv[1]
    raw = '--raw' in sys.argv[2:]
    data = open(path, 'rb').read()
    if not raw and data[:4] == struct.pack('<I', 0xBEEFFACE):
        gen, area, first, size = container(data)
        fmt = 'hwx'
    else:
        gen, area, first, size, fmt = 13, data, 0, H13_TD_BYTES, 'raw'
    tds = walk(area, first, size)
    print(json.dumps({'format': fmt, 'generation': 'H%d' % gen, 'tds': tds}))


if __name__ == '__main__':
    main()
