"""A scripted peer for anefw-tool remote (docs/service.md, "Transport 2"), written from the
documented framing and record layouts, not from the firmware: it listens on 127.0.0.1, prints
its port, serves one client and misbehaves as asked, so the tool's checks of every answer can be
seen to fail:

  drop-write N   the answer to the Nth WRITE never comes (the ones after it do): the tool must
                 stop with "answers out of order: expected tag T, found T+1"
  drop-write 0   every WRITE answered; the LOAD refused as arena-too-large with 0x12345000
                 bytes needed and 0x10000000 a slot (the control: the transfer passes its
                 checks, and the tool prints the refusal's detail words)
  stall-load 0   every WRITE answered; the LOAD never answered, the connection kept open (a
                 service still working): the tool must give up after its --timeout
  close-load 0   every WRITE answered; the connection closed at the LOAD: the tool must say the
                 link closed, not that the wait ran out
  fixed-input 0  the LOAD answered (program 0x100); PROGRAM_INFO says every BAR used and fixed
                 (as a program whose input is read as kernels from a runtime BAR): the tool
                 must refuse by name, naming the input's BAR, and send no CALL_BARS
  fixed-none 0   the control: every BAR used, none fixed, each 64 bytes read and written; the
                 tool binds them and sends the CALL_BARS, answered deadline-expired

Framing: a5 5a | len u16 | ~len u16 | payload | crc32 (IEEE, over the length fields and the
payload). A record's header: id, size, priority, program, process, procedure, tag, deadline (u32
each); a completion: id, tag, status, err, domain, code, seq, where, data[8] (u32 each).
Bounded: at most 20 s, then it exits."""
import socket
import struct
import sys
import time
import zlib

HELLO, WINDOW, WRITE, LOAD = 0x0001, 0x0008, 0x0006, 0x0200
PROGRAM_INFO, UNLOAD, CALL_BARS = 0x0003, 0x0201, 0x020c
ABORTED, DEADLINE_EXPIRED = 3, 29
REFUSED, PROGRAM_REFUSED, DOM_SESSION, ARENA_TOO_LARGE = 1, 20, 7, 2


def frame(payload):
    n = struct.pack("<HH", len(payload), len(payload) ^ 0xFFFF)
    return b"\xa5\x5a" + n + payload + struct.pack("<I", zlib.crc32(n + payload) & 0xFFFFFFFF)


def completion(cid, tag, data=(), status=0, err=0, domain=0, code=0):
    d = list(data) + [0] * (8 - len(data))
    return struct.pack("<8I8I", cid, tag, status, err, domain, code, 0, 0xFFFFFFFF, *d)


def frames(conn, deadline):
    buf = b""
    while time.time() < deadline:
        conn.settimeout(max(0.1, deadline - time.time()))
        try:
            got = conn.recv(65536)
        except socket.timeout:
            return
        if not got:
            return
        buf += got
        while True:
            i = buf.find(b"\xa5\x5a")
            if i < 0 or len(buf) - i < 6:
                break
            n, nc = struct.unpack_from("<HH", buf, i + 2)
            if n ^ nc != 0xFFFF:
                buf = buf[i + 1:]
                continue
            if len(buf) - i < 6 + n + 4:
                break
            pl = buf[i + 6:i + 6 + n]
            (crc,) = struct.unpack_from("<I", buf, i + 6 + n)
            buf = buf[i + 10 + n:]
            if crc == zlib.crc32(struct.pack("<HH", n, nc) + pl) & 0xFFFFFFFF:
                yield pl


def main():
    mode, arg = sys.argv[1], int(sys.argv[2])
    srv = socket.socket()
    srv.bind(("127.0.0.1", 0))
    srv.listen(1)
    print(srv.getsockname()[1], flush=True)
    deadline = time.time() + 20
    srv.settimeout(20)
    conn, _ = srv.accept()
    writes = 0
    for pl in frames(conn, deadline):
        cid, _size = struct.unpack_from("<II", pl, 0)
        (tag,) = struct.unpack_from("<I", pl, 24)
        if cid == HELLO:
            conn.sendall(frame(completion(cid, tag, (1, 0))))
        elif cid == WINDOW:
            conn.sendall(frame(completion(cid, tag, (0x40100000, 0, 64 << 20, 0))))
        elif cid == WRITE:
            writes += 1
            if not (mode == "drop-write" and writes == arg):
                conn.sendall(frame(completion(cid, tag)))
        elif cid == LOAD and mode == "stall-load":
            continue
        elif cid == LOAD and mode == "close-load":
            break
        elif cid == LOAD and mode in ("fixed-input", "fixed-none"):
            conn.sendall(frame(completion(cid, tag, (0x100, 1))))
        elif cid == PROGRAM_INFO:
            fixed = 0xFFFFFFFF if mode == "fixed-input" else 0
            conn.sendall(frame(completion(cid, tag, (0xFFFFFFFF, fixed, 3, 64, 0, 1, 1))))
        elif cid == CALL_BARS:
            conn.sendall(frame(completion(cid, tag, (0, 0), ABORTED, DEADLINE_EXPIRED)))
        elif cid == UNLOAD:
            conn.sendall(frame(completion(cid, tag)))
        elif cid == LOAD:
            conn.sendall(frame(completion(cid, tag, (0, 0, 0x12345000, 0, 0x10000000, 0),
                                          REFUSED, PROGRAM_REFUSED, DOM_SESSION, ARENA_TOO_LARGE)))
    conn.close()


main()
