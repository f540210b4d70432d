/*
 * Program loader: compiled ANE programs, either a Mach-O style .hwx container (magic 0xbeefface)
 * or a raw task stream (task descriptors followed by weights). ldr_load validates the whole
 * object before anything is returned; afterwards the iterators below cannot fail on it.
 *
 * Everything points into the caller's buffer, which must outlive the program. No allocation.
 */
#ifndef ANEFW_LOADER_H
#define ANEFW_LOADER_H

#include "fw/common/err.h"
#include <stddef.h>
#include <stdint.h>

#include "fw/common/le.h"
#include "fw/common/outf.h"
#include "fw/regmap/regmap.h"
#include "fw/td/td.h"

/* Documented limits: a program over any of them is rejected with LDR_E_LIMIT. */
#define LDR_MAX_CMDS 64
#define LDR_MAX_SEGS 16
#define LDR_MAX_SECTS 32
#define LDR_MAX_WINDOWS 16
/* TDs a program may chain: Apple's H13 batched matmul over 8 batches is 208 and 209 TDs, over 16
 * batches 416 (joshuaswarren/mil-hwx-compiler's listings); 64 until 2026-11-28 */
#define LDR_MAX_TDS 512
#define LDR_MAX_RELOCS 256
#define LDR_MAX_TD_BYTES 0x800 /* H13 NextSize is 9 bits of words */
#define LDR_NBARS 32           /* BAR indices are 5 bits */
/* A raw stream's weights BAR: BAR 1, as the Asahi stack binds it (an anec's weights follow its
 * TDs in the command buffer, BAR 1 has no buffer of its own) and every real program selects it */
#define LDR_RAW_WEIGHTS_BAR 1u
#define LDR_MAX_WRITES_PER_TD 1024

enum ldr_err {
	LDR_OK = 0,
	LDR_E_ARG,            /* null pointer or unknown flag */
	LDR_E_TRUNCATED,      /* shorter than the fixed header */
	LDR_E_BAD_MAGIC,
	LDR_E_BAD_CPUTYPE,
	LDR_E_BAD_VERSION,    /* cpusubtype names no known generation */
	LDR_E_UNSUPPORTED,    /* known generation whose task descriptors are not decoded */
	LDR_E_CMD_RANGE,      /* load commands outside the file */
	LDR_E_CMD_SIZE,       /* a load command's size is too small, misaligned or too big */
	LDR_E_SEG_RANGE,      /* segment file range outside the file */
	LDR_E_SECT_RANGE,     /* section file range outside the file */
	LDR_E_SECT_OUTSIDE_SEG,
	LDR_E_SECT_OVERLAP,
	LDR_E_NAME,           /* a name not terminated inside its command */
	LDR_E_NO_TEXT,        /* no __TEXT,__text section */
	LDR_E_THREAD,         /* malformed or duplicate thread command */
	LDR_E_WINDOW,         /* an I/O name for no __FVMLIB window */
	LDR_E_TD_RANGE,       /* TD outside __text (or the raw stream) */
	LDR_E_TD_SIZE,        /* TD size impossible (header does not fit, misaligned, too big) */
	LDR_E_STREAM_OVERRUN, /* register-write stream runs past its TD */
	LDR_E_UNKNOWN_REG,    /* write to an address outside the register map */
	LDR_E_BAR_RANGE,      /* enabled BAR index naming no base address */
	LDR_E_RELOC_RANGE,    /* relocation outside its section or the file */
	LDR_E_RELOC_TARGET,   /* relocation naming no section or symbol */
	LDR_E_CHAIN_LOOP,
	LDR_E_CHAIN_BREAK,    /* not end-of-network but no next TD */
	LDR_E_TD_COUNT,       /* thread command's TD count differs from the chain */
	LDR_E_LIMIT,          /* a count over the documented limits */
	LDR_E_COEFF_RANGE,    /* enabled coefficient buffer outside the weights */
	LDR_E_FW_REGISTER,    /* a TD writes a register only the firmware programs */
	LDR_E_ANEC,           /* an anec container whose header is invalid (fw/loader/anec.h) */
	LDR_E_WINDOW_PROT,    /* an I/O window whose initprot is not 1, 2 or 3 */
	LDR_E_WINDOW_NAME,    /* two windows of one name, or a window named barN not on BAR N */
	LDR_E_WEIGHTS_SECTS,  /* more than one weights section (__TEXT,__const, __KERN_n) */
	LDR_E_TD_SIZE_STATED, /* the td_size an anec header or a submit states is not TD 0's size */
	LDR_E_ANEC_TILES,     /* a TD reaches past its BAR's buffer in an anec's tile table */
	LDR_E__COUNT
};

/* The error's name ("bad_magic", ...: the loader's names are snake_case, which tests, docs
 * and users match on) and one-line description (fw/common/err.h). */
const struct err_desc *ldr_err(enum ldr_err e);
const char *ldr_err_name(enum ldr_err e);
struct ldr_program;
/* ldr_err(e) in the terms of p's kind, p as ldr_load left it (may be NULL): a raw stream's
 * td_outside_text is outside the stream, not __text. The name is ldr_err's. */
const struct err_desc *ldr_err_of(const struct ldr_program *p, enum ldr_err e);

/* ldr_load flags */
#define LDR_F_RAW 1u  /* treat as a raw task stream even if it starts with the magic */
#define LDR_F_HWX 2u  /* require the container */

/* After ldr_load(buf, len, flags, p) failed with e: NULL, or a sentence saying the file is no
 * ANE program at all: with neither LDR_F_RAW nor LDR_F_HWX, a file without the .hwx magic whose
 * first task descriptor does not decode as a raw stream's, named when recognised (a NumPy .npy,
 * an ELF, text). For messages only; the error stays e. */
struct ldr_program;
const char *ldr_not_a_program(const uint8_t *buf, size_t len, unsigned flags,
			      const struct ldr_program *p, enum ldr_err e);

struct ldr_section {
	char segname[17], sectname[17];
	uint64_t addr, size;
	uint32_t offset; /* file offset (0 for sections without file bytes) */
	uint32_t align, flags, reloff, nreloc;
	unsigned seg;    /* index in segs[] */
	int in_file;     /* 1 when the bytes are in the file */
};

struct ldr_segment {
	char name[17];
	uint64_t vmaddr, vmsize, fileoff, filesize;
	uint32_t maxprot, initprot, nsects, flags;
	unsigned first_sect;
};

enum ldr_window_kind { LDR_WIN_INPUT = 1, LDR_WIN_OUTPUT = 2, LDR_WIN_INTERMEDIATE = 3 };

struct ldr_window {
	const char *name; /* from the naming command; "" when unnamed (points into the buffer) */
	size_t name_len;
	uint64_t vmaddr, vmsize;
	uint64_t size;    /* bytes of its section (the tensor), else vmsize */
	uint32_t initprot; /* 1 input, 2 output, 3 intermediate */
	unsigned seg;
	int bar;          /* BAR slot holding its address, -1 when none */
};

struct ldr_reloc {
	unsigned sect;      /* section it patches (index in sects[]) */
	uint32_t address;   /* offset inside that section */
	uint32_t symbolnum; /* section ordinal (1-based) or symbol index when external */
	uint8_t pcrel, length, external, type;
	int target_sect;    /* index in sects[] when not external, else -1 */
	int td;             /* TD containing it (when in __text), else -1 */
	uint32_t reg_addr;  /* register the patched word writes (valid when has_reg) */
	int has_reg;
};

struct ldr_coeff {
	uint8_t ch;
	uint32_t cfg;
	uint32_t base; /* bytes, relative to the weights */
	uint32_t size; /* bytes */
};

struct ldr_td {
	uint32_t off;       /* offset inside the TD area (__text or the raw stream) */
	uint32_t size;      /* bytes */
	uint32_t hdr[H13_TD_HEADER_WORDS]; /* raw header words */
	struct td_hdr h;    /* decoded header (bar_en bit i: RBE0, RBE1, WBE, TBE, KBE0..KBE3;
			       bar_idx: RBase0, RBase1, WBase, TBase, KBase0..3) */
	unsigned nwrites;   /* register words written by this TD's stream */
	unsigned ncoeff;    /* enabled coefficient channels after this TD */
	struct ldr_coeff coeff[16];
	int lut;            /* 1 when this TD selects the activation LUT */
};

extern const char *const ldr_bar_names[8]; /* "RBase0", ... */

struct ldr_program {
	const uint8_t *buf;
	size_t len;
	int raw;                   /* 1 for a raw task stream */
	uint32_t anec_hdr;         /* an anec container's header bytes (its data is the raw stream
				      buf points at), else 0 */
	uint32_t anec_dst_count, anec_src_count; /* its tile table's counts (tensor names) */
	uint32_t anec_tiles[LDR_NBARS]; /* its tile table: each BAR's buffer in 16 KiB units */
	const struct rm_gen *gen;
	uint32_t cputype, cpusubtype, filetype, ncmds, sizeofcmds, hflags;
	const char *note;          /* compiler version note (not NUL-terminated), or NULL */
	size_t note_len;
	unsigned nsegs, nsects, nwindows, ntds, nrelocs;
	struct ldr_segment segs[LDR_MAX_SEGS];
	struct ldr_section sects[LDR_MAX_SECTS];
	struct ldr_window windows[LDR_MAX_WINDOWS];
	struct ldr_td tds[LDR_MAX_TDS];
	struct ldr_reloc relocs[LDR_MAX_RELOCS];
	int text_sect, weights_sect; /* indices in sects[], -1 when absent */
	/* the TD area and the weights, as file ranges */
	uint32_t td_area_off, td_area_len;
	uint32_t weights_off, weights_len;
	/* thread command */
	int have_thread;
	uint64_t bars[LDR_NBARS];
	uint64_t td_addr;
	uint32_t td_count, td_first_words; /* as the thread command states them */
	unsigned nsyms;
	unsigned nthreads_io;      /* tensor-description thread commands seen */
	/* where validation failed (file offset), for messages */
	size_t err_off;
	/* for td_size_mismatch and anec_outside_tiles: the value stated (td_size; the BAR's
	 * tiles << 14 bytes) and the one the program has (TD 0's size; the end of the TD's range),
	 * and for anec_outside_tiles the BAR and the TD; for messages (ldr_err_values) */
	uint64_t err_stated, err_found;
	int err_bar, err_td;
	int err_ch; /* coeff_outside_weights: the channel (k of tds[err_td].coeff[k]) */
};

/* Whether BAR index bar holds the program's weights: in a container, the BAR-table slot holding
 * the weights section's address (never without weights); in a raw stream, LDR_RAW_WEIGHTS_BAR,
 * whatever the TDs do with it (a stream without weights has nothing there). Any other BAR a TD's
 * kernel DMA reads (KBase0) holds kernels the program does not carry: a runtime tensor (Apple's
 * batched matmul reads rows of its input so), checked where the engine reads it. */
int ldr_weights_bar(const struct ldr_program *p, unsigned bar);
/* Whether TD td's kernel DMA (KBase0, enabled) reads the program's weights. */
int ldr_td_kernels_in_weights(const struct ldr_program *p, unsigned td);
/* Whether TD td reads the program's kernel unit, as the control path programs it (fw/ctrl
 * plan_unit, plan_kunit: the weights a unit that parses, KBase0 bound to them): 0 when not, else
 * TD_OP_KU with bit s set for each kernel stream s (enum h13_kstream) the firmware enables, its
 * section not empty. For td_print_op_ku. */
unsigned ldr_td_kunit_streams(const struct ldr_program *p, unsigned td);
/* Whether range x (fw/td td_ranges) is a raw stream's kernel read (a coefficient channel or
 * kernel stream) of a BAR other than its weights: a runtime tensor's bytes, which the control
 * path grants and checks as it does a tile source's, and fw/tensors lists. */
int ldr_runtime_kernel_read(const struct ldr_program *p, const struct td_range *x);

/* After ldr_load failed with e: writes into out (cap bytes, NUL-terminated) the values behind
 * the refusal when e states two ("td_size 0x26c, first TD 0x274 bytes"; "BAR 4: tiles 0x4000
 * bytes, TD 1 reaches 0x100400"), else "". For messages only. */
void ldr_err_values(const struct ldr_program *p, enum ldr_err e, char *out, size_t cap);

/* After ldr_load(buf, len, flags, p) failed with e: the refusal as every front end prints it,
 * in one order: the named error first, "<lead>NAME: description[ at file offset X][: values]",
 * then, when the file is no ANE program at all (ldr_not_a_program), "<lead2>[path: ]what it
 * is". Either lead may be "". */
void ldr_print_refusal(const struct ldr_program *p, enum ldr_err e, const uint8_t *buf, size_t len,
		       unsigned flags, const char *lead, const char *lead2, const char *path,
		       outf_fn out, void *ctx);

/* Loads and validates a whole program; on failure the contents of *out are unspecified. */
enum ldr_err ldr_load(const uint8_t *buf, size_t len, unsigned flags, struct ldr_program *out);

/* A raw stream's first TD as the engine fetches it: the Asahi driver programs the engine to
 * fetch td_size bytes of TD 0 (an anec header's td_size, a submit's), where the loader's raw
 * rule (docs/formats.md "Raw task streams") sized it too. LDR_OK when the two agree, else
 * LDR_E_TD_SIZE_STATED (err_stated td_size, err_found TD 0's size); ldr_load checks an anec so. */
enum ldr_err ldr_check_td_size(struct ldr_program *p, uint32_t td_size);
/* ldr_load of a raw stream whose TD 0 is td_size bytes (nonzero), as the engine fetches it (an
 * anec's td_size, a submit's): the raw rule's size is replaced by it where TD 0's structure
 * allows (a whole header, whole words, within the stream and before the next TD), else
 * LDR_E_TD_SIZE_STATED (err_stated td_size, err_found the rule's size). */
enum ldr_err ldr_load_sized(const uint8_t *buf, size_t len, uint32_t td_size, struct ldr_program *out);

/* One register write of a TD's stream. */
struct ldr_write {
	uint32_t addr;      /* byte address of the register */
	uint32_t value;
	uint32_t area_off;  /* offset of the value word inside the TD area */
	struct rm_loc loc;
};

struct ldr_write_iter {
	const struct ldr_program *p;
	unsigned td;
	uint32_t pos, end;  /* offsets inside the TD area */
	uint32_t addr, left, cur_off;
};

/* Bytes of TD td's extended header past the fixed ten words (fw/td td_hdr_extended): 4 or 0. */
uint32_t ldr_td_ext_bytes(const struct ldr_program *p, unsigned td);
void ldr_writes_begin(const struct ldr_program *p, unsigned td, struct ldr_write_iter *it);
/* Returns 1 and fills w, or 0 at the end of the TD's stream. */
int ldr_writes_next(struct ldr_write_iter *it, struct ldr_write *w);

/* The register image after TD `td` has run (state carried over from TD 0). */
struct ldr_regimage {
	uint32_t val[RM_MAX_SLOTS];
	uint8_t written[RM_MAX_SLOTS]; /* 1 once any TD up to this one wrote the word */
};
enum ldr_err ldr_td_image(const struct ldr_program *p, unsigned td, struct ldr_regimage *img);
/* Value of the register at byte address addr in an image (0 when never written or unknown). */
uint32_t ldr_image_get(const struct ldr_program *p, const struct ldr_regimage *img, uint32_t addr);

/* A program's cumulative register image, readable as fw/td's `struct td_regs` getter. */
struct ldr_image {
	const struct ldr_program *p;
	struct ldr_regimage img;
};
/* The getter: ctx is a struct ldr_image. */
uint32_t ldr_image_reg(const void *ctx, uint32_t addr);
/* Applies TD td's writes, as the file holds them, on top of im. */
void ldr_image_apply_td(struct ldr_image *im, unsigned td);

/* Activation-LUT records: 43 fp16 entries in a 0x80-byte record of the weights. */
#define LDR_LUT_ENTRIES 43
#define LDR_LUT_BYTES 0x80

/* Printing (shared by anefw-tool inspect and the firmware). out receives text pieces. */
#define LDR_P_JSON 1u
/* text only: each TD's register writes counted, not listed, and the relocations counted (what
 * each TD computes, its BARs, channels, records and the tensors as in the full listing) */
#define LDR_P_BRIEF 2u
void ldr_print(const struct ldr_program *p, unsigned pflags, outf_fn out, void *ctx);

#endif
