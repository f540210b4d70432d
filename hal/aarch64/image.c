/* The firmware image's layout, from the linker script's symbols. */
#include "hal/hal.h"
#include "linker/image_syms.h"

const struct hal_region *hal_image_regions(unsigned *n)
{
	static struct hal_region r[6];
	r[0] = (struct hal_region){"image .text", (uintptr_t)__text_start,
				   (uintptr_t)__text_end - (uintptr_t)__text_start,
				   HAL_REGION_R | HAL_REGION_X};
	r[1] = (struct hal_region){"image .rodata", (uintptr_t)__rodata_start,
				   (uintptr_t)__rodata_end - (uintptr_t)__rodata_start, HAL_REGION_R};
	r[2] = (struct hal_region){"image data+bss", (uintptr_t)__data_start,
				   (uintptr_t)__bss_end - (uintptr_t)__data_start,
				   HAL_REGION_R | HAL_REGION_W};
	r[3] = (struct hal_region){"stacks", (uintptr_t)__stacks_start,
				   (uintptr_t)__stacks_end - (uintptr_t)__stacks_start,
				   HAL_REGION_R | HAL_REGION_W};
	r[4] = (struct hal_region){"exc stacks", (uintptr_t)__exc_stacks_start,
				   (uintptr_t)__exc_stacks_end - (uintptr_t)__exc_stacks_start,
				   HAL_REGION_R | HAL_REGION_W};
	r[5] = (struct hal_region){"heap", (uintptr_t)__heap_start,
				   (uintptr_t)__heap_end - (uintptr_t)__heap_start,
				   HAL_REGION_R | HAL_REGION_W};
	*n = 6;
	return r;
}
