/*
 * A virtio console on a virtio-mmio transport (virtio 1.x, the MMIO register layout of version
 * 2; QEMU gives it with -global virtio-mmio.force-legacy=false), driven by polling: port 0 only
 * (no multiport), its receive queue kept full of buffers the device fills, its transmit queue fed
 * from buffers of the driver's own. A byte stream as fast as the host moves whole buffers, where
 * a UART moves one byte per register access. The caller owns the transport's address; no wait
 * here blocks: reads and writes take what can be moved now.
 */
#ifndef ANEFW_VIRTIO_CONSOLE_H
#define ANEFW_VIRTIO_CONSOLE_H

#include <stddef.h>
#include <stdint.h>

/* virtio-mmio registers (version 2) */
#define VIO_MAGIC 0x000
#define VIO_VERSION 0x004
#define VIO_DEVICE_ID 0x008
#define VIO_DEV_FEATURES 0x010
#define VIO_DEV_FEATURES_SEL 0x014
#define VIO_DRV_FEATURES 0x020
#define VIO_DRV_FEATURES_SEL 0x024
#define VIO_QUEUE_SEL 0x030
#define VIO_QUEUE_NUM_MAX 0x034
#define VIO_QUEUE_NUM 0x038
#define VIO_QUEUE_READY 0x044
#define VIO_QUEUE_NOTIFY 0x050
#define VIO_STATUS 0x070
#define VIO_QUEUE_DESC_LO 0x080
#define VIO_QUEUE_DESC_HI 0x084
#define VIO_QUEUE_AVAIL_LO 0x090
#define VIO_QUEUE_AVAIL_HI 0x094
#define VIO_QUEUE_USED_LO 0x0a0
#define VIO_QUEUE_USED_HI 0x0a4

#define VIO_MAGIC_VALUE 0x74726976u /* "virt" */
#define VIO_VERSION_MODERN 2u
#define VIO_DEVICE_CONSOLE 3u

#define VIO_ST_ACKNOWLEDGE 1u
#define VIO_ST_DRIVER 2u
#define VIO_ST_DRIVER_OK 4u
#define VIO_ST_FEATURES_OK 8u
#define VIO_ST_FAILED 128u

#define VIO_F_VERSION_1_HI 1u /* feature bit 32: bit 0 of the high word */

#define VIO_DESC_F_WRITE 2u /* the device writes the buffer */

#define VCON_QUEUE_RX 0u
#define VCON_QUEUE_TX 1u
#define VCON_QSIZE 16u     /* descriptors a queue (a power of two) */
#define VCON_BUF 4096u     /* bytes a buffer */

enum vcon_status {
	VCON_OK = 0,
	VCON_E_ABSENT = -1,   /* no virtio console at that address */
	VCON_E_FEATURES = -2, /* the device refused the features (no virtio 1.x) */
	VCON_E_QUEUE = -3,    /* a queue smaller than VCON_QSIZE */
};

struct vq_desc {
	uint64_t addr;
	uint32_t len;
	uint16_t flags, next;
};
struct vq_avail {
	uint16_t flags, idx;
	uint16_t ring[VCON_QSIZE];
	uint16_t used_event;
};
struct vq_used_elem {
	uint32_t id, len;
};
struct vq_used {
	uint16_t flags, idx;
	struct vq_used_elem ring[VCON_QSIZE];
	uint16_t avail_event;
};
struct vq {
	struct vq_desc desc[VCON_QSIZE] __attribute__((aligned(16)));
	struct vq_avail avail __attribute__((aligned(16)));
	struct vq_used used __attribute__((aligned(16)));
	uint16_t last_used; /* used entries taken so far */
};

struct vcon {
	uintptr_t base;
	struct vq rx, tx;
	uint8_t rxbuf[VCON_QSIZE][VCON_BUF];
	uint8_t txbuf[VCON_QSIZE][VCON_BUF];
	uint32_t tx_free;              /* a bit per transmit buffer the device has given back */
	int cur;                       /* the receive buffer being read, or -1 */
	uint32_t cur_pos, cur_len;
};

/* Finds a console among n transports stride bytes apart from base and sets it up: VCON_OK, or
 * VCON_E_ABSENT when none of them is one, or why the one found would not start. */
int vcon_probe(struct vcon *v, uintptr_t base, uintptr_t stride, unsigned n);
/* Bytes received, at most n (0 when none is waiting). */
size_t vcon_read(struct vcon *v, uint8_t *b, size_t n);
/* Bytes handed to the device now, at most n (0 when every transmit buffer is in flight). */
size_t vcon_write(struct vcon *v, const uint8_t *b, size_t n);

#endif
