/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/*
 * What the analyses share (analysis_util.c): histograms of counts, a
 * reference() for those that read the records themselves, two maps at once,
 * sorting numbers.
 */
#ifndef VMTRACE_INTERNAL_ANALYSIS_UTIL_H
#define VMTRACE_INTERNAL_ANALYSIS_UTIL_H

#include <stddef.h>
#include <stdint.h>

#include "vmtrace/analysis.h"
#include "base/u64_map.h"

/*
 * Values exact below 16, then in power-of-two ranges:
 *
 *   0 1 2 ... 15 | [16,31] [32,63] ... [2^63, 2^64 - 1]
 *   bucket 0..15 | 16      17          75
 */
#define VMT_VALUE_EXACT_BELOW	16
#define VMT_VALUE_BUCKETS	(VMT_VALUE_EXACT_BELOW + 64 - 4)

/*
 * A unit's key mixed (splitmix64's finalizer): its share when an analysis
 * splits its units among processes (vmt_wss_share()).
 */
static inline uint64_t vmt_mix64(uint64_t key)
{
	key ^= key >> 30;
	key *= UINT64_C(0xbf58476d1ce4e5b9);
	key ^= key >> 27;
	key *= UINT64_C(0x94d049bb133111eb);
	return key ^ (key >> 31);
}

/*
 * The most intervals an analysis of time intervals keeps (dma's and
 * traffic's --window): a trace that needs more is refused, -EOVERFLOW.
 */
#define VMT_MAX_INTERVALS	(UINT64_C(1) << 24)

/* (*@counts)[@at] += @n, the array grown to hold it (vmt_grow_array()); 0 or -ENOMEM. */
int vmt_count_at(uint64_t **counts, uint64_t *room, uint64_t at, uint64_t n);

struct vmt_packer;
struct vmt_unpacker;
/* Counts @counts[0..@n) packed for a merge (base/pack.h): the nonzero ones and where. */
void vmt_pack_counts(struct vmt_packer *p, const uint64_t *counts, uint64_t n);
/* Packed counts added to *@counts (grown), none at @max or beyond: 0, -ENOMEM or -EBADMSG. */
int vmt_unpack_counts(struct vmt_unpacker *u, uint64_t **counts, uint64_t *room, uint64_t max);

/* floor(log2(@v)), @v > 0. */
static inline unsigned int vmt_log2_floor(uint64_t v)
{
	return 63 - (unsigned int)__builtin_clzll(v);
}

static inline unsigned int vmt_value_bucket(uint64_t v)
{
	return v < VMT_VALUE_EXACT_BELOW ? (unsigned int)v :
	       VMT_VALUE_EXACT_BELOW + vmt_log2_floor(v) - 4;
}

/* Bucket @b's lowest and highest values. */
static inline uint64_t vmt_value_bucket_low(unsigned int b)
{
	return b < VMT_VALUE_EXACT_BELOW ? b : UINT64_C(1) << (b - VMT_VALUE_EXACT_BELOW + 4);
}

static inline uint64_t vmt_value_bucket_high(unsigned int b)
{
	return b + 1 < VMT_VALUE_BUCKETS ? vmt_value_bucket_low(b + 1) - 1 : UINT64_MAX;
}

/* The buckets of @counts that are not empty, in *@out (the caller frees it); 0 or -ENOMEM. */
int vmt_value_hist_compact(const uint64_t counts[VMT_VALUE_BUCKETS],
			   struct vmt_hist_bucket **out, size_t *nr);

/* reference() of the analyses that take their references from the records themselves. */
int vmt_analysis_no_reference(struct vmt_analysis *a, const struct vmt_ref *ref);

/* qsort()'s comparison of two uint64_t, ascending. */
int vmt_compare_u64(const void *a, const void *b);

/* Two maps made, or neither: 0 or -ENOMEM. */
int vmt_u64_maps_init(struct vmt_u64_map *a, struct vmt_u64_map *b);

#endif /* VMTRACE_INTERNAL_ANALYSIS_UTIL_H */
