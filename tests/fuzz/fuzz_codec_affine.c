/* libFuzzer: affine int8/uint8 decoder with fuzzed scales, zero points and sizes. */
#include "fw/codec/codec.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 6)
		return 0;
	struct codec_affine a = {(enum codec_qtype)(data[0] % 3), data[1] % 9};
	size_t count = (size_t)(data[2] | data[3] << 8) % 2048;
	size_t nscale = data[4] % 10, nzp = data[5] % 10;
	data += 6;
	size -= 6;
	if (size < nscale * 2 + nzp)
		return 0;
	uint16_t *scale = malloc(nscale * 2 + 1);
	uint8_t *zp = malloc(nzp + 1);
	size_t qlen = size - nscale * 2 - nzp;
	uint8_t *q = malloc(qlen + 1);
	uint16_t *out = malloc(count * 2 + 1);
	if (scale && zp && q && out) {
		memcpy(scale, data, nscale * 2);
		memcpy(zp, data + nscale * 2, nzp);
		memcpy(q, data + nscale * 2 + nzp, qlen);
		(void)codec_affine_decode(&a, q, qlen, scale, nscale, nzp ? zp : NULL, nzp, out, count);
		(void)codec_affine_check_symmetric(zp, nzp);
	}
	free(scale);
	free(zp);
	free(q);
	free(out);
	return 0;
}
