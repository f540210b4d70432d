/* The one place that picks the engine backend: the software model (see backend.h). */
#include "app/backend.h"
#include "engine/model/model.h"
#include "hal/hal.h"

#include <malloc.h> /* memalign (newlib has no posix_memalign) */
#include <stdlib.h>
#include <string.h>

/* The model and the RAM its register window lives in (a real engine has MMIO there). */
struct model_backend {
	struct anem m; /* first: e->dev points at it, and at the allocation */
	uint32_t window[ANEM_WINDOW_BYTES / 4];
};

static uint64_t ops_limit; /* app_backend_set_ops_limit; 0: the board's */

void app_backend_set_ops_limit(uint64_t n)
{
	ops_limit = n;
}

int app_backend_open(struct eng *e, struct dma_dev *dma)
{
	/* aligned as its type asks (the model's row buffers are 16-byte aligned; newlib-nano's
	 * calloc gives 8) */
	struct model_backend *b = memalign(_Alignof(struct model_backend), sizeof *b);
	if (!b)
		return -1;
	memset(b, 0, sizeof *b);
	if (anem_init(&b->m, (uintptr_t)b->window, NULL, 0, 0, dma) != ENG_OK) {
		free(b);
		return -1;
	}
	const uint64_t lim = ops_limit ? ops_limit : hal_platform()->model_ops;
	if (lim)
		anem_set_ops_limit(&b->m, lim);
	e->ops = &anem_ops;
	e->batch = &anem_batch;
	e->dev = &b->m;
	return 0;
}

void app_backend_close(struct eng *e)
{
	free(e->dev); /* the model is the allocation's first member */
	e->dev = NULL;
}

int app_backend_fault_parse(const char *name)
{
	return anem_fault_parse(name);
}

const char *app_backend_fault_name(unsigned kind)
{
	return anem_fault_name(kind);
}

void app_backend_inject(struct eng *e, unsigned kind, uint32_t count)
{
	if (!kind) {
		anem_set_faults(e->dev, NULL);
		return;
	}
	const struct anem_faults f = {kind, 0, count, 0};
	anem_set_faults(e->dev, &f);
}

uint32_t app_backend_injected(const struct eng *e)
{
	return anem_faults_fired(e->dev);
}
