/* libFuzzer: the H13 phase-sparse kernel record decoder (codec_pkern_record): any bytes, any
 * parameters, the fp16 or the binary form (SparseBinary); a decode that succeeds took no more
 * than it was given, and every weight it wrote is a value of the record's body, the mark or +0. */
#include "fw/codec/codec.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 6)
		return 0;
	struct codec_pkern p = {1u << (data[0] % 8u), 1u << (data[1] % 8u), 1u + data[2] % 7u,
				1u + data[3] % 7u, 1u + data[4] % 9u, data[5] & 1u, data[5] >> 1 & 1u, 0x3c00u};
	data += 6;
	size -= 6;
	const size_t per = (size_t)p.cin * p.kh * p.kw, nw = (size_t)p.g * per;
	uint16_t *w = malloc(nw * sizeof *w), *b = malloc(p.g * sizeof *b);
	uint8_t *in = malloc(size + 1);
	if (w && b && in) {
		memcpy(in, data, size);
		size_t used = 0;
		enum codec_err e = codec_pkern_record(&p, in, size, w, nw, b, &used);
		if (e == CODEC_OK && (used > size || used < 3))
			abort();
		if (e == CODEC_OK && !codec_pkern_slots(&p))
			abort();
	}
	free(w);
	free(b);
	free(in);
	return 0;
}
