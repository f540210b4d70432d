/* libFuzzer: structured-sparsity decoder; a valid decode keeps exactly the masked values. */
#include "fw/codec/codec.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 4)
		return 0;
	size_t count = (size_t)(data[0] | data[1] << 8) % 4096;
	size_t mask_len = data[2] * 2u;
	size_t nvals = data[3] * 3u;
	data += 4;
	size -= 4;
	if (mask_len > size)
		mask_len = size;
	uint8_t *mask = malloc(mask_len + 1);
	uint16_t *vals = malloc(nvals * 2 + 1);
	uint16_t *out = malloc(count * 2 + 1);
	if (mask && vals && out) {
		memcpy(mask, data, mask_len);
		for (size_t i = 0; i < nvals; i++)
			vals[i] = (uint16_t)(i + 1);
		enum codec_err e = codec_sparse_decode(mask, mask_len, vals, nvals, out, count);
		if (e == CODEC_OK) {
			size_t j = 0;
			for (size_t i = 0; i < count; i++) {
				int keep = (mask[i / 8] >> (i % 8)) & 1;
				if (out[i] != (keep ? vals[j++] : 0))
					abort();
			}
			if (j != nvals)
				abort();
		}
	}
	free(mask);
	free(vals);
	free(out);
	return 0;
}
