/* libFuzzer: TFLM LUT bitstring decoder with fuzzed widths, types, channels and tables. */
#include "fw/codec/codec.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 8)
		return 0;
	struct codec_tflm t = {data[0] % 9, (enum codec_tflm_type)(data[1] % 5), data[2] % 7, data[3] & 1};
	size_t count = (size_t)(data[4] | data[5] << 8) % 4096;
	size_t table_len = (size_t)(data[6] | (data[7] & 3) << 8);
	size_t out_len = count * 4 - (data[7] >> 7);
	data += 8;
	size -= 8;
	uint8_t *table = malloc(table_len + 1), *in = malloc(size + 1), *out = malloc(out_len + 1);
	if (table && in && out) {
		for (size_t i = 0; i < table_len; i++)
			table[i] = (uint8_t)i;
		memcpy(in, data, size);
		(void)codec_tflm_decode(&t, in, size, table, table_len, out, out_len, count);
	}
	free(table);
	free(in);
	free(out);
	return 0;
}
