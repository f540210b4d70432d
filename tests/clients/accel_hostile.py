#!/usr/bin/python3
"""A hostile client of /dev/accel/accel0 (docs/asahi.md "Bad use"): every misuse of the Asahi
ANE uAPI must get the errno the kernel would return, never a crash, and the device must keep
working afterwards. Run under `anefw-tool accel`; prints "ok NAME" or "FAIL NAME: why" per case
and exits 1 when any failed.

  accel_hostile.py KERNEL.bin     (a raw eiln kernel: eiln's add, 1 TD, BARs 4, 5, 6)
"""
import ctypes
import errno
import fcntl
import mmap
import os
import struct
import sys


def iowr(nr, size):
    return (3 << 30) | (size << 16) | (ord('d') << 8) | nr


SUBMIT_FMT = '<QII32III'
VERSION = iowr(0x00, 64)
BO_INIT = iowr(0x41, 24)
BO_FREE = iowr(0x42, 8)
SUBMIT = iowr(0x43, struct.calcsize(SUBMIT_FMT))
RESULTS = []


def check(name, cond, why=''):
    RESULTS.append(cond)
    print(('ok   %s' % name) if cond else ('FAIL %s: %s' % (name, why)))


def expect_errno(name, want, fn):
    try:
        fn()
    except OSError as e:
        check(name, e.errno == want, 'errno %s, expected %s' % (
            errno.errorcode.get(e.errno), errno.errorcode[want]))
        return
    check(name, False, 'succeeded, expected %s' % errno.errorcode[want])


class Dev:
    def __init__(self):
        self.fd = os.open('/dev/accel/accel0', os.O_RDWR)

    def bo(self, size, pad=0):
        b = bytearray(struct.pack('<IIQQ', 0, pad, size, 0))
        fcntl.ioctl(self.fd, BO_INIT, b, True)
        h, _, _, off = struct.unpack('<IIQQ', b)
        return h, off

    def free(self, h, pad=0):
        fcntl.ioctl(self.fd, BO_FREE, bytearray(struct.pack('<II', h, pad)), True)

    def map(self, size, off):
        return mmap.mmap(self.fd, size, mmap.MAP_SHARED, mmap.PROT_READ | mmap.PROT_WRITE,
                         offset=off)

    def submit(self, tsk, count, tdsz, handles, btsp, pad=0):
        h = list(handles) + [0] * (32 - len(handles))
        fcntl.ioctl(self.fd, SUBMIT, bytearray(struct.pack(SUBMIT_FMT, tsk, count, tdsz, *h,
                                                            btsp, pad)), True)


def setup(d, prog, tile=0x7d0000, dst_size=None):
    """The add kernel as libane lays it out: BAR 0 the program, BAR 4 dst, 5 and 6 sources, and
    a bootstrap BO holding the first TD with NID 0x40."""
    bos = {}
    for bar, size in ((0, 0x8000), (4, dst_size or tile), (5, tile), (6, tile)):
        bos[bar] = d.bo(size)
    bt = d.bo(0x4000)
    m = d.map(0x8000, bos[0][1])
    m[:len(prog)] = prog
    mb = d.map(0x4000, bt[1])
    mb[:0x274] = prog[:0x274]
    w = struct.unpack('<I', mb[:4])[0]
    mb[:4] = struct.pack('<I', (w & 0xf00ffff) | (0x40 << 16))
    handles = [0] * 7
    for bar, (h, _) in bos.items():
        handles[bar] = h
    return handles, bt[0], bos, (m, mb)


def main():
    prog = open(sys.argv[1], 'rb').read()
    d = Dev()
    # VERSION answers "ane"; then the ioctls no driver has
    v = bytearray(64)
    fcntl.ioctl(d.fd, VERSION, v, True)
    check('version_name_length', struct.unpack_from('<Q', v, 16)[0] == 3)
    expect_errno('unknown_ioctl', errno.EINVAL, lambda: fcntl.ioctl(d.fd, iowr(0x4f, 8), bytearray(8), True))
    expect_errno('unknown_ioctl_other_size', errno.EINVAL,
                 lambda: fcntl.ioctl(d.fd, iowr(0x41, 16), bytearray(16), True))
    # a bad pointer is EFAULT, not a crash
    expect_errno('bo_init_bad_pointer', errno.EFAULT, lambda: fcntl.ioctl(d.fd, BO_INIT, 16))
    expect_errno('submit_bad_pointer', errno.EFAULT, lambda: fcntl.ioctl(d.fd, SUBMIT, 4096))
    # BO_INIT
    expect_errno('bo_init_size_zero', errno.EINVAL, lambda: d.bo(0))
    expect_errno('bo_init_pad_nonzero', errno.EINVAL, lambda: d.bo(4096, pad=1))
    expect_errno('bo_init_too_large', errno.ENOMEM, lambda: d.bo(1 << 40))
    # BO_FREE: bad handles, double free
    expect_errno('bo_free_bad_handle', errno.ENOENT, lambda: d.free(12345))
    expect_errno('bo_free_handle_zero', errno.ENOENT, lambda: d.free(0))
    h, off = d.bo(4096)
    expect_errno('bo_free_pad_nonzero', errno.EINVAL, lambda: d.free(h, pad=7))
    d.free(h)
    expect_errno('bo_double_free', errno.ENOENT, lambda: d.free(h))
    # mmap at a wrong offset or size, and of a freed BO
    h, off = d.bo(8192)
    expect_errno('mmap_wrong_offset', errno.EINVAL, lambda: d.map(4096, off + 4096))
    expect_errno('mmap_unknown_offset', errno.EINVAL, lambda: d.map(4096, 0))
    expect_errno('mmap_too_large', errno.EINVAL, lambda: d.map(3 * 4096, off))
    m = d.map(8192, off)
    d.free(h)
    expect_errno('mmap_after_free', errno.EINVAL, lambda: d.map(4096, off))
    m[:4] = b'abcd'  # the pages a mapping holds stay valid after the free, as GEM's do
    check('mapping_outlives_free', m[:4] == b'abcd')
    m.close()
    # submits
    handles, btsp, bos, maps = setup(d, prog)
    d.submit(0x274, 1, 0x274, handles, btsp)
    check('valid_submit_runs', True)
    expect_errno('submit_no_tds', errno.EINVAL, lambda: d.submit(0x274, 0, 0x274, handles, btsp))
    expect_errno('submit_td_size_zero', errno.EINVAL, lambda: d.submit(0x274, 1, 0, handles, btsp))
    expect_errno('submit_tsk_size_zero', errno.EINVAL, lambda: d.submit(0, 1, 0x274, handles, btsp))
    expect_errno('submit_td_count_wrong', errno.EINVAL, lambda: d.submit(0x274, 2, 0x274, handles, btsp))
    expect_errno('submit_tsk_size_past_bo', errno.EINVAL, lambda: d.submit(0x8000, 1, 0x274, handles, btsp))
    expect_errno('submit_pad_nonzero', errno.EINVAL, lambda: d.submit(0x274, 1, 0x274, handles, btsp, pad=1))
    expect_errno('submit_no_btsp', errno.EINVAL, lambda: d.submit(0x274, 1, 0x274, handles, 0))
    expect_errno('submit_bad_btsp', errno.ENOENT, lambda: d.submit(0x274, 1, 0x274, handles, 9999))
    bad = list(handles)
    bad[5] = 9999
    expect_errno('submit_bad_handle', errno.ENOENT, lambda: d.submit(0x274, 1, 0x274, bad, btsp))
    bad = list(handles)
    bad[0] = 0
    expect_errno('submit_no_command_bo', errno.EINVAL, lambda: d.submit(0x274, 1, 0x274, bad, btsp))
    bad = list(handles)
    bad[1] = handles[5]
    expect_errno('submit_handle_at_bar1', errno.EINVAL, lambda: d.submit(0x274, 1, 0x274, bad, btsp))
    bad = list(handles)
    bad[6] = 0
    expect_errno('submit_addressed_bar_without_bo', errno.EINVAL,
                 lambda: d.submit(0x274, 1, 0x274, bad, btsp))
    # a BO too small for what the TDs address
    small = d.bo(0x4000)[0]
    bad = list(handles)
    bad[4] = small
    expect_errno('submit_bo_too_small', errno.EINVAL, lambda: d.submit(0x274, 1, 0x274, bad, btsp))
    # a submission the policy refuses: a source BO larger than a grant may be (256 MiB)
    huge = d.bo(512 << 20)[0]
    bad = list(handles)
    bad[5] = huge
    expect_errno('submit_policy_refuses_grant', errno.EINVAL,
                 lambda: d.submit(0x274, 1, 0x274, bad, btsp))
    d.free(huge)
    # a program the loader refuses: its TD's register stream overwritten with garbage
    m0 = maps[0]
    saved = bytes(m0[:0x274])
    hostile = bytearray(saved)
    # corrupt every TD word to garbage: the loader must refuse the stream by name
    for k in range(0x28, 0x274, 4):
        hostile[k:k + 4] = struct.pack('<I', 0xffffffff)
    m0[:0x274] = bytes(hostile)
    maps[1][:0x274] = bytes(hostile)
    expect_errno('submit_garbage_tds', errno.EINVAL, lambda: d.submit(0x274, 1, 0x274, handles, btsp))
    m0[:0x274] = saved
    maps[1][:0x274] = saved[:0x274]
    mb = maps[1]
    w = struct.unpack('<I', mb[:4])[0]
    mb[:4] = struct.pack('<I', (w & 0xf00ffff) | (0x40 << 16))
    # use after free: a freed source BO named by the submit
    h5 = handles[5]
    d.free(h5)
    expect_errno('submit_use_after_free', errno.ENOENT, lambda: d.submit(0x274, 1, 0x274, handles, btsp))
    handles[5] = d.bo(0x7d0000)[0]
    d.submit(0x274, 1, 0x274, handles, btsp)
    check('device_works_after_misuse', True)
    # duplicated descriptors share the open device; a closed one is no device
    fd2 = os.dup(d.fd)
    fcntl.ioctl(fd2, BO_FREE, bytearray(struct.pack('<II', small, 0)), True)
    check('dup_shares_handles', True)
    os.close(fd2)
    expect_errno('closed_dup_is_no_device', errno.EBADF, lambda: fcntl.ioctl(fd2, VERSION, bytearray(64), True))
    st = os.fstat(d.fd)
    check('fstat_character_device', (st.st_mode & 0o170000) == 0o020000)
    # a client that forks: the child submits on the inherited descriptor, the parent goes on
    pid = os.fork()
    if pid == 0:
        try:
            d.submit(0x274, 1, 0x274, handles, btsp)
            os._exit(0)
        except OSError:
            os._exit(1)
    _, status = os.waitpid(pid, 0)
    check('fork_child_submits', os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0)
    d.submit(0x274, 1, 0x274, handles, btsp)
    check('fork_parent_submits_after', True)
    os.close(d.fd)
    print('%d passed, %d failed' % (RESULTS.count(True), RESULTS.count(False)))
    return 0 if all(RESULTS) else 1


if __name__ == '__main__':
    sys.exit(main())
