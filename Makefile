# anefw build. `make run` and `make test` do all set-up (Debian packages, newlib-nano) first.
# Variables: BOARD (qemu-virt | raspi3b), ARGS (firmware command line for run), SANITIZE=1
# (tools with ASan/UBSan), V=1 (echo commands).

BOARD ?= qemu-virt
BUILD := build
B := $(BUILD)/$(BOARD)
H := $(BUILD)/host
PYTHON := /usr/bin/python3
SHARED ?= $(abspath ../shared)
FUZZ_SECONDS ?= 60

.DEFAULT_GOAL := all

# Every core by default (`make test` on 2 cores: docs/testing.md); a -j on the command line wins.
# Only the top make: a sub-make shares its parent's job slots.
ifeq ($(MAKELEVEL),0)
MAKEFLAGS += -j$(shell nproc 2>/dev/null || echo 1)
endif

ifneq ($(V),1)
Q := @
endif

ifeq ($(wildcard plat/$(BOARD)/platform.mk),)
$(error unknown BOARD '$(BOARD)': no plat/$(BOARD)/platform.mk)
endif
include plat/$(BOARD)/platform.mk

# ---- set-up: Debian packages and newlib-nano, cached under build/ ----
DEPS_HASH := $(shell cat scripts/setup-deps.sh | md5sum | cut -c1-12)
DEPS_STAMP := $(BUILD)/.deps-$(DEPS_HASH)
NEWLIB_HASH := $(shell cat scripts/build-newlib.sh | md5sum | cut -c1-12)
NEWLIB_DIR ?= $(BUILD)/newlib
NEWLIB := $(NEWLIB_DIR)/prefix/aarch64-none-elf
NEWLIB_STAMP := $(NEWLIB_DIR)/stamp-$(NEWLIB_HASH)

# The stamps' names carry their recipe's hash, so a changed recipe reruns; the recipes are
# order-only prerequisites (a fresh clone or worktree has every file newer than a stamp made
# before it, which must not rebuild a newlib that worktrees share)
$(DEPS_STAMP): | scripts/setup-deps.sh
	$(Q)mkdir -p $(BUILD)
	$(Q)bash scripts/setup-deps.sh
	$(Q)rm -f $(BUILD)/.deps-* && touch $@

$(NEWLIB_STAMP): | scripts/build-newlib.sh $(DEPS_STAMP)
	@echo "newlib-nano: building (about a minute, once)"
	$(Q)bash scripts/build-newlib.sh $(abspath $(NEWLIB_DIR)/work) $(abspath $(NEWLIB_DIR)/prefix)
	$(Q)rm -rf $(NEWLIB_DIR)/work $(NEWLIB_DIR)/stamp-* && touch $@

.PHONY: deps
deps: $(DEPS_STAMP) $(NEWLIB_STAMP)

# ---- sources ----
FW_SRCS := $(shell find fw -name '*.c' | sort)
DRV_SRCS := $(shell find drivers -name '*.c' | sort)
ENGINE_SRCS := $(shell find engine -name '*.c' | sort)
# hal/common/: board-independent HAL code, in the target images and the native builds alike
HAL_COMMON_SRCS := $(sort $(wildcard hal/common/*.c))
HAL_A64_SRCS := $(wildcard hal/aarch64/*.c)
# plat/: board glue, above the drivers (plat/common/ for every target board, plat/host/ natively)
PLAT_COMMON_SRCS := $(sort $(wildcard plat/common/*.c))
BOOT_SRCS := boot/entry.S boot/vectors.S boot/start.c boot/mmu.c boot/exceptions.c
TARGET_COMMON := $(BOOT_SRCS) $(HAL_COMMON_SRCS) $(HAL_A64_SRCS) $(PLAT_COMMON_SRCS) $(PLAT_SRCS) $(DRV_SRCS)
# the application: the only code that depends on every layer (main.c only in the image)
# every app/ file but main.c and job.c (the firmware image's own)
APP_LIB_SRCS := $(filter-out app/main.c app/job.c,$(sort $(wildcard app/*.c)))
APP_SRCS := app/main.c app/job.c $(APP_LIB_SRCS)
# the program builder (tools, and the tests that build programs)
PROGDESC_SRCS := $(sort $(wildcard tools/progdesc/*.c))
TEST_SRCS := tests/harness/harness.c tests/harness/main.c $(sort $(wildcard tests/unit/*.c))
TARGET_TEST_SRCS := $(sort $(wildcard tests/target/*.c))
BENCH_SRCS := $(sort $(wildcard tests/bench/*.c))
# the host's end of the command link (anefw-tool remote, and the accel library's tcp backend)
LINK_SRCS := $(sort $(wildcard tools/link/*.c))
TOOL_SRCS := $(sort $(wildcard tools/anefw-tool/*.c)) $(PROGDESC_SRCS) $(LINK_SRCS)
HOST_HAL_SRCS := $(HAL_COMMON_SRCS) hal/host/hal_host.c
HOST_PLAT_SRCS := $(sort $(wildcard plat/host/*.c)) plat/common/dma_memcpy_dev.c
FUZZ_SRCS := $(sort $(wildcard tests/fuzz/fuzz_*.c))

# ---- layers: each sees only the layers below it ----
# A source file's layer is its top folder; it is compiled with -I of a folder that links just the
# roots it may include, so an upward include (fw/ including drivers/, say) fails to build.
# tests/ see everything. From the bottom: fw/ (pure logic) and linker/; hal/ (low-level accessors:
# mmio, counters, timer, cache, cpu); drivers/ (devices, given their addresses); plat/ (board
# glue: which devices at which addresses); boot/; engine/; app/; tools/.
LAYER_NAMES := fw linker hal drivers plat boot engine app tools
LAYERS_fw := fw
LAYERS_linker := linker
LAYERS_hal := hal linker
LAYERS_drivers := drivers hal fw
LAYERS_plat := plat drivers hal linker fw
LAYERS_boot := boot plat hal linker
LAYERS_engine := engine drivers hal fw
LAYERS_app := app engine plat drivers hal fw
LAYERS_tools := tools app engine plat drivers hal fw
INC := $(BUILD)/inc
layer_of = $(firstword $(subst /, ,$(1)))
layer_inc = $(if $(filter tests,$(call layer_of,$(1))),-I.,-I$(INC)/$(call layer_of,$(1)))
# the stamp names the tree too: a build directory another checkout made (copied, or given as
# BUILD=) has its links remade to this tree's sources, not compiled against the other's headers
INC_STAMP := $(INC)/.stamp-$(shell echo '$(CURDIR) $(foreach l,$(LAYER_NAMES),$(l):$(LAYERS_$(l)))' | md5sum | cut -c1-8)
$(INC_STAMP):
	$(Q)rm -rf $(INC) && mkdir -p $(INC)
	$(Q)$(foreach l,$(LAYER_NAMES),mkdir -p $(INC)/$(l) && \
		$(foreach r,$(LAYERS_$(l)),ln -s $(CURDIR)/$(r) $(INC)/$(l)/$(r) &&) true && ) true
	$(Q)touch $@

# ---- target compiler ----
CROSS := aarch64-linux-gnu-
TCC := $(CROSS)gcc
EMPTY_SYSROOT := $(BUILD)/empty-sysroot
WARN := -Wall -Wextra -Werror
TARGET_CFLAGS := -std=gnu11 -ffreestanding -mcpu=cortex-a53 -mstrict-align -mno-outline-atomics \
	-fno-pie -O2 -g -ffunction-sections -fdata-sections -fstack-protector-strong \
	--sysroot=$(EMPTY_SYSROOT) -isystem $(NEWLIB)/include $(WARN) \
	-DANEFW_TARGET=1 -DANEFW_BOARD=\"$(BOARD)\" $(PLAT_CFLAGS)
# fw/ is integer-only: no floating-point or SIMD registers at all.
FW_ONLY_CFLAGS := -mgeneral-regs-only
# The engine model rounds after every fp32 multiply and add, as on the host (x86-64 has no FMA
# to contract to); its micro-kernels fuse on purpose, where the products are exact
# (docs/engine-model.md, "Numerics").
# -fno-math-errno: its square root (a reduction's 1/sqrt) is the one IEEE instruction on both.
$(B)/obj/engine/model/%.c.o: TARGET_CFLAGS += -ffp-contract=off -fno-math-errno
TARGET_LDFLAGS := -nostartfiles -nostdlib -static -no-pie -Wl,--build-id=none -T $(PLAT_LDSCRIPT) -Wl,--gc-sections \
	-L$(NEWLIB)/lib
TARGET_LIBS := -Wl,--start-group -lc -lgcc -Wl,--end-group

tobj = $(patsubst %,$(B)/obj/%.o,$(1))

$(B)/obj/fw/%.c.o: fw/%.c | $(NEWLIB_STAMP) $(INC_STAMP)
	@mkdir -p $(dir $@) $(EMPTY_SYSROOT)
	@echo "  CC      $<"
	$(Q)$(TCC) $(TARGET_CFLAGS) $(call layer_inc,$<) $(FW_ONLY_CFLAGS) -MMD -MP -c $< -o $@

$(B)/obj/%.c.o: %.c | $(NEWLIB_STAMP) $(INC_STAMP)
	@mkdir -p $(dir $@) $(EMPTY_SYSROOT)
	@echo "  CC      $<"
	$(Q)$(TCC) $(TARGET_CFLAGS) $(call layer_inc,$<) -MMD -MP -c $< -o $@

$(B)/obj/%.S.o: %.S | $(NEWLIB_STAMP) $(INC_STAMP)
	@mkdir -p $(dir $@) $(EMPTY_SYSROOT)
	@echo "  AS      $<"
	$(Q)$(TCC) $(TARGET_CFLAGS) $(call layer_inc,$<) -MMD -MP -c $< -o $@

FW_IMAGE_OBJS := $(call tobj,$(TARGET_COMMON) $(APP_SRCS) $(ENGINE_SRCS) $(FW_SRCS))
LIB_SRCS := $(FW_SRCS) $(ENGINE_SRCS) $(APP_LIB_SRCS) $(PROGDESC_SRCS)
TEST_IMAGE_OBJS := $(call tobj,$(TARGET_COMMON) $(LIB_SRCS) $(TEST_SRCS) $(TARGET_TEST_SRCS))

$(B)/anefw.elf: $(FW_IMAGE_OBJS) $(PLAT_LDSCRIPT) linker/common.ld
	@echo "  LD      $@"
	$(Q)$(TCC) $(TARGET_LDFLAGS) -Wl,-Map,$@.map $(FW_IMAGE_OBJS) $(TARGET_LIBS) -o $@

$(B)/anefw-tests.elf: $(TEST_IMAGE_OBJS) $(PLAT_LDSCRIPT) linker/common.ld
	@echo "  LD      $@"
	$(Q)$(TCC) $(TARGET_LDFLAGS) -Wl,-Map,$@.map $(TEST_IMAGE_OBJS) $(TARGET_LIBS) -o $@

# The firmware with the MMU's page-table pool cut to 2 tables: it must stop at boot with a panic
# (tests/suites/15-foundation.sh). Only boot/mmu.c is compiled differently.
$(B)/obj-mmu-pool-test/boot/mmu.c.o: boot/mmu.c | $(NEWLIB_STAMP) $(INC_STAMP)
	@mkdir -p $(dir $@) $(EMPTY_SYSROOT)
	@echo "  CC      $< (2-table pool)"
	$(Q)$(TCC) $(TARGET_CFLAGS) $(call layer_inc,$<) -DBOOT_MMU_TABLE_POOL=2 -MMD -MP -c $< -o $@
MMU_POOL_TEST_OBJS := $(filter-out $(call tobj,boot/mmu.c),$(FW_IMAGE_OBJS)) \
	$(B)/obj-mmu-pool-test/boot/mmu.c.o
$(B)/anefw-mmu-pool-test.elf: $(MMU_POOL_TEST_OBJS) $(PLAT_LDSCRIPT) linker/common.ld
	@echo "  LD      $@"
	$(Q)$(TCC) $(TARGET_LDFLAGS) $(MMU_POOL_TEST_OBJS) $(TARGET_LIBS) -o $@

BENCH_IMAGE_OBJS := $(call tobj,$(TARGET_COMMON) $(LIB_SRCS) tests/harness/harness.c tests/harness/main.c $(TARGET_TEST_SRCS) $(BENCH_SRCS))
$(B)/anefw-bench.elf: $(BENCH_IMAGE_OBJS) $(PLAT_LDSCRIPT) linker/common.ld
	@echo "  LD      $@"
	$(Q)$(TCC) $(TARGET_LDFLAGS) -Wl,-Map,$@.map $(BENCH_IMAGE_OBJS) $(TARGET_LIBS) -o $@

$(B)/%.bin: $(B)/%.elf
	$(Q)$(CROSS)objcopy -O binary $< $@

$(B)/kernel8.img: $(B)/anefw.elf
	$(Q)$(CROSS)objcopy -O binary $< $@

.PHONY: all firmware tools
all: deps firmware tools
firmware: $(B)/anefw.elf $(addprefix $(B)/,$(PLAT_IMAGES))

# ---- host builds: tools and native tests, from the same sources ----
# Two flavours, each source compiled once per flavour it is used in:
#   pic/ (gcc -O2 -fPIC, hidden visibility): the plain tool (opt/anefw-tool) and
#        libanefw-accel.so; hidden visibility changes nothing in an executable, and the library
#        exports only what it marks
#   san/ (gcc -O1, ASan and UBSan): the host unit tests (anefw-tests) and the sanitized tool
#        (san/anefw-tool, for `make tools SANITIZE=1` and tests/suites/72-memory.sh)
# (and the fuzz targets' own flavour, clang with libFuzzer's instrumentation, below)
HCC := gcc
SAN_CC := $(HCC)
HOST_CFLAGS := -std=gnu11 -g $(WARN) -D_GNU_SOURCE -fno-math-errno
SAN_FLAGS := -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
PIC_CFLAGS := $(HOST_CFLAGS) -O2 -fPIC -fvisibility=hidden
SAN_CFLAGS := $(HOST_CFLAGS) -O1 $(SAN_FLAGS)
ifeq ($(SANITIZE),1)
TOOL_DIR := $(H)/san
else
TOOL_DIR := $(H)/opt
endif

# The engine model rounds after every fp32 multiply and add on the host as on the target (above):
# an aarch64 host has FMA to contract to, and so do the x86-64 functions built for AVX2 and FMA or
# AVX-512, where a contracted scale and bias would differ from the firmware's bits.
$(H)/pic/obj/engine/model/%.c.o $(H)/san/obj/engine/model/%.c.o: HOST_EXTRA := -ffp-contract=off

$(H)/pic/obj/%.c.o: %.c | $(DEPS_STAMP) $(INC_STAMP)
	@mkdir -p $(dir $@)
	@echo "  HOSTCC  $<"
	$(Q)$(HCC) $(PIC_CFLAGS) $(HOST_EXTRA) $(OBJ_DEFS) $(call layer_inc,$<) -MMD -MP -c $< -o $@

$(H)/san/obj/%.c.o: %.c | $(DEPS_STAMP) $(INC_STAMP)
	@mkdir -p $(dir $@)
	@echo "  HOSTCC  $< (asan+ubsan)"
	$(Q)$(SAN_CC) $(SAN_CFLAGS) $(HOST_EXTRA) $(OBJ_DEFS) $(call layer_inc,$<) -MMD -MP -c $< -o $@

# The tool's version: `git describe` at build time; without git (a tarball, no .git) the VERSION
# file when there is one, else "unknown". Kept in a file rewritten only when it changes, so only
# cmd_version.c is recompiled, and only then.
ANEFW_VERSION := $(shell git describe --tags --always --dirty 2>/dev/null || cat VERSION 2>/dev/null || echo unknown)
VERSION_STAMP := $(H)/version.txt
$(VERSION_STAMP): FORCE
	@mkdir -p $(dir $@)
	$(Q)echo '$(ANEFW_VERSION)' | cmp -s - $@ || echo '$(ANEFW_VERSION)' > $@
VERSION_OBJS := $(H)/pic/obj/tools/anefw-tool/cmd_version.c.o $(H)/san/obj/tools/anefw-tool/cmd_version.c.o
$(VERSION_OBJS): $(VERSION_STAMP)
$(VERSION_OBJS): OBJ_DEFS := -DANEFW_VERSION='"$(ANEFW_VERSION)"'

HOST_LIB_SRCS := $(FW_SRCS) $(ENGINE_SRCS) $(APP_LIB_SRCS) $(DRV_SRCS) $(HOST_HAL_SRCS) $(HOST_PLAT_SRCS)
TOOL_ALL_SRCS := $(TOOL_SRCS) $(HOST_LIB_SRCS)
HOST_TEST_OBJS := $(patsubst %,$(H)/san/obj/%.o,$(TEST_SRCS) $(PROGDESC_SRCS) $(HOST_LIB_SRCS))

$(H)/opt/anefw-tool: $(patsubst %,$(H)/pic/obj/%.o,$(TOOL_ALL_SRCS))
	@mkdir -p $(dir $@)
	@echo "  HOSTLD  $@"
	$(Q)$(HCC) $(PIC_CFLAGS) $^ -o $@

$(H)/san/anefw-tool: $(patsubst %,$(H)/san/obj/%.o,$(TOOL_ALL_SRCS))
	@mkdir -p $(dir $@)
	@echo "  HOSTLD  $@"
	$(Q)$(SAN_CC) $(SAN_CFLAGS) $^ -o $@

# The installed tool is always the kind asked for (plain, or SANITIZE=1): copied whenever it
# differs from this kind's build, not by timestamps (a plain build newer than the sanitized one
# would otherwise stay installed after `make tools SANITIZE=1`, and the reverse).
$(H)/anefw-tool: $(TOOL_DIR)/anefw-tool FORCE
	$(Q)cmp -s $< $@ || cp $< $@

$(H)/anefw-tests: $(HOST_TEST_OBJS)
	@echo "  HOSTLD  $@"
	$(Q)$(SAN_CC) $(SAN_CFLAGS) $^ -o $@ -lm

# libanefw-accel.so: /dev/accel/accel0 for a preloading process (tools/accel, docs/asahi.md); the
# library sources in the pic/ flavour (the plain tool's objects), with only the interposed calls
# exported
ACCEL_SRCS := $(sort $(wildcard tools/accel/*.c)) $(LINK_SRCS)
ACCEL_OBJS := $(patsubst %,$(H)/pic/obj/%.o,$(ACCEL_SRCS) $(HOST_LIB_SRCS))
$(H)/libanefw-accel.so: $(ACCEL_OBJS)
	@echo "  HOSTLD  $@"
	$(Q)$(HCC) -shared -Wl,-z,defs $^ -o $@ -ldl -lpthread

tools: $(H)/anefw-tool $(H)/libanefw-accel.so

.PHONY: FORCE
FORCE:

# ---- fuzzing (libFuzzer with ASan and UBSan) ----
# The library sources are compiled once (fuzzer instrumentation without libFuzzer's main), each
# target's own file too, and every target links its object with the shared ones.
FUZZ_CFLAGS := -std=gnu11 -g -O1 -I. -D_GNU_SOURCE -fno-math-errno -fsanitize=fuzzer-no-link,address,undefined \
	-fno-sanitize-recover=all -Wall -Wextra -Werror
FUZZ_LDFLAGS := -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all
# tests/fuzz's helpers (reach.c, mutate.c: every file there not a target) are linked into each
FUZZ_LIB_SRCS := $(HOST_LIB_SRCS) $(PROGDESC_SRCS) $(filter-out $(FUZZ_SRCS),$(sort $(wildcard tests/fuzz/*.c)))
FUZZ_LIB_OBJS := $(patsubst %,$(H)/fuzz-obj/%.o,$(FUZZ_LIB_SRCS))
$(H)/fuzz-obj/%.c.o: %.c | $(DEPS_STAMP)
	@mkdir -p $(dir $@)
	@echo "  FUZZCC  $<"
	$(Q)clang $(FUZZ_CFLAGS) -MMD -MP -c $< -o $@
$(H)/fuzz/%: $(H)/fuzz-obj/tests/fuzz/%.c.o $(FUZZ_LIB_OBJS)
	@mkdir -p $(dir $@)
	@echo "  FUZZLD  $@"
	$(Q)clang $(FUZZ_LDFLAGS) $^ -o $@
FUZZ_BINS := $(patsubst tests/fuzz/%.c,$(H)/fuzz/%,$(FUZZ_SRCS))
# kept between builds (make would delete them as intermediates of the pattern chain)
.SECONDARY: $(FUZZ_LIB_OBJS) $(patsubst tests/fuzz/%.c,$(H)/fuzz-obj/tests/fuzz/%.c.o,$(FUZZ_SRCS))
.PHONY: fuzz-build fuzz
fuzz-build: $(FUZZ_BINS)
fuzz: fuzz-build
	$(Q)FUZZ_SECONDS=$(FUZZ_SECONDS) FUZZ_TARGETS="$(FUZZ_TARGETS)" FUZZ_SEEDS="$(FUZZ_SEEDS)" FUZZ_RAW_SEEDS="$(FUZZ_RAW_SEEDS)" \
		BUILD=$(BUILD) SHARED=$(SHARED) bash tests/fuzz/run.sh

# ---- generated test data (oracles) ----
ORACLE_GENS := $(sort $(wildcard tests/oracle/gen_*.py))
TESTDATA_STAMP := $(BUILD)/testdata/.stamp
# one stamp per generator, so they run side by side (each writes its own files)
ORACLE_STAMPS := $(patsubst tests/oracle/%.py,$(BUILD)/testdata/.%.stamp,$(ORACLE_GENS))
# which ../shared the data was made from, and whether it was there: rewritten only when that
# changes, so data made without the fixtures is made again once they are given (and back)
SHARED_STATE := $(BUILD)/testdata/.shared-state
$(SHARED_STATE): FORCE
	@mkdir -p $(dir $@)
	$(Q)s="$(SHARED) $$(test -d '$(SHARED)/fixtures' && echo present || echo absent)"; \
		[ "$$(cat $@ 2>/dev/null)" = "$$s" ] || echo "$$s" >$@
$(BUILD)/testdata/.gen_%.stamp: tests/oracle/gen_%.py $(wildcard tests/oracle/*.py) $(wildcard tests/oracle/mkprog/*.desc) app/default.desc $(SHARED_STATE) | $(DEPS_STAMP)
	@mkdir -p $(BUILD)/testdata
	@echo "  ORACLE  $<"
	$(Q)SHARED=$(SHARED) $(PYTHON) $< $(BUILD)/testdata
	$(Q)touch $@
$(TESTDATA_STAMP): $(ORACLE_STAMPS)
	$(Q)touch $@

# ---- make help: the targets and variables ----
.PHONY: help
help:
	@echo 'usage: make [TARGET] [VARIABLE=value ...]'
	@echo 'targets:'
	@echo '  all (default)   set-up, the firmware for BOARD and the host tool'
	@echo '  run             boot the firmware under QEMU and run its main job (ARGS: its command line)'
	@echo '  test            every test suite, ending "N passed, N failed, N skipped"'
	@echo '  test-host       host unit tests (ASan+UBSan); T=SUITE_OR_TEST for one'
	@echo '  test-target     the same tests on BOARD under QEMU; T=SUITE_OR_TEST for one'
	@echo '  test-build      build everything make test needs, run nothing'
	@echo '  tools           build/host/anefw-tool (SANITIZE=1: with ASan and UBSan)'
	@echo '  firmware        build/BOARD/anefw.elf and its images'
	@echo '  serve           the firmware as a command service on 127.0.0.1:PORT (anefw-tool remote)'
	@echo '  debug           run, halted at the first instruction with a gdb stub on :1234'
	@echo '  bench           benchmarks under exact instruction counting, then the model on the host'
	@echo '  fuzz            every libFuzzer target for FUZZ_SECONDS each'
	@echo '  soak            SOAK_N valid and hostile submissions through the queue on the target'
	@echo '  census          which register fields each fixture program reads (long; build/census/)'
	@echo '  deps            Debian packages and newlib-nano only'
	@echo '  clean           remove the builds (keeps newlib)'
	@echo '  distclean       remove everything under build/, newlib too'
	@echo '  version         the version the tool is built with (git describe, or VERSION, or unknown)'
	@echo '  help            this list'
	@echo 'variables:'
	@echo '  BOARD=qemu-virt|raspi3b   the board (default qemu-virt)'
	@echo '  ARGS="..."                run/debug: program=PATH in:NAME=PATH out:NAME=PATH ref:NAME=PATH'
	@echo '                            rtol=R atol=A trace=1 fault=KIND serve=1 threads=N ops_limit=N'
	@echo '                            (default: the built-in program, checked; README.md "Running a program")'
	@echo '  T=NAME                    test-host/test-target/bench: one suite or test'
	@echo '  SANITIZE=1                tools: build the host tool with ASan and UBSan'
	@echo '  PORT=N SERVE_TIME=S       serve: the TCP port (default 5555) and time limit (default 600)'
	@echo '  FUZZ_SECONDS=N            fuzz: seconds per target (default 60)'
	@echo '  FUZZ_TARGETS="A B"        fuzz: those targets alone (default every one)'
	@echo '  FUZZ_SEEDS="DIR ..."      fuzz: more seed directories for every target'
	@echo '  FUZZ_RAW_SEEDS="DIR ..."  fuzz: raw task streams for fuzz_submit (given its header)'
	@echo '  SOAK_N=N                  soak: submissions (default 20000)'
	@echo '  TEST_BOARDS="..."         test: the boards (default both; BOARD=x: only x)'
	@echo '  SHARED=DIR                the shared fixtures (default ../shared)'
	@echo '  BUILD=DIR V=1             the build folder (default build); echo every command'

# the version the tool is built with (tests/suites/07-usage.sh checks its fallback)
.PHONY: version
version:
	@echo '$(ANEFW_VERSION)'

# ---- running ----
QEMU_RUN := bash scripts/qemu-run.sh --board $(BOARD)

.PHONY: run serve debug test test-host test-target test-build bench soak census clean distclean
# make run: the default program on its seed-filled input, each output compared with the numpy
# oracle's reference (ref:NAME=PATH; the firmware exits nonzero on a mismatch)
DEFAULT_RUN = program=$(BUILD)/default.hwx $$(for f in $(BUILD)/default.ref.*.npy; do \
	echo "ref:$$(echo $$f | sed 's/.*\.ref\.\(.*\)\.npy$$/\1/')=$$f"; done)
run: deps firmware $(BUILD)/default.hwx $(BUILD)/default.ref.stamp
	$(Q)$(QEMU_RUN) $(B)/anefw.elf $(or $(ARGS),$(DEFAULT_RUN))

# make serve: the firmware as a command service on its link (qemu-virt: a virtio console; raspi3b:
# its UART), on 127.0.0.1:PORT (QEMU waits for the client before it starts), until the client
# sends SHUTDOWN or SERVE_TIME seconds pass.
# Drive it with: anefw-tool remote --connect 127.0.0.1:PORT run PROGRAM [--in ..] [--out ..]
PORT ?= 5555
SERVE_TIME ?= 600
serve: deps firmware
	@echo "serve: the firmware's command service on 127.0.0.1:$(PORT), on its link (docs/service.md, \"Transport 2\"; QEMU starts when a client connects)"
	@echo "serve: connect with: $(H)/anefw-tool remote --connect 127.0.0.1:$(PORT) run PROGRAM [--in ..] [--out ..]"
	@echo "serve: stop with: $(H)/anefw-tool remote --connect 127.0.0.1:$(PORT) shutdown (or Ctrl-C; it stops by itself after $(SERVE_TIME) s)"
	$(Q)$(QEMU_RUN) --timeout $(SERVE_TIME) --link-tcp $(PORT) $(B)/anefw.elf serve=1

debug: deps firmware $(BUILD)/default.hwx $(BUILD)/default.ref.stamp
	$(Q)$(QEMU_RUN) --gdb $(B)/anefw.elf $(or $(ARGS),$(DEFAULT_RUN))

# make run's built-in program: written from its description by the host tool (no binaries shipped)
$(BUILD)/default.hwx: app/default.desc $(H)/anefw-tool
	$(Q)$(H)/anefw-tool mkprog $< $@ >/dev/null

# its references: the oracle's outputs (tests/oracle/gen_mkprog.py, from the description format)
$(BUILD)/default.ref.stamp: app/default.desc tests/oracle/gen_mkprog.py | $(DEPS_STAMP)
	@mkdir -p $(BUILD)
	$(Q)rm -f $(BUILD)/default.ref.*.npy
	$(Q)$(PYTHON) tests/oracle/gen_mkprog.py --refs $< $(BUILD)/default.ref
	$(Q)touch $@

# `make test` covers both boards; `make test BOARD=x` only board x.
ifeq ($(origin BOARD),command line)
TEST_BOARDS ?= $(BOARD)
else
TEST_BOARDS ?= qemu-virt raspi3b
endif
# One make: the host builds, the oracles' data and the fuzz targets in this make's graph, each
# board's images in a make of its own (the board's variables are global), all at once under the
# one job limit. The boards' makes start after the set-up and the include links they share.
# The sanitized tool too (build/host/san/anefw-tool: tests/suites/72-memory.sh runs hostile
# programs through it).
test-build: deps $(H)/anefw-tests tools $(H)/san/anefw-tool $(TESTDATA_STAMP) fuzz-build \
	$(addprefix board-test-build-,$(TEST_BOARDS))
BOARD_TEST_BUILDS := $(addprefix board-test-build-,qemu-virt raspi3b)
.PHONY: $(BOARD_TEST_BUILDS)
$(BOARD_TEST_BUILDS): board-test-build-%: deps $(INC_STAMP)
	+$(Q)$(MAKE) --no-print-directory BOARD=$* DEP_SCOPE=$(BUILD)/$* board-test-build

# The layering check (tests/suites/05-layers.sh): compile one probe file as if it sat in LAYER;
# layer-cc prints the command that does it for any layer (-I$(INC)/LAYER appended by the caller).
.PHONY: layer-probe layer-cc
layer-probe: $(INC_STAMP)
	$(Q)$(HCC) $(HOST_CFLAGS) -I$(INC)/$(LAYER) -fsyntax-only -x c $(PROBE)
layer-cc: $(INC_STAMP)
	@echo "$(HCC) $(HOST_CFLAGS) -fsyntax-only -x c -I$(abspath $(INC))/"

.PHONY: board-test-build
board-test-build: $(B)/anefw-tests.elf firmware $(B)/anefw-mmu-pool-test.elf

test: test-build
	$(Q)env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL ANEFW_ROOT=$(CURDIR) BUILD=$(abspath $(BUILD)) SHARED=$(SHARED) \
		PYTHON=$(PYTHON) TEST_BOARDS="$(TEST_BOARDS)" bash tests/run.sh

# Benchmarks: tests in tests/bench/ (suite "bench"), run on the target under exact instruction
# counting. They print instructions per element; they are measurements, never pass/fail on time.
bench: deps $(B)/anefw-bench.elf $(TESTDATA_STAMP) $(H)/anefw-tool
	$(Q)QEMU_TIMEOUT=1800 $(QEMU_RUN) --icount $(B)/anefw-bench.elf bench data=$(abspath $(BUILD))/testdata $(T) \
		>$(BUILD)/bench-target.txt; rc=$$?; cat $(BUILD)/bench-target.txt; exit $$rc
	$(Q)bash tests/bench/model_host.sh $(H)/anefw-tool $(PYTHON) $(BUILD)/bench-target.txt

# A long soak on the target: SOAK_N submissions, valid and hostile interleaved (make test runs 4000).
SOAK_N ?= 20000
# the register census of every fixture program (tools/anefw-tool/cmd_census.c; long: about 90 s
# a kernel fixture TD), one report each in build/census/
census: deps $(H)/anefw-tool
	$(Q)bash scripts/census.sh $(H)/anefw-tool $(SHARED) $(BUILD)/census

soak: deps $(B)/anefw-tests.elf $(TESTDATA_STAMP)
	$(Q)QEMU_TIMEOUT=3600 $(QEMU_RUN) $(B)/anefw-tests.elf soak.queue_valid_and_hostile_interleaved soak=$(SOAK_N) data=$(abspath $(BUILD))/testdata

test-host: deps $(H)/anefw-tests $(TESTDATA_STAMP)
	$(Q)$(H)/anefw-tests shared=$(SHARED) data=$(abspath $(BUILD))/testdata $(T)

test-target: deps $(B)/anefw-tests.elf $(TESTDATA_STAMP)
	$(Q)$(QEMU_RUN) $(B)/anefw-tests.elf shared=$(SHARED) data=$(abspath $(BUILD))/testdata $(T)

clean:
	rm -rf $(BUILD)/qemu-virt $(BUILD)/raspi3b $(BUILD)/raspi3b-flash $(BUILD)/raspi3b-serve $(BUILD)/host $(BUILD)/testdata

distclean:
	rm -rf $(BUILD)

# (a board's make in test-build reads only its own: the host's are being written beside it)
DEP_SCOPE ?= $(BUILD)
-include $(shell find $(DEP_SCOPE) -name '*.d' 2>/dev/null)
