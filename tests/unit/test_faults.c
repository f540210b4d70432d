/* Fault injection and the watchdog (engine/model, drivers/dma): every injected fault gives
 * the submission its named error within its bound, leaves the engine and the DMA channel reset,
 * and the next submission runs normally with the same outputs as before. */
#include "tests/harness/harness.h"

#include "tests/unit/tsession.h"
#include "drivers/dma/dma_memcpy.h"
#include "tools/progdesc/progdesc.h"
#include "hal/hal.h"
#include "plat/plat.h"

#include <string.h>

static const char f_desc[] = "input w=32 h=2 c=16\n"
			     "layer int8 cout=16\n"
			     "layer palette4 cout=32\n"
			     "activation relu6\n";
static uint8_t f_prog[0x40000];

static size_t f_build(void)
{
	struct pd_desc d;
	unsigned line;
	size_t len = 0;
	if (pd_parse(f_desc, sizeof f_desc - 1, &d, &line) != PD_OK)
		return 0;
	if (pd_build(&d, f_prog, sizeof f_prog, &len) != PD_OK)
		return 0;
	return len;
}

/* FNV-1a over every writable buffer after the run */
struct f_sum {
	uint64_t h;
	unsigned nout;
};

static void f_check(void *ctx, const struct subq_grant *g, const uint8_t *buf, int is_weights)
{
	struct f_sum *s = ctx;
	(void)is_weights;
	if (!(g->access & POL_WRITE))
		return;
	s->nout++;
	for (uint64_t i = 0; i < g->size; i++)
		s->h = (s->h ^ buf[i]) * 0x100000001b3ull;
	s->h ^= g->bar;
}

static int f_submit(size_t len, struct session_result *res, uint64_t *hash)
{
	struct f_sum s = {0xcbf29ce484222325ull, 0};
	struct session_hooks hk = {.fill = NULL, .check = f_check, .ctx = &s};
	int rc = tsubmit(f_prog, len, 0, NULL, 0, 1, 0, NULL, NULL, &hk, res);
	if (hash)
		*hash = s.h;
	return rc;
}

static int f_engine_reset(void)
{
	const struct anem *m = tsession_model();
	if (m->queued || m->state != ENG_ST_IDLE || m->tq.td_count || m->tq.bars_set)
		return 0;
	for (unsigned i = 0; i < ANEM_WINDOW_BYTES / 4; i++)
		if (m->regs[i])
			return 0;
	return dma_get_state(plat_dma(), ANEM_DMA_CHANNEL) == DMA_STATE_UNCONFIGURED &&
	       plat_dma()->fault.active == 0 &&
	       plat_dma()->fault.kind == DMA_FAULT_NONE;
}

/* One fault: the named error, a bounded number of polls, reset state, then a normal run. */
static void f_fault_case(unsigned kind, uint32_t skip, int want)
{
	size_t len = f_build();
	REQUIRE(len);
	struct session_result res;
	uint64_t h0 = 0, h1 = 0;
	anem_set_faults(tsession_model(), NULL);
	CHECK_EQ(f_submit(len, &res, &h0), 0);
	REQUIRE(res.run == ENG_OK);
	uint64_t budget = tsession_model()->wd_budget;
	struct anem_faults f = {kind, skip, 1, 0};
	anem_set_faults(tsession_model(), &f);
	CHECK_EQ(f_submit(len, &res, NULL), 1);
	CHECK(res.loaded);
	CHECK_EQ(res.st.err, CTRL_OK);
	CHECK_STR(eng_err_name(res.run), eng_err_name(want));
	CHECK(res.canaries_ok);
	CHECK_EQ(anem_faults_fired(tsession_model()), 1u);
	CHECK(tsession_model()->polls <= budget);
	CHECK(f_engine_reset());
	/* the next submission (the fault was one-shot) runs normally, same outputs */
	CHECK_EQ(f_submit(len, &res, &h1), 0);
	CHECK_EQ(res.run, ENG_OK);
	CHECK(res.canaries_ok);
	CHECK_EQ(anem_faults_fired(tsession_model()), 1u);
	CHECK(h1 == h0);
	anem_set_faults(tsession_model(), NULL);
}

TEST(faults, dma_hang_gives_watchdog_expired)
{
	f_fault_case(ANEM_FAULT_DMA_HANG, 0, ENG_E_WATCHDOG);
}

TEST(faults, dma_hang_mid_program)
{
	f_fault_case(ANEM_FAULT_DMA_HANG, 7, ENG_E_WATCHDOG);
}

TEST(faults, dma_error_gives_dma_error)
{
	f_fault_case(ANEM_FAULT_DMA_ERROR, 0, ENG_E_DMA);
	f_fault_case(ANEM_FAULT_DMA_ERROR, 5, ENG_E_DMA);
}

TEST(faults, wrong_task_completion)
{
	f_fault_case(ANEM_FAULT_WRONG_TASK, 0, ENG_E_WRONG_TASK);
}

TEST(faults, register_readback_mismatch)
{
	f_fault_case(ANEM_FAULT_READBACK, 0, ENG_E_READBACK);
	f_fault_case(ANEM_FAULT_READBACK, 40, ENG_E_READBACK);
}

TEST(faults, fault_count_hits_that_many_submissions)
{
	size_t len = f_build();
	REQUIRE(len);
	struct session_result res;
	struct anem_faults f = {ANEM_FAULT_DMA_ERROR, 0, 3, 0};
	anem_set_faults(tsession_model(), &f);
	for (unsigned i = 0; i < 3; i++) {
		CHECK_EQ(f_submit(len, &res, NULL), 1);
		CHECK_EQ(res.run, ENG_E_DMA);
	}
	CHECK_EQ(f_submit(len, &res, NULL), 0);
	CHECK_EQ(anem_faults_fired(tsession_model()), 3u);
	anem_set_faults(tsession_model(), NULL);
}

TEST(faults, names_parse_round_trip)
{
	for (unsigned k = 0; k < ANEM_FAULT__COUNT; k++)
		CHECK_EQ(anem_fault_parse(anem_fault_name(k)), (int)k);
	CHECK_EQ(anem_fault_parse("dma-hung"), -1);
	CHECK_EQ(anem_fault_parse(NULL), -1);
	CHECK_STR(eng_err_name(ENG_E_WATCHDOG), "watchdog-expired");
}

TEST(faults, watchdog_budget_from_program_size)
{
	size_t len = f_build();
	REQUIRE(len);
	struct session_result res;
	anem_set_faults(tsession_model(), NULL);
	CHECK_EQ(f_submit(len, &res, NULL), 0);
	const struct anem *m = tsession_model();
	uint64_t used = m->polls, budget = m->wd_budget;
	CHECK(used > 0 && used <= budget);
	/* the budget grows with TDs and bytes */
	static struct ctrl_plan pl;
	memset(&pl, 0, sizeof pl);
	pl.ntds = 1;
	uint64_t b1 = eng_watchdog_budget(&pl);
	CHECK_EQ(b1, (uint64_t)ENG_WD_BASE + ENG_WD_PER_TD);
	pl.td[0].nranges = 1;
	pl.td[0].r[0].len = 0x100000;
	uint64_t b2 = eng_watchdog_budget(&pl);
	CHECK_EQ(b2, b1 + 17u * ENG_WD_PER_MOVE + 0x100000u / ENG_WD_BYTES_PER_POLL);
	/* a budget one poll short of what the program needs expires, with no fault at all */
	struct anem_faults f = {ANEM_FAULT_NONE, 0, 0, (uint32_t)(used - 1)};
	anem_set_faults(tsession_model(), &f);
	CHECK_EQ(f_submit(len, &res, NULL), 1);
	CHECK_STR(eng_err_name(res.run), "watchdog-expired");
	CHECK(f_engine_reset());
	f.watchdog_polls = (uint32_t)used;
	anem_set_faults(tsession_model(), &f);
	CHECK_EQ(f_submit(len, &res, NULL), 0);
	anem_set_faults(tsession_model(), NULL);
	CHECK_EQ(f_submit(len, &res, NULL), 0);
}

/* The DMA layer alone, on a memory-copy engine. */
TEST(faults, dma_layer_hang_error_reset)
{
	static struct dma_memcpy mc;
	static struct dma_dev d;
	static uint32_t src[64], dst[64];
	REQUIRE(dma_memcpy_init(&mc, &d, 0) == DMA_OK);
	for (unsigned i = 0; i < 64; i++)
		src[i] = 0x1000u + i;
	dma_set_fault(&d, DMA_FAULT_HANG, 0);
	CHECK_EQ(dma_copy(&d, 1, dst, src, sizeof dst, 1000), DMA_E_TIMEOUT);
	CHECK_EQ(dma_get_state(&d, 1), DMA_STATE_RUNNING);
	CHECK_EQ(dma_wait(&d, 1, 1000), DMA_E_TIMEOUT); /* still hung */
	CHECK_EQ(d.fault.fired, 1u);
	CHECK_EQ(dma_reset(&d, 1), DMA_OK);
	CHECK_EQ(dma_get_state(&d, 1), DMA_STATE_UNCONFIGURED);
	memset(dst, 0, sizeof dst);
	CHECK_EQ(dma_copy(&d, 1, dst, src, sizeof dst, 10), DMA_OK);
	CHECK_MEM(dst, src, sizeof dst);
	dma_set_fault(&d, DMA_FAULT_ERROR, 0);
	CHECK_EQ(dma_copy(&d, 2, dst, src, sizeof dst, 10), DMA_E_INJECTED);
	CHECK_EQ(dma_get_state(&d, 2), DMA_STATE_ERROR);
	CHECK_EQ(dma_start(&d, 2), DMA_E_STATE);
	CHECK_EQ(dma_reset(&d, 2), DMA_OK);
	CHECK_EQ(dma_get_state(&d, 2), DMA_STATE_UNCONFIGURED);
	memset(dst, 0, sizeof dst);
	CHECK_EQ(dma_copy(&d, 2, dst, src, sizeof dst, 10), DMA_OK);
	CHECK_MEM(dst, src, sizeof dst);
	CHECK_EQ(d.fault.fired, 2u);
	/* a stopped hang frees the channel too */
	dma_set_fault(&d, DMA_FAULT_HANG, 0);
	CHECK_EQ(dma_copy(&d, 0, dst, src, sizeof dst, 5), DMA_E_TIMEOUT);
	CHECK_EQ(dma_stop(&d, 0), DMA_OK);
	CHECK_EQ(dma_start(&d, 0), DMA_OK);
	CHECK_EQ(dma_wait(&d, 0, 5), DMA_OK);
	CHECK_STR(dma_err(DMA_E_INJECTED)->name, "dma-injected-fault");
}

/* dma_wait_us bounds a hung transfer in time (the HAL's timer), not in polls: it gives up no
 * sooner than its bound and well before a second, and a healthy transfer completes under it. */
TEST(faults, dma_wait_bounded_in_time)
{
	static struct dma_memcpy mc;
	static struct dma_dev d;
	static uint32_t src[64], dst[64];
	REQUIRE(dma_memcpy_init(&mc, &d, 4) == DMA_OK); /* 4 bytes a poll: 64 polls for the copy */
	for (unsigned i = 0; i < 64; i++)
		src[i] = 0x2000u + i;
	dma_set_fault(&d, DMA_FAULT_HANG, 0);
	const struct dma_block b = {.src = (uintptr_t)src, .dst = (uintptr_t)dst, .len = sizeof dst};
	const struct dma_channel_config cfg = {.blocks = &b, .nblocks = 1};
	REQUIRE(dma_configure(&d, 1, &cfg) == DMA_OK);
	REQUIRE(dma_start(&d, 1) == DMA_OK);
	uint64_t past = hal_timeout_init_us(5000), late = hal_timeout_init_us(1000000);
	CHECK_EQ(dma_wait_us(&d, 1, 5000), DMA_E_TIMEOUT);
	CHECK(hal_timeout_elapsed(past));  /* it waited its 5 ms */
	CHECK(!hal_timeout_elapsed(late)); /* and not a second */
	CHECK_EQ(dma_reset(&d, 1), DMA_OK);
	memset(dst, 0, sizeof dst);
	REQUIRE(dma_configure(&d, 1, &cfg) == DMA_OK);
	REQUIRE(dma_start(&d, 1) == DMA_OK);
	CHECK_EQ(dma_wait_us(&d, 1, DMA_WAIT_DEFAULT_US), DMA_OK);
	CHECK_MEM(dst, src, sizeof dst);
}
