/*
 * The command service on this firmware's engine (docs/service.md): fw/cmd's service with a
 * backend that keeps loaded programs resident. The session's engine (app/session.h,
 * session_eng) is shared: the service drives the same engine, with the same fault injection.
 *
 * Device memory is one arena the engine reaches: guard | data window | guard | slot 0 | guard |
 * slot 1 ... Every byte outside the window and the buffers placed in the slots holds
 * SESSION_CANARY, so asvc_audit() finds any stray engine write.
 *
 * Load (once per program): the loader validates the service's own copy, the default grants
 * are placed in the program's slot (TD memory, kernel-unit scratch, every buffer between guard
 * pages), ctrl_plan checks and plans them, the buffers are filled (weights from the program,
 * inputs a pattern, outputs zero) and the BAR schema is derived (fw/cmd/schema.h). A call
 * rebinds the BARs its overrides name (the service checked them), re-patches the kernel unit's
 * tile slots when a tile BAR moved, and runs the plan with the remaining deadline as the engine
 * watchdog budget.
 *
 * Time: the model has no wall clock. Its ticks are the engine's work units (eng_work: the
 * model's DMA polls) plus one per idle service pass; the published rate is ASVC_TICK_HZ (one unit taken as
 * one microsecond). A backend on silicon reads the generic timer instead.
 */
#ifndef ANEFW_APP_SERVICE_H
#define ANEFW_APP_SERVICE_H

#include <stddef.h>
#include <stdint.h>

#include "app/session.h"
#include "fw/cmd/svc.h"

#define ASVC_TICK_HZ 1000000u
#define ASVC_DEFAULT_DEADLINE (2u * ASVC_TICK_HZ) /* about 2 s, as the guide's firmware */
#define ASVC_WINDOW_BYTES (1u << 20)
#define ASVC_SLOT_BYTES (1u << 20)

struct asvc_opts {
	uint64_t window_size;      /* 0: ASVC_WINDOW_BYTES */
	uint64_t slot_size;        /* 0: ASVC_SLOT_BYTES */
	uint32_t default_deadline; /* 0: ASVC_DEFAULT_DEADLINE */
	uint64_t recover_interval; /* 0: one default deadline */
	int count_engine;          /* 1: count instructions spent inside the engine's operations */
	int lazy_paint;            /* 1: a slot gets the canary as loads first reach into it, not
				      at creation (a large served arena starts at once); the audit
				      checks the part reached */
};

struct asvc;
/* A service on the session's engine; NULL when out of memory. The channel is not ready yet. */
struct asvc *asvc_create(struct app_session *session, const struct asvc_opts *o);
void asvc_destroy(struct asvc *a);
struct svc *asvc_svc(struct asvc *a);
struct cmd_shm *asvc_shm(struct asvc *a);
/* The data window: CPU pointer, engine address and size. */
uint8_t *asvc_window(struct asvc *a, uint64_t *dev, uint64_t *size);
/* Every guard byte of the arena intact. */
int asvc_audit(const struct asvc *a);
/* Clock (ticks) and, with count_engine, instructions spent inside the engine's operations. */
uint64_t asvc_now(const struct asvc *a);
uint64_t asvc_engine_instret(const struct asvc *a);
/* With count_engine, instructions inside eng_run (the engine driver and the engine's operations). */
uint64_t asvc_run_instret(const struct asvc *a);
/* With count_engine, the part of asvc_engine_instret in the engine's per-run set-up. */
uint64_t asvc_setup_instret(const struct asvc *a);
/* The CPU address of an engine address range inside the arena, or NULL. */
uint8_t *asvc_cpu(struct asvc *a, uint64_t dev, uint64_t len);

#endif
