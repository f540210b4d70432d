/* qemu-system-aarch64 -M virt: the platform constants, in one place. */
#ifndef ANEFW_PLATFORM_QEMU_VIRT_H
#define ANEFW_PLATFORM_QEMU_VIRT_H

#define PLAT_BOARD "qemu-virt"
#define PLAT_CPU "cortex-a53"
#define PLAT_NCORES 2 /* scripts/qemu-run.sh: -smp 2; core 1 powered off until PSCI CPU_ON */

#define PLAT_UART0_BASE 0x09000000u
#define PLAT_UART_CLK 24000000u
#define PLAT_UART_BAUD 115200u
/* virtio-mmio transports (QEMU's virt machine: 32 of them, 0x200 bytes apart) */
#define PLAT_VIRTIO_BASE 0x0a000000u
#define PLAT_VIRTIO_STRIDE 0x200u
#define PLAT_VIRTIO_COUNT 32u

#define PLAT_FLASH_BASE 0x00000000u
#define PLAT_FLASH_SIZE 0x08000000u
#define PLAT_DEVICE_BASE 0x08000000u
#define PLAT_DEVICE_SIZE 0x38000000u
#define PLAT_RAM_BASE 0x40000000u
#define PLAT_RAM_SIZE 0x80000000u /* QEMU -m 2G (scripts/qemu-run.sh) */
/* QEMU places the DTB at the start of RAM for bare-metal images; the image starts above it. */
#define PLAT_DTB_SIZE 0x00200000u

#endif
