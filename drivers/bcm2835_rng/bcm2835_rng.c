/* The BCM2835 hardware random-number generator (see bcm2835_rng.h). */
#include "drivers/bcm2835_rng/bcm2835_rng.h"
#include "hal/hal.h"
#include "hal/mmio.h"

static int read_word(uintptr_t base, uint32_t *w)
{
	uint64_t deadline = hal_timeout_init_us(BCM2835_RNG_TIMEOUT_US);
	for (;;) {
		int late = hal_timeout_elapsed(deadline); /* before the look: the last look is late */
		if (mmio_read_32(base + BCM2835_RNG_STATUS) >> BCM2835_RNG_STATUS_WORDS_LSB)
			break;
		if (late)
			return BCM2835_RNG_E_TIMEOUT;
	}
	*w = mmio_read_32(base + BCM2835_RNG_DATA);
	return BCM2835_RNG_OK;
}

int bcm2835_rng_read64(uintptr_t base, uint64_t *v)
{
	if (!(mmio_read_32(base + BCM2835_RNG_CTRL) & BCM2835_RNG_CTRL_RBGEN)) {
		mmio_write_32(base + BCM2835_RNG_STATUS, BCM2835_RNG_WARMUP_COUNT);
		mmio_setbits_32(base + BCM2835_RNG_INT_MASK, BCM2835_RNG_INT_OFF);
		mmio_setbits_32(base + BCM2835_RNG_CTRL, BCM2835_RNG_CTRL_RBGEN);
	}
	uint32_t lo, hi;
	int rc = read_word(base, &lo);
	if (rc == BCM2835_RNG_OK)
		rc = read_word(base, &hi);
	if (rc == BCM2835_RNG_OK)
		*v = (uint64_t)hi << 32 | lo;
	return rc;
}
