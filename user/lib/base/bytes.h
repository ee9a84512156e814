/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/*
 * Byte helpers the whole library shares (bytes.c): little-endian access,
 * the CRC-32 behind every checksum in the file, and a growable byte buffer.
 * Internal to libvmtrace. Nothing here knows the file's layout
 * (format/trace_format.h) or the codecs (codec/codec.h).
 */
#ifndef VMTRACE_INTERNAL_BYTES_H
#define VMTRACE_INTERNAL_BYTES_H

#include <stddef.h>
#include <stdint.h>

struct vmt_buf {
	uint8_t *data;
	size_t size;
	size_t capacity;
};

int vmt_buf_reserve(struct vmt_buf *b, size_t capacity);
void vmt_buf_free(struct vmt_buf *b);

/* ---- Little-endian access ---------------------------------------------- */

static inline void vmt_put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
}

static inline void vmt_put32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static inline void vmt_put64(uint8_t *p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static inline uint16_t vmt_get16(const uint8_t *p)
{
	return (uint16_t)(p[0] | p[1] << 8);
}

static inline uint32_t vmt_get32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

static inline uint64_t vmt_get64(const uint8_t *p)
{
	return (uint64_t)vmt_get32(p) | (uint64_t)vmt_get32(p + 4) << 32;
}

/* zlib's CRC-32 of @len bytes. */
uint32_t vmt_crc32(const void *data, size_t len);

/*
 * Fuzzing builds accept any checksum, so that mutated inputs reach the
 * parsers behind the checks instead of stopping at the first one.
 */
static inline int vmt_checksum_matches(uint32_t stored, uint32_t computed)
{
#ifdef FUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION
	(void)stored;
	(void)computed;
	return 1;
#else
	return stored == computed;
#endif
}

#endif /* VMTRACE_INTERNAL_BYTES_H */
