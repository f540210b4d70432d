/*
 * The host command protocol (docs/service.md): fixed-layout command records a host posts to the
 * firmware, the fixed-layout completion the firmware answers each with, the rings in shared
 * memory that carry both, and the channel table the firmware publishes at boot.
 *
 * Every record is read from (buf, len): the length is checked against the header, the header
 * against the largest command, every count against its limit and the body size against the
 * counts, all before any field past the header is read. Decoding never touches shared memory:
 * the service copies a record out of its ring slot first. Pure logic (fw/ only).
 *
 * Layouts (little-endian, offsets in bytes):
 *   header (32)     id u32 | size u32 (body bytes) | priority u32 (0..7) | program i32 |
 *                   process i32 | procedure u32 | tag u32 | deadline u32 (ticks, 0: default)
 *   HELLO (8)       major u32 | minor u32
 *   QUERY (0)
 *   PROGRAM_INFO(8) bar u32 | 0 u32
 *   SIGNAL (16)     event u64 | value u64
 *   SHUTDOWN (0)
 *   LOAD (24)       offset u64 (engine address in the data window) | length u64 | flags u32 | 0
 *   UNLOAD (0)
 *   CALL (0)
 *   CALL_BARS       n u32 (0..32) | 0 u32 | n x override {bar u32 | access u32 | addr u64 | size u64}
 *   CALL_EVENTS     nwait u32 (0..16) | nsignal u32 (1..16) | (nwait + nsignal) x event
 *                   {type u32 (0) | mask u32 | id u64 (< CMD_MAX_EVENTS) | value u64}, waits first
 *   CHAIN           nsteps u32 (1..4) | 0 u32 | nsteps x step {program i32 | procedure u32 |
 *                   nlinks u32 (0..8) | 0 u32 | 8 x link {dst_bar u32 | src_bar u32}}
 *   completion (64) id u32 | tag u32 | status u32 | err u32 | domain u32 | code u32 | seq u32 |
 *                   where u32 | data 8 x u32
 */
#ifndef ANEFW_CMD_H
#define ANEFW_CMD_H

#include "fw/common/err.h"
#include "fw/policy/policy.h"
#include "fw/submit/queue.h"
#include <stddef.h>
#include <stdint.h>

#define CMD_PROTO_MAJOR 1u
#define CMD_PROTO_MINOR 0u

#define CMD_HDR_BYTES 32u
#define CMD_OV_BYTES 24u
#define CMD_EV_BYTES 24u
#define CMD_LINK_BYTES 8u
#define CMD_STEP_BYTES (16u + CMD_MAX_LINKS * CMD_LINK_BYTES)
#define CMD_COMPL_BYTES 64u
#define CMD_COMPL_DATA 8u

#define CMD_PRIORITIES 8u
#define CMD_MAX_OVERRIDES 32u
#define CMD_MAX_SIGNALS 16u
#define CMD_MAX_WAITS 16u
#define CMD_MAX_EVENTS 64u   /* event ids 0..63 */
#define CMD_MAX_STEPS 4u     /* calls in one chain */
#define CMD_MAX_LINKS 8u     /* output-to-input bindings between two chained calls */
#define CMD_NBARS 32u

/* WRITE and READ move at most this many bytes: a WRITE record (header, off u64, len u32, 0 u32,
 * the bytes) stays below the largest record; a READ's answer is its completion then the bytes. */
#define CMD_MAX_XFER 512u
#define CMD_XFER_HDR 16u

/* The largest body (CALL_BARS and CALL_EVENTS: 8 + 32 x 24) and so the largest record. */
#define CMD_MAX_BODY (8u + CMD_MAX_OVERRIDES * CMD_OV_BYTES)
#define CMD_MAX_RECORD (CMD_HDR_BYTES + CMD_MAX_BODY)

enum cmd_id {
	CMD_HELLO = 0x0001,        /* protocol-version handshake */
	CMD_QUERY = 0x0002,        /* engine count, limits, versions */
	CMD_PROGRAM_INFO = 0x0003, /* one BAR of a loaded program: size and access a call must bind */
	CMD_SIGNAL = 0x0004,       /* the host signals an event */
	CMD_SHUTDOWN = 0x0005,     /* stop serving */
	CMD_WRITE = 0x0006,        /* upload: bytes into the data window (a host without shared memory) */
	CMD_READ = 0x0007,         /* download: bytes of the data window follow the completion */
	CMD_WINDOW = 0x0008,       /* the data window: engine address data[0..1], size data[2..3] */
	CMD_LOAD = 0x0200,
	CMD_UNLOAD = 0x0201,
	CMD_CALL = 0x0204,
	CMD_CALL_BARS = 0x020c,
	CMD_CALL_EVENTS = 0x0211,
	CMD_CHAIN = 0x0212,
};
#define CMD_ID_INVALID 0xffffffffu /* a record too short to hold its id */
const char *cmd_id_name(uint32_t id); /* "call-bars", ...; "unknown" */

/* The named errors of the protocol and the service (one enum, one name each). */
enum cmd_err {
	CMD_OK = 0,
	/* decoding */
	CMD_E_TRUNCATED,       /* record-truncated: shorter than its header or header + size */
	CMD_E_TOO_LARGE,       /* record-too-large: larger than the largest command */
	CMD_E_UNSUPPORTED,     /* not-supported: an unknown command id */
	CMD_E_BAD_SIZE,        /* bad-size: the body size does not match the command and counts */
	CMD_E_PRIORITY,        /* bad-priority: 8 or more */
	CMD_E_BAD_COUNT,           /* bad-count: an override, event, step or link count over its limit */
	CMD_E_EVENT,           /* bad-event: an event id or type out of range */
	CMD_E_BAR,             /* bad-bar: an override BAR out of range, twice, or bad access bits */
	CMD_E_RESERVED,        /* reserved-nonzero: a reserved field is not zero */
	/* the channel */
	CMD_E_NOT_READY,       /* not-ready: the channel is not ready (boot) */
	CMD_E_NO_HANDSHAKE,    /* no-handshake: a command before a successful HELLO */
	CMD_E_VERSION,         /* version-mismatch: another protocol major version */
	CMD_E_RECOVERING,      /* recovering: the engine is being recovered (rate limit) */
	CMD_E_SHUTDOWN,        /* shut-down */
	/* programs and calls */
	CMD_E_NO_PROGRAM,      /* program-not-loaded: unknown, unloaded or stale program id */
	CMD_E_PROCEDURE,       /* bad-procedure */
	CMD_E_CAPACITY,        /* program-table-full */
	CMD_E_QUEUE_FULL,      /* queue-full */
	CMD_E_LOAD_RANGE,      /* load-outside-window: the program bytes are not inside the window */
	CMD_E_PROGRAM,         /* program-refused: domain and code name the loader/policy/kunit error */
	CMD_E_NOMEM,           /* out-of-memory */
	CMD_E_OV_UNUSED,       /* override-unused-bar: the program uses no such BAR */
	CMD_E_OV_FIXED,        /* override-fixed-bar: weights or TD memory cannot be rebound */
	CMD_E_OV_ACCESS,       /* override-access: the buffer lacks an access the program needs */
	CMD_E_OV_SMALL,        /* override-too-small */
	CMD_E_OV_OUTSIDE,      /* override-outside-grants: not inside a granted region */
	CMD_E_OV_ALIAS,        /* override-alias: a written buffer overlaps another BAR's buffer */
	CMD_E_LINK,            /* bad-link: a chain link's source is not a BAR the previous call wrote */
	CMD_E_DEADLINE,        /* deadline-expired */
	CMD_E_ENGINE,          /* engine-failed: domain engine, code the engine error */
	CMD_E_XFER_RANGE,      /* transfer-outside-window: a WRITE or READ past the data window */
	CMD_E_FIXED_INPUT,     /* fixed-input: the program reads host data through a BAR fixed at
				  load (kernels from a runtime BAR); where: the BAR */
	CMD_E__COUNT
};
/* The error's name and one-line description (fw/common/err.h). */
const struct err_desc *cmd_err(enum cmd_err e);
const char *cmd_err_name(enum cmd_err e);

enum cmd_status { CMD_ST_OK = 0, CMD_ST_REFUSED = 1, CMD_ST_FAILED = 2, CMD_ST_ABORTED = 3 };
const char *cmd_status_name(uint32_t st);

/* A completion's domain (which enum its code belongs to) is fw/submit's enum subq_domain. */

#define CMD_LOAD_F_RAW 1u /* the program is a raw task stream (LDR_F_RAW) */
#define CMD_ACC_READ POL_READ   /* a CALL_BARS override's access bits are the policy's */
#define CMD_ACC_WRITE POL_WRITE

struct cmd_hdr {
	uint32_t id, size, priority;
	int32_t program, process;
	uint32_t procedure, tag, deadline;
};

struct cmd_ov {
	uint32_t bar, access;
	uint64_t addr, size;
};

struct cmd_ev {
	uint32_t type, mask;
	uint64_t id, value;
};

struct cmd_link {
	uint32_t dst_bar, src_bar;
};

struct cmd_step {
	int32_t program;
	uint32_t procedure, nlinks;
	struct cmd_link link[CMD_MAX_LINKS];
};

/* A decoded command. Only the fields of its id are set (the arrays up to their counts). */
struct cmd {
	struct cmd_hdr h;
	uint32_t major, minor;       /* HELLO */
	uint32_t bar;                /* PROGRAM_INFO */
	uint64_t off, len;           /* LOAD */
	uint32_t flags;              /* LOAD */
	uint32_t xlen;               /* WRITE, READ: bytes (1..CMD_MAX_XFER) at window offset off */
	const uint8_t *xdata;        /* WRITE: the bytes, inside the decoded buffer */
	uint64_t ev_id, ev_value;    /* SIGNAL */
	unsigned nov;                /* CALL_BARS */
	struct cmd_ov ov[CMD_MAX_OVERRIDES];
	unsigned nwait, nsignal;     /* CALL_EVENTS: ev[0..nwait) waits, then the signals */
	struct cmd_ev ev[CMD_MAX_WAITS + CMD_MAX_SIGNALS];
	unsigned nsteps;             /* CHAIN */
	struct cmd_step step[CMD_MAX_STEPS];
	int where;                   /* decoding error: the override, event or step index, or -1 */
};

/*
 * Decodes one record of len bytes. On error the header fields the record holds are still set
 * (the id when len >= 4, the tag when len >= 28; else CMD_ID_INVALID and tag 0) so the answer
 * can name them; c->where names the element at fault.
 */
enum cmd_err cmd_decode(const uint8_t *buf, size_t len, struct cmd *c);

/* 1 for the procedure-call family (queued and scheduled); 0 for the rest (answered at once). */
int cmd_is_call(uint32_t id);

/* ---- encoding (the host side, and tests) ---- */
/* Each returns the record length, or 0 when cap is too small or a count is over its limit. */
size_t cmd_encode_hdr(uint8_t *out, size_t cap, const struct cmd_hdr *h);
size_t cmd_encode(uint8_t *out, size_t cap, const struct cmd *c); /* c->h.size is computed */

/* ---- completions ---- */
struct cmd_completion {
	uint32_t id, tag, status, err, domain, code, seq, where;
	uint32_t data[CMD_COMPL_DATA];
};
void cmd_compl_encode(uint8_t out[CMD_COMPL_BYTES], const struct cmd_completion *c);
/* Returns CMD_OK, or CMD_E_TRUNCATED when len < CMD_COMPL_BYTES. */
enum cmd_err cmd_compl_decode(const uint8_t *buf, size_t len, struct cmd_completion *c);

/* QUERY's answer, in completion data[]. */
enum { CMD_Q_VERSION, CMD_Q_ENGINES, CMD_Q_MAX_PROGRAMS, CMD_Q_LIMITS, CMD_Q_QUEUE_DEPTH,
       CMD_Q_TICK_HZ, CMD_Q_DEFAULT_DEADLINE, CMD_Q_FW_VERSION };
/* CMD_Q_LIMITS packs: priorities | overrides << 8 | signals << 16 | steps << 24 */
/* PROGRAM_INFO's answer: data[0] used-BAR mask, [1] fixed-BAR mask, [2] access of the BAR,
 * [3..4] bytes a call must bind (low, high), [5] TD count, [6] procedures. */
/* HELLO's answer: data[0] firmware major, [1] minor, [2] 1 on a minor mismatch, [3] programs it
 * unloaded (a service with hello_unloads: the byte link). LOAD's: data[0] the program id. CALL's and
 * CHAIN's: data[0] steps completed, [1] ticks used, and when the engine failed (err engine),
 * [2..7] its fault as the engine packs it (engine/engine.h, eng_fault_pack): opaque here. */
#define CMD_FAULT_WORDS 6u
#define CMD_COMPL_FAULT 2u /* index of the fault's first word in data[] */

/* ---- rings in shared memory ---- */
/*
 * One ring: a producer index (tail) and a consumer index (head), free-running u32 counters, and
 * nslots fixed-size slots after the indices. The producer writes a slot, then publishes tail
 * (release); the consumer reads tail (acquire), copies the slot out, then publishes head. A
 * command slot begins with a u32 byte count, then the record. Indices are range-checked:
 * tail - head > nslots is a corrupt ring (CMD_RING_CORRUPT), never a read past the slots.
 */
struct cmd_ring {
	volatile uint32_t head; /* next slot the consumer reads */
	uint32_t pad0[15];      /* the two indices on separate 64-byte lines */
	volatile uint32_t tail; /* next slot the producer writes */
	uint32_t pad1[15];
};

#define CMD_SLOT_BYTES 1024u /* a command slot: u32 length, u32 0, then up to 1016 bytes */
#define CMD_SLOT_PAYLOAD (CMD_SLOT_BYTES - 8u)
#define CMD_RING_SLOTS 256u
#define CMD_COMPL_SLOTS 256u

enum cmd_ring_err { CMD_RING_OK, CMD_RING_EMPTY, CMD_RING_FULL, CMD_RING_CORRUPT };

/* The channel table the firmware publishes (docs/service.md). */
#define CMD_CHAN_MAGIC 0x43454e41u /* "ANEC" */
enum cmd_chan_kind { CMD_CHAN_H2F = 1, CMD_CHAN_F2H = 2, CMD_CHAN_DATA = 3 };
#define CMD_NCHAN 3u
struct cmd_chan_desc {
	uint32_t kind, slot_bytes, nslots, pad;
	uint64_t offset; /* H2F/F2H: offset in the shared block; DATA: engine address */
	uint64_t size;
};
struct cmd_chan_table {
	uint32_t magic;
	uint32_t version;       /* major << 16 | minor */
	volatile uint32_t ready;
	uint32_t nchan;
	struct cmd_chan_desc ch[CMD_NCHAN];
};

/* The whole shared block: the table, then the two rings with their slots. */
struct cmd_shm {
	struct cmd_chan_table table;
	uint8_t pad[64 - sizeof(struct cmd_chan_table) % 64];
	struct cmd_ring h2f;
	uint8_t h2f_slot[CMD_RING_SLOTS][CMD_SLOT_BYTES];
	struct cmd_ring f2h;
	uint8_t f2h_slot[CMD_COMPL_SLOTS][CMD_COMPL_BYTES];
};

/* Host side: posts a record (len <= CMD_SLOT_PAYLOAD; a larger one is cut to a slot with its
 * true length in the slot header, to be refused as too large). */
enum cmd_ring_err cmd_host_post(struct cmd_shm *m, const uint8_t *rec, size_t len);
/* Host side: takes the next completion. */
enum cmd_ring_err cmd_host_reap(struct cmd_shm *m, struct cmd_completion *c);
/* Firmware side: copies the next record out (at most cap bytes; *len its stated length, which
 * may exceed cap or the slot: the caller refuses it). */
enum cmd_ring_err cmd_fw_take(struct cmd_shm *m, uint8_t *buf, size_t cap, size_t *len);
/* Firmware side: completions the host has not read yet; CMD_COMPL_SLOTS + 1 when corrupt. */
uint32_t cmd_fw_unread(const struct cmd_shm *m);
enum cmd_ring_err cmd_fw_post(struct cmd_shm *m, const struct cmd_completion *c);

#endif
