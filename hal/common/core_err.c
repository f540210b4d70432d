/* Board-independent HAL code, linked into every build (the targets' and the native one). */
#include "hal/hal.h"

const char *hal_core_err_name(int e)
{
	switch (e) {
	case HAL_CORE_OK: return "ok";
	case HAL_CORE_E_BAD_CORE: return "bad-core";
	case HAL_CORE_E_BUSY: return "busy";
	case HAL_CORE_E_ALREADY_ON: return "already-on";
	case HAL_CORE_E_DENIED: return "denied";
	case HAL_CORE_E_UNSUPPORTED: return "unsupported";
	}
	return "unknown";
}
