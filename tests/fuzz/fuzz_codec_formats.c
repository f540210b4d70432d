/* libFuzzer: gate decisions and the bytes-moved model on arbitrary descriptions. */
#include "fw/formats/formats.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 40)
		return 0;
	struct wdesc w;
	memset(&w, 0, sizeof(w));
	w.form = (enum wform)(data[0] % 7);
	w.palette_bits = data[1];
	w.vector = data[2];
	w.groups = data[3];
	w.asymmetric = data[4] & 1;
	w.non_unit_stride = data[4] & 2;
	w.dilated = data[4] & 4;
	w.tile_overlap = data[4] & 8;
	w.mutable_weight = data[4] & 16;
	struct bytes_in in;
	memcpy(&in.elements, data + 8, 8);
	memcpy(&in.nonzeros, data + 16, 8);
	memcpy(&in.scales, data + 24, 8);
	in.has_offset = data[5] & 1;
	struct bytes_out o;
	enum chip c = (enum chip)(data[6] % 8);
	struct gate_decision d = gate_decide(c, &w);
	if (!d.why)
		abort();
	if (bytes_moved(c, &w, &in, &o) == BYTES_OK && o.gate.verdict == GATE_STREAM && o.moved != o.stored)
		abort();
	(void)chip_feature(c, (unsigned)(data[32] | data[33] << 8), NULL);
	(void)tfmt_dma_valid(c, data[34]);
	return 0;
}
