// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * The byte helpers of util/bytes.h that are not inline: CRC-32 and the
 * growable buffer. No file layout, no codec.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "base/bytes.h"

uint32_t vmt_crc32(const void *data, size_t len)
{
	uLong crc = crc32(0L, Z_NULL, 0);
	const Bytef *p = data;

	while (len) {
		uInt chunk = len > 1u << 30 ? 1u << 30 : (uInt)len;

		crc = crc32(crc, p, chunk);
		p += chunk;
		len -= chunk;
	}
	return (uint32_t)crc;
}

int vmt_buf_reserve(struct vmt_buf *b, size_t capacity)
{
	uint8_t *data;

	if (b->capacity >= capacity)
		return 0;
	data = realloc(b->data, capacity);
	if (!data)
		return -ENOMEM;
	b->data = data;
	b->capacity = capacity;
	return 0;
}

void vmt_buf_free(struct vmt_buf *b)
{
	free(b->data);
	memset(b, 0, sizeof(*b));
}
