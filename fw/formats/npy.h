/*
 * NumPy .npy files (format versions 1.0, 2.0 and 3.0): the magic "\x93NUMPY", a version, a
 * little-endian header length (2 bytes in 1.0, 4 after), and an ASCII Python dict literal with
 * 'descr', 'fortran_order' and 'shape', then the array's bytes. Only the element types the engine
 * has are accepted: float16 ('<f2'), int8 ('|i1') and uint8 ('|u1'). Pure logic: npy_parse reads
 * (buf, len) and checks every field before it uses it; npy_header writes a 1.0 header, padded
 * with spaces to a 64-byte multiple as numpy writes it.
 */
#ifndef ANEFW_NPY_H
#define ANEFW_NPY_H

#include "fw/common/err.h"
#include <stddef.h>
#include <stdint.h>

#define NPY_MAX_DIMS 8
#define NPY_MAX_HEADER 0x10000u /* larger headers are refused (npy-bad-header) */

/* NPY_BOOL: numpy's bool ('|b1'), one byte an element, 0 or 1 (npy_parse checks every byte) */
enum npy_dtype { NPY_F16 = 1, NPY_I8, NPY_U8, NPY_BOOL };
const char *npy_dtype_name(unsigned dt); /* "float16", "int8", "uint8", "bool" */
unsigned npy_dtype_size(unsigned dt);

enum npy_err {
	NPY_OK = 0,
	NPY_E_ARG,        /* null pointer, bad dtype or shape for writing */
	NPY_E_TRUNCATED,  /* shorter than its preamble or header */
	NPY_E_MAGIC,      /* not "\x93NUMPY" */
	NPY_E_VERSION,    /* a format version other than 1.0, 2.0, 3.0 */
	NPY_E_HEADER,     /* the dict is malformed, lacks a key, or repeats one */
	NPY_E_DTYPE,      /* an element type other than float16, int8, uint8, bool (little-endian) */
	NPY_E_FORTRAN,    /* fortran_order True on an array of more than one dimension */
	NPY_E_SHAPE,      /* more than NPY_MAX_DIMS dimensions, or a size that overflows */
	NPY_E_DATA_SIZE,  /* the bytes after the header are not the array's size */
	NPY_E_NO_ROOM,    /* the header does not fit the output buffer */
	NPY_E_BOOL,       /* a bool array holding a byte other than 0 or 1 */
	NPY_E__COUNT
};
/* The error's name and one-line description (fw/common/err.h). */
const struct err_desc *npy_err(enum npy_err e);
const char *npy_err_name(enum npy_err e);

struct npy_array {
	unsigned dtype;                /* enum npy_dtype */
	unsigned ndim;
	uint64_t shape[NPY_MAX_DIMS];
	uint64_t nelem;                /* product of the shape (1 for a 0-d array) */
	const uint8_t *data;           /* inside the parsed buffer */
	uint64_t data_len;             /* nelem x element size */
	char descr[12];                /* the header's 'descr' as written (cut to 11 characters),
					* set even when it is unsupported (NPY_E_DTYPE), for messages */
};

enum npy_err npy_parse(const uint8_t *buf, size_t len, struct npy_array *a);

/* Writes a version-1.0 header for an array of dtype and shape into out (cap bytes); *len its
 * size (a multiple of 64). The array's bytes follow it, C order. */
enum npy_err npy_header(unsigned dtype, const uint64_t *shape, unsigned ndim, uint8_t *out,
			size_t cap, size_t *len);

#endif
