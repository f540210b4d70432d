/*
 * The symbols linker/common.ld defines for the firmware image's layout (its sections, the per-core
 * stacks, the heap). Declared here, next to the script, so that boot/ and hal/ can both use them
 * without one including the other (as Trusted Firmware-A keeps its linker symbols in
 * bl_common.h). Each is an address, declared as a char array so that its arithmetic is in bytes.
 */
#ifndef ANEFW_LINKER_IMAGE_SYMS_H
#define ANEFW_LINKER_IMAGE_SYMS_H

extern char __image_start[], __image_end[];
extern char __text_start[], __text_end[];
extern char __rodata_start[], __rodata_end[];
extern char __data_start[], __data_end[];
extern char __bss_start[], __bss_end[];
extern char __stacks_start[], __stacks_end[];
extern char __exc_stacks_start[], __exc_stacks_end[];
extern char __heap_start[], __heap_end[];

#endif
