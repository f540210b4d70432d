/* The host command protocol: records, completions, rings (see cmd.h). */
#include "fw/cmd/cmd.h"
#include "fw/common/le.h"

#include <string.h>

static const struct err_desc errs[CMD_E__COUNT] = {
	[CMD_OK] = {"ok", "no error"},
	[CMD_E_TRUNCATED] = {"record-truncated", "shorter than its header or header + size"},
	[CMD_E_TOO_LARGE] = {"record-too-large", "larger than the largest command"},
	[CMD_E_UNSUPPORTED] = {"not-supported", "an unknown command id"},
	[CMD_E_BAD_SIZE] = {"bad-size", "the body size does not match the command and counts"},
	[CMD_E_PRIORITY] = {"bad-priority", "8 or more"},
	[CMD_E_BAD_COUNT] = {"bad-count", "an override, event, step or link count over its limit"},
	[CMD_E_EVENT] = {"bad-event", "an event id or type out of range"},
	[CMD_E_BAR] = {"bad-bar", "an override BAR out of range, twice, or bad access bits"},
	[CMD_E_RESERVED] = {"reserved-nonzero", "a reserved field is not zero"},
	[CMD_E_NOT_READY] = {"not-ready", "the channel is not ready (boot)"},
	[CMD_E_NO_HANDSHAKE] = {"no-handshake", "a command before a successful HELLO"},
	[CMD_E_VERSION] = {"version-mismatch", "another protocol major version"},
	[CMD_E_RECOVERING] = {"recovering", "the engine is being recovered (rate limit)"},
	[CMD_E_SHUTDOWN] = {"shut-down", "the service is shutting down"},
	[CMD_E_NO_PROGRAM] = {"program-not-loaded", "unknown, unloaded or stale program id"},
	[CMD_E_PROCEDURE] = {"bad-procedure", "an unknown procedure id"},
	[CMD_E_CAPACITY] = {"program-table-full", "the program table is full"},
	[CMD_E_QUEUE_FULL] = {"queue-full", "the submission queue is full"},
	[CMD_E_LOAD_RANGE] = {"load-outside-window", "the program bytes are not inside the window"},
	[CMD_E_PROGRAM] = {"program-refused", "domain and code name the loader/policy/kunit error"},
	[CMD_E_NOMEM] = {"out-of-memory", "no memory for the program"},
	[CMD_E_OV_UNUSED] = {"override-unused-bar", "the program uses no such BAR"},
	[CMD_E_OV_FIXED] = {"override-fixed-bar", "weights or TD memory cannot be rebound"},
	[CMD_E_OV_ACCESS] = {"override-access", "the buffer lacks an access the program needs"},
	[CMD_E_OV_SMALL] = {"override-too-small",
	 "an override buffer smaller than the program needs"},
	[CMD_E_OV_OUTSIDE] = {"override-outside-grants", "not inside a granted region"},
	[CMD_E_OV_ALIAS] = {"override-alias", "a written buffer overlaps another BAR's buffer"},
	[CMD_E_LINK] = {"bad-link", "a chain link's source is not a BAR the previous call wrote"},
	[CMD_E_DEADLINE] = {"deadline-expired", "the submission's deadline passed before it ran"},
	[CMD_E_ENGINE] = {"engine-failed", "domain engine, code the engine error"},
	[CMD_E_XFER_RANGE] = {"transfer-outside-window", "a WRITE or READ past the data window"},
	[CMD_E_FIXED_INPUT] = {"fixed-input",
	 "the program reads host data (kernels from a runtime BAR) through a BAR fixed at load"},
};

const struct err_desc *cmd_err(enum cmd_err e)
{
	static const struct err_desc unknown = {"unknown-cmd-error",
						  "a value this module does not define"};
	return err_lookup(errs, CMD_E__COUNT, (unsigned)e, &unknown);
}

const char *cmd_err_name(enum cmd_err e)
{
	return cmd_err(e)->name;
}

const char *cmd_status_name(uint32_t st)
{
	static const char *const n[] = {"ok", "refused", "failed", "aborted"};
	return st < 4 ? n[st] : "unknown-status";
}

const char *cmd_id_name(uint32_t id)
{
	switch (id) {
	case CMD_HELLO: return "hello";
	case CMD_QUERY: return "query";
	case CMD_PROGRAM_INFO: return "program-info";
	case CMD_SIGNAL: return "signal";
	case CMD_SHUTDOWN: return "shutdown";
	case CMD_WRITE: return "write";
	case CMD_READ: return "read";
	case CMD_WINDOW: return "window";
	case CMD_LOAD: return "load";
	case CMD_UNLOAD: return "unload";
	case CMD_CALL: return "call";
	case CMD_CALL_BARS: return "call-bars";
	case CMD_CALL_EVENTS: return "call-events";
	case CMD_CHAIN: return "chain";
	default: return "unknown";
	}
}

int cmd_is_call(uint32_t id)
{
	return id == CMD_CALL || id == CMD_CALL_BARS || id == CMD_CALL_EVENTS || id == CMD_CHAIN;
}

/* ---- decoding ---- */

static void hdr_read(const uint8_t *b, struct cmd_hdr *h)
{
	h->id = le_rd32(b);
	h->size = le_rd32(b + 4);
	h->priority = le_rd32(b + 8);
	h->program = (int32_t)le_rd32(b + 12);
	h->process = (int32_t)le_rd32(b + 16);
	h->procedure = le_rd32(b + 20);
	h->tag = le_rd32(b + 24);
	h->deadline = le_rd32(b + 28);
}

/* Fixed body size of a command with no counted arrays; 0xffffffff for the counted ones, -1 for
 * unknown ids (as UINT32_MAX - 1). */
#define SZ_COUNTED 0xffffffffu
#define SZ_UNKNOWN 0xfffffffeu
static uint32_t fixed_size(uint32_t id)
{
	switch (id) {
	case CMD_HELLO: return 8;
	case CMD_QUERY: return 0;
	case CMD_PROGRAM_INFO: return 8;
	case CMD_SIGNAL: return 16;
	case CMD_SHUTDOWN: return 0;
	case CMD_READ: return CMD_XFER_HDR;
	case CMD_WINDOW: return 0;
	case CMD_WRITE: return SZ_COUNTED;
	case CMD_LOAD: return 24;
	case CMD_UNLOAD: return 0;
	case CMD_CALL: return 0;
	case CMD_CALL_BARS:
	case CMD_CALL_EVENTS:
	case CMD_CHAIN: return SZ_COUNTED;
	default: return SZ_UNKNOWN;
	}
}

static enum cmd_err fail_at(struct cmd *c, enum cmd_err e, int where)
{
	c->where = where;
	return e;
}

static enum cmd_err decode_bars(const uint8_t *b, uint32_t size, struct cmd *c)
{
	if (size < 8)
		return CMD_E_BAD_SIZE;
	uint32_t n = le_rd32(b);
	if (n > CMD_MAX_OVERRIDES)
		return CMD_E_BAD_COUNT;
	if (le_rd32(b + 4))
		return CMD_E_RESERVED;
	if (size != 8 + n * CMD_OV_BYTES) /* n <= 32: no overflow */
		return CMD_E_BAD_SIZE;
	uint32_t seen = 0;
	for (uint32_t i = 0; i < n; i++) {
		const uint8_t *o = b + 8 + i * CMD_OV_BYTES;
		struct cmd_ov *v = &c->ov[i];
		v->bar = le_rd32(o);
		v->access = le_rd32(o + 4);
		v->addr = le_rd64(o + 8);
		v->size = le_rd64(o + 16);
		if (v->bar >= CMD_NBARS || (seen >> v->bar & 1u) || !v->access ||
		    (v->access & ~(CMD_ACC_READ | CMD_ACC_WRITE)))
			return fail_at(c, CMD_E_BAR, (int)i);
		seen |= 1u << v->bar;
	}
	c->nov = n;
	return CMD_OK;
}

static enum cmd_err decode_events(const uint8_t *b, uint32_t size, struct cmd *c)
{
	if (size < 8)
		return CMD_E_BAD_SIZE;
	uint32_t nw = le_rd32(b), ns = le_rd32(b + 4);
	if (nw > CMD_MAX_WAITS || ns == 0 || ns > CMD_MAX_SIGNALS)
		return CMD_E_BAD_COUNT;
	if (size != 8 + (nw + ns) * CMD_EV_BYTES)
		return CMD_E_BAD_SIZE;
	for (uint32_t i = 0; i < nw + ns; i++) {
		const uint8_t *e = b + 8 + i * CMD_EV_BYTES;
		struct cmd_ev *v = &c->ev[i];
		v->type = le_rd32(e);
		v->mask = le_rd32(e + 4);
		v->id = le_rd64(e + 8);
		v->value = le_rd64(e + 16);
		if (v->type != 0 || v->id >= CMD_MAX_EVENTS)
			return fail_at(c, CMD_E_EVENT, (int)i);
	}
	c->nwait = nw;
	c->nsignal = ns;
	return CMD_OK;
}

static enum cmd_err decode_chain(const uint8_t *b, uint32_t size, struct cmd *c)
{
	if (size < 8)
		return CMD_E_BAD_SIZE;
	uint32_t n = le_rd32(b);
	if (n == 0 || n > CMD_MAX_STEPS)
		return CMD_E_BAD_COUNT;
	if (le_rd32(b + 4))
		return CMD_E_RESERVED;
	if (size != 8 + n * CMD_STEP_BYTES)
		return CMD_E_BAD_SIZE;
	for (uint32_t i = 0; i < n; i++) {
		const uint8_t *s = b + 8 + i * CMD_STEP_BYTES;
		struct cmd_step *st = &c->step[i];
		st->program = (int32_t)le_rd32(s);
		st->procedure = le_rd32(s + 4);
		st->nlinks = le_rd32(s + 8);
		if (st->nlinks > CMD_MAX_LINKS || (i == 0 && st->nlinks))
			return fail_at(c, CMD_E_BAD_COUNT, (int)i);
		if (le_rd32(s + 12))
			return fail_at(c, CMD_E_RESERVED, (int)i);
		for (uint32_t k = 0; k < CMD_MAX_LINKS; k++) {
			uint32_t d = le_rd32(s + 16 + k * CMD_LINK_BYTES);
			uint32_t r = le_rd32(s + 20 + k * CMD_LINK_BYTES);
			if (k >= st->nlinks) {
				if (d || r)
					return fail_at(c, CMD_E_RESERVED, (int)i);
				continue;
			}
			if (d >= CMD_NBARS || r >= CMD_NBARS)
				return fail_at(c, CMD_E_BAR, (int)i);
			st->link[k] = (struct cmd_link){d, r};
		}
	}
	c->nsteps = n;
	return CMD_OK;
}

enum cmd_err cmd_decode(const uint8_t *buf, size_t len, struct cmd *c)
{
	c->where = -1;
	c->nov = c->nwait = c->nsignal = c->nsteps = 0;
	c->xlen = 0;
	c->xdata = NULL;
	memset(&c->h, 0, sizeof c->h);
	c->h.id = CMD_ID_INVALID;
	if (!buf)
		len = 0;
	if (len >= 4)
		c->h.id = le_rd32(buf);
	if (len >= 28)
		c->h.tag = le_rd32(buf + 24);
	if (len > CMD_MAX_RECORD)
		return CMD_E_TOO_LARGE;
	if (len < CMD_HDR_BYTES)
		return CMD_E_TRUNCATED;
	hdr_read(buf, &c->h);
	uint32_t fs = fixed_size(c->h.id);
	if (fs == SZ_UNKNOWN)
		return CMD_E_UNSUPPORTED;
	if (c->h.size > CMD_MAX_BODY)
		return CMD_E_TOO_LARGE;
	if (len < CMD_HDR_BYTES + (size_t)c->h.size)
		return CMD_E_TRUNCATED;
	if (len > CMD_HDR_BYTES + (size_t)c->h.size)
		return CMD_E_BAD_SIZE; /* trailing bytes past the body */
	if (c->h.priority >= CMD_PRIORITIES)
		return CMD_E_PRIORITY;
	const uint8_t *b = buf + CMD_HDR_BYTES;
	uint32_t size = c->h.size;
	if (fs != SZ_COUNTED && size != fs)
		return CMD_E_BAD_SIZE;
	switch (c->h.id) {
	case CMD_HELLO:
		c->major = le_rd32(b);
		c->minor = le_rd32(b + 4);
		return CMD_OK;
	case CMD_PROGRAM_INFO:
		c->bar = le_rd32(b);
		if (le_rd32(b + 4))
			return CMD_E_RESERVED;
		if (c->bar >= CMD_NBARS)
			return CMD_E_BAR;
		return CMD_OK;
	case CMD_SIGNAL:
		c->ev_id = le_rd64(b);
		c->ev_value = le_rd64(b + 8);
		return c->ev_id < CMD_MAX_EVENTS ? CMD_OK : CMD_E_EVENT;
	case CMD_LOAD:
		c->off = le_rd64(b);
		c->len = le_rd64(b + 8);
		c->flags = le_rd32(b + 16);
		if (le_rd32(b + 20) || (c->flags & ~CMD_LOAD_F_RAW))
			return CMD_E_RESERVED;
		return CMD_OK;
	case CMD_WRITE:
	case CMD_READ:
		if (size < CMD_XFER_HDR)
			return CMD_E_BAD_SIZE;
		c->off = le_rd64(b);
		c->xlen = le_rd32(b + 8);
		if (c->xlen == 0 || c->xlen > CMD_MAX_XFER)
			return CMD_E_BAD_COUNT;
		if (c->h.id == CMD_WRITE && size != CMD_XFER_HDR + c->xlen)
			return CMD_E_BAD_SIZE;
		if (le_rd32(b + 12))
			return CMD_E_RESERVED;
		c->xdata = c->h.id == CMD_WRITE ? b + CMD_XFER_HDR : NULL;
		return CMD_OK;
	case CMD_CALL_BARS:
		return decode_bars(b, size, c);
	case CMD_CALL_EVENTS:
		return decode_events(b, size, c);
	case CMD_CHAIN:
		return decode_chain(b, size, c);
	default:
		return CMD_OK;
	}
}

/* ---- encoding ---- */

static void hdr_write(uint8_t *b, const struct cmd_hdr *h)
{
	le_wr32(b, h->id);
	le_wr32(b + 4, h->size);
	le_wr32(b + 8, h->priority);
	le_wr32(b + 12, (uint32_t)h->program);
	le_wr32(b + 16, (uint32_t)h->process);
	le_wr32(b + 20, h->procedure);
	le_wr32(b + 24, h->tag);
	le_wr32(b + 28, h->deadline);
}

size_t cmd_encode_hdr(uint8_t *out, size_t cap, const struct cmd_hdr *h)
{
	if (!out || cap < CMD_HDR_BYTES)
		return 0;
	hdr_write(out, h);
	return CMD_HDR_BYTES;
}

size_t cmd_encode(uint8_t *out, size_t cap, const struct cmd *c)
{
	uint32_t size;
	switch (c->h.id) {
	case CMD_CALL_BARS:
		if (c->nov > CMD_MAX_OVERRIDES)
			return 0;
		size = 8 + c->nov * CMD_OV_BYTES;
		break;
	case CMD_CALL_EVENTS:
		if (c->nwait > CMD_MAX_WAITS || c->nsignal > CMD_MAX_SIGNALS)
			return 0;
		size = 8 + (c->nwait + c->nsignal) * CMD_EV_BYTES;
		break;
	case CMD_CHAIN:
		if (c->nsteps > CMD_MAX_STEPS)
			return 0;
		size = 8 + c->nsteps * CMD_STEP_BYTES;
		break;
	case CMD_WRITE:
		if (c->xlen == 0 || c->xlen > CMD_MAX_XFER || !c->xdata)
			return 0;
		size = CMD_XFER_HDR + c->xlen;
		break;
	default:
		size = fixed_size(c->h.id);
		if (size >= SZ_UNKNOWN)
			size = 0;
	}
	if (!out || cap < CMD_HDR_BYTES + (size_t)size)
		return 0;
	memset(out, 0, CMD_HDR_BYTES + (size_t)size);
	struct cmd_hdr h = c->h;
	h.size = size;
	hdr_write(out, &h);
	uint8_t *b = out + CMD_HDR_BYTES;
	switch (c->h.id) {
	case CMD_HELLO:
		le_wr32(b, c->major);
		le_wr32(b + 4, c->minor);
		break;
	case CMD_PROGRAM_INFO:
		le_wr32(b, c->bar);
		break;
	case CMD_SIGNAL:
		le_wr64(b, c->ev_id);
		le_wr64(b + 8, c->ev_value);
		break;
	case CMD_LOAD:
		le_wr64(b, c->off);
		le_wr64(b + 8, c->len);
		le_wr32(b + 16, c->flags);
		break;
	case CMD_WRITE:
	case CMD_READ:
		le_wr64(b, c->off);
		le_wr32(b + 8, c->xlen);
		if (c->h.id == CMD_WRITE)
			memcpy(b + CMD_XFER_HDR, c->xdata, c->xlen);
		break;
	case CMD_CALL_BARS:
		le_wr32(b, c->nov);
		for (unsigned i = 0; i < c->nov; i++) {
			uint8_t *o = b + 8 + i * CMD_OV_BYTES;
			le_wr32(o, c->ov[i].bar);
			le_wr32(o + 4, c->ov[i].access);
			le_wr64(o + 8, c->ov[i].addr);
			le_wr64(o + 16, c->ov[i].size);
		}
		break;
	case CMD_CALL_EVENTS:
		le_wr32(b, c->nwait);
		le_wr32(b + 4, c->nsignal);
		for (unsigned i = 0; i < c->nwait + c->nsignal; i++) {
			uint8_t *e = b + 8 + i * CMD_EV_BYTES;
			le_wr32(e, c->ev[i].type);
			le_wr32(e + 4, c->ev[i].mask);
			le_wr64(e + 8, c->ev[i].id);
			le_wr64(e + 16, c->ev[i].value);
		}
		break;
	case CMD_CHAIN:
		le_wr32(b, c->nsteps);
		for (unsigned i = 0; i < c->nsteps; i++) {
			uint8_t *s = b + 8 + i * CMD_STEP_BYTES;
			const struct cmd_step *st = &c->step[i];
			if (st->nlinks > CMD_MAX_LINKS)
				return 0;
			le_wr32(s, (uint32_t)st->program);
			le_wr32(s + 4, st->procedure);
			le_wr32(s + 8, st->nlinks);
			for (unsigned k = 0; k < st->nlinks; k++) {
				le_wr32(s + 16 + k * CMD_LINK_BYTES, st->link[k].dst_bar);
				le_wr32(s + 20 + k * CMD_LINK_BYTES, st->link[k].src_bar);
			}
		}
		break;
	default:
		break;
	}
	return CMD_HDR_BYTES + (size_t)size;
}

/* ---- completions ---- */

void cmd_compl_encode(uint8_t out[CMD_COMPL_BYTES], const struct cmd_completion *c)
{
	const uint32_t w[8] = {c->id, c->tag, c->status, c->err, c->domain, c->code, c->seq, c->where};
	for (unsigned i = 0; i < 8; i++)
		le_wr32(out + 4 * i, w[i]);
	for (unsigned i = 0; i < CMD_COMPL_DATA; i++)
		le_wr32(out + 32 + 4 * i, c->data[i]);
}

enum cmd_err cmd_compl_decode(const uint8_t *buf, size_t len, struct cmd_completion *c)
{
	if (!buf || len < CMD_COMPL_BYTES)
		return CMD_E_TRUNCATED;
	uint32_t *w[8] = {&c->id, &c->tag, &c->status, &c->err, &c->domain, &c->code, &c->seq,
			  &c->where};
	for (unsigned i = 0; i < 8; i++)
		*w[i] = le_rd32(buf + 4 * i);
	for (unsigned i = 0; i < CMD_COMPL_DATA; i++)
		c->data[i] = le_rd32(buf + 32 + 4 * i);
	return CMD_OK;
}

/* ---- rings ---- */

static uint32_t ld_acq(volatile uint32_t *p)
{
	return __atomic_load_n(p, __ATOMIC_ACQUIRE);
}

static void st_rel(volatile uint32_t *p, uint32_t v)
{
	__atomic_store_n(p, v, __ATOMIC_RELEASE);
}

enum cmd_ring_err cmd_host_post(struct cmd_shm *m, const uint8_t *rec, size_t len)
{
	uint32_t head = ld_acq(&m->h2f.head), tail = m->h2f.tail;
	if (tail - head > CMD_RING_SLOTS)
		return CMD_RING_CORRUPT;
	if (tail - head == CMD_RING_SLOTS)
		return CMD_RING_FULL;
	uint8_t *s = m->h2f_slot[tail % CMD_RING_SLOTS];
	size_t n = len < CMD_SLOT_PAYLOAD ? len : CMD_SLOT_PAYLOAD;
	le_wr32(s, len > 0xffffffffu ? 0xffffffffu : (uint32_t)len);
	le_wr32(s + 4, 0);
	if (n)
		memcpy(s + 8, rec, n);
	st_rel(&m->h2f.tail, tail + 1);
	return CMD_RING_OK;
}

enum cmd_ring_err cmd_fw_take(struct cmd_shm *m, uint8_t *buf, size_t cap, size_t *len)
{
	uint32_t tail = ld_acq(&m->h2f.tail), head = m->h2f.head;
	if (tail - head > CMD_RING_SLOTS)
		return CMD_RING_CORRUPT;
	if (tail == head)
		return CMD_RING_EMPTY;
	const uint8_t *s = m->h2f_slot[head % CMD_RING_SLOTS];
	uint32_t stated = le_rd32(s);
	size_t n = stated;
	if (n > CMD_SLOT_PAYLOAD)
		n = CMD_SLOT_PAYLOAD;
	if (n > cap)
		n = cap;
	memcpy(buf, s + 8, n);
	*len = stated;
	st_rel(&m->h2f.head, head + 1);
	return CMD_RING_OK;
}

uint32_t cmd_fw_unread(const struct cmd_shm *m)
{
	uint32_t head = __atomic_load_n(&m->f2h.head, __ATOMIC_ACQUIRE), tail = m->f2h.tail;
	return tail - head > CMD_COMPL_SLOTS ? CMD_COMPL_SLOTS + 1 : tail - head;
}

enum cmd_ring_err cmd_fw_post(struct cmd_shm *m, const struct cmd_completion *c)
{
	uint32_t head = ld_acq(&m->f2h.head), tail = m->f2h.tail;
	if (tail - head > CMD_COMPL_SLOTS)
		return CMD_RING_CORRUPT;
	if (tail - head == CMD_COMPL_SLOTS)
		return CMD_RING_FULL;
	cmd_compl_encode(m->f2h_slot[tail % CMD_COMPL_SLOTS], c);
	st_rel(&m->f2h.tail, tail + 1);
	return CMD_RING_OK;
}

enum cmd_ring_err cmd_host_reap(struct cmd_shm *m, struct cmd_completion *c)
{
	uint32_t tail = ld_acq(&m->f2h.tail), head = m->f2h.head;
	if (tail - head > CMD_COMPL_SLOTS)
		return CMD_RING_CORRUPT;
	if (tail == head)
		return CMD_RING_EMPTY;
	cmd_compl_decode(m->f2h_slot[head % CMD_COMPL_SLOTS], CMD_COMPL_BYTES, c);
	st_rel(&m->f2h.head, head + 1);
	return CMD_RING_OK;
}
