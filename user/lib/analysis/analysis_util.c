// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* What the analyses share: see analysis/analysis_util.h. */
#include <errno.h>
#include <stdlib.h>

#include "analysis/analysis_util.h"

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
