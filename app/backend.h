/*
 * The one place that picks the engine backend (issue 23 §3). Everything else in app/ drives the
 * engine through the interface (engine/engine.h: struct eng, its operations, the eng_* session
 * wrappers) and names no backend. Today every board runs the software model (engine/model); a
 * silicon backend, or a second model, is chosen here and needs no change elsewhere in app/.
 *
 * Fault injection (the firmware's fault=KIND key, the tests) is a property of the backend: it is
 * reached through here as well. A backend without it refuses every kind.
 */
#ifndef ANEFW_APP_BACKEND_H
#define ANEFW_APP_BACKEND_H

#include <stdint.h>

#include "drivers/dma/dma.h"
#include "engine/engine.h"

/* Opens the backend over the board's DMA device: fills e->ops, e->batch and e->dev. Returns 0,
 * or -1 when out of memory (e untouched). */
int app_backend_open(struct eng *e, struct dma_dev *dma);
void app_backend_close(struct eng *e);

/* The engine model's compute limit (operations a task, fw/td td_ops) for the backends opened
 * from now on: n, or with 0 the board's (hal_platform()->model_ops). A backend without such a
 * limit ignores it. */
void app_backend_set_ops_limit(uint64_t n);
/* The largest limit a command may ask for (run's and submit's --ops-limit, the job's
 * ops_limit=): 2^62, far from td_ops' saturation at 2^63 - 1 */
#define APP_OPS_LIMIT_MAX (1ull << 62)

/* Injected faults by name ("dma-hang", "dma-error", "wrong-task", "readback"; "none"): the kind,
 * or -1 when the backend does not know it. */
int app_backend_fault_parse(const char *name);
const char *app_backend_fault_name(unsigned kind);
/* The next `count` submissions (0 counts as 1) get fault `kind` (0: none, clears it). */
void app_backend_inject(struct eng *e, unsigned kind, uint32_t count);
/* Submissions the injected fault has hit since it was set. */
uint32_t app_backend_injected(const struct eng *e);

#endif
