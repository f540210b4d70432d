/*
 * The polled virtio console (drivers/virtio) against a device played in memory: the transport's
 * registers are a plain array here (the driver reads and writes them through hal/mmio.h, which
 * is plain memory access on the host and on the target alike), and the test plays the device's
 * side of the rings. Set-up (features, queues, status), reading what the device put in the
 * receive buffers (across calls, in any split), each buffer handed back, and the bounds the
 * driver keeps against the device: an id that is not one of its buffers is never read through,
 * a length over the buffer is cut to it, and writes stop when every transmit buffer is in
 * flight until the device gives one back.
 */
#include "tests/harness/harness.h"
#include "drivers/virtio/virtio_console.h"

#include <string.h>

static uint32_t s_regs[0x200 / 4] __attribute__((aligned(64)));
static struct vcon s_v __attribute__((aligned(4096)));

#define REG(off) s_regs[(off) / 4]

/* What a virtio 1.x console shows before a driver touches it; the driver's writes to STATUS
 * read back as written (FEATURES_OK kept: the device accepts). */
static void device_reset(uint32_t version)
{
	memset(s_regs, 0, sizeof s_regs);
	REG(VIO_MAGIC) = VIO_MAGIC_VALUE;
	REG(VIO_VERSION) = version;
	REG(VIO_DEVICE_ID) = VIO_DEVICE_CONSOLE;
	REG(VIO_DEV_FEATURES) = VIO_F_VERSION_1_HI; /* read with the select at 1 last */
	REG(VIO_QUEUE_NUM_MAX) = 64;
}

/* The device fills receive buffer id with n bytes of b and publishes it. */
static void device_receive(unsigned id, const uint8_t *b, uint32_t n, uint32_t len)
{
	struct vq *q = &s_v.rx;
	if (id < VCON_QSIZE)
		memcpy(s_v.rxbuf[id], b, n);
	q->used.ring[q->used.idx % VCON_QSIZE] = (struct vq_used_elem){id, len};
	__atomic_store_n(&q->used.idx, (uint16_t)(q->used.idx + 1), __ATOMIC_RELEASE);
}

TEST(virtio_console, set_up_read_write_and_bounds)
{
	device_reset(VIO_VERSION_MODERN);
	REG(VIO_DEVICE_ID) = 1; /* a network card: not a console */
	CHECK_EQ(vcon_probe(&s_v, (uintptr_t)s_regs, 0x200, 1), VCON_E_ABSENT);
	device_reset(1); /* the legacy layout is not driven */
	CHECK_EQ(vcon_probe(&s_v, (uintptr_t)s_regs, 0x200, 1), VCON_E_ABSENT);
	device_reset(VIO_VERSION_MODERN);
	REQUIRE(vcon_probe(&s_v, (uintptr_t)s_regs, 0x200, 1) == VCON_OK);
	CHECK_EQ(REG(VIO_STATUS), VIO_ST_ACKNOWLEDGE | VIO_ST_DRIVER | VIO_ST_FEATURES_OK |
					  VIO_ST_DRIVER_OK);
	CHECK_EQ(REG(VIO_QUEUE_NUM), VCON_QSIZE);
	CHECK_EQ(REG(VIO_QUEUE_READY), 1u);
	REG(VIO_QUEUE_NUM_MAX) = VCON_QSIZE / 2; /* queues too small for the driver */
	CHECK_EQ(vcon_probe(&s_v, (uintptr_t)s_regs, 0x200, 1), VCON_E_QUEUE);
	CHECK_EQ(REG(VIO_STATUS), VIO_ST_FAILED);
	device_reset(VIO_VERSION_MODERN);
	REG(VIO_DEV_FEATURES) = 0; /* no virtio 1.x */
	CHECK_EQ(vcon_probe(&s_v, (uintptr_t)s_regs, 0x200, 1), VCON_E_FEATURES);
	device_reset(VIO_VERSION_MODERN);
	REQUIRE(vcon_probe(&s_v, (uintptr_t)s_regs, 0x200, 1) == VCON_OK);
	/* every receive buffer offered, device-writable, whole */
	CHECK_EQ(s_v.rx.avail.idx, VCON_QSIZE);
	CHECK_EQ(s_v.rx.desc[3].len, VCON_BUF);
	CHECK_EQ(s_v.rx.desc[3].flags, VIO_DESC_F_WRITE);
	CHECK(s_v.rx.desc[3].addr == (uintptr_t)s_v.rxbuf[3]);

	uint8_t out[64];
	CHECK_EQ(vcon_read(&s_v, out, sizeof out), 0u);
	/* 10 bytes in buffer 2, read 4 then 6: the buffer goes back once emptied */
	static const uint8_t msg[10] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10};
	device_receive(2, msg, 10, 10);
	CHECK_EQ(vcon_read(&s_v, out, 4), 4u);
	CHECK_EQ(s_v.rx.avail.idx, VCON_QSIZE);
	CHECK_EQ(vcon_read(&s_v, out + 4, sizeof out - 4), 6u);
	CHECK(memcmp(out, msg, 10) == 0);
	CHECK_EQ(s_v.rx.avail.idx, VCON_QSIZE + 1u);
	CHECK_EQ(s_v.rx.avail.ring[VCON_QSIZE % VCON_QSIZE], 2u);
	/* an id that is none of the driver's buffers: skipped, nothing read */
	device_receive(VCON_QSIZE + 7, msg, 0, 10);
	CHECK_EQ(vcon_read(&s_v, out, sizeof out), 0u);
	/* a length over the buffer: cut to the buffer */
	static uint8_t big[VCON_BUF + 100];
	memset(big, 0x5a, sizeof big);
	device_receive(5, big, VCON_BUF, VCON_BUF + 100);
	size_t got = 0;
	while (got < sizeof big) {
		size_t n = vcon_read(&s_v, big, sizeof big - got);
		if (!n)
			break;
		got += n;
	}
	CHECK_EQ(got, (size_t)VCON_BUF);

	/* writes: one buffer each, until all are in flight */
	static uint8_t blob[VCON_BUF * 2 + 3];
	memset(blob, 0x33, sizeof blob);
	CHECK_EQ(vcon_write(&s_v, blob, sizeof blob), sizeof blob); /* 3 buffers */
	CHECK_EQ(s_v.tx.avail.idx, 3u);
	CHECK_EQ(s_v.tx.desc[s_v.tx.avail.ring[2]].len, 3u);
	CHECK_EQ(s_v.tx.desc[s_v.tx.avail.ring[0]].flags, 0u); /* the device only reads them */
	size_t put = 0;
	for (unsigned i = 0; i < 2 * VCON_QSIZE; i++)
		put += vcon_write(&s_v, blob, 1);
	CHECK_EQ(put, (size_t)VCON_QSIZE - 3u); /* the rest of the buffers, then none */
	CHECK_EQ(vcon_write(&s_v, blob, 1), 0u);
	/* the device sends buffer ring[0]: one more write goes */
	struct vq *t = &s_v.tx;
	t->used.ring[0] = (struct vq_used_elem){t->avail.ring[0], VCON_BUF};
	__atomic_store_n(&t->used.idx, (uint16_t)1, __ATOMIC_RELEASE);
	CHECK_EQ(vcon_write(&s_v, blob, 1), 1u);
	CHECK_EQ(vcon_write(&s_v, blob, 1), 0u);
	/* an id that is not a transmit buffer of the driver frees nothing */
	t->used.ring[1] = (struct vq_used_elem){VCON_QSIZE + 1, 1};
	__atomic_store_n(&t->used.idx, (uint16_t)2, __ATOMIC_RELEASE);
	CHECK_EQ(vcon_write(&s_v, blob, 1), 0u);
}
