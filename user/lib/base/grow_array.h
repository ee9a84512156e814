/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/* An array grown by doubling, the new room zeroed: the analyses' per-unit tables. */
#ifndef VMTRACE_INTERNAL_GROW_ARRAY_H
#define VMTRACE_INTERNAL_GROW_ARRAY_H

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/*
 * Room for @n elements of @size bytes in *@array, which has room for *@room:
 * 0, -ENOMEM, or -EOVERFLOW when twice @n elements would not fit in a size_t
 * (the room doubles: it stays below 2 @n).
 */
static inline int vmt_grow_array(void **array, uint64_t *room, uint64_t n, size_t size)
{
	uint64_t want = *room ? *room : 1024;
	void *p;

	if (n <= *room)
		return 0;
	if (n > SIZE_MAX / 2 / size)
		return -EOVERFLOW;
	while (want < n)
		want *= 2;
	p = realloc(*array, want * size);
	if (!p)
		return -ENOMEM;
	memset((char *)p + *room * size, 0, (want - *room) * size);
	*array = p;
	*room = want;
	return 0;
}

#endif /* VMTRACE_INTERNAL_GROW_ARRAY_H */
