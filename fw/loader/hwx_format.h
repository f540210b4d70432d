/*
 * The .hwx container's constants, shared by the loader (fw/loader/loader.c) and the writer
 * (fw/loader/hwx_write.c). Layout as the real files show it: docs/formats.md, section 1.
 */
#ifndef ANEFW_HWX_FORMAT_H
#define ANEFW_HWX_FORMAT_H

#define HWX_MAGIC 0xbeefface
/* other Mach-O magics: a bad container, not a raw stream */
#define MACHO_MAGIC_32 0xfeedfaceu
#define MACHO_MAGIC_64 0xfeedfacfu
#define MACHO_CIGAM_32 0xcefaedfeu
#define MACHO_CIGAM_64 0xcffaedfeu
#define HWX_CIGAM 0xcefaefbeu
#define HWX_CPUTYPE 0x80
#define HWX_FILETYPE 2           /* every fixture */
#define HWX_FLAGS 0x200000u      /* every fixture */
#define HWX_PAGE 0x4000u         /* __TEXT starts here in the file; windows round to it */

/* the header: byte offsets of its 32-bit fields */
#define HWX_HEADER_BYTES 32
#define HWX_H_MAGIC 0
#define HWX_H_CPUTYPE 4
#define HWX_H_CPUSUBTYPE 8
#define HWX_H_FILETYPE 12
#define HWX_H_NCMDS 16
#define HWX_H_SIZEOFCMDS 20
#define HWX_H_FLAGS 24

/* every load command starts with its type and its size in bytes */
#define LC_CMD_OFF 0
#define LC_CMDSIZE_OFF 4
#define LC_HEAD_BYTES 8
#define LC_SYMTAB 0x2
#define LC_THREAD 0x4
#define LC_UNIXTHREAD 0x5
#define LC_IDFVMLIB 0x6
#define LC_LOADFVMLIB 0x7
#define LC_IDENT 0x8
#define LC_SEGMENT_64 0x19

/* LC_SEGMENT_64: 16-byte name, 64-bit vm and file extents, then 32-bit fields; its sections
 * follow it */
#define SEG_CMD_BYTES 72
#define SEG_NAME_OFF 8
#define SEG_VMADDR_OFF 24
#define SEG_VMSIZE_OFF 32
#define SEG_FILEOFF_OFF 40
#define SEG_FILESIZE_OFF 48
#define SEG_MAXPROT_OFF 56
#define SEG_INITPROT_OFF 60
#define SEG_NSECTS_OFF 64
#define SEG_FLAGS_OFF 68
#define SEG_NAME_BYTES 16

/* section_64 */
#define SECT_BYTES 80
#define SECT_NAME_OFF 0
#define SECT_SEGNAME_OFF 16
#define SECT_ADDR_OFF 32
#define SECT_SIZE_OFF 40
#define SECT_OFFSET_OFF 48
#define SECT_ALIGN_OFF 52
#define SECT_RELOFF_OFF 56
#define SECT_NRELOC_OFF 60
#define SECT_FLAGS_OFF 64
#define SECT_TYPE_MASK 0xffu     /* section type in the low byte of flags */
#define SECT_TYPE_ZEROFILL 1u    /* no bytes in the file */

/* LC_IDFVMLIB / LC_LOADFVMLIB: name.offset, minor_version, header_addr, then the name */
#define FVMLIB_NAMEOFF_OFF 8
#define FVMLIB_MINOR_OFF 12
#define FVMLIB_ADDR_OFF 16
#define FVMLIB_NAME_OFF 20       /* where the name starts, and the least command size */

/* LC_SYMTAB */
#define SYMTAB_CMD_BYTES 24
#define SYMTAB_SYMOFF_OFF 8
#define SYMTAB_NSYMS_OFF 12
#define SYMTAB_STROFF_OFF 16
#define SYMTAB_STRSIZE_OFF 20
#define NLIST_BYTES 16

/* LC_IDENT: a string after the command's head */
#define IDENT_TEXT_OFF LC_HEAD_BYTES

/* relocation_info: the patched address, then symbolnum:24 pcrel:1 length:2 extern:1 type:4 */
#define RELOC_BYTES 8
#define RELOC_ADDR_OFF 0
#define RELOC_INFO_OFF 4
#define RELOC_SCATTERED 0x80000000u /* in the address word: a scattered relocation */
#define RELOC_SYMBOLNUM_LSB 0
#define RELOC_SYMBOLNUM_W 24
#define RELOC_PCREL_LSB 24
#define RELOC_PCREL_W 1
#define RELOC_LENGTH_LSB 25
#define RELOC_LENGTH_W 2
#define RELOC_EXTERN_LSB 27
#define RELOC_EXTERN_W 1
#define RELOC_TYPE_LSB 28
#define RELOC_TYPE_W 4
#define RELOC_GET(info, f) (((info) >> f##_LSB) & ((1u << f##_W) - 1u))

/* LC_THREAD / LC_UNIXTHREAD: flavor, count (32-bit words), then the state */
#define THREAD_FLAVOR_OFF 8
#define THREAD_COUNT_OFF 12
#define THREAD_STATE_OFF 16
#define THREAD_MAIN_FLAVOR 1
#define THREAD_MAIN_WORDS 0x214u /* every fixture */
/* the main thread's state: byte offsets of the BAR table, the first TD, its size, the count */
#define THREAD_BARS_OFF 0x000
#define THREAD_TD_ADDR_OFF 0x800
#define THREAD_TD_WORDS_OFF 0x808
#define THREAD_TD_COUNT_OFF 0x80c
#define THREAD_MAIN_MIN 0x810

#endif
