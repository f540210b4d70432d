/*
 * The BCM2835 hardware random-number generator (the Raspberry Pi 1-3's; the board gives its base,
 * peripherals + 0x104000 on a Pi 3). Registers: CTRL (+0x00, bit 0 enables the generator),
 * STATUS (+0x04: bits 19:0 the warm-up count of numbers to discard, bits 31:24 the words ready),
 * DATA (+0x08), INT_MASK (+0x10, bit 0 masks its interrupt).
 */
#ifndef ANEFW_BCM2835_RNG_H
#define ANEFW_BCM2835_RNG_H

#include <stdint.h>

#define BCM2835_RNG_CTRL 0x00u
#define BCM2835_RNG_STATUS 0x04u
#define BCM2835_RNG_DATA 0x08u
#define BCM2835_RNG_INT_MASK 0x10u
#define BCM2835_RNG_CTRL_RBGEN 1u
#define BCM2835_RNG_INT_OFF 1u
#define BCM2835_RNG_WARMUP_COUNT 0x40000u /* the first numbers are weaker: discarded */
#define BCM2835_RNG_STATUS_WORDS_LSB 24
/* How long the first word may take (the warm-up, then one word). */
#define BCM2835_RNG_TIMEOUT_US 100000u

enum bcm2835_rng_err {
	BCM2835_RNG_OK = 0,
	BCM2835_RNG_E_TIMEOUT = -1, /* no word within BCM2835_RNG_TIMEOUT_US */
};

/* Enables the generator (once; later calls only read) and reads two words into *v. */
int bcm2835_rng_read64(uintptr_t base, uint64_t *v);

#endif
