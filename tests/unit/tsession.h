/* The tests' engine session: one per test image (app/session on the board's DMA device), and
 * the submission call the tests share. */
#ifndef ANEFW_TESTS_TSESSION_H
#define ANEFW_TESTS_TSESSION_H

#include "app/session.h"
#include "app/backend.h"
#include "engine/model/model.h"

struct app_session *tsession(void);
/* A session's engine model (app/backend.c opens the model on every board today): for what only
 * the model has (fault injection with skips, the watchdog override, its counters). */
struct anem *tsession_model_of(struct app_session *s);
/* Its engine model: fault injection, counters, the state after the last run. */
struct anem *tsession_model(void);
/* An outf sink that discards what it is given: tsubmit's out when the output is not wanted. */
void tnull_out(void *ctx, const char *s, size_t n);
/* An outf sink that keeps the text (NUL-terminated; what does not fit is dropped); set n to 0
 * to start again. */
struct tcapture {
	char text[4096];
	size_t n;
};
void tcapture_out(void *ctx, const char *s, size_t n);
/* inspect's text (ldr_print --brief) of the raw program buf, as `anefw-tool inspect --brief --raw`
 * prints it: "" when it does not load; the text is kept until the next call (64 KiB, what does
 * not fit dropped). */
const char *tinspect(const uint8_t *buf, size_t len);
/* The same with ldr_load's flags given (0: the format the file says, a .hwx) */
const char *tinspect_as(const uint8_t *buf, size_t len, unsigned flags);
/* The offsets inside p's TD area of the value words of TD td's writes to register addr, in
 * stream order: the first max of them into off; returns how many there are. For tests that
 * patch a register in a program (or in TD memory). */
unsigned twrite_offsets(const struct ldr_program *p, unsigned td, uint32_t addr, uint32_t *off,
			unsigned max);
/* In program buf (raw or hwx as ldr_load reads it), TD td's last write of register reg: field (lsb,
 * width 1..32) set to v. Returns 0, or -1 when the program does not load or the TD does not
 * write reg. */
int tpatch_field(uint8_t *buf, size_t len, unsigned td, uint32_t reg, unsigned lsb, unsigned width,
		 uint32_t v);
/* One submission on tsession(). */
int tsubmit(const uint8_t *buf, size_t len, unsigned ldr_flags, const struct subq_grant *grants,
	    unsigned n, int use_defaults, unsigned trace, outf_fn out, void *ctx,
	    const struct session_hooks *hooks, struct session_result *res);
/* A raw program run against build/testdata/model/ORCNAME.orc (its inputs filled, its outputs
 * checked into r; quiet: failures counted, not reported): 0 when the run completed, else -1
 * with the run's fault text in fault (when given). Checks that the canaries held. */
struct orc_run;
int trun_orc(const char *orcname, const uint8_t *prog, size_t len, int quiet, struct orc_run *r,
	     char *fault, size_t fault_len);
/* trun_orc with the submission's grants given (g, ng; g NULL: the program's defaults). */
int trun_orc_granted(const char *orcname, const uint8_t *prog, size_t len, const struct subq_grant *g,
		     unsigned ng, int quiet, struct orc_run *r, char *fault, size_t fault_len);

#endif
