/* Memory-mapped register accessors. The only way drivers touch a device. */
#ifndef ANEFW_MMIO_H
#define ANEFW_MMIO_H

#include <stdint.h>

static inline uint32_t mmio_read_32(uintptr_t addr)
{
	return *(volatile const uint32_t *)addr;
}

static inline void mmio_write_32(uintptr_t addr, uint32_t v)
{
	*(volatile uint32_t *)addr = v;
}

static inline uint8_t mmio_read_8(uintptr_t addr)
{
	return *(volatile const uint8_t *)addr;
}

static inline void mmio_write_8(uintptr_t addr, uint8_t v)
{
	*(volatile uint8_t *)addr = v;
}

static inline void mmio_setbits_32(uintptr_t addr, uint32_t set)
{
	mmio_write_32(addr, mmio_read_32(addr) | set);
}

static inline void mmio_clrbits_32(uintptr_t addr, uint32_t clr)
{
	mmio_write_32(addr, mmio_read_32(addr) & ~clr);
}

#endif
