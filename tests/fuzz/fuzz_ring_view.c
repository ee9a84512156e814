// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: any bytes taken as a mapped ring must be rejected or read
 * without touching memory outside them.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "vmtrace/vmtrace.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct vmt_ring_view view;
	struct vmt_record out[16];
	uint64_t overwritten = 0;
	void *mem;

	/* An exact-size copy, so ASan sees any read past the end. */
	mem = malloc(size ? size : 1);
	if (!mem)
		return 0;
	memcpy(mem, data, size);
	if (vmt_ring_view_init(&view, mem, size) == 0) {
		for (int i = 0; i < 4; i++)
			if (vmt_ring_view_read(&view, out, 16, &overwritten) <= 0)
				break;
	}
	free(mem);
	return 0;
}
