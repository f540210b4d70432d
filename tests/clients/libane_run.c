/*
 * A small libane client (eiln/ane's libane, built unchanged from ../shared/clients): loads an
 * anec, sends every input from a file of dense N x C x H x W fp16 values (libane's ane_tile
 * places them in the tile's strides), runs it, and writes every output the same way.
 *   libane_run MODEL.anec IN0 [IN1 ...] -- OUT0 [OUT1 ...]
 * Exit 0 when every call succeeded; 1 with the reason otherwise. Only libane's public API is
 * used, as any program linked against it would.
 */
#include "ane.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint64_t dense_bytes(struct ane_nn *nn, int bdx)
{
	const struct anec *a = to_anec(nn);
	return a->nchw[bdx][0] * a->nchw[bdx][1] * a->nchw[bdx][2] * a->nchw[bdx][3] *
	       sizeof(uint16_t);
}

int main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr, "usage: libane_run MODEL.anec IN... -- OUT...\n");
		return 2;
	}
	int sep = 2;
	while (sep < argc && strcmp(argv[sep], "--"))
		sep++;
	struct ane_nn *nn = ane_init(argv[1]);
	if (!nn) {
		fprintf(stderr, "libane_run: ane_init(%s) failed\n", argv[1]);
		return 1;
	}
	const unsigned nin = (unsigned)(sep - 2), nout = sep < argc ? (unsigned)(argc - sep - 1) : 0;
	int rc = 1;
	if (nin != ane_src_count(nn) || nout != ane_dst_count(nn)) {
		fprintf(stderr, "libane_run: the model has %u inputs and %u outputs, given %u and %u\n",
			ane_src_count(nn), ane_dst_count(nn), nin, nout);
		goto out;
	}
	for (unsigned i = 0; i < nin; i++) {
		const int bdx = 4 + (int)ane_dst_count(nn) + (int)i;
		uint64_t n = dense_bytes(nn, bdx);
		void *b = calloc(1, n);
		FILE *f = fopen(argv[2 + i], "rb");
		size_t got = f && b ? fread(b, 1, n, f) : 0;
		if (f)
			fclose(f);
		if (got != n) {
			fprintf(stderr, "libane_run: %s: expected 0x%llx bytes\n", argv[2 + i],
				(unsigned long long)n);
			free(b);
			goto out;
		}
		__ane_tile_send(nn, b, i);
		free(b);
	}
	int e = ane_exec(nn);
	if (e < 0) {
		perror("libane_run: ane_exec");
		goto out;
	}
	for (unsigned i = 0; i < nout; i++) {
		uint64_t n = dense_bytes(nn, 4 + (int)i);
		void *b = calloc(1, n);
		if (!b)
			goto out;
		__ane_tile_read(nn, b, i);
		FILE *f = fopen(argv[sep + 1 + i], "wb");
		size_t put = f ? fwrite(b, 1, n, f) : 0;
		if (f)
			fclose(f);
		free(b);
		if (put != n)
			goto out;
	}
	rc = 0;
out:
	ane_free(nn);
	return rc;
}
