/* libFuzzer: fp8 decoders and encoders; decode(encode(x)) is stable and fp8 round trips. */
#include "fw/codec/codec.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	size_t n = size / 2;
	uint16_t *h = malloc(n * 2 + 1), *back = malloc(size * 2 + 1);
	uint8_t *b = malloc(n + 1);
	if (h && back && b) {
		memcpy(h, data, n * 2);
		int sat = size & 1;
		if (codec_e4m3_encode(h, n, b, n, sat) != CODEC_OK || codec_e5m2_encode(h, n, b, n, sat) != CODEC_OK)
			abort();
		if (codec_e4m3_decode(data, size, back, size) != CODEC_OK || codec_e5m2_decode(data, size, back, size) != CODEC_OK)
			abort();
		/* every E4M3 code except NaN survives decode + encode unchanged */
		for (size_t i = 0; i < size; i++) {
			uint8_t c = data[i];
			if ((c & 0x7f) != 0x7f && codec_fp16_to_e4m3(codec_e4m3_to_fp16(c), sat) != c)
				abort();
			if ((c & 0x7f) <= 0x7c && codec_fp16_to_e5m2(codec_e5m2_to_fp16(c), 0) != c)
				abort();
		}
		(void)codec_e4m3_encode(h, n, b, n ? n - 1 : 0, 0);
	}
	free(h);
	free(back);
	free(b);
	return 0;
}
