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
 *
 * In parts (vmt_analyze_part()), a part's references whose unit it had
 * seen are counted as one pass counts them; its first references wait for
 * the merge, which gives their distances against the parts before
 * (analysis/lru_merge.h) and their times from the units' last references
 * there, and joins the units: those new to the earlier parts come after
 * theirs, in the order the part first referenced them.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "vmtrace/analysis.h"
#include "analysis/analysis_util.h"
#include "analysis/lru_merge.h"
#include "analysis/stack_distance.h"
#include "base/grow_array.h"
#include "base/pack.h"
#include "base/u64_map.h"

/* The public histogram's buckets are analysis_util.h's. */
_Static_assert(VMT_REUSE_EXACT == VMT_VALUE_EXACT_BELOW && VMT_REUSE_BUCKETS == VMT_VALUE_BUCKETS,
	       "reuse histograms bucket as vmt_value_bucket()");

struct unit_state {
	uint64_t first;		/* the reference number of its first reference */
	uint64_t last;		/* and of its last */
	struct vmt_reuse_unit unit;
};

struct reuse {
	struct vmt_analysis analysis;
	struct vmt_stack_distance sd;
	uint64_t references;
	struct unit_state *units;	/* in order of first reference */
	uint64_t nr_units, units_room;
	/* Merging parts: the units by last reference, and each unit's place in @units. */
	bool merging;
	struct vmt_lru_merge merge;
	struct vmt_u64_map places;
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
		u->first = r->references;
		r->nr_units = (uint64_t)id + 1;
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
	uint64_t n = r->nr_units;
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

	d->count = t->count = r->references - r->nr_units;
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
	if (r->merging) {
		vmt_lru_merge_free(&r->merge);
		vmt_u64_map_free(&r->places);
	}
	free(r->units);
	free(r->distances);
	free(r->top_units);
	free(r);
}

/*
 * Packed: the references; the units in order of first reference (key,
 * address, pid, references, distant ones, first and last reference); the
 * distances seen (distance, count); the time buckets, sum and greatest.
 */
static int reuse_pack(struct vmt_analysis *a, void **data, size_t *size)
{
	struct reuse *r = to_reuse(a);
	struct vmt_packer p = { 0 };

	/* Times are whole numbers: their sum is exact below 2^64, and packs so. */
	if (r->time_sum >= 18446744073709551616.0L)
		return -EOVERFLOW;
	vmt_pack_u64(&p, r->references);
	vmt_pack_u64(&p, r->nr_units);
	for (uint64_t i = 0; i < r->nr_units; i++) {
		const struct unit_state *u = &r->units[i];

		vmt_pack_u64(&p, u->unit.key);
		vmt_pack_u64(&p, u->unit.addr);
		vmt_pack_u64(&p, u->unit.pid);
		vmt_pack_u64(&p, u->unit.references);
		vmt_pack_u64(&p, u->unit.distant);
		vmt_pack_u64(&p, u->first);
		vmt_pack_u64(&p, u->last);
	}
	vmt_pack_counts(&p, r->distances, r->distances_room);
	for (unsigned int b = 0; b < VMT_REUSE_BUCKETS; b++)
		vmt_pack_u64(&p, r->times[b]);
	vmt_pack_u64(&p, (uint64_t)r->time_sum);
	vmt_pack_u64(&p, r->time_max);
	return vmt_pack_done(&p, data, size);
}

static int by_last(const void *a, const void *b)
{
	const struct vmt_lru_unit *x = a, *y = b;

	return x->last < y->last ? -1 : x->last > y->last;
}

/* The units @u[0..n) as lru_merge takes them: oldest last reference first, @offset on. */
static struct vmt_lru_unit *units_by_last(const struct unit_state *u, uint64_t n, uint64_t offset)
{
	struct vmt_lru_unit *by = malloc((n ? n : 1) * sizeof(*by));

	if (!by)
		return NULL;
	for (uint64_t i = 0; i < n; i++)
		by[i] = (struct vmt_lru_unit){ .key = u[i].unit.key, .last = offset + u[i].last };
	qsort(by, n, sizeof(*by), by_last);
	return by;
}

/* The first merge: this analysis's own units become the merge's first part. */
static int start_merging(struct reuse *r)
{
	struct vmt_lru_unit *by;
	int err = -ENOMEM;

	vmt_lru_merge_init(&r->merge);
	if (vmt_u64_map_init(&r->places))
		return -ENOMEM;
	r->merging = true;
	by = units_by_last(r->units, r->nr_units, 0);
	if (by)
		err = vmt_lru_merge_part(&r->merge, NULL, 0, NULL, NULL, by, r->nr_units);
	free(by);
	for (uint64_t i = 0; !err && i < r->nr_units; i++) {
		bool added;
		uint64_t *v = vmt_u64_map_put(&r->places, r->units[i].unit.key, &added);

		if (!v)
			err = -ENOMEM;
		else
			*v = i;
	}
	return err;
}

static void count_time(struct reuse *r, uint64_t time)
{
	r->times[vmt_value_bucket(time)]++;
	r->time_sum += time;
	if (time > r->time_max)
		r->time_max = time;
}

/* Part @q's first reference of unit @i, at distance @d, its unit's last reference before at @prev. */
static int merge_unit(struct reuse *r, const struct unit_state *q, uint64_t d, uint64_t prev)
{
	uint64_t offset = r->references, *place;
	struct unit_state *u;
	bool added;
	int err;

	if (d == VMT_STACK_DISTANCE_COLD) {
		err = vmt_grow_array((void **)&r->units, &r->units_room, r->nr_units + 1,
				     sizeof(*r->units));
		place = err ? NULL : vmt_u64_map_put(&r->places, q->unit.key, &added);
		if (!place)
			return -ENOMEM;
		*place = r->nr_units;
		u = &r->units[r->nr_units++];
		*u = *q;
		u->first += offset;
		u->last += offset;
		return 0;
	}
	place = vmt_u64_map_get(&r->places, q->unit.key);
	if (!place)
		return -EBADMSG;
	u = &r->units[*place];
	err = vmt_count_at(&r->distances, &r->distances_room, d, 1);
	if (err)
		return err;
	count_time(r, offset + q->first - prev - 1);
	u->unit.references += q->unit.references;
	u->unit.distant += q->unit.distant + (d >= VMT_REUSE_DISTANT);
	u->last = offset + q->last;
	return 0;
}

static int reuse_merge(struct vmt_analysis *a, const void *data, size_t size)
{
	struct reuse *r = to_reuse(a);
	struct vmt_unpacker u = { .p = data, .end = (const uint8_t *)data + size };
	uint64_t references, n, *firsts = NULL, *dist = NULL, *prev = NULL, k, sum;
	struct vmt_lru_unit *by = NULL;
	struct unit_state *q = NULL;
	int err = 0;

	if (!r->merging)
		err = start_merging(r);
	references = vmt_unpack_u64(&u);
	/* Each unit is at least 7 bytes packed: more units than that is a lie. */
	n = vmt_unpack_max(&u, size / 7);
	if (err || u.err)
		return err ? err : -EBADMSG;
	q = calloc(n ? n : 1, sizeof(*q));
	firsts = malloc((n ? n : 1) * sizeof(*firsts));
	dist = malloc((n ? n : 1) * sizeof(*dist));
	prev = malloc((n ? n : 1) * sizeof(*prev));
	if (!q || !firsts || !dist || !prev) {
		err = -ENOMEM;
		goto out;
	}
	for (uint64_t i = 0; i < n && !u.err; i++) {
		q[i].unit.key = firsts[i] = vmt_unpack_u64(&u);
		q[i].unit.addr = vmt_unpack_u64(&u);
		q[i].unit.pid = (uint32_t)vmt_unpack_max(&u, UINT32_MAX);
		q[i].unit.references = vmt_unpack_u64(&u);
		q[i].unit.distant = vmt_unpack_u64(&u);
		q[i].first = vmt_unpack_max(&u, references);
		q[i].last = vmt_unpack_max(&u, references);
	}
	if (!u.err)
		err = vmt_unpack_counts(&u, &r->distances, &r->distances_room, n + 1);
	for (unsigned int b = 0; b < VMT_REUSE_BUCKETS; b++)
		r->times[b] += vmt_unpack_u64(&u);
	sum = vmt_unpack_u64(&u);
	r->time_sum += sum;
	k = vmt_unpack_u64(&u);
	r->time_max = k > r->time_max ? k : r->time_max;
	if (!err && (u.err || u.p != u.end))
		err = -EBADMSG;
	if (err)
		goto out;
	by = units_by_last(q, n, r->references);
	if (!by) {
		err = -ENOMEM;
		goto out;
	}
	err = vmt_lru_merge_part(&r->merge, firsts, n, dist, prev, by, n);
	for (uint64_t i = 0; !err && i < n; i++)
		err = merge_unit(r, &q[i], dist[i], prev[i]);
	r->references += references;
out:
	free(q);
	free(firsts);
	free(dist);
	free(prev);
	free(by);
	return err;
}

static const struct vmt_analysis_ops reuse_ops = {
	.name = "reuse",
	.reference = reuse_reference,
	.finish = reuse_finish,
	.destroy = reuse_destroy,
	.pack = reuse_pack,
	.merge = reuse_merge,
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
	return to_reuse(a)->nr_units;
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
