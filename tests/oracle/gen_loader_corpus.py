#!/usr/bin/env python3
"""Writes DIR/loader_corpus/: two small valid programs built from the format facts (an H13 .hwx
container and a raw task stream, each with two chained TDs), and malformed variants that each
break one invariant. index.txt lists "FILE EXPECTED_ERROR MODE" (MODE: auto, raw or hwx).

Deterministic: no randomness, same bytes every run.
"""
import os
import struct
import sys

TEXT_VM = 0x30000000
IN_VM = 0x30004000
OUT_VM = 0x30008000
TD_STRIDE = 0x300
TD_BYTES = 0x274
TEXT_SIZE = TD_STRIDE + TD_BYTES
CONST_VM = TEXT_VM + 0x580
CONST_SIZE = 0x100
TEXT_FILEOFF = 0x1000
RELOC_OFF = 0x2000

# H13 register blocks as the task descriptor lays them out: (base byte address, words)
BLOCKS = [(0x1F800, 62), (0x0, 16), (0x13800, 28), (0x4800, 18), (0x8800, 4), (0xC800, 5),
          (0x17800, 7)]


def u32(v):
    return struct.pack('<I', v & 0xFFFFFFFF)


def name16(s):
    return s.encode().ljust(16, b'\0')


def td(index, last, next_ptr, coeffs, lut):
    """One H13 TD: 10 header words, then one write run per block. coeffs: [(ch, base, size)]."""
    regs = {}
    for base, n in BLOCKS:
        for i in range(n):
            regs[base + 4 * i] = 0
    for ch in range(16):
        regs[0x1F808 + 4 * ch] = 0x80          # cache hint 2, disabled
        regs[0x1F888 + 4 * ch] = 0x40
    for ch, b, s in coeffs:
        regs[0x1F808 + 4 * ch] = 0x81          # enabled
        regs[0x1F848 + 4 * ch] = b
        regs[0x1F888 + 4 * ch] = s
    regs[0x0] = 0x1004D                          # InDim
    regs[0xC804] = (2 << 16) if lut else (1 << 16)  # MACCfg NonlinearMode: 2 = LUT, 1 = ReLU
    hdr = [0] * 10
    hdr[0] = index | (1 << 24 if last else 0) | (1 << 25 if last else 0)
    hdr[1] = 0 if last else ((TD_BYTES // 4 - 1) << 16)
    hdr[2] = 0x422
    hdr[6] = 0x30009800
    hdr[7] = 0 if last else next_ptr
    hdr[8] = 5 | 1 << 5 | 4 << 12 | 1 << 17 | 1 << 24  # RBase0=5 en, WBase=4 en, ENE 1
    hdr[9] = (1 | 1 << 5) if coeffs else 0             # KBase0=1 en
    out = b''.join(u32(w) for w in hdr)
    for base, n in BLOCKS:
        out += u32(((n - 1) << 26) | base)
        out += b''.join(u32(regs[base + 4 * i]) for i in range(n))
    assert len(out) == TD_BYTES
    return bytearray(out)


def lut_record():
    vals = [0xBC00, 0x4900, 0x0000, 0x3800] + [0x2000 + 0x40 * i for i in range(33)] + [0] * 6
    assert len(vals) == 43
    return b''.join(struct.pack('<H', v) for v in vals).ljust(0x80, b'\0')


def td_area():
    area = bytearray(TEXT_SIZE)
    area[0:TD_BYTES] = td(0, False, TD_STRIDE, [(0, 0x0, 0x40), (1, 0x40, 0x40)], False)
    area[TD_STRIDE:TD_STRIDE + TD_BYTES] = td(1, True, 0, [(0, 0x80, 0x80)], True)
    return area


def weights():
    w = bytearray(CONST_SIZE)
    w[0:0x40] = bytes([0x00, 0x3C]) * 0x20
    w[0x40:0x80] = bytes([0x00, 0x40]) * 0x20
    w[0x80:0x100] = lut_record()
    return w


class Hwx:
    """Builds the container and remembers where each field landed (for mutations)."""

    def __init__(self):
        self.at = {}
        cmds = []
        # __TEXT with __text and __const
        seg = u32(0x19) + u32(72 + 2 * 80) + name16('__TEXT')
        seg += struct.pack('<4Q', TEXT_VM, 0x4000, TEXT_FILEOFF, 0x1000)
        seg += u32(5) + u32(5) + u32(2) + u32(0)
        s_text = name16('__text') + name16('__TEXT') + struct.pack('<2Q', TEXT_VM, TEXT_SIZE)
        s_text += u32(TEXT_FILEOFF) + u32(4) + u32(RELOC_OFF) + u32(2) + u32(0x80000400) + u32(0) * 3
        s_const = name16('__const') + name16('__TEXT') + struct.pack('<2Q', CONST_VM, CONST_SIZE)
        s_const += u32(TEXT_FILEOFF + 0x580) + u32(4) + u32(0) + u32(0) + u32(0) + u32(0) * 3
        cmds.append(('seg_text', seg + s_text + s_const))
        for tag, vm, prot, sect in (('seg_in', IN_VM, 1, '__const'), ('seg_out', OUT_VM, 2, '__data')):
            seg = u32(0x19) + u32(72 + 80) + name16('__FVMLIB')
            seg += struct.pack('<4Q', vm, 0x4000, 0, 0) + u32(prot) + u32(prot) + u32(1) + u32(0)
            seg += name16(sect) + name16('__FVMLIB') + struct.pack('<2Q', vm, 0xC0)
            seg += u32(0) * 2 + u32(0) * 2 + u32(0x21) + u32(0) * 3
            cmds.append((tag, seg))
        for tag, vm, nm in (('name_in', IN_VM, 'image'), ('name_out', OUT_VM, 'out@output')):
            body = u32(20) + u32(0) + u32(vm) + nm.encode() + b'\0'
            body = body.ljust((len(body) + 8 + 7) // 8 * 8 - 8, b'\0')
            cmds.append((tag, u32(6) + u32(8 + len(body)) + body))
        state = bytearray(0x850)
        for slot, addr in ((0, TEXT_VM), (1, CONST_VM), (4, OUT_VM), (5, IN_VM)):
            state[8 * slot:8 * slot + 8] = struct.pack('<Q', addr)
        state[0x800:0x808] = struct.pack('<Q', TEXT_VM)
        state[0x808:0x80C] = u32(TD_BYTES // 4 - 1)
        state[0x80C:0x810] = u32(2)
        thread = u32(1) + u32(len(state) // 4) + bytes(state) + b'net\0\0\0\0\0'
        cmds.append(('thread', u32(4) + u32(8 + len(thread)) + thread))
        note = b'ANEC v1\nzin_ane_compiler test-corpus\n\t-t h13\n\0'.ljust(48, b'\0')
        cmds.append(('note', u32(8) + u32(8 + len(note)) + note))
        cmds.append(('symtab', u32(2) + u32(24) + u32(0) * 4))
        off = 32
        body = b''
        for tag, c in cmds:
            self.at[tag] = off
            off += len(c)
            body += c
        hdr = u32(0xBEEFFACE) + u32(0x80) + u32(4) + u32(2) + u32(len(cmds)) + u32(len(body))
        hdr += u32(0) + u32(0)
        self.at['header'] = 0
        f = bytearray(hdr + body)
        assert len(f) <= TEXT_FILEOFF
        f = f.ljust(TEXT_FILEOFF, b'\0')
        f += td_area()
        f = f.ljust(TEXT_FILEOFF + 0x580, b'\0')
        f += weights()
        f = f.ljust(RELOC_OFF, b'\0')
        for addr in (0x74, 0x78):  # TD 0 CoeffBaseAddr[0], [1] -> section 2 (__TEXT,__const)
            f += u32(addr) + u32(2 | 1 << 24 | 2 << 25)
        f = f.ljust(RELOC_OFF + 0x100, b'\0')
        self.data = f
        # field offsets used by mutations
        st = self.at['seg_text']
        self.sect_text = st + 72
        self.sect_const = st + 72 + 80
        self.state = self.at['thread'] + 16
        self.text = TEXT_FILEOFF

    def copy(self):
        return bytearray(self.data)


def put32(b, off, v):
    b[off:off + 4] = u32(v)


def put64(b, off, v):
    b[off:off + 8] = struct.pack('<Q', v)


def get32(b, off):
    return struct.unpack_from('<I', b, off)[0]


def raw_stream():
    return bytes(td_area()) + bytes(0x580 - TEXT_SIZE) + bytes(weights())


def compact_raw(next0):
    """The raw stream with TD 0 compact, as Apple's compiler writes multi-TD programs: its last
    block (TileDMADst) left out, so it ends at 0x254, and TD 1 moved up to next0."""
    a = bytearray(td_area())
    td0 = bytearray(a[:block_hdr_off(0, len(BLOCKS) - 1)])
    put32(td0, 0x1C, next0)
    td0 = td0[:next0]  # a next pointer inside TD 0's writes cuts them there
    out = td0 + bytes(next0 - len(td0)) + a[TD_STRIDE:TD_STRIDE + TD_BYTES]
    out += bytes(-len(out) % 16)
    return bytes(out) + bytes(weights())


def block_hdr_off(td_off, block):
    """File-independent offset (inside the TD area) of a block's stream header word."""
    off = td_off + 0x28
    for base, n in BLOCKS[:block]:
        off += 4 + 4 * n
    return off


def main():
    out = os.path.join(sys.argv[1] if len(sys.argv) > 1 else 'build/testdata', 'loader_corpus')
    os.makedirs(out, exist_ok=True)
    h = Hwx()
    cases = []

    def add(name, data, err, mode='auto'):
        with open(os.path.join(out, name + '.bin'), 'wb') as f:
            f.write(bytes(data))
        cases.append((name + '.bin', err, mode))

    def mut(name, err, fn, mode='auto'):
        b = h.copy()
        r = fn(b)
        add(name, r if r is not None else b, err, mode)

    T = h.text
    add('valid_hwx', h.data, 'ok')
    add('valid_raw', raw_stream(), 'ok')
    mut('bad_magic_macho', 'bad_magic', lambda b: put32(b, 0, 0xFEEDFACF))
    mut('bad_magic_forced', 'bad_magic', lambda b: put32(b, 0, 0x12345678), 'hwx')
    mut('bad_cputype', 'bad_cputype', lambda b: put32(b, 4, 0x0100000C))
    mut('bad_version', 'bad_version', lambda b: put32(b, 8, 8))
    mut('unsupported_h14', 'unsupported_generation', lambda b: put32(b, 8, 5))
    mut('truncated_header', 'truncated', lambda b: b[:20])
    mut('cmds_past_file', 'cmd_outside_file', lambda b: put32(b, 20, len(b)))
    mut('cmd_size_tiny', 'bad_cmd_size', lambda b: put32(b, h.at['seg_text'] + 4, 4))
    mut('cmd_size_misaligned', 'bad_cmd_size', lambda b: put32(b, h.at['seg_text'] + 4, 72 + 160 + 2))
    mut('cmd_size_past_cmds', 'bad_cmd_size', lambda b: put32(b, h.at['symtab'] + 4, 0x100))
    mut('too_many_cmds', 'over_limit', lambda b: put32(b, 16, 65))
    mut('segment_past_file', 'segment_outside_file', lambda b: put64(b, h.at['seg_text'] + 48, 0x100000))
    mut('section_past_file', 'section_outside_file', lambda b: put32(b, h.sect_text + 48, len(b) - 4))
    mut('section_outside_segment_vm', 'section_outside_segment',
        lambda b: put64(b, h.sect_const + 32, TEXT_VM + 0x4000 - 0x80))
    mut('section_outside_segment_file', 'section_outside_segment',
        lambda b: put32(b, h.sect_const + 48, RELOC_OFF))
    mut('sections_overlap_vm', 'sections_overlap', lambda b: put64(b, h.sect_const + 32, TEXT_VM + 0x500))
    mut('sections_overlap_file', 'sections_overlap', lambda b: put32(b, h.sect_const + 48, T + 0x500))
    mut('name_offset_past_cmd', 'bad_name', lambda b: put32(b, h.at['name_in'] + 8, 0x100))

    def unterminated(b):
        o = h.at['name_in']
        size = get32(b, o + 4)
        b[o + 20:o + size] = b'A' * (size - 20)
    mut('name_unterminated', 'bad_name', unterminated)
    mut('no_text', 'no_text_section', lambda b: b.__setitem__(slice(h.sect_text, h.sect_text + 6), b'__txet'))
    mut('thread_count_small', 'bad_thread', lambda b: put32(b, h.at['thread'] + 12, 0x10))
    mut('thread_count_past_cmd', 'bad_thread', lambda b: put32(b, h.at['thread'] + 12, 0xFFFF))
    mut('window_name_unknown_addr', 'unknown_window', lambda b: put32(b, h.at['name_out'] + 16, 0x30010000))
    mut('td_addr_outside_text', 'td_outside_text', lambda b: put64(b, h.state + 0x800, TEXT_VM + 0x1000))
    mut('td_first_size_small', 'bad_td_size', lambda b: put32(b, h.state + 0x808, 5))
    mut('td_next_outside_text', 'td_outside_text', lambda b: put32(b, T + 0x1C, 0x400))
    mut('td_next_size_small', 'bad_td_size', lambda b: put32(b, T + 4, 5 << 16))
    mut('td_overlapping', 'td_outside_text', lambda b: put32(b, T + 0x1C, 0x100))

    def overrun(b):
        o = T + block_hdr_off(TD_STRIDE, 6)
        put32(b, o, get32(b, o) + (1 << 26))
    mut('stream_overrun', 'stream_overrun', overrun)

    def unknown_reg(b):
        o = T + block_hdr_off(0, 4)
        put32(b, o, (get32(b, o) & ~0x3FFFFFF) | 0x9800)
    mut('unknown_register', 'unknown_register', unknown_reg)

    def misaligned_reg(b):
        o = T + block_hdr_off(0, 4)
        put32(b, o, (get32(b, o) & ~0x3FFFFFF) | 0x8802)
    mut('misaligned_register', 'unknown_register', misaligned_reg)

    def past_block(b):
        o = T + block_hdr_off(0, 5)  # NE: 5 words from 0xc800; start one word later
        put32(b, o, (get32(b, o) & ~0x3FFFFFF) | 0xC804)
    mut('register_past_block', 'unknown_register', past_block)
    mut('bar_unset_slot', 'bar_out_of_range', lambda b: put32(b, T + 0x20, get32(b, T + 0x20) | 7 << 18 | 1 << 23))
    mut('bar_kbase_unset', 'bar_out_of_range', lambda b: put32(b, T + 0x24, 3 | 1 << 5))
    mut('reloc_past_section', 'reloc_outside_section', lambda b: put32(b, RELOC_OFF, TEXT_SIZE - 2))
    mut('reloc_table_past_file', 'reloc_outside_section', lambda b: put32(b, h.sect_text + 56, len(b) - 8))
    mut('reloc_scattered', 'reloc_outside_section', lambda b: put32(b, RELOC_OFF, 0x80000074))
    mut('reloc_bad_section', 'bad_reloc_target', lambda b: put32(b, RELOC_OFF + 4, 9 | 1 << 24 | 2 << 25))
    mut('reloc_extern_no_symbols', 'bad_reloc_target', lambda b: put32(b, RELOC_OFF + 4, 0 | 2 << 25 | 1 << 27))

    def self_loop(b):
        put32(b, T + TD_STRIDE, 1)                       # not end-of-network
        put32(b, T + TD_STRIDE + 4, (TD_BYTES // 4 - 1) << 16)
        put32(b, T + TD_STRIDE + 0x1C, TD_STRIDE)        # points at itself
    mut('chain_self_loop', 'chain_loop', self_loop)

    def chain_break(b):
        put32(b, T + TD_STRIDE, 1)
    mut('chain_no_end', 'chain_break', chain_break)
    mut('td_count_mismatch', 'td_count_mismatch', lambda b: put32(b, h.state + 0x80C, 3))
    mut('td_count_over_limit', 'over_limit', lambda b: put32(b, h.state + 0x80C, 1000))
    mut('coeff_past_weights', 'coeff_outside_weights', lambda b: put32(b, T + 0x2C + 0x88 + 4, 0x1000))

    # raw task streams
    def rmut(name, err, fn, mode='auto'):
        b = bytearray(raw_stream())
        r = fn(b)
        add(name, r if r is not None else b, err, mode)
    rmut('raw_truncated', 'truncated', lambda b: b[:16], 'raw')
    rmut('raw_cut_in_td', 'td_outside_text', lambda b: b[:TD_STRIDE + 0x100])
    rmut('raw_unknown_register', 'unknown_register',
         lambda b: put32(b, block_hdr_off(0, 6), (get32(b, block_hdr_off(0, 6)) & ~0x3FFFFFF) | 0x20000))
    rmut('raw_self_loop', 'chain_loop', self_loop_raw)
    rmut('raw_overrun', 'stream_overrun',
         lambda b: put32(b, block_hdr_off(0, 6), get32(b, block_hdr_off(0, 6)) + (2 << 26)))
    rmut('raw_coeff_past_weights', 'coeff_outside_weights',
         lambda b: put32(b, TD_STRIDE + 0x2C + 0x48, 0x100))
    rmut('raw_chain_break', 'chain_break', lambda b: put32(b, TD_STRIDE, 1))
    # TD 0's next pointer sizes the first TD of a raw stream when it is nearer than 0x274; a
    # next pointer inside TD 0's own writes still cuts its stream (named, not misread)
    add('raw_compact_first_td', compact_raw(0x260), 'ok')
    add('raw_compact_first_td_cut', compact_raw(0x240), 'stream_overrun')

    with open(os.path.join(out, 'index.txt'), 'w') as f:
        f.write('# file expected_error mode (generated by tests/oracle/gen_loader_corpus.py)\n')
        for c in cases:
            f.write('%s %s %s\n' % c)


def self_loop_raw(b):
    put32(b, TD_STRIDE, 1)
    put32(b, TD_STRIDE + 4, (TD_BYTES // 4 - 1) << 16)
    put32(b, TD_STRIDE + 0x1C, TD_STRIDE)


if __name__ == '__main__':
    main()
