/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/*
 * LEB128 varints read from memory, and zig-zag signed numbers: the vpc
 * codec's fields and the loop descriptors' and loop sets' numbers.
 */
#ifndef VMTRACE_INTERNAL_VARINT_H
#define VMTRACE_INTERNAL_VARINT_H

#include <errno.h>
#include <stdint.h>

/* One varint from [*p, end), *p moved past it: 0, or -EBADMSG when it runs off or passes 64 bits. */
static inline int vmt_get_varint(const uint8_t **p, const uint8_t *end, uint64_t *v)
{
	uint64_t value = 0;

	for (int shift = 0; shift < 64; shift += 7) {
		uint8_t byte;

		if (*p >= end)
			return -EBADMSG;
		byte = *(*p)++;
		if (shift == 63 && byte > 1)
			return -EBADMSG;
		value |= (uint64_t)(byte & 0x7f) << shift;
		if (!(byte & 0x80)) {
			*v = value;
			return 0;
		}
	}
	return -EBADMSG;
}

/* A signed number as an unsigned one, small either side of 0, and back. */
static inline uint64_t vmt_zigzag(uint64_t v)
{
	return (v << 1) ^ (uint64_t)-(int64_t)(v >> 63);
}

static inline uint64_t vmt_unzigzag(uint64_t v)
{
	return (v >> 1) ^ (uint64_t)-(int64_t)(v & 1);
}

#endif /* VMTRACE_INTERNAL_VARINT_H */
