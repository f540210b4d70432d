/* libFuzzer: palette LUT decoder with fuzzed parameters, packed indices and codebooks. */
#include "fw/codec/codec.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 8)
		return 0;
	struct codec_palette p = {data[0] % 10, data[1] % 8, (unsigned)(data[2] % 5)};
	size_t count = (size_t)(data[3] | data[4] << 8) % 4096;
	size_t lut_count = (size_t)(data[5] | data[6] << 8) % 8192;
	size_t split = data[7];
	data += 8;
	size -= 8;
	if (split > size)
		split = size;
	/* often make the sizes consistent so that the decode paths run */
	if ((data[-2] & 0x80) && p.bits >= 1 && p.bits <= 8)
		lut_count = ((size_t)p.groups << p.bits) * p.vector;
	if ((data[-4] & 0x80) && p.bits && p.vector && p.groups) {
		size_t nidx = split * 8 / p.bits;
		nidx -= nidx % p.groups;
		count = nidx * p.vector;
		split = (nidx * p.bits + 7) / 8;
	}
	uint16_t *lut = malloc(lut_count * 2 + 1);
	uint16_t *out = malloc(count * 2 + 1);
	uint8_t *in = malloc(split + 1);
	if (lut && out && in) {
		memcpy(in, data, split);
		for (size_t i = 0; i < lut_count; i++)
			lut[i] = (uint16_t)(i * 40503u);
		enum codec_err e = codec_palette_decode(&p, in, split, lut, lut_count, out, count);
		(void)codec_strerror(e);
	}
	free(lut);
	free(out);
	free(in);
	return 0;
}
