/* A polled virtio console (see virtio_console.h). */
#include "drivers/virtio/virtio_console.h"
#include "hal/mmio.h"

#include <string.h>

static uint16_t ld_acq16(const volatile uint16_t *p)
{
	return __atomic_load_n(p, __ATOMIC_ACQUIRE);
}

static void st_rel16(volatile uint16_t *p, uint16_t v)
{
	__atomic_store_n(p, v, __ATOMIC_RELEASE);
}

static void notify(struct vcon *v, unsigned q)
{
	__atomic_thread_fence(__ATOMIC_SEQ_CST); /* the ring before the doorbell */
	mmio_write_32(v->base + VIO_QUEUE_NOTIFY, q);
}

static int setup_queue(struct vcon *v, unsigned q, struct vq *vq)
{
	const uintptr_t b = v->base;
	mmio_write_32(b + VIO_QUEUE_SEL, q);
	/* the device was reset (start): no queue is in use */
	if (mmio_read_32(b + VIO_QUEUE_NUM_MAX) < VCON_QSIZE)
		return VCON_E_QUEUE;
	memset(vq, 0, sizeof *vq);
	mmio_write_32(b + VIO_QUEUE_NUM, VCON_QSIZE);
	const uint64_t d = (uintptr_t)vq->desc, a = (uintptr_t)&vq->avail, u = (uintptr_t)&vq->used;
	mmio_write_32(b + VIO_QUEUE_DESC_LO, (uint32_t)d);
	mmio_write_32(b + VIO_QUEUE_DESC_HI, (uint32_t)(d >> 32));
	mmio_write_32(b + VIO_QUEUE_AVAIL_LO, (uint32_t)a);
	mmio_write_32(b + VIO_QUEUE_AVAIL_HI, (uint32_t)(a >> 32));
	mmio_write_32(b + VIO_QUEUE_USED_LO, (uint32_t)u);
	mmio_write_32(b + VIO_QUEUE_USED_HI, (uint32_t)(u >> 32));
	mmio_write_32(b + VIO_QUEUE_READY, 1);
	return VCON_OK;
}

/* Receive buffer i back to the device. */
static void post_rx(struct vcon *v, unsigned i)
{
	struct vq *q = &v->rx;
	q->desc[i] = (struct vq_desc){(uintptr_t)v->rxbuf[i], VCON_BUF, VIO_DESC_F_WRITE, 0};
	q->avail.ring[q->avail.idx % VCON_QSIZE] = (uint16_t)i;
	st_rel16(&q->avail.idx, (uint16_t)(q->avail.idx + 1));
}

static int start(struct vcon *v)
{
	const uintptr_t b = v->base;
	mmio_write_32(b + VIO_STATUS, 0); /* reset */
	mmio_write_32(b + VIO_STATUS, VIO_ST_ACKNOWLEDGE | VIO_ST_DRIVER);
	mmio_write_32(b + VIO_DEV_FEATURES_SEL, 1);
	if (!(mmio_read_32(b + VIO_DEV_FEATURES) & VIO_F_VERSION_1_HI))
		return VCON_E_FEATURES;
	mmio_write_32(b + VIO_DRV_FEATURES_SEL, 1);
	mmio_write_32(b + VIO_DRV_FEATURES, VIO_F_VERSION_1_HI);
	mmio_write_32(b + VIO_DRV_FEATURES_SEL, 0);
	mmio_write_32(b + VIO_DRV_FEATURES, 0); /* no multiport, no size, no emergency write */
	mmio_write_32(b + VIO_STATUS, VIO_ST_ACKNOWLEDGE | VIO_ST_DRIVER | VIO_ST_FEATURES_OK);
	if (!(mmio_read_32(b + VIO_STATUS) & VIO_ST_FEATURES_OK))
		return VCON_E_FEATURES;
	int r = setup_queue(v, VCON_QUEUE_RX, &v->rx);
	if (r == VCON_OK)
		r = setup_queue(v, VCON_QUEUE_TX, &v->tx);
	if (r != VCON_OK)
		return r;
	for (unsigned i = 0; i < VCON_QSIZE; i++)
		post_rx(v, i);
	v->tx_free = (1u << VCON_QSIZE) - 1u;
	v->cur = -1;
	mmio_write_32(b + VIO_STATUS, VIO_ST_ACKNOWLEDGE | VIO_ST_DRIVER | VIO_ST_FEATURES_OK |
					      VIO_ST_DRIVER_OK);
	notify(v, VCON_QUEUE_RX);
	return VCON_OK;
}

int vcon_probe(struct vcon *v, uintptr_t base, uintptr_t stride, unsigned n)
{
	for (unsigned i = 0; i < n; i++) {
		const uintptr_t b = base + i * stride;
		if (mmio_read_32(b + VIO_MAGIC) != VIO_MAGIC_VALUE ||
		    mmio_read_32(b + VIO_VERSION) != VIO_VERSION_MODERN ||
		    mmio_read_32(b + VIO_DEVICE_ID) != VIO_DEVICE_CONSOLE)
			continue;
		v->base = b;
		int r = start(v);
		if (r != VCON_OK)
			mmio_write_32(b + VIO_STATUS, VIO_ST_FAILED);
		return r;
	}
	return VCON_E_ABSENT;
}

size_t vcon_read(struct vcon *v, uint8_t *b, size_t n)
{
	size_t got = 0;
	unsigned reposted = 0;
	while (got < n) {
		if (v->cur < 0) {
			struct vq *q = &v->rx;
			if (ld_acq16(&q->used.idx) == q->last_used)
				break;
			const struct vq_used_elem e = q->used.ring[q->last_used % VCON_QSIZE];
			q->last_used++;
			if (e.id >= VCON_QSIZE)
				continue; /* not a buffer of ours: never read through it */
			v->cur = (int)e.id;
			v->cur_pos = 0;
			v->cur_len = e.len < VCON_BUF ? e.len : VCON_BUF;
		}
		size_t k = v->cur_len - v->cur_pos;
		if (k > n - got)
			k = n - got;
		memcpy(b + got, v->rxbuf[v->cur] + v->cur_pos, k);
		got += k;
		v->cur_pos += (uint32_t)k;
		if (v->cur_pos == v->cur_len) {
			post_rx(v, (unsigned)v->cur);
			v->cur = -1;
			reposted++;
		}
	}
	if (reposted)
		notify(v, VCON_QUEUE_RX);
	return got;
}

size_t vcon_write(struct vcon *v, const uint8_t *b, size_t n)
{
	struct vq *q = &v->tx;
	/* buffers the device has sent */
	while (ld_acq16(&q->used.idx) != q->last_used) {
		uint32_t id = q->used.ring[q->last_used % VCON_QSIZE].id;
		q->last_used++;
		if (id < VCON_QSIZE)
			v->tx_free |= 1u << id;
	}
	size_t put = 0;
	while (put < n && v->tx_free) {
		unsigned i = (unsigned)__builtin_ctz(v->tx_free);
		v->tx_free &= ~(1u << i);
		size_t k = n - put < VCON_BUF ? n - put : VCON_BUF;
		memcpy(v->txbuf[i], b + put, k);
		q->desc[i] = (struct vq_desc){(uintptr_t)v->txbuf[i], (uint32_t)k, 0, 0};
		q->avail.ring[q->avail.idx % VCON_QSIZE] = (uint16_t)i;
		st_rel16(&q->avail.idx, (uint16_t)(q->avail.idx + 1));
		put += k;
	}
	if (put)
		notify(v, VCON_QUEUE_TX);
	return put;
}
