/*
 * libanefw-accel: /dev/accel/accel0 as an anefw device for the process that preloads it
 * (docs/asahi.md). Asahi's ANE kernel driver uAPI (eiln/ane's ane_accel.h): VERSION, BO_INIT,
 * BO_FREE, SUBMIT and mmap of buffer objects at the fake offset BO_INIT returns.
 *
 * This header is the library's inside: the uAPI layouts (the kernel header's facts, restated
 * here so the library builds without the driver's sources) and one submission (submit.c), which
 * the interposer (preload.c) calls with the BOs a SUBMIT names.
 */
#ifndef ANEFW_TOOLS_ACCEL_H
#define ANEFW_TOOLS_ACCEL_H

#include <stddef.h>
#include <stdint.h>

/* ---- the uAPI ---- */
#define ACC_TILE_COUNT 32   /* BO handles per submit, one per BAR */
#define ACC_FIFO_NID 0x40   /* the NID libane sets in the bootstrap TD */
#define ACC_CMD_GRAN 0x10   /* the weights start at tsk_size rounded up to this */
#define ACC_CMD_BAR 0       /* the command BO: TDs, then the weights */
#define ACC_KRN_BAR 1       /* the weights: no handle of its own (the driver derives it) */

struct acc_bo_init {
	uint32_t handle;
	uint32_t pad;
	uint64_t size;
	uint64_t offset;
};

struct acc_bo_free {
	uint32_t handle;
	uint32_t pad;
};

struct acc_submit {
	uint64_t tsk_size;
	uint32_t td_count;
	uint32_t td_size;
	uint32_t handles[ACC_TILE_COUNT];
	uint32_t btsp_handle;
	uint32_t pad;
};

/* DRM's struct drm_version (drm.h), with the pointer and size types of an LP64 process */
struct acc_drm_version {
	int version_major, version_minor, version_patchlevel;
	uint64_t name_len;
	char *name;
	uint64_t date_len;
	char *date;
	uint64_t desc_len;
	char *desc;
};

/* _IOC encoding (asm-generic/ioctl.h): dir 2 bits at 30, size 14 bits at 16, type 8 at 8, nr */
#define ACC_IOC(dir, nr, size) (((unsigned long)(dir) << 30) | ((unsigned long)(size) << 16) | \
				('d' << 8) | (unsigned long)(nr))
#define ACC_IOC_RW 3u
#define ACC_DRM_COMMAND_BASE 0x40
#define ACC_IOCTL_VERSION ACC_IOC(ACC_IOC_RW, 0x00, sizeof(struct acc_drm_version))
#define ACC_IOCTL_GEM_CLOSE ACC_IOC(1u, 0x09, 8) /* DRM core: struct drm_gem_close, write */
#define ACC_IOCTL_BO_INIT ACC_IOC(ACC_IOC_RW, ACC_DRM_COMMAND_BASE + 1, sizeof(struct acc_bo_init))
#define ACC_IOCTL_BO_FREE ACC_IOC(ACC_IOC_RW, ACC_DRM_COMMAND_BASE + 2, sizeof(struct acc_bo_free))
#define ACC_IOCTL_SUBMIT ACC_IOC(ACC_IOC_RW, ACC_DRM_COMMAND_BASE + 3, sizeof(struct acc_submit))

/* What the device reports (the Asahi driver's DRM identity: name "ane") */
#define ACC_DRM_NAME "ane"
#define ACC_DRM_DATE "20230103"
#define ACC_DRM_DESC "Apple Neural Engine driver (anefw emulation)"

/* Limits of the emulated device: the driver's DART address space (0xe0000000 bytes) bounds
 * every BO and their sum. A BO_INIT over them fails with ENOMEM. */
#define ACC_MAX_BO_BYTES (1ull << 30)
#define ACC_MAX_TOTAL_BYTES 0xe0000000ull
#define ACC_MAX_BOS 4096

/* ---- one submission ---- */
struct acc_mem {
	uint8_t *p;     /* the BO's memory (NULL: no BO at this BAR) */
	uint64_t size;  /* the BO's size (page-rounded, as the driver allocates it) */
};

struct acc_job {
	uint64_t tsk_size;
	uint32_t td_count, td_size;
	const uint8_t *btsp;  /* the bootstrap BO: its first td_size bytes are the first TD */
	uint64_t btsp_size;
	struct acc_mem bar[ACC_TILE_COUNT];
};

/* Which engine runs a submission: "local" (the engine model in this process) or
 * "tcp:HOST:PORT" (the firmware serving commands, `make serve`). */
struct acc_backend {
	int tcp;
	char hostport[256];
	unsigned timeout_s; /* tcp: the longest wait for one answer; 0: the link's (LINK_ANSWER_MS) */
};
/* Parses ANEFW_ACCEL_BACKEND's value (NULL or "": local); returns 0, or -1 when malformed (not
 * local or tcp:HOST:PORT, or a port outside 1..65535). */
int acc_backend_parse(const char *s, struct acc_backend *b);
/* Parses ANEFW_ACCEL_TIMEOUT's value into b->timeout_s: NULL or "" leaves the link's wait,
 * else seconds 1 .. LINK_ANSWER_MAX_S (`anefw-tool accel --timeout S`); 0, or -1 when malformed. */
int acc_timeout_parse(const char *s, struct acc_backend *b);

/* How loud: 0 nothing, 1 a named reason for every failed call (ANEFW_ACCEL_LOG set), 2 also the
 * session's full report of every submission (ANEFW_ACCEL_LOG=2). */
extern int acc_log_level;
void acc_log(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/*
 * Runs one submission: the TD stream is the command BO with its first td_size bytes taken from
 * the bootstrap BO, the weights start at tsk_size rounded up to 16 bytes (BAR 1), every BO is a
 * grant at its BAR sized by the BO, with the role its TDs give it; outputs are written back into
 * the BOs. Returns 0 or a positive errno (EINVAL, ENOMEM, EIO) with the reason in why.
 */
int acc_run(const struct acc_job *j, const struct acc_backend *be, char *why, size_t whylen);

/* The tcp backend's run of a prepared stream (remote.c). ngrants grants, mem[i] the BO memory of
 * grant i (NULL for the weights and the TD area, which the firmware takes from the stream). */
struct subq_grant;
int acc_remote_run(const struct acc_backend *be, const uint8_t *stream, size_t len,
		   const struct subq_grant *g, unsigned ngrants, uint8_t *const *mem, char *why,
		   size_t whylen);

#endif
