/* Mutations of a program's TDs that keep its structure (mutate.h). */
#include "tests/fuzz/mutate.h"

#include "fw/common/le.h"
#include "fw/loader/loader.h"
#include "fw/regmap/h13.h"
#include "fw/td/td.h"

#include <string.h>

struct mut_word mut_wl[MUT_WORDS];

static uint64_t rng_state;

void mut_seed(unsigned seed)
{
	rng_state ^= seed + 0x9e3779b97f4a7c15ull;
	mut_rnd();
}

uint32_t mut_rnd(void)
{
	rng_state = rng_state * 6364136223846793005ull + 1442695040888963407ull;
	return (uint32_t)(rng_state >> 33);
}

unsigned mut_writes(const uint8_t *data, size_t size, unsigned flags, void (*seen)(uint32_t addr, uint32_t value))
{
	static struct ldr_program mp;
	if (ldr_load(data, size, flags, &mp) != LDR_OK || mp.ntds == 0)
		return 0;
	unsigned n = 0;
	const size_t base = (size_t)(mp.buf - data) + mp.td_area_off;
	for (unsigned t = 0; t < mp.ntds && n < MUT_WORDS; t++) {
		struct ldr_write_iter it;
		struct ldr_write w;
		ldr_writes_begin(&mp, t, &it);
		while (n < MUT_WORDS && ldr_writes_next(&it, &w)) {
			if (base + w.area_off + 4 > size)
				continue;
			mut_wl[n++] = (struct mut_word){w.addr, (uint32_t)(base + w.area_off), t};
			if (seen)
				seen(w.addr, w.value);
		}
	}
	return n;
}

uint64_t mut_task_ops(const uint8_t *data, size_t size, unsigned flags)
{
	static struct ldr_program q;
	static struct ldr_image im;
	if (ldr_load(data, size, flags, &q) != LDR_OK)
		return 0;
	memset(&im, 0, sizeof im);
	im.p = &q;
	uint64_t sum = 0;
	for (unsigned t = 0; t < q.ntds; t++) {
		ldr_image_apply_td(&im, t);
		const struct td_regs regs = {ldr_image_reg, &im};
		uint64_t o = td_ops(&regs);
		sum = o > UINT64_MAX - sum ? UINT64_MAX : sum + o;
	}
	return sum;
}

/* the dimension fields the shrinks change */
static const struct dimf {
	uint32_t addr;
	unsigned lsb, w;
} dimf[] = {
	{H13_COMMON_INDIM, H13_INDIM_WIN_LSB, H13_INDIM_WIN_W},   {H13_COMMON_INDIM, H13_INDIM_HIN_LSB, H13_INDIM_HIN_W},
	{H13_COMMON_OUTDIM, H13_OUTDIM_WOUT_LSB, H13_OUTDIM_WOUT_W}, {H13_COMMON_OUTDIM, H13_OUTDIM_HOUT_LSB, H13_OUTDIM_HOUT_W},
	{H13_COMMON_CIN, H13_CIN_LSB, H13_CIN_W},                 {H13_COMMON_COUT, H13_COUT_LSB, H13_COUT_W},
};
#define NDIMF (sizeof dimf / sizeof dimf[0])

/* Every dimension field of the words [a, b) that holds a value v set to k (1 to 8, or v halved 1
 * to 4 times; below v). v: one of the values above 1 the fields hold, at random, or (big) the
 * largest. Returns 0 when no field holds a value above 1. */
static int shrink_value(uint8_t *data, unsigned a, unsigned b, int big)
{
	uint32_t v = 0;
	unsigned seen = 0;
	for (unsigned i = a; i < b; i++)
		for (unsigned f = 0; f < NDIMF; f++) {
			if (mut_wl[i].addr != dimf[f].addr)
				continue;
			uint32_t x = (le_rd32(data + mut_wl[i].off) >> dimf[f].lsb) & td_field_mask(dimf[f].w);
			if (x > 1 && (big ? x > v : mut_rnd() % ++seen == 0)) /* random: each as likely */
				v = x;
		}
	if (!v)
		return 0;
	uint32_t k = mut_rnd() % 2 ? 1 + mut_rnd() % 8 : v >> (1 + mut_rnd() % 4);
	if (k >= v)
		k = v - 1;
	if (!k)
		k = 1;
	for (unsigned i = a; i < b; i++)
		for (unsigned f = 0; f < NDIMF; f++) {
			if (mut_wl[i].addr != dimf[f].addr)
				continue;
			const uint32_t m = td_field_mask(dimf[f].w) << dimf[f].lsb, w = le_rd32(data + mut_wl[i].off);
			if (((w & m) >> dimf[f].lsb) == v)
				le_wr32(data + mut_wl[i].off, (w & ~m) | k << dimf[f].lsb);
		}
	return 1;
}

int mut_shrink(uint8_t *data, size_t size, unsigned n, unsigned flags, uint64_t limit)
{
	if (!shrink_value(data, 0, n, 0))
		return 0;
	if (mut_rnd() % 2)
		for (unsigned r = 0; r < 8 && mut_task_ops(data, size, flags) > limit; r++)
			if (!shrink_value(data, 0, n, 1))
				break;
	return 1;
}

static int l2_base(uint32_t addr)
{
	return addr == H13_L2_SOURCEBASE || addr == H13_L2_SOURCE2BASE || addr == H13_L2_RESULTBASE;
}

int mut_l2(uint8_t *data, unsigned n)
{
	/* the TDs with a second source in L2 memory: a Source2Base or second-source stride not 0 */
	static uint8_t src2[LDR_MAX_TDS];
	memset(src2, 0, sizeof src2);
	for (unsigned i = 0; i < n; i++)
		if (mut_wl[i].td < LDR_MAX_TDS && mut_wl[i].addr >= H13_L2_SOURCE2BASE &&
		    mut_wl[i].addr < H13_L2_SRC2_CSTRIDE + 16 && le_rd32(data + mut_wl[i].off))
			src2[mut_wl[i].td] = 1;
	/* the L2 base words, and one of those a source's (weighted to such a TD's Source2Base: the
	 * second operand's and the pair's reads, which word mutations did not reach; most TDs
	 * write a Source2Base of 0 they do not read) */
	unsigned nb = 0, pick = n, seen = 0;
	for (unsigned i = 0; i < n; i++) {
		if (!l2_base(mut_wl[i].addr))
			continue;
		nb++;
		unsigned wgt = mut_wl[i].addr == H13_L2_SOURCE2BASE ? (mut_wl[i].td < LDR_MAX_TDS && src2[mut_wl[i].td] ? 8 : 1)
			       : mut_wl[i].addr == H13_L2_SOURCEBASE ? 1 : 0;
		for (unsigned k = 0; k < wgt; k++)
			if (mut_rnd() % ++seen == 0)
				pick = i;
	}
	if (!nb)
		return 0;
	const uint32_t am = td_field_mask(H13_L2_ADDR_W) << H13_L2_ADDR_LSB;
	const unsigned how = mut_rnd() % 4;
	if (how == 3 || pick == n) {
		/* one TD that writes L2 memory (L2.ResultCfg.ResultType 0), at random, smaller alone */
		unsigned t = 0;
		seen = 0;
		for (unsigned i = 0; i < n; i++)
			if (mut_wl[i].addr == H13_L2_RESULTCFG &&
			    H13_GET(le_rd32(data + mut_wl[i].off), H13_L2_RESULTTYPE) == H13_L2_MEM && mut_rnd() % ++seen == 0)
				t = mut_wl[i].td;
		if (!seen)
			return 0;
		unsigned a = 0, b;
		while (a < n && mut_wl[a].td != t)
			a++;
		for (b = a; b < n && mut_wl[b].td == t; b++)
			;
		return shrink_value(data, a, b, 0);
	}
	const struct mut_word *x = &mut_wl[pick];
	uint32_t w = le_rd32(data + x->off), u = (w & am) >> H13_L2_ADDR_LSB;
	if (how == 0) {
		/* a few 16-byte units on or back */
		uint32_t d = 1 + mut_rnd() % 8;
		u = mut_rnd() % 2 ? u + d : u - d;
	} else if (how == 1) {
		/* where another L2 base points, a few units on */
		unsigned j = mut_rnd() % n, k = 0;
		while (k < n && !l2_base(mut_wl[(j + k) % n].addr))
			k++;
		const uint32_t o = le_rd32(data + mut_wl[(j + k) % n].off);
		u = ((o & am) >> H13_L2_ADDR_LSB) + mut_rnd() % 4;
	} else {
		/* the second source's row stride of the same TD (a pair's p1 one row stride on), or the
		 * base a long way on */
		for (unsigned i = 0; i < n; i++)
			if (mut_wl[i].td == x->td && mut_wl[i].addr == H13_L2_SRC2_CSTRIDE + 4 && mut_rnd() % 2) {
				const uint32_t s = le_rd32(data + mut_wl[i].off), v = (s & am) >> H13_L2_ADDR_LSB;
				const uint32_t nv = mut_rnd() % 2 ? v + 1 + mut_rnd() % 8 : v >> 1;
				le_wr32(data + mut_wl[i].off, (s & ~am) | ((nv << H13_L2_ADDR_LSB) & am));
				return 1;
			}
		u += 1u << (4 + mut_rnd() % 12);
	}
	le_wr32(data + x->off, (w & ~am) | ((u << H13_L2_ADDR_LSB) & am));
	return 1;
}
