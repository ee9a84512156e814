// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * Reuse distances and times (vmtrace/analysis.h), as DynamoRIO's
 * reuse_distance tool counts them: a reference's reuse distance is its LRU
 * stack distance (analysis/stack_distance.h, shared with the LRU curve),
 * its reuse time the references since its unit's previous one:
 *
 *   references  a  b  b  c  a
 *   distance    -  -  0  -  2    (b, c between the two a's)
 *   time        -  -  0  -  3    (b, b, c)
 *
 * Distances are counted exactly (at most one a unit seen: memory grows
 * with the footprint), times in the histogram's buckets, with their sum.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "vmtrace/analysis.h"
#include "analysis/analysis_util.h"
#include "base/grow_array.h"
#include "analysis/stack_distance.h"

/* The public histogram's buckets are analysis_util.h's. */
_Static_assert(VMT_REUSE_EXACT == VMT_VALUE_EXACT_BELOW && VMT_REUSE_BUCKETS == VMT_VALUE_BUCKETS,
	       "reuse histograms bucket as vmt_value_bucket()");

struct unit_state {
	uint64_t last;		/* the reference number of its last reference */
	struct vmt_reuse_unit unit;
};

struct reuse {
	struct vmt_analysis analysis;
	struct vmt_stack_distance sd;
	uint64_t references;
	struct unit_state *units;
	uint64_t units_room;
	uint64_t *distances;	/* distances[d]: reuses at distance d */
	uint64_t distances_room;
	uint64_t times[VMT_REUSE_BUCKETS];
	long double time_sum;
	uint64_t time_max;
	unsigned int top;
	/* After finish() */
	struct vmt_reuse_histogram distance_histogram, time_histogram;
	struct vmt_reuse_unit *top_units;
	unsigned int nr_top;
};

static struct reuse *to_reuse(const struct vmt_analysis *a)
{
	return (struct reuse *)a;
}

static int reuse_reference(struct vmt_analysis *a, const struct vmt_ref *ref)
{
	struct reuse *r = to_reuse(a);
	struct unit_state *u;
	uint64_t distance, time;
	uint32_t id;
	int err;

	err = vmt_stack_distance_access(&r->sd, ref->key, &distance, &id);
	if (err)
		return err;
	if (distance == VMT_STACK_DISTANCE_COLD) {
		err = vmt_grow_array((void **)&r->units, &r->units_room, (uint64_t)id + 1, sizeof(*r->units));
		if (!err)
			err = vmt_grow_array((void **)&r->distances, &r->distances_room, (uint64_t)id + 1,
				   sizeof(*r->distances));
		if (err)
			return err;
		u = &r->units[id];
		u->unit = (struct vmt_reuse_unit){ .key = ref->key, .addr = ref->addr,
						   .pid = ref->pid };
	} else {
		u = &r->units[id];
		time = r->references - u->last - 1;
		r->distances[distance]++;
		r->times[vmt_value_bucket(time)]++;
		r->time_sum += time;
		if (time > r->time_max)
			r->time_max = time;
		u->unit.distant += distance >= VMT_REUSE_DISTANT;
	}
	u->unit.references++;
	u->last = r->references++;
	return 0;
}

/* Count, buckets and median of @h from its buckets' counts in @h->buckets. */
static void histogram_finish(struct vmt_reuse_histogram *h)
{
	uint64_t seen = 0;
	bool median = false;

	h->nr_buckets = 0;
	for (unsigned int b = 0; b < VMT_REUSE_BUCKETS; b++) {
		h->buckets[b].low = vmt_value_bucket_low(b);
		h->buckets[b].high = vmt_value_bucket_high(b);
		if (h->buckets[b].count)
			h->nr_buckets = b + 1;
		seen += h->buckets[b].count;
		if (!median && h->count && 2 * seen >= h->count) {
			h->median = h->buckets[b].low;
			median = true;
		}
	}
}

/* Most referenced first; ties: the first referenced first. */
static int compare_units(const void *a, const void *b)
{
	const struct unit_state *x = *(struct unit_state *const *)a;
	const struct unit_state *y = *(struct unit_state *const *)b;

	if (x->unit.references != y->unit.references)
		return x->unit.references > y->unit.references ? -1 : 1;
	return x < y ? -1 : x > y;
}

static int reuse_top(struct reuse *r)
{
	uint64_t n = r->sd.units;
	struct unit_state **order = malloc(n * sizeof(*order) + 1);

	r->nr_top = n < r->top ? n : r->top;
	r->top_units = malloc(r->nr_top * sizeof(*r->top_units) + 1);
	if (!order || !r->top_units) {
		free(order);
		return -ENOMEM;
	}
	for (uint64_t i = 0; i < n; i++)
		order[i] = &r->units[i];
	qsort(order, n, sizeof(*order), compare_units);
	for (unsigned int i = 0; i < r->nr_top; i++)
		r->top_units[i] = order[i]->unit;
	free(order);
	return 0;
}

static int reuse_finish(struct vmt_analysis *a)
{
	struct reuse *r = to_reuse(a);
	struct vmt_reuse_histogram *d = &r->distance_histogram, *t = &r->time_histogram;
	long double sum = 0;
	uint64_t seen = 0;

	d->count = t->count = r->references - r->sd.units;
	for (uint64_t i = 0; i < r->distances_room; i++) {
		if (!r->distances[i])
			continue;
		d->buckets[vmt_value_bucket(i)].count += r->distances[i];
		sum += (long double)i * r->distances[i];
		d->max = i;
	}
	histogram_finish(d);
	/* The distances are exact: so is their median. */
	for (uint64_t i = 0; d->count && i < r->distances_room; i++) {
		seen += r->distances[i];
		if (2 * seen >= d->count) {
			d->median = i;
			break;
		}
	}
	for (unsigned int b = 0; b < VMT_REUSE_BUCKETS; b++)
		t->buckets[b].count = r->times[b];
	histogram_finish(t);
	t->max = r->time_max;
	if (d->count) {
		d->mean = sum / d->count;
		t->mean = r->time_sum / t->count;
	}
	return reuse_top(r);
}

static void reuse_destroy(struct vmt_analysis *a)
{
	struct reuse *r = to_reuse(a);

	vmt_stack_distance_free(&r->sd);
	free(r->units);
	free(r->distances);
	free(r->top_units);
	free(r);
}

static const struct vmt_analysis_ops reuse_ops = {
	.name = "reuse",
	.reference = reuse_reference,
	.finish = reuse_finish,
	.destroy = reuse_destroy,
};

int vmt_reuse_create(struct vmt_analysis **analysis, unsigned int top)
{
	struct reuse *r = calloc(1, sizeof(*r));

	if (!r)
		return -ENOMEM;
	if (vmt_stack_distance_init(&r->sd)) {
		free(r);
		return -ENOMEM;
	}
	r->analysis.ops = &reuse_ops;
	r->top = top;
	*analysis = &r->analysis;
	return 0;
}

uint64_t vmt_reuse_references(const struct vmt_analysis *a)
{
	return to_reuse(a)->references;
}

uint64_t vmt_reuse_footprint(const struct vmt_analysis *a)
{
	return to_reuse(a)->sd.units;
}

const struct vmt_reuse_histogram *vmt_reuse_distances(const struct vmt_analysis *a)
{
	return &to_reuse(a)->distance_histogram;
}

const struct vmt_reuse_histogram *vmt_reuse_times(const struct vmt_analysis *a)
{
	return &to_reuse(a)->time_histogram;
}

const struct vmt_reuse_unit *vmt_reuse_top(const struct vmt_analysis *a, unsigned int *n)
{
	*n = to_reuse(a)->nr_top;
	return to_reuse(a)->top_units;
}
