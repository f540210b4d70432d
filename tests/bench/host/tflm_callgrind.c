/*
 * Host measurement of the TFLM decoder (issue 14): instructions per element under callgrind,
 * 1 Mi elements, full value tables (2^bits entries per channel), every TFLM output type, widths
 * 1..7, per tensor / per channel / alternate axis, 8-byte aligned buffers and buffers one byte
 * off, one-shot decodes (tables built per call) and prepared decoders. Each decode is bracketed
 * by CALLGRIND_ZERO_STATS / CALLGRIND_DUMP_STATS_AT(name); tests/bench/tflm-callgrind.sh builds
 * this with gcc -O2 for x86-64 (as the issue measured TFLM) and turns the dumps into a table.
 * Every output is compared with a bit-reader reference after the measured call; a mismatch
 * exits 1. Not part of the firmware build (tests/bench/*.c only, not this folder).
 */
#include "fw/codec/codec.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <valgrind/callgrind.h>

#define COUNT (1u << 20)
#define CHANNELS 16u

static uint64_t rng = 0x9e3779b97f4a7c15ull;
static uint8_t rnd8(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (uint8_t)(rng >> 24);
}

static unsigned msb_field(const uint8_t *p, size_t i, unsigned bits)
{
	unsigned v = 0;
	for (unsigned k = 0; k < bits; k++) {
		size_t b = i * bits + k;
		v = (v << 1) | ((p[b / 8] >> (7 - b % 8)) & 1u);
	}
	return v;
}

int main(int argc, char **argv)
{
	static const struct {
		enum codec_tflm_type t;
		const char *name;
	} types[] = {{CODEC_TFLM_INT8, "int8"},   {CODEC_TFLM_INT16, "int16"}, {CODEC_TFLM_INT32, "int32"},
		     {CODEC_TFLM_INT64, "int64"}, {CODEC_TFLM_FLOAT32, "float32"}, {CODEC_TFLM_BOOL, "bool"}};
	const char *only = argc > 1 ? argv[1] : NULL;
	uint8_t *inb = malloc(COUNT + 64), *outb = malloc(COUNT * 8 + 64), *table = malloc(CHANNELS * 128 * 8);
	if (!inb || !outb || !table)
		return 2;
	for (size_t i = 0; i < CHANNELS * 128 * 8; i++)
		table[i] = rnd8();
	int bad = 0;
	for (size_t ti = 0; ti < sizeof types / sizeof types[0]; ti++) {
		if (only && strcmp(only, types[ti].name))
			continue;
		const size_t esz = codec_tflm_elem_size(types[ti].t);
		for (unsigned bits = 1; bits <= 7; bits++) {
			const size_t stride = (size_t)1 << bits, nbytes = codec_packed_bytes(COUNT, bits);
			for (unsigned layout = 0; layout < 3; layout++) {
				static const char *const lname[3] = {"tensor", "channel", "alt"};
				const size_t C = layout ? CHANNELS : 1;
				struct codec_tflm t = {bits, types[ti].t, C, layout == 2};
				for (unsigned al = 0; al < 2; al++) {
					uint8_t *in = inb + 8 + al, *out = outb + 8 + al; /* heap blocks are 16-aligned */
					for (size_t i = 0; i < nbytes; i++)
						in[i] = rnd8();
					for (unsigned prep = 0; prep < 2; prep++) {
						char name[96];
						snprintf(name, sizeof name, "%s/%u/%s/%s/%s", types[ti].name, bits, lname[layout],
							 al ? "unaligned" : "aligned", prep ? "prepared" : "oneshot");
						struct codec_tflm_prepared *pp = NULL;
						enum codec_err e;
						if (prep && codec_tflm_prepare(&pp, &t, table, C * stride * esz, COUNT) != CODEC_OK)
							return 2;
						CALLGRIND_ZERO_STATS;
						if (prep)
							e = codec_tflm_decode_prepared(pp, in, nbytes, out, COUNT * esz);
						else
							e = codec_tflm_decode(&t, in, nbytes, table, C * stride * esz, out, COUNT * esz,
									      COUNT);
						CALLGRIND_DUMP_STATS_AT(name);
						codec_tflm_release(pp);
						size_t wrong = e != CODEC_OK;
						for (size_t i = 0; i < COUNT && !wrong; i++) {
							size_t ch = layout == 2 ? i % C : i / (COUNT / C);
							wrong += memcmp(out + i * esz, table + (ch * stride + msb_field(in, i, bits)) * esz,
									esz) != 0;
						}
						if (wrong) {
							fprintf(stderr, "%s: wrong output\n", name);
							bad = 1;
						}
					}
				}
			}
		}
	}
	return bad;
}
