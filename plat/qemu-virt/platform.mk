# qemu-virt: board make variables (included by the top-level Makefile).
PLAT_SRCS := plat/qemu-virt/board.c
PLAT_CFLAGS := -DANEFW_SEMIHOSTING=1
PLAT_LDSCRIPT := linker/qemu-virt.ld
# The raw image is a by-product here; QEMU boots the ELF.
PLAT_IMAGES := anefw.bin
