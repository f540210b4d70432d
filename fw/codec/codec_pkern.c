/* H13 phase-sparse kernels: the kernel format of Apple's H13 stride-2 convolutions (codec.h). */
#include "fw/codec/codec.h"
#include "fw/common/le.h"

#include <string.h>

#define PK_MAX_G 128u
#define PK_MAX_K 31u
#define PK_MAX_CIN 65536u

static int pow2(unsigned v)
{
	return v && !(v & (v - 1u));
}

size_t codec_pkern_slots(const struct codec_pkern *p)
{
	if (!p || !p->g || p->g > PK_MAX_G || p->lanes < p->g || p->lanes > PK_MAX_G || !pow2(p->lanes) ||
	    !p->kh || !p->kw || p->kh > PK_MAX_K || p->kw > PK_MAX_K || !p->cin || p->cin > PK_MAX_CIN)
		return 0;
	/* four phases of ceil(Kh/2) x ceil(Kw/2) taps, lanes slots a tap; a multiple of 8 whenever
	 * lanes >= 2, and padded to one otherwise */
	size_t s = 4u * ((p->kh + 1u) / 2u) * ((p->kw + 1u) / 2u) * p->lanes;
	return (s + 7u) & ~(size_t)7u;
}

/* Slot i of an input channel's run: the tap (ky, kx) and lane it stands for; 0 when it is
 * padding (past the kernel's edge, a lane >= g, or past the phases). */
static int slot_tap(const struct codec_pkern *p, size_t i, unsigned *ky, unsigned *kx, unsigned *lane)
{
	const unsigned sh = (p->kh + 1u) / 2u, sw = (p->kw + 1u) / 2u;
	const size_t per_phase = (size_t)sh * sw * p->lanes;
	size_t ph = i / per_phase, r = i % per_phase;
	if (ph >= 4u)
		return 0;
	unsigned tap = (unsigned)(r / p->lanes), y = tap / sw, x = tap % sw;
	*lane = (unsigned)(r % p->lanes);
	*ky = 2u * y + (unsigned)(ph >> 1);
	*kx = 2u * x + (unsigned)(ph & 1u);
	return *ky < p->kh && *kx < p->kw && *lane < p->g;
}

enum codec_err codec_pkern_record(const struct codec_pkern *p, const uint8_t *in, size_t in_len,
				  uint16_t *w, size_t w_count, uint16_t *bias, size_t *used)
{
	const size_t slots = codec_pkern_slots(p);
	if (!slots)
		return CODEC_E_GROUPS;
	if (!in || !w || !used || (p->bias && !bias))
		return CODEC_E_NULL;
	const size_t per = (size_t)p->cin * p->kh * p->kw; /* at most 2^16 x 31 x 31 */
	if (w_count / p->g < per)
		return CODEC_E_OUTPUT_SIZE;
	size_t off = 0;
	if (p->bias) {
		if (in_len < 2u * p->g)
			return CODEC_E_INPUT_SIZE;
		for (unsigned l = 0; l < p->g; l++)
			bias[l] = le_rd16(in + 2u * l);
		off = 2u * p->g;
	}
	if (in_len - off < 3u)
		return CODEC_E_INPUT_SIZE;
	const size_t n = (size_t)in[off] | (size_t)in[off + 1] << 8 | (size_t)in[off + 2] << 16;
	off += 3u;
	if (n > in_len - off)
		return CODEC_E_INPUT_SIZE;
	const size_t end = off + n;
	memset(w, 0, (size_t)p->g * per * sizeof *w);
	for (unsigned ci = 0; ci < p->cin; ci++)
		for (size_t s0 = 0; s0 < slots; s0 += 8u) {
			if (off >= end)
				return CODEC_E_INPUT_SIZE;
			const unsigned mask = in[off++];
			for (unsigned b = 0; b < 8u; b++) {
				unsigned ky, kx, lane;
				if (!(mask >> b & 1u))
					continue;
				if (!slot_tap(p, s0 + b, &ky, &kx, &lane))
					return CODEC_E_SLOT;
				uint16_t *d = &w[(size_t)lane * per + ((size_t)ci * p->kh + ky) * p->kw + kx];
				if (p->binary) { /* the mark alone: no value stored */
					*d = p->mark;
					continue;
				}
				if (end - off < 2u)
					return CODEC_E_INPUT_SIZE;
				*d = le_rd16(in + off);
				off += 2u;
			}
		}
	if (off != end)
		return CODEC_E_INPUT_SIZE; /* the body is not what its count says */
	*used = end;
	return CODEC_OK;
}
