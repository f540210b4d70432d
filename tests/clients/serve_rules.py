#!/usr/bin/python3
"""A host client of the served firmware (`serve=1`), written from docs/service.md's framing and
record layouts, for the service's rules a whole-program client cannot reach (39-remote.sh):

  rb_constant_fixed     addconst (y = a + b, b the program's constant the tile DMA reads through
                        BAR 1, Apple's rb form): PROGRAM_INFO names BAR 1 fixed, a CALL_BARS
                        binding it is override-fixed-bar
  chain_from_an_input   CHAIN [addconst, relu: relu.BAR6 <- addconst.BAR5]: BAR 5 is addconst's
                        input, which it only reads: bad-link at step 1 (relu would write its
                        output into addconst's own memory)
  chain_from_a_constant the same from BAR 1 (its constant): bad-link
  chain_from_an_output  the control: relu.BAR5 <- addconst.BAR4 (its output) runs both steps; a
                        CALL_BARS of addconst afterwards still gives numpy's a + b exactly
  read_before_write     READ y then WRITE 0x77 over y, sent in one burst: the READ answers the
                        bytes before the WRITE (the control: a READ after it answers the 0x77s)
  hello_unloads         a client loads four programs (the table's size) and goes away without
                        UNLOAD; the next client's HELLO unloads them (data[3] = 4) and its LOAD
                        succeeds (before: program-table-full until shutdown)

Usage: serve_rules.py PORT ADDCONST.BIN A.NPY REF.NPY RELU.BIN
Prints "ok NAME" or "FAIL NAME: why" per rule; exit 0 when every rule held."""
import socket
import struct
import sys
import time
import zlib

import numpy as np

sys.path.insert(0, __file__.rsplit('/', 1)[0])
import accel_elementwise as ew  # noqa: E402 (the tile layout of the elementwise TD)

HELLO, WINDOW, WRITE, READ, LOAD, UNLOAD = 1, 8, 6, 7, 0x200, 0x201
PROGRAM_INFO, CALL_BARS, CHAIN = 3, 0x20c, 0x212
E_OV_FIXED, E_LINK = 23, 28


class Link:
    def __init__(self, port):
        for k in range(100):  # QEMU takes the next client once the last one has gone
            try:
                self.s = socket.create_connection(('127.0.0.1', port), timeout=60)
                break
            except ConnectionRefusedError:
                if k == 99:
                    raise
                time.sleep(0.1)
        self.tag = 0
        self.buf = b''

    def rec(self, cid, body=b'', program=-1):
        self.tag += 1
        return struct.pack('<IIIiiIII', cid, len(body), 0, program, 0, 0, self.tag, 0) + body, self.tag

    @staticmethod
    def frame(p):
        n = struct.pack('<HH', len(p), len(p) ^ 0xFFFF)
        return b'\xa5\x5a' + n + p + struct.pack('<I', zlib.crc32(n + p) & 0xFFFFFFFF)

    def answer(self):
        while True:
            i = self.buf.find(b'\xa5\x5a')
            if i >= 0 and len(self.buf) - i >= 6:
                n, nc = struct.unpack_from('<HH', self.buf, i + 2)
                if n ^ nc != 0xFFFF:
                    self.buf = self.buf[i + 1:]
                    continue
                if len(self.buf) - i >= 10 + n:
                    p = self.buf[i + 6:i + 6 + n]
                    self.buf = self.buf[i + 10 + n:]
                    return struct.unpack_from('<8I8I', p), p[64:]
            got = self.s.recv(65536)
            if not got:
                raise SystemExit('FAIL link: closed')
            self.buf += got

    def ask(self, r, ok=True):
        self.s.sendall(self.frame(r[0]))
        c, extra = self.answer()
        if c[1] != r[1]:
            raise SystemExit('FAIL link: answer tag %d, expected %d' % (c[1], r[1]))
        if ok and c[3] != 0:
            raise SystemExit('FAIL link: id %#x refused: err %d domain %d code %d where %d' %
                             (c[0], c[3], c[4], c[5], c[7]))
        return c, extra

    def hello(self):
        return self.ask(self.rec(HELLO, struct.pack('<II', 1, 0)))[0]

    def write_rec(self, off, data):
        return self.rec(WRITE, struct.pack('<QII', off, len(data), 0) + data)

    def read_rec(self, off, n):
        return self.rec(READ, struct.pack('<QII', off, n, 0))

    def write(self, off, data):
        for k in range(0, len(data), 512):
            self.ask(self.write_rec(off + k, data[k:k + 512]))

    def read(self, off, n):
        return b''.join(self.ask(self.read_rec(off + k, min(512, n - k)))[1] for k in range(0, n, 512))

    def load(self, wdev, at, prog):
        self.write(at, prog)
        return self.ask(self.rec(LOAD, struct.pack('<QQII', wdev + at, len(prog), 1, 0)))[0][8]

    def close(self):
        self.s.close()


def main(argv):
    port = int(argv[1])
    addconst = open(argv[2], 'rb').read()
    a, ref = np.load(argv[3]), np.load(argv[4])
    relu = open(argv[5], 'rb').read()
    fails = 0

    def result(name, ok, why=''):
        nonlocal fails
        print(('ok %s' % name) if ok else ('FAIL %s: %s' % (name, why)), flush=True)
        fails += not ok

    ln = Link(port)
    ln.hello()
    c, _ = ln.ask(ln.rec(WINDOW))
    wdev = c[8] | c[9] << 32
    A = ln.load(wdev, 0, addconst)
    B = ln.load(wdev, 0x8000, relu)
    n = ew.C * ew.PLANE
    AO, YO = 0x10000, 0x20000
    ln.write(AO, ew.to_tile(a))

    def call_a():
        ln.write(YO, bytes(n))
        c, _ = ln.ask(ln.rec(CALL_BARS, struct.pack('<II', 2, 0) +
                             struct.pack('<IIQQ', 5, 1, wdev + AO, n) +
                             struct.pack('<IIQQ', 4, 2, wdev + YO, n), A), ok=False)
        return c, ew.from_tile(ln.read(YO, n))

    # the weights BAR the tile DMA reads: fixed
    c, _ = ln.ask(ln.rec(PROGRAM_INFO, struct.pack('<II', 1, 0), A))
    fixed, need1 = c[9], c[11]
    c, _ = ln.ask(ln.rec(CALL_BARS, struct.pack('<II', 1, 0) +
                         struct.pack('<IIQQ', 1, 1, wdev + 0x30000, max(need1, 64)), A), ok=False)
    result('rb_constant_fixed', fixed >> 1 & 1 and c[3] == E_OV_FIXED,
           'fixed mask %#x, CALL_BARS binding BAR 1: err %d' % (fixed, c[3]))

    def chain(link):
        steps = struct.pack('<iIII', A, 0, 0, 0) + bytes(64) + \
            struct.pack('<iIII', B, 0, 1, 0) + struct.pack('<II', *link) + bytes(8 * 7)
        return ln.ask(ln.rec(CHAIN, struct.pack('<II', 2, 0) + steps, A), ok=False)[0]

    c = chain((6, 5))
    result('chain_from_an_input', c[3] == E_LINK and c[7] == 1 and c[8] == 1,
           'err %d where %d steps %d' % (c[3], c[7], c[8]))
    c = chain((6, 1))
    result('chain_from_a_constant', c[3] == E_LINK and c[7] == 1,
           'err %d where %d steps %d' % (c[3], c[7], c[8]))
    c = chain((5, 4))
    st, y = call_a()
    bad = int(np.count_nonzero(y != ref))
    result('chain_from_an_output', c[3] == 0 and c[8] == 2 and st[3] == 0 and bad == 0,
           'chain err %d steps %d; the call after it: err %d, %d of %d values differ from numpy '
           'a + b' % (c[3], c[8], st[3], bad, ref.size))

    # a READ, then a WRITE over the same bytes, in one burst
    before = ln.read(YO, 512)
    r, w = ln.read_rec(YO, 512), ln.write_rec(YO, b'\x77' * 512)
    ln.s.sendall(ln.frame(r[0]) + ln.frame(w[0]))
    got = {}
    for _ in range(2):
        c, extra = ln.answer()
        got[c[1]] = extra
    after = ln.read(YO, 512)
    result('read_before_write', got.get(r[1]) == before and after == b'\x77' * 512,
           'the READ answered %s, the bytes after the WRITE %s' % (
               'the bytes before it' if got.get(r[1]) == before else
               'the WRITE\'s bytes' if got.get(r[1]) == b'\x77' * 512 else 'other bytes',
               'are the WRITE\'s' if after == b'\x77' * 512 else 'are not the WRITE\'s'))
    ln.ask(ln.rec(UNLOAD, b'', A))
    ln.ask(ln.rec(UNLOAD, b'', B))
    ln.close()

    # a client that fills the program table and goes away without UNLOAD
    k = Link(port)
    k.hello()
    for _ in range(4):
        k.load(wdev, 0, relu)
    k.close()
    k = Link(port)
    h = k.hello()
    k.write(0, relu)
    c, _ = k.ask(k.rec(LOAD, struct.pack('<QQII', wdev, len(relu), 1, 0)), ok=False)
    result('hello_unloads', h[11] == 4 and c[3] == 0,
           'HELLO unloaded %d programs, then LOAD: err %d' % (h[11], c[3]))
    if c[3] == 0:
        k.ask(k.rec(UNLOAD, b'', c[8]))
    k.close()
    return 1 if fails else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
