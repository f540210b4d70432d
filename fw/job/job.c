/*
 * The firmware's main job: a banner (board, exception level, memory map, C library) and then the
 * pipeline as far as it exists.
 */
#include "fw/job/job.h"
#include "hal/hal.h"

#include <stdio.h>

static void print_region(const struct hal_region *r)
{
	printf("  %-14s 0x%08lx-0x%08lx %c%c%c%s\n", r->name, (unsigned long)r->base,
	       (unsigned long)(r->base + r->size), (r->attrs & HAL_REGION_R) ? 'r' : '-',
	       (r->attrs & HAL_REGION_W) ? 'w' : '-', (r->attrs & HAL_REGION_X) ? 'x' : '-',
	       (r->attrs & HAL_REGION_DEVICE) ? " device" : "");
}

static void banner(void)
{
	const struct hal_platform *p = hal_platform();
	printf("anefw: open coprocessor firmware for ANE-class engines\n");
	printf("board: %s (%s, %u core%s)\n", p->board, p->cpu, p->ncores, p->ncores == 1 ? "" : "s");
	printf("exception level: EL%u (entered at EL%u)\n", hal_current_el(), hal_entry_el());
	printf("c library: %s\n", p->libc);
	printf("memory map:\n");
	for (unsigned i = 0; i < p->nregions; i++)
		print_region(&p->regions[i]);
	unsigned n;
	const struct hal_region *img = hal_image_regions(&n);
	for (unsigned i = 0; i < n; i++)
		print_region(&img[i]);
}

int anefw_job(const char *cmdline)
{
	banner();
	printf("command line: %s\n", cmdline && cmdline[0] ? cmdline : "(none)");
	printf("anefw: done\n");
	return 0;
}
