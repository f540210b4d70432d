/* ASSERT's failure path (fw/common/assert.h). */
#include "fw/common/assert.h"

#include <stdio.h>

/* No platform hook linked: fw_assert_fail traps. */
__attribute__((weak)) void fw_panic_hook(const char *msg)
{
	(void)msg;
}

void fw_assert_fail(const char *cond, const char *file, int line)
{
	static char msg[256];
	snprintf(msg, sizeof msg, "assertion failed: %s at %s:%d", cond, file, line);
	fw_panic_hook(msg);
	__builtin_trap();
}
