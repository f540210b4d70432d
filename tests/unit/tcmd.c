#include "tests/unit/tcmd.h"

#include <string.h>

static uint8_t tc_rec[CMD_SLOT_PAYLOAD];

void tc_cmd(struct cmd *c, uint32_t id, int32_t program, uint32_t priority, uint32_t tag)
{
	memset(c, 0, sizeof *c);
	c->h.id = id;
	c->h.program = program;
	c->h.process = -1;
	c->h.priority = priority;
	c->h.tag = tag;
}

void tc_load(struct cmd *c, uint64_t off, uint64_t len, uint32_t flags, uint32_t tag)
{
	tc_cmd(c, CMD_LOAD, -1, 0, tag);
	c->off = off;
	c->len = len;
	c->flags = flags;
}

int tc_post(struct cmd_shm *m, const struct cmd *c)
{
	size_t n = cmd_encode(tc_rec, sizeof tc_rec, c);
	if (!n)
		return -1;
	return cmd_host_post(m, tc_rec, n) == CMD_RING_OK ? 0 : -1;
}

int tc_post_raw(struct cmd_shm *m, const uint8_t *rec, size_t len)
{
	return cmd_host_post(m, rec, len) == CMD_RING_OK ? 0 : -1;
}

unsigned tc_reap(struct cmd_shm *m, struct cmd_completion *out, unsigned max)
{
	unsigned n = 0;
	struct cmd_completion c;
	while (n < max && cmd_host_reap(m, &c) == CMD_RING_OK)
		out[n++] = c;
	return n;
}
