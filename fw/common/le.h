/*
 * Little-endian loads and stores of 16-, 32- and 64-bit values at any byte address: the byte
 * order of every on-disk and in-memory format fw/ reads and writes (.hwx, TDs, kernel units).
 * Callers check bounds first.
 */
#ifndef ANEFW_LE_H
#define ANEFW_LE_H

#include <stdint.h>

static inline uint16_t le_rd16(const uint8_t *b)
{
	return (uint16_t)(b[0] | b[1] << 8);
}

static inline uint32_t le_rd32(const uint8_t *b)
{
	return (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
}

static inline uint64_t le_rd64(const uint8_t *b)
{
	return (uint64_t)le_rd32(b) | (uint64_t)le_rd32(b + 4) << 32;
}

static inline void le_wr16(uint8_t *b, uint16_t v)
{
	b[0] = (uint8_t)v;
	b[1] = (uint8_t)(v >> 8);
}

static inline void le_wr32(uint8_t *b, uint32_t v)
{
	b[0] = (uint8_t)v;
	b[1] = (uint8_t)(v >> 8);
	b[2] = (uint8_t)(v >> 16);
	b[3] = (uint8_t)(v >> 24);
}

static inline void le_wr64(uint8_t *b, uint64_t v)
{
	le_wr32(b, (uint32_t)v);
	le_wr32(b + 4, (uint32_t)(v >> 32));
}

#endif
