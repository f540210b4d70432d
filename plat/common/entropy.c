/* Seeds for boards with and without an entropy source (see plat/plat.h, plat_entropy). */
#include "plat/common/plat_common.h"

const char *plat_entropy_counter(uint64_t *seed)
{
	uint64_t t;
	__asm__ volatile("isb\nmrs %0, cntpct_el0" : "=r"(t));
	*seed = (t * 0x9E3779B97F4A7C15ull) ^ 0x00d1ceba11fadeull;
	return "timer count (predictable, not a secret)";
}
