/* libFuzzer: .npy parsing (fw/formats/npy): any bytes are refused by name or give an array whose
 * data lies inside the input; a parsed array's header written back parses to the same shape. */
#include "fw/formats/npy.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct npy_array a;
	enum npy_err e = npy_parse(data, size, &a);
	if (e == NPY_OK) {
		if (a.data < data || a.data + a.data_len != data + size)
			abort();
		static uint8_t h[1024];
		size_t hl;
		if (npy_header(a.dtype, a.shape, a.ndim, h, sizeof h, &hl) == NPY_OK) {
			struct npy_array b;
			uint8_t *c = malloc(hl + a.data_len + 1);
			if (c) {
				memcpy(c, h, hl);
				memcpy(c + hl, a.data, a.data_len);
				if (npy_parse(c, hl + a.data_len, &b) != NPY_OK || b.ndim != a.ndim ||
				    b.dtype != a.dtype || b.nelem != a.nelem)
					abort();
				free(c);
			}
		}
	} else if (!npy_err_name(e)[0]) {
		abort();
	}
	return 0;
}
