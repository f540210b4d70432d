/*
 * memcpy, memmove and memset for the target, eight bytes at a time where the two addresses
 * agree on their alignment (newlib-nano's are byte loops: about 4-5 instructions a byte, most
 * of a whole submission's cost outside the model; docs/performance.md). The build has
 * -mstrict-align, so no word access is ever unaligned: misaligned pairs copy bytewise. The
 * objects of the image define these before libc is searched, so libc's are not linked.
 * tests/target/target_tests.c compares all three with byte loops over every small offset and
 * length, overlapping moves both ways included.
 */
#include <stddef.h>
#include <stdint.h>

/* gcc must not turn these loops back into calls to themselves */
#define NO_PATTERNS __attribute__((optimize("no-tree-loop-distribute-patterns")))

typedef uint64_t __attribute__((may_alias)) word;
/* sixteen bytes in one q register (FP/SIMD is on from boot/entry.S), only at 16-byte aligned
 * addresses */
typedef uint64_t __attribute__((vector_size(16), may_alias)) quad;

/* Copies n bytes upward. Each group of words is read before any of it is written, so this is
 * also right for an overlapping move whose destination lies below its source. */
NO_PATTERNS static void copy_forward(uint8_t *d, const uint8_t *s, size_t n)
{
	if ((((uintptr_t)d ^ (uintptr_t)s) & 7u) == 0) {
		for (; n && ((uintptr_t)d & 7u); n--)
			*d++ = *s++;
		if (n >= 64 && (((uintptr_t)d ^ (uintptr_t)s) & 15u) == 0) {
			if ((uintptr_t)d & 8u) {
				*(word *)(void *)d = *(const word *)(const void *)s;
				d += 8, s += 8, n -= 8;
			}
			quad *dq = (quad *)(void *)d;
			const quad *sq = (const quad *)(const void *)s;
			for (; n >= 64; n -= 64, dq += 4, sq += 4) {
				quad a = sq[0], b = sq[1], c = sq[2], e = sq[3];
				dq[0] = a;
				dq[1] = b;
				dq[2] = c;
				dq[3] = e;
			}
			d = (uint8_t *)dq;
			s = (const uint8_t *)sq;
		}
		word *dw = (word *)(void *)d;
		const word *sw = (const word *)(const void *)s;
		for (; n >= 32; n -= 32, dw += 4, sw += 4) {
			word a = sw[0], b = sw[1], c = sw[2], e = sw[3];
			dw[0] = a;
			dw[1] = b;
			dw[2] = c;
			dw[3] = e;
		}
		for (; n >= 8; n -= 8)
			*dw++ = *sw++;
		d = (uint8_t *)dw;
		s = (const uint8_t *)sw;
	}
	for (; n; n--)
		*d++ = *s++;
}

void *memcpy(void *restrict dst, const void *restrict src, size_t n)
{
	copy_forward(dst, src, n);
	return dst;
}

NO_PATTERNS void *memmove(void *dst, const void *src, size_t n)
{
	uint8_t *d = dst;
	const uint8_t *s = src;
	if (d == s || !n)
		return dst;
	if ((uintptr_t)d < (uintptr_t)s || (uintptr_t)d - (uintptr_t)s >= n) {
		copy_forward(d, s, n);
		return dst;
	}
	/* backward: the destination overlaps the source's end */
	d += n;
	s += n;
	if ((((uintptr_t)d ^ (uintptr_t)s) & 7u) == 0) {
		for (; n && ((uintptr_t)d & 7u); n--)
			*--d = *--s;
		word *dw = (word *)(void *)d;
		const word *sw = (const word *)(const void *)s;
		for (; n >= 8; n -= 8)
			*--dw = *--sw;
		d = (uint8_t *)dw;
		s = (const uint8_t *)sw;
	}
	for (; n; n--)
		*--d = *--s;
	return dst;
}

NO_PATTERNS void *memset(void *dst, int c, size_t n)
{
	uint8_t *d = dst, v = (uint8_t)c;
	for (; n && ((uintptr_t)d & 7u); n--)
		*d++ = v;
	word pattern = 0x0101010101010101ull * v, *dw = (word *)(void *)d;
	if (n >= 64 && ((uintptr_t)d & 8u)) {
		*dw++ = pattern;
		n -= 8;
	}
	if (n >= 64) {
		quad q = {pattern, pattern}, *dq = (quad *)(void *)dw;
		for (; n >= 64; n -= 64, dq += 4) {
			dq[0] = q;
			dq[1] = q;
			dq[2] = q;
			dq[3] = q;
		}
		dw = (word *)dq;
	}
	for (; n >= 32; n -= 32, dw += 4) {
		dw[0] = pattern;
		dw[1] = pattern;
		dw[2] = pattern;
		dw[3] = pattern;
	}
	for (; n >= 8; n -= 8)
		*dw++ = pattern;
	d = (uint8_t *)dw;
	for (; n; n--)
		*d++ = v;
	return dst;
}
