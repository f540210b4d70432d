# raspi3b: board make variables (included by the top-level Makefile).
# SEMIHOSTING=1 (default): for QEMU and a debugger, which serve semihosting calls (command line,
# host files, exit status). SEMIHOSTING=0: the image for a board with nothing attached: it reports
# over the UART and ends in a clean stop. The two live in different build directories.
SEMIHOSTING ?= 1
# SERVE=1 (with SEMIHOSTING=0): with no command line the image serves framed commands on its UART
# (docs/service.md, "Transport 2"; docs/raspi3b.md tells how to wire and drive it).
SERVE ?= 0
PLAT_SRCS := plat/raspi3b/board.c
PLAT_CFLAGS := -DANEFW_SEMIHOSTING=$(SEMIHOSTING) -DANEFW_BOARD_RASPI3B=1 -DANEFW_SERVE_DEFAULT=$(SERVE)
PLAT_LDSCRIPT := linker/raspi3b.ld
# kernel8.img: the raw image the Pi firmware (and QEMU's raw-image boot) loads at 0x80000.
PLAT_IMAGES := kernel8.img anefw.bin
ifeq ($(SEMIHOSTING),0)
B := $(BUILD)/raspi3b-flash
ifeq ($(SERVE),1)
B := $(BUILD)/raspi3b-serve
endif
endif
