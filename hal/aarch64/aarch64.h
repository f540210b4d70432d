/* What every AArch64 board shares (hal/aarch64/), and what each board provides to it. */
#ifndef ANEFW_HAL_AARCH64_H
#define ANEFW_HAL_AARCH64_H

void aarch64_set_entry_el(unsigned el);
void aarch64_counters_init(void);

/* Provided by hal/<board>/: console and anything else the board needs before main(). */
void board_init(void);

#endif
