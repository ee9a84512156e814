// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* What the analyses share: see analysis/analysis_util.h. */
#include <errno.h>
#include <stdlib.h>

#include "analysis/analysis_util.h"
#include "base/grow_array.h"
#include "base/pack.h"

int vmt_value_hist_compact(const uint64_t counts[VMT_VALUE_BUCKETS],
			   struct vmt_hist_bucket **out, size_t *nr)
{
	struct vmt_hist_bucket *b;
	size_t n = 0;
	unsigned int i;

	b = calloc(VMT_VALUE_BUCKETS, sizeof(*b));
	if (!b)
		return -ENOMEM;
	for (i = 0; i < VMT_VALUE_BUCKETS; i++) {
		if (!counts[i])
			continue;
		b[n].lo = vmt_value_bucket_low(i);
		b[n].hi = vmt_value_bucket_high(i);
		b[n++].count = counts[i];
	}
	*out = b;
	*nr = n;
	return 0;
}

int vmt_analysis_no_reference(struct vmt_analysis *a, const struct vmt_ref *ref)
{
	(void)a;
	(void)ref;
	return 0;
}

int vmt_compare_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

int vmt_u64_maps_init(struct vmt_u64_map *a, struct vmt_u64_map *b)
{
	if (vmt_u64_map_init(a))
		return -ENOMEM;
	if (vmt_u64_map_init(b)) {
		vmt_u64_map_free(a);
		return -ENOMEM;
	}
	return 0;
}

int vmt_count_at(uint64_t **counts, uint64_t *room, uint64_t at, uint64_t n)
{
	int err = vmt_grow_array((void **)counts, room, at + 1, sizeof(**counts));

	if (!err)
		(*counts)[at] += n;
	return err;
}

void vmt_pack_counts(struct vmt_packer *p, const uint64_t *counts, uint64_t n)
{
	uint64_t nonzero = 0;

	for (uint64_t i = 0; i < n; i++)
		nonzero += counts[i] != 0;
	vmt_pack_u64(p, nonzero);
	for (uint64_t i = 0; i < n; i++) {
		if (!counts[i])
			continue;
		vmt_pack_u64(p, i);
		vmt_pack_u64(p, counts[i]);
	}
}

int vmt_unpack_counts(struct vmt_unpacker *u, uint64_t **counts, uint64_t *room, uint64_t max)
{
	uint64_t k = vmt_unpack_u64(u);
	int err = 0;

	for (uint64_t i = 0; i < k && !u->err && !err; i++) {
		uint64_t at = vmt_unpack_u64(u), n = vmt_unpack_u64(u);

		if (!u->err && at >= max)
			u->err = -EBADMSG;
		if (!u->err)
			err = vmt_count_at(counts, room, at, n);
	}
	return err ? err : u->err;
}
