/*
 * The .hwx container's constants, shared by the loader (fw/loader/loader.c) and the writer
 * (fw/loader/hwx_write.c). Layout as the real files show it: docs/formats.md, section 1.
 */
#ifndef ANEFW_HWX_FORMAT_H
#define ANEFW_HWX_FORMAT_H

#define HWX_MAGIC 0xbeefface
#define HWX_CPUTYPE 0x80
#define HWX_FILETYPE 2           /* every fixture */
#define HWX_FLAGS 0x200000u      /* every fixture */
#define HWX_HEADER_BYTES 32
#define HWX_PAGE 0x4000u         /* __TEXT starts here in the file; windows round to it */
#define LC_SYMTAB 0x2
#define LC_THREAD 0x4
#define LC_UNIXTHREAD 0x5
#define LC_IDFVMLIB 0x6
#define LC_LOADFVMLIB 0x7
#define LC_IDENT 0x8
#define LC_SEGMENT_64 0x19
#define SEG_CMD_BYTES 72
#define SECT_BYTES 80
#define FVMLIB_NAME_OFF 20       /* cmd, cmdsize, name.offset, minor_version, header_addr */
#define RELOC_BYTES 8
#define THREAD_MAIN_FLAVOR 1
#define THREAD_MAIN_WORDS 0x214u /* every fixture */
#define THREAD_BARS_OFF 0x000
#define THREAD_TD_ADDR_OFF 0x800
#define THREAD_TD_WORDS_OFF 0x808
#define THREAD_TD_COUNT_OFF 0x80c
#define THREAD_MAIN_MIN 0x810

#endif
