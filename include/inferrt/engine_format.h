/*===- engine_format.h - the on-disk layout of an engine file --------------===*
 *
 * Shared by the compiler's writer (lib/Target/Engine) and the runtime's
 * loader (lib/Runtime); plain C, no MLIR or LLVM. docs/engine-format.md is
 * the specification. All integers are little-endian.
 *
 *   [EngineHeader][SectionEntry x sectionCount][padding][sections, each 256-byte aligned]
 *
 *===----------------------------------------------------------------------===*/

#ifndef INFERRT_ENGINE_FORMAT_H
#define INFERRT_ENGINE_FORMAT_H

#include <stddef.h>
#include <stdint.h>

#define INFERRT_ENGINE_MAGIC "INFERENG"
#define INFERRT_FORMAT_MAJOR 1
#define INFERRT_FORMAT_MINOR 0
#define INFERRT_SECTION_ALIGNMENT 256
#define INFERRT_MAX_SECTIONS 16

typedef struct {
  char magic[8];           /* "INFERENG" */
  uint16_t formatMajor;    /* incompatible changes */
  uint16_t formatMinor;    /* compatible additions */
  uint32_t headerSize;     /* sizeof(EngineHeader) */
  uint32_t sectionCount;   /* entries following the header */
  uint32_t headerCrc;      /* CRC-32 of header (this field zero) + section table */
  uint64_t fileSize;       /* total bytes: truncation is detected */
  char target[32];         /* NUL-terminated, e.g. "cpu-x86_64" */
} inferrt_engine_header;

typedef enum {
  INFERRT_SECTION_METADATA = 1, /* JSON: inputs, outputs, compiler, flags */
  INFERRT_SECTION_KERNELS = 2,  /* CPU: an ELF shared object */
  INFERRT_SECTION_WEIGHTS = 3,  /* raw weights, each 256-byte aligned (see the plan) */
  INFERRT_SECTION_PLAN = 4,     /* JSON: the kernel calls in order */
} inferrt_section_kind;

typedef struct {
  uint32_t kind;
  uint32_t crc;    /* CRC-32 of the section's bytes */
  uint64_t offset; /* from the start of the file, 256-byte aligned */
  uint64_t size;
} inferrt_section_entry;

/* CRC-32 (IEEE 802.3, as zlib), four bits at a time: a 16-entry table
 * keeps it small and dependency-free, and it is ~4x faster than bitwise
 * (it runs over every byte of the weights at load). */
static inline uint32_t inferrt_crc32(uint32_t crc, const void *data, size_t size) {
  static const uint32_t table[16] = {
      0x00000000u, 0x1DB71064u, 0x3B6E20C8u, 0x26D930ACu, 0x76DC4190u, 0x6B6B51F4u,
      0x4DB26158u, 0x5005713Cu, 0xEDB88320u, 0xF00F9344u, 0xD6D6A3E8u, 0xCB61B38Cu,
      0x9B64C2B0u, 0x86D3D2D4u, 0xA00AE278u, 0xBDBDF21Cu};
  const uint8_t *bytes = (const uint8_t *)data;
  crc = ~crc;
  for (size_t i = 0; i < size; ++i) {
    crc ^= bytes[i];
    crc = (crc >> 4) ^ table[crc & 15u];
    crc = (crc >> 4) ^ table[crc & 15u];
  }
  return ~crc;
}

#endif /* INFERRT_ENGINE_FORMAT_H */
