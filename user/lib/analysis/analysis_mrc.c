// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * Miss-ratio curves (vmtrace/analysis.h): the faults of LRU, FIFO, CLOCK
 * and OPT memories of each size asked.
 *
 * LRU, exact: a reference hits an LRU memory of M units exactly when its
 * stack distance is below M (analysis/stack_distance.h), so one histogram
 * of distances gives every size: faults(M) = cold + #(distance >= M).
 *
 * LRU, sampled (SHARDS, Waldspurger et al., FAST '15): only the units whose
 * key hashes below a threshold T (rate R = T / 2^64) go through the stack.
 * A sampled distance d counts the sampled units among the D distinct others
 * (binomial, mean D * R): it stands for d / R (the paper's scaling), spread
 * evenly over (d - c) / R to (d + 1 - c) / R, c = (1 - R) / 2 (0 to
 * (1 - c) / R for d = 0), so that a size M hits the sampled reuses of
 * d < M * R + c and a part of the next. Centred so (c = 1/2 as R falls), a
 * density of distances falling as 1 / D (the common case at short
 * distances) is read without bias; a flat one would be read without bias
 * at c = 0, and is read 1 / 2R long (on the bench's traces centring halves
 * the error at 0.01). At R = 1, c = 0: the exact distances. Each sampled
 * reference stands for 1 / R references; the references the sample falls
 * short of (or beyond) count as hits (SHARDS-adj, either sign; see
 * lru_curve() for where).
 *
 * Fixed rate (--sample): one histogram of sampled distances; memory and
 * time shrink by the rate. Fixed size (--sample-size N, SHARDS_smax): the
 * sampled units, at most N, in a max-heap on hash; a new one beyond N makes
 * the largest hash leave (the stack too) and T drop to it. Each reference's
 * weight is 1 / R at its time, which is the paper's rescaling of the counts
 * by R_new / R_old at each drop, done once at the end; its distance spread
 * goes into buckets of true distance (within 1/128 of it; two tables of
 * 70 KiB), as slope changes: memory bounded by N, whatever the trace.
 *
 * FIFO and CLOCK: a simulation of each size, side by side in the one pass:
 * a ring of the size's resident units with a hand, and a byte a unit and
 * size (resident, referenced):
 *
 *   units  0 1 2 3 4 5 ...         sizes' columns
 *          [a b c d][a b c d]...   a: FIFO 4, b: CLOCK 4, c: FIFO 8...
 *
 * A simulation of M units evicts nothing until the (M+1)-th unit appears,
 * and its state then is known (units 0..M-1 resident in order of first
 * reference, all referenced, the hand at the oldest), so it starts only
 * then: sizes beyond the footprint cost nothing.
 *
 * OPT needs each reference's next use, the future: the pass keeps the
 * references as 4-byte unit numbers (memory grows with the trace's length,
 * 8 bytes a reference with the next uses, the one analysis here that
 * does), and finish() runs each size over them, the resident units in a
 * max-heap on next use.
 *
 * The file, in order: the state; FIFO and CLOCK's simulations; the max-heap
 * (OPT's and the fixed-size sample's); LRU exact (lru_reference()); the
 * sampled distances' spread (ramp_*()) and the fixed-size sample
 * (sample_*()); the pass (mrc_reference()); OPT (opt_*()); the curves
 * (lru_curve(), mrc_finish()); exact LRU in parts (mrc_pack(),
 * mrc_merge(): PARDA's merge); creating, and the accessors.
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

#define AUTO_SIZES	32		/* 1, 2, 4, ... 2^31 */
#define RESIDENT	1
#define REFERENCED	2
#define NEVER		UINT32_MAX	/* OPT: no next use */
#define RAMP_SUB_BITS	7		/* fixed size: 128 buckets a power of two */
#define RAMP_SUB	(1u << RAMP_SUB_BITS)
#define RAMP_TOP	40		/* distances up to 2^41 apart */
#define RAMP_BUCKETS	((RAMP_TOP - RAMP_SUB_BITS + 1) * RAMP_SUB + RAMP_SUB)

/* An entry of a max-heap: OPT's resident units by next use, the sample's by hash. */
struct heap_entry {
	uint64_t priority;
	uint32_t unit;
};

struct max_heap {
	struct heap_entry *e;
	uint32_t *where;	/* a unit's place in @e, or NEVER when not in */
	uint64_t n;
};

/* SHARDS with a fixed size: the sampled units, numbered 0..size-1, by key and by hash. */
struct sample_set {
	uint64_t *keys;		/* by number */
	uint64_t *hashes;	/* by number */
	uint32_t *slots;	/* open addressing on the hash: a number + 1, 0 for free */
	size_t mask;
	uint32_t *free;		/* the numbers not in use */
	uint32_t nr_free;
	struct max_heap heap;	/* the units by hash */
	uint32_t *uses;		/* by number: references since it joined */
	uint64_t peak;		/* the most units held at once */
};

/*
 * Fixed size: a bucket of true distances. Each reuse stands for the true
 * distances of its sampled one's bucket evenly (see the top), a ramp of
 * the hits from 0 at the bucket's start up to its weight at its end: a
 * slope change up at one end, down at the other. The hits at a size M are
 * then, over the changes c at p < M, the sum of c * (M - p): a bucket
 * keeps the sum of its changes and of their moments c * p.
 */
struct ramp {
	double slope;
	double moment;
};

/* A FIFO or CLOCK memory of one size. */
struct sim {
	uint64_t size;
	uint64_t faults;
	uint64_t hand;
	uint32_t *ring;		/* the resident units; the hand at the oldest (FIFO) */
	bool clock;
};

struct mrc {
	struct vmt_analysis analysis;
	unsigned int policies;
	uint64_t *sizes;	/* ascending: the options', or AUTO_SIZES powers of two */
	unsigned int nr_sizes;
	bool auto_sizes;
	double rate;
	uint64_t threshold;	/* sampled: keys hashing below it */
	bool sampled;
	uint64_t references;
	uint64_t footprint;

	/* LRU */
	struct vmt_stack_distance sd;
	uint64_t *histogram;	/* histogram[d]: reuses at stack distance d */
	uint64_t histogram_room;
	uint64_t lru_references, lru_cold;	/* sampled: of the sampled units */
	double *heavy;		/* sampled: reuses at distance d, each by its unit's uses */
	uint32_t *uses;		/* sampled: a unit's references so far */
	uint64_t heavy_room, uses_room;
	double heavy_weight;	/* sampled: the heavy reuses' sum */

	/* LRU sampled with a fixed size: @rate and @threshold drop as needed */
	uint64_t sample_size;	/* 0: a fixed rate */
	struct sample_set set;
	struct ramp *ramps;	/* the reuses' true distances, by bucket */
	struct ramp *heavy_ramps;	/* the same, each by its unit's uses */
	double weight;		/* references the sampled ones stand for: 1 / R each */

	/* Exact LRU in parts: the units so far by last reference (mrc_merge()). */
	bool merging;
	struct vmt_lru_merge merge;
	uint64_t merged_lru;	/* LRU's references merged: the next part's times start after */

	/* Unit numbers for FIFO, CLOCK and OPT when LRU does not give them. */
	struct vmt_u64_map ids;
	bool own_ids;

	/* FIFO and CLOCK */
	struct sim *sims;	/* by size, FIFO before CLOCK; the first @live started */
	unsigned int nr_sims, live;
	uint8_t *flags;		/* flags[unit * nr_sims + sim] */
	uint64_t flags_units;

	/* OPT */
	uint32_t *sequence;
	uint64_t sequence_room;

	/* After finish(): the curve's sizes, and each policy's faults at them. */
	uint64_t *curve_sizes;
	unsigned int nr_curve_sizes;
	uint64_t *faults[VMT_MRC_NR_POLICIES];
};

static struct mrc *to_mrc(const struct vmt_analysis *a)
{
	return (struct mrc *)a;
}

static const char *const policy_names[VMT_MRC_NR_POLICIES] = { "lru", "fifo", "clock", "opt" };

const char *vmt_mrc_policy_name(enum vmt_mrc_policy policy)
{
	return (unsigned int)policy < VMT_MRC_NR_POLICIES ? policy_names[policy] : NULL;
}

static bool wants(const struct mrc *m, enum vmt_mrc_policy policy)
{
	return m->policies & 1u << policy;
}

/* splitmix64's finalizer: a key's place in [0, 2^64) for sampling. */
static uint64_t sample_hash(uint64_t key)
{
	key ^= key >> 30;
	key *= UINT64_C(0xbf58476d1ce4e5b9);
	key ^= key >> 27;
	key *= UINT64_C(0x94d049bb133111eb);
	return key ^ (key >> 31);
}

/* Start the simulations of sizes below @units (the footprint, counting a new unit). */
static int start_sims(struct mrc *m, uint64_t units)
{
	while (m->live < m->nr_sims && m->sims[m->live].size < units) {
		struct sim *s = &m->sims[m->live];

		s->ring = malloc(s->size * sizeof(*s->ring));
		if (!s->ring)
			return -ENOMEM;
		for (uint64_t u = 0; u < s->size; u++) {
			s->ring[u] = u;
			m->flags[u * m->nr_sims + m->live] = RESIDENT | REFERENCED;
		}
		s->faults = s->size;
		s->hand = 0;
		m->live++;
	}
	return 0;
}

static void sim_reference(struct sim *s, uint8_t *flags, size_t stride, uint32_t unit)
{
	uint8_t *f = &flags[(size_t)unit * stride];
	uint32_t victim;

	if (*f & RESIDENT) {
		*f |= REFERENCED;
		return;
	}
	s->faults++;
	/* CLOCK: a second chance for each unit referenced since the hand passed it. */
	while (s->clock && flags[(size_t)s->ring[s->hand] * stride] & REFERENCED) {
		flags[(size_t)s->ring[s->hand] * stride] &= ~REFERENCED;
		if (++s->hand == s->size)
			s->hand = 0;
	}
	victim = s->ring[s->hand];
	flags[(size_t)victim * stride] = 0;
	s->ring[s->hand] = unit;
	if (++s->hand == s->size)
		s->hand = 0;
	*f = RESIDENT | REFERENCED;
}

static void heap_set(struct max_heap *h, uint64_t i, struct heap_entry e)
{
	h->e[i] = e;
	h->where[e.unit] = i;
}

static void heap_up(struct max_heap *h, uint64_t i)
{
	struct heap_entry e = h->e[i];

	while (i && h->e[(i - 1) / 2].priority < e.priority) {
		heap_set(h, i, h->e[(i - 1) / 2]);
		i = (i - 1) / 2;
	}
	heap_set(h, i, e);
}

static void heap_down(struct max_heap *h, uint64_t i)
{
	struct heap_entry e = h->e[i];

	for (;;) {
		uint64_t c = 2 * i + 1;

		if (c >= h->n)
			break;
		if (c + 1 < h->n && h->e[c + 1].priority > h->e[c].priority)
			c++;
		if (h->e[c].priority <= e.priority)
			break;
		heap_set(h, i, h->e[c]);
		i = c;
	}
	heap_set(h, i, e);
}

static int lru_reference(struct mrc *m, uint64_t key, uint32_t *unit, bool *new_unit)
{
	uint64_t distance;
	int err;

	err = vmt_stack_distance_access(&m->sd, key, &distance, unit);
	if (err)
		return err;
	m->lru_references++;
	*new_unit = distance == VMT_STACK_DISTANCE_COLD;
	if (*new_unit) {
		m->lru_cold++;
		err = vmt_grow_array((void **)&m->histogram, &m->histogram_room, m->sd.units,
				     sizeof(*m->histogram));
		if (!err && m->sampled)
			err = vmt_grow_array((void **)&m->heavy, &m->heavy_room, m->sd.units,
					     sizeof(*m->heavy));
		if (!err && m->sampled)
			err = vmt_grow_array((void **)&m->uses, &m->uses_room, m->sd.units,
					     sizeof(*m->uses));
		if (!err && m->sampled)
			m->uses[*unit] = 1;
		return err;
	}
	m->histogram[distance]++;
	if (m->sampled) {
		m->heavy[distance] += ++m->uses[*unit];
		m->heavy_weight += m->uses[*unit];
	}
	return 0;
}

/* ---- LRU sampled with a fixed size (SHARDS_smax) -------------------------- */

/* The bucket of a true distance: width 1 below 2 * RAMP_SUB, then RAMP_SUB a power of two. */
static unsigned int ramp_bucket(double distance)
{
	uint64_t v = distance < 0x1p41 ? (uint64_t)distance : (UINT64_C(1) << 41) - 1;
	unsigned int e;

	if (v < 2 * RAMP_SUB)
		return v;
	e = 63 - __builtin_clzll(v);
	return (e - RAMP_SUB_BITS) * RAMP_SUB + (v >> (e - RAMP_SUB_BITS));
}

static double ramp_low(unsigned int b)
{
	unsigned int e = b / RAMP_SUB + RAMP_SUB_BITS - 1;

	if (b < 2 * RAMP_SUB)
		return b;
	return (double)(b % RAMP_SUB + RAMP_SUB) * (double)(UINT64_C(1) << (e - RAMP_SUB_BITS));
}

/* A slope change of @slope at @distance. */
static void ramp_add(struct ramp *ramps, double distance, double slope)
{
	struct ramp *r = &ramps[ramp_bucket(distance)];

	r->slope += slope;
	r->moment += slope * distance;
}

/* The centring of a sampled distance's bucket at @rate (see the top). */
static double bucket_offset(double rate)
{
	return (1 - rate) / 2;
}

/* A reuse of @weight, sampled at distance @d at @rate, spread over its bucket. */
static void ramp_spread(struct ramp *ramps, uint64_t d, double rate, double weight)
{
	double c = bucket_offset(rate);
	double low = d ? (d - c) / rate : 0, high = (d + 1 - c) / rate;

	ramp_add(ramps, low, weight / (high - low));
	ramp_add(ramps, high, -weight / (high - low));
}

/* The sample's units: @size of them, the table twice as large or more. */
static int sample_set_init(struct sample_set *s, uint64_t size)
{
	size_t slots = 2;

	if (size > UINT32_C(1) << 30)
		return -EINVAL;
	while (slots < 2 * size)
		slots *= 2;
	s->mask = slots - 1;
	s->slots = calloc(slots, sizeof(*s->slots));
	s->keys = malloc(size * sizeof(*s->keys));
	s->hashes = malloc(size * sizeof(*s->hashes));
	s->free = malloc(size * sizeof(*s->free));
	s->uses = malloc(size * sizeof(*s->uses));
	s->heap.e = malloc(size * sizeof(*s->heap.e));
	s->heap.where = malloc(size * sizeof(*s->heap.where));
	if (!s->slots || !s->keys || !s->hashes || !s->free || !s->uses || !s->heap.e ||
	    !s->heap.where)
		return -ENOMEM;
	for (uint32_t i = 0; i < size; i++)
		s->free[i] = size - 1 - i;
	s->nr_free = size;
	return 0;
}

static void sample_set_free(struct sample_set *s)
{
	free(s->slots);
	free(s->keys);
	free(s->hashes);
	free(s->free);
	free(s->uses);
	free(s->heap.e);
	free(s->heap.where);
}

/* The table's slot of @key (hashing to @hash), or the free slot that ends its probe. */
static size_t sample_slot(const struct sample_set *s, uint64_t key, uint64_t hash)
{
	size_t i = hash & s->mask;

	while (s->slots[i] && s->keys[s->slots[i] - 1] != key)
		i = (i + 1) & s->mask;
	return i;
}

/* Empty slot @i, moving back the entries after it that probed past it (no tombstones). */
static void sample_slot_clear(struct sample_set *s, size_t i)
{
	for (size_t j = (i + 1) & s->mask; s->slots[j]; j = (j + 1) & s->mask) {
		size_t home = s->hashes[s->slots[j] - 1] & s->mask;

		/* It stays when its home lies cyclically in (i, j]. */
		if (i <= j ? home > i && home <= j : home > i || home <= j)
			continue;
		s->slots[i] = s->slots[j];
		i = j;
	}
	s->slots[i] = 0;
}

/* The unit of the largest hash leaves the sample, and the threshold drops to its hash. */
static void sample_evict(struct mrc *m)
{
	struct sample_set *s = &m->set;
	uint32_t unit = s->heap.e[0].unit;

	m->threshold = s->hashes[unit];
	m->rate = m->threshold * 0x1p-64;
	sample_slot_clear(s, sample_slot(s, s->keys[unit], s->hashes[unit]));
	vmt_stack_distance_remove_unit(&m->sd, unit);
	if (--s->heap.n) {
		heap_set(&s->heap, 0, s->heap.e[s->heap.n]);
		heap_down(&s->heap, 0);
	}
	s->free[s->nr_free++] = unit;
}

/* A reference to @key, whose hash is below the threshold. */
static int sample_reference(struct mrc *m, uint64_t key, uint64_t hash)
{
	struct sample_set *s = &m->set;
	double weight = 1 / m->rate;
	size_t slot = sample_slot(s, key, hash);
	uint64_t distance;
	uint32_t unit;
	int err;

	m->weight += weight;
	if (s->slots[slot]) {
		unit = s->slots[slot] - 1;
		err = vmt_stack_distance_access_unit(&m->sd, unit, false, &distance);
		if (err)
			return err;
		s->uses[unit]++;
		ramp_spread(m->ramps, distance, m->rate, weight);
		ramp_spread(m->heavy_ramps, distance, m->rate, s->uses[unit] * weight);
		m->heavy_weight += s->uses[unit] * weight;
		return 0;
	}
	m->lru_cold++;
	if (!s->nr_free) {
		/* Full: the largest hash leaves, this one's or another's. */
		if (hash > s->hashes[s->heap.e[0].unit]) {
			m->threshold = hash;
			m->rate = m->threshold * 0x1p-64;
			return 0;
		}
		sample_evict(m);
		slot = sample_slot(s, key, hash);
	}
	unit = s->free[--s->nr_free];
	s->keys[unit] = key;
	s->hashes[unit] = hash;
	s->uses[unit] = 1;
	s->slots[slot] = unit + 1;
	heap_set(&s->heap, s->heap.n++, (struct heap_entry){ hash, unit });
	heap_up(&s->heap, s->heap.n - 1);
	if (s->heap.n > s->peak)
		s->peak = s->heap.n;
	return vmt_stack_distance_access_unit(&m->sd, unit, true, &distance);
}

/* Hits at size @size from the buckets below it: the slope changes integrated twice. */
static double ramp_hits(const struct ramp *ramps, double size)
{
	double hits = 0;

	for (unsigned int b = 0; b < RAMP_BUCKETS; b++) {
		double low = ramp_low(b), high = ramp_low(b + 1);

		if (low >= size)
			break;
		if (high <= size)
			hits += size * ramps[b].slope - ramps[b].moment;
		else	/* the bucket around @size: its changes taken as spread over it */
			hits += ramps[b].slope * (size - low) * (size - low) / (2 * (high - low));
	}
	return hits;
}

static int mrc_reference(struct vmt_analysis *a, const struct vmt_ref *ref)
{
	struct mrc *m = to_mrc(a);
	bool new_unit = false;
	uint32_t unit = 0;
	int err;

	m->references++;
	if (m->sample_size) {
		uint64_t hash = sample_hash(ref->key);

		err = hash < m->threshold ? sample_reference(m, ref->key, hash) : 0;
		if (err)
			return err;
	} else if (wants(m, VMT_MRC_LRU) &&
		   (!m->sampled || sample_hash(ref->key) < m->threshold)) {
		err = lru_reference(m, ref->key, &unit, &new_unit);
		if (err)
			return err;
	}
	if (m->own_ids) {
		uint64_t *slot = vmt_u64_map_put(&m->ids, ref->key, &new_unit);

		if (!slot)
			return -ENOMEM;
		if (new_unit) {
			if (m->ids.count > UINT32_MAX)
				return -EOVERFLOW;
			*slot = m->ids.count - 1;
		}
		unit = *slot;
	} else if (m->sampled) {
		return 0;	/* LRU alone, sampled */
	}
	if (new_unit) {
		m->footprint++;
		err = m->nr_sims ? vmt_grow_array((void **)&m->flags, &m->flags_units, m->footprint,
					      m->nr_sims) : 0;
		if (!err)
			err = start_sims(m, m->footprint);
		if (err)
			return err;
	}
	for (unsigned int i = 0; i < m->live; i++)
		sim_reference(&m->sims[i], m->flags + i, m->nr_sims, unit);
	if (wants(m, VMT_MRC_OPT)) {
		if (m->references >= NEVER)
			return -EOVERFLOW;
		err = vmt_grow_array((void **)&m->sequence, &m->sequence_room, m->references,
				 sizeof(*m->sequence));
		if (err)
			return err;
		m->sequence[m->references - 1] = unit;
	}
	return 0;
}

/* ---- OPT ------------------------------------------------------------------ */

/* Belady's faults with @size units over the sequence and its next uses. */
static uint64_t opt_faults(const struct mrc *m, const uint32_t *next, struct max_heap *h,
			   uint64_t size)
{
	uint64_t faults = 0;

	h->n = 0;
	memset(h->where, 0xff, m->footprint * sizeof(*h->where));
	for (uint64_t i = 0; i < m->references; i++) {
		struct heap_entry e = { next[i], m->sequence[i] };
		uint32_t at = h->where[e.unit];

		if (at != NEVER) {
			/* A hit: the unit's next use moves later, up the heap. */
			h->e[at].priority = e.priority;
			heap_up(h, at);
			continue;
		}
		faults++;
		if (h->n < size) {
			h->n++;
			heap_set(h, h->n - 1, e);
			heap_up(h, h->n - 1);
		} else {
			h->where[h->e[0].unit] = NEVER;
			heap_set(h, 0, e);
			heap_down(h, 0);
		}
	}
	return faults;
}

static int opt_curve(struct mrc *m, uint64_t *faults)
{
	struct max_heap h = { 0 };
	uint32_t *next = malloc(m->references * sizeof(*next) + 1);
	uint32_t *seen = malloc(m->footprint * sizeof(*seen) + 1);
	int err = -ENOMEM;

	h.where = malloc(m->footprint * sizeof(*h.where) + 1);
	h.e = malloc(m->footprint * sizeof(*h.e) + 1);
	if (!next || !seen || !h.where || !h.e)
		goto out;
	memset(seen, 0xff, m->footprint * sizeof(*seen));
	for (uint64_t i = m->references; i-- > 0;) {
		next[i] = seen[m->sequence[i]];
		seen[m->sequence[i]] = i;
	}
	for (unsigned int i = 0; i < m->nr_curve_sizes; i++)
		faults[i] = m->curve_sizes[i] >= m->footprint ? m->footprint :
			    opt_faults(m, next, &h, m->curve_sizes[i]);
	err = 0;
out:
	free(next);
	free(seen);
	free(h.where);
	free(h.e);
	return err;
}

/* ---- The curves ----------------------------------------------------------- */

/*
 * LRU's faults at each size: the references less the hits, those of the
 * sample (each standing for 1 / R references) and SHARDS-adj's, the
 * references expected less those the sample stands for. The paper puts
 * them at distance 0, where a hot unit's reuses are; here they go where
 * the sample's reuses are, each by its unit's uses so far (a unit's part
 * in the sample's chance excess or shortfall grows as its references
 * squared): at the hot units' distances whatever those are, and evenly
 * over all when the units are alike (a shortfall of sampled units).
 */
static void lru_curve(const struct mrc *m, uint64_t *faults)
{
	double weight = m->sample_size ? m->weight : m->lru_references / m->rate;
	double adjust = m->references - weight, below = 0, heavy_below = 0;
	uint64_t d = 0;

	for (unsigned int i = 0; i < m->nr_curve_sizes; i++) {
		/* Exact: the reuses of distance below M; sampled, below M * R + c, and a part. */
		double size = m->curve_sizes[i], c = bucket_offset(m->rate);
		double scaled = size * m->rate + c, hits, heavy, missed;
		uint64_t whole = scaled;
		double part = whole ? scaled - whole : (scaled - c) / (1 - c);

		if (m->sample_size) {
			hits = ramp_hits(m->ramps, size);
			heavy = ramp_hits(m->heavy_ramps, size);
		} else {
			for (; d < whole && d < m->histogram_room; d++) {
				below += m->histogram[d];
				heavy_below += m->sampled ? m->heavy[d] : 0;
			}
			hits = below;
			heavy = heavy_below;
			if (d == whole && d < m->histogram_room) {
				hits += part * m->histogram[d];
				heavy += m->sampled ? part * m->heavy[d] : 0;
			}
			hits /= m->rate;
		}
		if (m->heavy_weight > 0)
			hits += adjust * heavy / m->heavy_weight;
		else
			hits += adjust;		/* no reuse sampled: at distance 0 */
		missed = m->references - hits;
		faults[i] = missed < 0 ? 0 : missed > m->references ? m->references : missed + 0.5;
	}
}

static int mrc_finish(struct vmt_analysis *a)
{
	struct mrc *m = to_mrc(a);
	unsigned int n = 0, p;

	if (m->sampled && !m->own_ids)
		m->footprint = m->sd.units / m->rate + 0.5;
	m->curve_sizes = malloc((m->nr_sizes + 1) * sizeof(*m->curve_sizes));
	if (!m->curve_sizes)
		return -ENOMEM;
	for (unsigned int i = 0; i < m->nr_sizes; i++)
		if (!m->auto_sizes || m->sizes[i] < m->footprint)
			m->curve_sizes[n++] = m->sizes[i];
	if (m->auto_sizes && m->footprint)
		m->curve_sizes[n++] = m->footprint;
	m->nr_curve_sizes = n;
	for (p = 0; p < VMT_MRC_NR_POLICIES; p++) {
		if (!wants(m, p))
			continue;
		m->faults[p] = calloc(n + 1, sizeof(*m->faults[p]));
		if (!m->faults[p])
			return -ENOMEM;
	}
	if (wants(m, VMT_MRC_LRU))
		lru_curve(m, m->faults[VMT_MRC_LRU]);
	for (unsigned int i = 0, s = 0; i < n; i++) {
		for (; s < m->nr_sims && m->sims[s].size == m->curve_sizes[i]; s++) {
			const struct sim *sim = &m->sims[s];

			m->faults[sim->clock ? VMT_MRC_CLOCK : VMT_MRC_FIFO][i] =
				s < m->live ? sim->faults : m->footprint;
		}
		if (!m->auto_sizes || i + 1 < n)
			continue;
		/* The footprint's own size: nothing is ever evicted. */
		if (wants(m, VMT_MRC_FIFO))
			m->faults[VMT_MRC_FIFO][i] = m->footprint;
		if (wants(m, VMT_MRC_CLOCK))
			m->faults[VMT_MRC_CLOCK][i] = m->footprint;
	}
	if (wants(m, VMT_MRC_OPT))
		return opt_curve(m, m->faults[VMT_MRC_OPT]);
	return 0;
}

static void mrc_destroy(struct vmt_analysis *a)
{
	struct mrc *m = to_mrc(a);

	if (wants(m, VMT_MRC_LRU))
		vmt_stack_distance_free(&m->sd);
	if (m->merging)
		vmt_lru_merge_free(&m->merge);
	sample_set_free(&m->set);
	free(m->ramps);
	free(m->heavy_ramps);
	if (m->own_ids)
		vmt_u64_map_free(&m->ids);
	for (unsigned int i = 0; i < m->nr_sims; i++)
		free(m->sims[i].ring);
	for (unsigned int p = 0; p < VMT_MRC_NR_POLICIES; p++)
		free(m->faults[p]);
	free(m->sims);
	free(m->flags);
	free(m->sequence);
	free(m->histogram);
	free(m->heavy);
	free(m->uses);
	free(m->sizes);
	free(m->curve_sizes);
	free(m);
}

/* ---- In parts: exact LRU alone ------------------------------------------- */

/*
 * Only exact LRU splits by time (PARDA's merge, analysis/lru_merge.h):
 * FIFO, CLOCK and OPT need the whole order of references, and a sample's
 * adjustment each unit's references so far.
 */
static bool splits(const struct mrc *m)
{
	return m->policies == 1u << VMT_MRC_LRU && !m->sampled && !m->sample_size;
}

static bool mrc_splits(const struct vmt_analysis *a)
{
	return splits(to_mrc(a));
}

/*
 * Packed: the references (all, and LRU's), the cold ones, the footprint;
 * the distances seen (distance, count); the units' keys in order of first
 * reference, then their numbers oldest last reference first.
 */
static int mrc_pack(struct vmt_analysis *a, void **data, size_t *size)
{
	struct mrc *m = to_mrc(a);
	struct vmt_lru_unit *by_last;
	struct vmt_packer p = { 0 };
	uint64_t *firsts;
	struct vmt_u64_map place;
	int err;

	if (!splits(m))
		return -EOPNOTSUPP;
	err = vmt_lru_units_of(&m->sd, 0, &firsts, &by_last);
	if (err)
		return err;
	if (vmt_u64_map_init(&place)) {
		free(firsts);
		free(by_last);
		return -ENOMEM;
	}
	vmt_pack_u64(&p, m->references);
	vmt_pack_u64(&p, m->lru_references);
	vmt_pack_u64(&p, m->lru_cold);
	vmt_pack_u64(&p, m->footprint);
	vmt_pack_counts(&p, m->histogram, m->histogram_room);
	vmt_pack_u64(&p, m->sd.units);
	for (uint64_t i = 0; i < m->sd.units; i++) {
		bool added;
		uint64_t *v = vmt_u64_map_put(&place, firsts[i], &added);

		if (!v)
			p.err = -ENOMEM;
		else
			*v = i;
		vmt_pack_u64(&p, firsts[i]);
	}
	for (uint64_t i = 0; i < m->sd.units && !p.err; i++)
		vmt_pack_u64(&p, *vmt_u64_map_get(&place, by_last[i].key));
	vmt_u64_map_free(&place);
	free(firsts);
	free(by_last);
	return vmt_pack_done(&p, data, size);
}

/* The first merge: this analysis's own units are the merge's first part. */
static int mrc_start_merging(struct mrc *m)
{
	struct vmt_lru_unit *by_last;
	uint64_t *firsts;
	int err;

	vmt_lru_merge_init(&m->merge);
	m->merging = true;
	err = vmt_lru_units_of(&m->sd, 0, &firsts, &by_last);
	if (!err)
		err = vmt_lru_merge_part(&m->merge, NULL, 0, NULL, NULL, by_last, m->sd.units);
	if (!err)
		m->merged_lru = m->lru_references;
	free(firsts);
	free(by_last);
	return err;
}

static int mrc_merge(struct vmt_analysis *a, const void *data, size_t size)
{
	struct mrc *m = to_mrc(a);
	struct vmt_unpacker u = { .p = data, .end = (const uint8_t *)data + size };
	uint64_t references, lru_references, cold, footprint, n, *firsts = NULL, *dist = NULL;
	struct vmt_lru_unit *by_last = NULL;
	int err = 0;

	if (!splits(m))
		return -EOPNOTSUPP;
	if (!m->merging)
		err = mrc_start_merging(m);
	references = vmt_unpack_u64(&u);
	lru_references = vmt_unpack_max(&u, references);
	/* Each cold reference is a unit, packed in two bytes or more: no more than that. */
	cold = vmt_unpack_max(&u, lru_references < size / 2 ? lru_references : size / 2);
	footprint = vmt_unpack_max(&u, cold);
	if (!err)
		err = vmt_unpack_counts(&u, &m->histogram, &m->histogram_room, footprint + 1);
	/* A part's units are its cold references. */
	n = vmt_unpack_u64(&u);
	if (!err && !u.err && n != cold)
		u.err = -EBADMSG;
	if (err || u.err)
		return err ? err : -EBADMSG;
	firsts = malloc((n ? n : 1) * sizeof(*firsts));
	dist = malloc((n ? n : 1) * sizeof(*dist));
	by_last = malloc((n ? n : 1) * sizeof(*by_last));
	if (!firsts || !dist || !by_last) {
		err = -ENOMEM;
		goto out;
	}
	for (uint64_t i = 0; i < n; i++)
		firsts[i] = vmt_unpack_u64(&u);
	for (uint64_t i = 0; i < n && !u.err; i++) {
		uint64_t id = vmt_unpack_max(&u, n - 1);

		by_last[i] = (struct vmt_lru_unit){ .key = firsts[id],
						     .last = m->merged_lru + i + 1 };
	}
	if (u.err || u.p != u.end) {
		err = -EBADMSG;
		goto out;
	}
	err = vmt_lru_merge_part(&m->merge, firsts, n, dist, NULL, by_last, n);
	/* A part's first reference to a unit an earlier part had is a reuse. */
	for (uint64_t i = 0; !err && i < n; i++) {
		if (dist[i] == VMT_STACK_DISTANCE_COLD) {
			m->lru_cold++;
			m->footprint++;
		} else {
			err = vmt_count_at(&m->histogram, &m->histogram_room, dist[i], 1);
		}
	}
	m->references += references;
	m->lru_references += lru_references;
	m->merged_lru += lru_references;
out:
	free(firsts);
	free(dist);
	free(by_last);
	return err;
}

static const struct vmt_analysis_ops mrc_ops = {
	.name = "mrc",
	.reference = mrc_reference,
	.finish = mrc_finish,
	.destroy = mrc_destroy,
	.pack = mrc_pack,
	.merge = mrc_merge,
	.splits = mrc_splits,
};

/* The sizes, ascending and each once, and a FIFO and a CLOCK simulation of each asked. */
static int mrc_setup_sizes(struct mrc *m, const struct vmt_mrc_options *o)
{
	unsigned int n = o->sizes ? o->nr_sizes : AUTO_SIZES, kept = 0;
	bool fifo = wants(m, VMT_MRC_FIFO), clock = wants(m, VMT_MRC_CLOCK);

	m->sizes = malloc(n * sizeof(*m->sizes) + 1);
	m->sims = calloc(2 * n + 1, sizeof(*m->sims));
	if (!m->sizes || !m->sims)
		return -ENOMEM;
	for (unsigned int i = 0; i < n; i++)
		m->sizes[i] = o->sizes ? o->sizes[i] : UINT64_C(1) << i;
	qsort(m->sizes, n, sizeof(*m->sizes), vmt_compare_u64);
	for (unsigned int i = 0; i < n; i++) {
		if (!m->sizes[i] || m->sizes[i] > UINT32_MAX)
			return -EINVAL;
		if (kept && m->sizes[kept - 1] == m->sizes[i])
			continue;
		m->sizes[kept++] = m->sizes[i];
		if (fifo)
			m->sims[m->nr_sims++] = (struct sim){ .size = m->sizes[i] };
		if (clock)
			m->sims[m->nr_sims++] = (struct sim){ .size = m->sizes[i], .clock = true };
	}
	m->nr_sizes = kept;
	m->auto_sizes = !o->sizes;
	return 0;
}

int vmt_mrc_create(struct vmt_analysis **analysis, const struct vmt_mrc_options *o)
{
	struct mrc *m;
	int err;

	if (!o->policies || o->policies >> VMT_MRC_NR_POLICIES || (o->sizes && !o->nr_sizes) ||
	    !(o->sample_rate >= 0 && o->sample_rate <= 1) ||
	    (o->sample_size && !(o->policies & 1u << VMT_MRC_LRU)))
		return -EINVAL;
	m = calloc(1, sizeof(*m));
	if (!m)
		return -ENOMEM;
	m->analysis.ops = &mrc_ops;
	m->policies = o->policies;
	m->rate = o->sample_rate > 0 ? o->sample_rate : 1;
	m->sample_size = o->sample_size;
	m->sampled = m->rate < 1 || m->sample_size;
	m->threshold = m->rate < 1 ? (uint64_t)(m->rate * 0x1p64) : UINT64_MAX;
	err = mrc_setup_sizes(m, o);
	if (!err && wants(m, VMT_MRC_LRU))
		err = vmt_stack_distance_init(&m->sd);
	if (!err && m->sample_size) {
		err = sample_set_init(&m->set, m->sample_size);
		m->ramps = calloc(RAMP_BUCKETS, sizeof(*m->ramps));
		m->heavy_ramps = calloc(RAMP_BUCKETS, sizeof(*m->heavy_ramps));
		if (!err && (!m->ramps || !m->heavy_ramps))
			err = -ENOMEM;
	}
	/* LRU numbers the units, unless it sees a sample alone. */
	m->own_ids = (!wants(m, VMT_MRC_LRU) || m->sampled) && m->policies != 1u << VMT_MRC_LRU;
	if (!err && m->own_ids) {
		err = vmt_u64_map_init(&m->ids);
		m->own_ids = !err;
	}
	if (err) {
		mrc_destroy(&m->analysis);
		return err;
	}
	*analysis = &m->analysis;
	return 0;
}

uint64_t vmt_mrc_references(const struct vmt_analysis *a)
{
	return to_mrc(a)->references;
}

uint64_t vmt_mrc_footprint(const struct vmt_analysis *a)
{
	return to_mrc(a)->footprint;
}

uint64_t vmt_mrc_sample_peak(const struct vmt_analysis *a)
{
	const struct mrc *m = to_mrc(a);

	return m->sample_size ? m->set.peak : m->sd.units;
}

unsigned int vmt_mrc_nr_sizes(const struct vmt_analysis *a)
{
	return to_mrc(a)->nr_curve_sizes;
}

uint64_t vmt_mrc_size(const struct vmt_analysis *a, unsigned int i)
{
	const struct mrc *m = to_mrc(a);

	return i < m->nr_curve_sizes ? m->curve_sizes[i] : 0;
}

int vmt_mrc_faults(const struct vmt_analysis *a, enum vmt_mrc_policy policy, unsigned int i,
		   uint64_t *faults)
{
	const struct mrc *m = to_mrc(a);

	if ((unsigned int)policy >= VMT_MRC_NR_POLICIES || !m->faults[policy] ||
	    i >= m->nr_curve_sizes)
		return -EINVAL;
	*faults = m->faults[policy][i];
	return 0;
}
