// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * vmt_locality_surface(): PSnAP's locality surface of a trace (each exact
 * access counted at its stride bin and reuse-distance bin), the picture
 * `vmtrace compare` sets side by side for a trace and its synthetic twin.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/stack_distance.h"
#include "base/grow_array.h"
#include "base/u64_map.h"
#include "vmtrace/profile.h"

static const char *const reuse_names[VMT_SURFACE_REUSE_BINS] = {
	"0", "1", "2-3", "4-7", "8-15", "16-31", "32-63", "64-127", "128-255", "256-511",
	"512-1K", "1K-2K", "2K-4K", "4K-8K", "8K-16K", "16K-32K", "32K-64K", ">=64K",
};

const char *vmt_surface_reuse_bin_name(unsigned int bin)
{
	return bin < VMT_SURFACE_REUSE_BINS ? reuse_names[bin] : NULL;
}

static unsigned int reuse_bin(uint64_t d)
{
	unsigned int b = 0;

	if (d == VMT_STACK_DISTANCE_COLD || d >= 65536)
		return VMT_SURFACE_REUSE_BINS - 1;
	while (d) {
		d >>= 1;
		b++;
	}
	return b;
}

/* A thread's state: its LRU stack and each instruction's last address. */
struct sthread {
	struct vmt_stack_distance sd;
	struct vmt_u64_map last;	/* ip -> last address + 1 */
};

int vmt_locality_surface(struct vmt_trace *trace, struct vmt_locality_surface *s,
			 struct vmt_trace_error *err)
{
	struct vmt_u64_map thread_of;
	struct sthread *threads = NULL;
	uint64_t room = 0, nthreads = 0;
	struct vmt_trace_cursor *cursor = NULL;
	const struct vmt_record *r;
	uint32_t stream;
	int ret;

	memset(s, 0, sizeof(*s));
	if (vmt_u64_map_init(&thread_of))
		return -ENOMEM;
	ret = vmt_trace_cursor_create(trace, VMT_ORDER_TIME, &cursor);
	while (!ret && (ret = vmt_trace_cursor_next(cursor, &r, &stream)) == 1) {
		const struct vmt_exact *e = &r->exact;
		struct sthread *t;
		uint64_t *slot, d;
		unsigned int sb = VMT_PROFILE_STRIDE_BINS - 1;
		uint32_t id;
		bool added;

		ret = 0;
		if (r->hdr.type != VMT_REC_EXACT || r->exact.access == VMT_ACCESS_EXEC)
			continue;
		slot = vmt_u64_map_put(&thread_of, r->hdr.tid, &added);
		if (!slot) {
			ret = -ENOMEM;
			break;
		}
		if (added) {
			if (vmt_grow_array((void **)&threads, &room, nthreads + 1, sizeof(*threads))) {
				ret = -ENOMEM;
				break;
			}
			t = &threads[nthreads];
			*slot = ++nthreads;
			if (vmt_stack_distance_init(&t->sd) || vmt_u64_map_init(&t->last)) {
				ret = -ENOMEM;
				break;
			}
		}
		t = &threads[*slot - 1];
		slot = vmt_u64_map_put(&t->last, e->ip, &added);
		if (!slot || vmt_stack_distance_access(&t->sd, e->addr >> 6, &d, &id)) {
			ret = -ENOMEM;
			break;
		}
		if (!added)
			sb = vmt_profile_stride_bin((int64_t)(e->addr - (*slot - 1)));
		*slot = e->addr + 1;
		s->cell[sb][reuse_bin(d)]++;
		s->accesses++;
	}
	if (ret < 0 && err)
		snprintf(err->message, sizeof(err->message), "%s",
			 ret == -ENOMEM ? "out of memory" : vmt_trace_error_message(trace));
	vmt_trace_cursor_free(cursor);
	for (uint64_t i = 0; i < nthreads; i++) {
		vmt_stack_distance_free(&threads[i].sd);
		vmt_u64_map_free(&threads[i].last);
	}
	free(threads);
	vmt_u64_map_free(&thread_of);
	return ret < 0 ? ret : 0;
}
