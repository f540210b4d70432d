/* libFuzzer: blockwise affine decoder with fuzzed scales, offsets and block sizes. */
#include "fw/codec/codec.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 6)
		return 0;
	struct codec_blockwise b = {(enum codec_qtype)(data[0] % 3), (size_t)(data[1] % 40) * ((data[5] & 1) ? 16 : 1)};
	size_t count = (size_t)(data[2] | data[3] << 8) % 4096;
	size_t nscale = data[4] % 64;
	int with_off = data[5] & 2;
	data += 6;
	size -= 6;
	size_t need = nscale * 2 * (with_off ? 2 : 1);
	if (size < need)
		return 0;
	uint16_t *scale = malloc(nscale * 2 + 1), *off = malloc(nscale * 2 + 1);
	size_t qlen = size - need;
	uint8_t *q = malloc(qlen + 1);
	uint16_t *out = malloc(count * 2 + 1);
	if (scale && off && q && out) {
		memcpy(scale, data, nscale * 2);
		if (with_off)
			memcpy(off, data + nscale * 2, nscale * 2);
		memcpy(q, data + need, qlen);
		(void)codec_blockwise_decode(&b, q, qlen, scale, nscale, with_off ? off : NULL, nscale, out, count);
	}
	free(scale);
	free(off);
	free(q);
	free(out);
	return 0;
}
