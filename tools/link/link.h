/*
 * The host's end of the command link to a firmware serving commands on its UART (`make serve`,
 * docs/service.md "Transport 2"): framed records (fw/cmd/frame.h) over a TCP socket or a serial
 * device, one command at a time, each answered by the completion with its tag. Shared by
 * `anefw-tool remote` and the accel library's tcp backend; each tells failures its own way,
 * through the link's report function. Nothing here prints.
 */
#ifndef ANEFW_TOOLS_LINK_H
#define ANEFW_TOOLS_LINK_H

#include "fw/cmd/cmd.h"
#include "fw/cmd/frame.h"

#include <stddef.h>
#include <stdint.h>

#define LINK_ANSWER_MS 60000      /* the longest wait for one answer, unless answer_ms says */
#define LINK_ANSWER_MAX_S 86400u  /* the longest answer_ms a client may ask for (--timeout): a day */
/* WRITEs and READs in flight at once (link_write, link_read): the service answers the transfer
 * records in the order they were sent, so a window hides the round trip of each record */
#define LINK_WINDOW 32u
#define LINK_HELLO_RESEND_MS 1000 /* the handshake is sent again until answered: bytes that reach
				     a board before its UART is set up are lost (the framing skips
				     what is left of them) */

enum link_fail {
	LINK_OK = 0,
	LINK_E_SEND,    /* the command could not be encoded or written */
	LINK_E_TIMEOUT, /* no answer in answer_ms */
	LINK_E_CLOSED,  /* the link closed (or failed) while waiting */
	LINK_E_REFUSED, /* answered, not CMD_OK (link_ask_ok, link_write, link_read) */
	LINK_E_SHORT,   /* a READ answered with other than the bytes asked (link_read) */
	LINK_E_SEQUENCE, /* an answer out of order: an earlier one in the window was lost */
};

struct link;
/* Tells a failure of command k (l->last holds a refusal's completion, l->ndata a short READ's
 * count, l->expect and l->last.tag the tags of an answer out of order); returns -1. */
typedef int link_report_fn(struct link *l, const struct cmd *k, enum link_fail f);

struct link {
	int fd;
	uint32_t tag;
	struct frame_rx rx;
	uint8_t rec[CMD_MAX_RECORD];
	uint8_t wire[FRAME_MAX_WIRE];
	struct cmd_completion last;
	uint8_t data[CMD_MAX_XFER]; /* a READ's bytes */
	uint32_t ndata;
	uint32_t expect;            /* the tag an answer out of order was expected to carry */
	uint8_t in[4096];           /* bytes read from the link, not yet through the receiver */
	size_t in_pos, in_len;
	uint64_t up_bytes, down_bytes; /* moved by link_write and link_read so far */
	uint64_t up_ns, down_ns;       /* and the time they took */
	long answer_ms;                /* the longest wait for one answer (link_init: LINK_ANSWER_MS) */
	link_report_fn *report;
	void *ctx; /* the report's */
};

/* "HOST:PORT" split at its last colon into host (hlen bytes at most, with its NUL) and *port;
 * 0, or -1 when there is no host before a colon or it is too long, or PORT is not a decimal
 * number 1..65535. */
int link_split_hostport(const char *hostport, char *host, size_t hlen, const char **port);

/* Connects to host:port, each address in turn, tries (1 or more) times 100 ms apart (a
 * refused connection: a service still starting). The socket (close-on-exec), or -1 with *gai
 * the getaddrinfo error (non-zero when the name did not resolve) and *err the last errno. */
int link_connect_tcp(const char *host, const char *port, unsigned tries, int *gai, int *err);

/* The serial device dev, raw at 115200 baud; the fd, or -1 (errno). */
int link_open_serial(const char *dev);

/* A link over fd (connected), its receiver empty. */
void link_init(struct link *l, int fd, link_report_fn *report, void *ctx);

/* A command with only its id and program set. */
void link_cmd_init(struct cmd *k, uint32_t id, int32_t program);

/* Sends k (with a new tag) and waits for the completion with its tag (other frames and any bytes
 * that are not frames are skipped). resend_ms: 0, or how often to send the same frame again
 * while no answer came (only for the handshake, which may be repeated). LINK_OK with l->last
 * (and a READ's bytes in l->data) set, or why not (not reported). */
enum link_fail link_ask_resend(struct link *l, struct cmd *k, long resend_ms);
enum link_fail link_ask(struct link *l, struct cmd *k);

/* link_ask requiring CMD_OK: 0, or -1 reported. */
int link_ask_ok(struct link *l, struct cmd *k);

/* PROGRAM_INFO of loaded program id for one BAR (docs/service.md): the program's BARs in use and
 * those it fixes itself, and what the BAR needs (access bits, bytes). 0, or link_ask_ok's
 * report. */
struct link_bar_info {
	uint32_t used, fixed, access;
	uint64_t need;
};
int link_program_info(struct link *l, int32_t id, unsigned bar, struct link_bar_info *out);

/* The name of a completion's nested error (domain, code: the loader's, the policy's, the kernel
 * unit's, the engine's, the session's or the control path's, as the local run names them), or
 * "" when the domain has none. */
const char *link_cause_name(uint32_t domain, uint32_t code);
/* Its one line of why, as the local run says it after the name, or "". */
const char *link_cause_desc(uint32_t domain, uint32_t code);

/* WRITEs b[0..n) to offset off of the firmware's data window, READs n bytes at off into b;
 * CMD_MAX_XFER bytes a command, up to LINK_WINDOW commands in flight. Every answer is checked: a
 * frame's length and CRC (the receiver), its tag against the oldest command in flight (an answer
 * out of order is LINK_E_SEQUENCE), CMD_OK, and a READ's offset, length and bytes against what
 * it asked. Each answer is waited for answer_ms at most. 0, or -1 reported. */
int link_write(struct link *l, uint64_t off, const uint8_t *b, uint64_t n);
int link_read(struct link *l, uint64_t off, uint8_t *b, uint64_t n);

#endif
