/*
 * libFuzzer target for the activation LUT: any bytes as a record (at any length); when it
 * parses, evaluate inputs taken from the rest of the data plus the special values, and check
 * properties that hold for every valid record: NaN in gives NaN out, odd records are odd, the
 * table path equals the direct path.
 */
#include "fw/actlut/actlut.h"
#include "fw/common/fp16.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct actlut l;
	if (actlut_parse(&l, data, size) != ACTLUT_OK)
		return 0;
	size_t extra = size - ACTLUT_BYTES;
	size_t n = extra / 2 + 8;
	uint16_t *in = malloc(n * sizeof *in), *a = malloc(n * sizeof *a);
	if (!in || !a)
		abort();
	static const uint16_t specials[8] = {0x0000, 0x8000, 0x7c00, 0xfc00, 0x7e00, 0x0001, 0x7bff, 0xfbff};
	memcpy(in, specials, sizeof specials);
	for (size_t i = 8; i < n; i++)
		in[i] = (uint16_t)(data[ACTLUT_BYTES + 2 * (i - 8)] | (data[ACTLUT_BYTES + 2 * (i - 8) + 1] << 8));
	actlut_apply(&l, in, a, n);
	for (size_t i = 0; i < n; i++) {
		if (fp16_is_nan(in[i]) && !fp16_is_nan(a[i]))
			abort();
		if (l.kind == ACTLUT_KIND_ODD && !fp16_is_nan(in[i])) {
			uint16_t m = actlut_eval(&l, in[i] ^ 0x8000);
			if (!fp16_is_nan(a[i]) && m != (a[i] ^ 0x8000))
				abort();
		}
	}
	/* occasionally the whole table, against the direct path on the inputs */
	if (size > ACTLUT_BYTES && (data[size - 1] & 0x3f) == 0) {
		static uint16_t table[ACTLUT_TABLE_LEN];
		uint16_t *b = malloc(n * sizeof *b);
		if (!b)
			abort();
		actlut_build_table(&l, table);
		actlut_apply(&l, in, b, n);
		if (memcmp(a, b, n * sizeof *b))
			abort();
		free(b);
	}
	free(in);
	free(a);
	return 0;
}
