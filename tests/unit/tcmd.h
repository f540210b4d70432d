/* Host-side helpers for the command-service tests: build and post records, reap completions. */
#ifndef ANEFW_TESTS_TCMD_H
#define ANEFW_TESTS_TCMD_H

#include "fw/cmd/cmd.h"

/* A command with its header set (the rest zero). */
void tc_cmd(struct cmd *c, uint32_t id, int32_t program, uint32_t priority, uint32_t tag);
/* A LOAD command for the len bytes at engine address off (the rest zero). */
void tc_load(struct cmd *c, uint64_t off, uint64_t len, uint32_t flags, uint32_t tag);
/* Encodes and posts; returns 0, or -1 when it cannot be encoded or the ring is full. */
int tc_post(struct cmd_shm *m, const struct cmd *c);
/* Posts raw bytes (any length). */
int tc_post_raw(struct cmd_shm *m, const uint8_t *rec, size_t len);
/* Reaps every completion there is into out (at most max); returns the count. */
unsigned tc_reap(struct cmd_shm *m, struct cmd_completion *out, unsigned max);

#endif
