/*
 * Raspberry Pi 3 Model B (BCM2837, 4x Cortex-A53), also qemu-system-aarch64 -M raspi3b:
 * the platform constants, in one place. Drivers take these as parameters; nothing else in the
 * tree names a Raspberry Pi address.
 */
#ifndef ANEFW_PLATFORM_RASPI3B_H
#define ANEFW_PLATFORM_RASPI3B_H

#define PLAT_BOARD "raspi3b"
#define PLAT_CPU "cortex-a53"
#define PLAT_NCORES 4

/*
 * ARM physical memory. The board has 1 GiB; the VideoCore keeps the top of it (gpu_mem, 76 MiB by
 * default on a Pi 3, so the ARM owns 0..0x3b400000) and the peripherals window hides the last
 * 16 MiB. The firmware never touches GPU memory: it is left out of the map altogether.
 */
#define PLAT_RAM_BASE 0x00000000u
#define PLAT_RAM_SIZE 0x3b400000u
/* The boot stub and its spin table (0xd8: core 0, 0xe0: core 1, 0xe8: core 2, 0xf0: core 3). */
#define PLAT_SPIN_TABLE_BASE 0xd8u
/* kernel8.img is loaded (and linked) here; below it lie the stub, the spin table and the DTB. */
#define PLAT_LOAD_ADDR 0x00080000u

/* Peripherals (ARM physical 0x3f000000 = VideoCore bus 0x7e000000). */
#define PLAT_PERIPH_BASE 0x3f000000u
#define PLAT_PERIPH_SIZE 0x01000000u
/* The ARM-local block: core timers, mailboxes, interrupt routing. */
#define PLAT_LOCAL_BASE 0x40000000u
#define PLAT_LOCAL_SIZE 0x00040000u
/* Per-core mailbox interrupt control (enable bits), and mailbox 3's set and clear registers:
 * anefw wakes a parked core by raising its mailbox 3 interrupt (taken by no one: it only ends a
 * WFI). */
#define PLAT_LOCAL_MBOX_IRQ_CTRL(core) (PLAT_LOCAL_BASE + 0x50u + 4u * (core))
#define PLAT_LOCAL_MBOX3_SET(core) (PLAT_LOCAL_BASE + 0x8cu + 0x10u * (core))
#define PLAT_LOCAL_MBOX3_CLR(core) (PLAT_LOCAL_BASE + 0xccu + 0x10u * (core))
#define PLAT_LOCAL_MBOX3_IRQ (1u << 3)

/* PL011 (UART0) on GPIO14/15 (ALT0). Its reference clock is 48 MHz with current Pi firmware
 * (init_uart_clock); QEMU's model ignores the divisor. */
#define PLAT_UART0_BASE 0x3f201000u
#define PLAT_UART_CLK 48000000u
#define PLAT_UART_BAUD 115200u
#define PLAT_GPIO_BASE 0x3f200000u
#define PLAT_UART_TX_PIN 14u
#define PLAT_UART_RX_PIN 15u

/* The hardware random-number generator. */
#define PLAT_RNG_BASE 0x3f104000u

/* DMA controller: channels 0-14 at 0x100 strides, ENABLE at +0xff0. */
#define PLAT_DMA_BASE 0x3f007000u
/* Channels left to the ARM by the Pi firmware (full channels, with 2D mode): 4 and 5. */
#define PLAT_DMA_CHANNEL_MASK ((1u << 4) | (1u << 5))
/* The DMA masters see ARM physical memory through the VideoCore bus; 0xc0000000 is the alias that
 * bypasses the VideoCore L2 cache (the one the ARM's view is coherent with on a Pi 2/3). */
#define PLAT_DMA_BUS_OFFSET 0xc0000000u

#endif
