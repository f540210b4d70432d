/* libFuzzer target: the program loader and the inspector's printers, the program's and its
 * tensors' (fw/tensors: the default grants and every TD's tile geometry), into a null sink. */
#include "fw/loader/loader.h"
#include "fw/tensors/tensors.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static void sink(void *ctx, const char *s, size_t n)
{
	(void)s;
	*(size_t *)ctx += n;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct ldr_program p;
	static struct ldr_regimage img;
	/* the first byte picks the mode so raw streams with any first word get explored too */
	unsigned flags = size ? (data[0] % 3 == 1 ? LDR_F_RAW : data[0] % 3 == 2 ? LDR_F_HWX : 0) : 0;
	for (int pass = 0; pass < 2; pass++) {
		/* an exact-size copy so reads past the end are caught */
		uint8_t *b = malloc(size ? size : 1);
		if (!b)
			return 0;
		memcpy(b, data, size);
		if (ldr_load(b, size, pass ? flags : 0, &p) == LDR_OK) {
			size_t n = 0;
			ldr_print(&p, 0, sink, &n);
			ldr_print(&p, LDR_P_JSON, sink, &n);
			ldr_print(&p, LDR_P_BRIEF, sink, &n);
			tns_print(&p, sink, &n);
			if (p.ntds)
				ldr_td_image(&p, p.ntds - 1, &img);
		}
		free(b);
	}
	return 0;
}
