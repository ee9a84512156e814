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
 * key hashes below rate * 2^64 go through the stack, and a sampled distance
 * d stands for d / rate; the histogram is scaled back by the references
 * expected (rate * references), the difference from those actually sampled
 * added to distance 0 (SHARDS-adj). Memory and time shrink by the rate.
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
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "vmtrace/analysis.h"
#include "analysis/analysis_util.h"
#include "base/grow_array.h"
#include "analysis/stack_distance.h"
#include "base/u64_map.h"

#define AUTO_SIZES	32		/* 1, 2, 4, ... 2^31 */
#define RESIDENT	1
#define REFERENCED	2
#define NEVER		UINT32_MAX	/* OPT: no next use */

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
		return vmt_grow_array((void **)&m->histogram, &m->histogram_room, m->sd.units,
				  sizeof(*m->histogram));
	}
	m->histogram[distance]++;
	return 0;
}

static int mrc_reference(struct vmt_analysis *a, const struct vmt_ref *ref)
{
	struct mrc *m = to_mrc(a);
	bool new_unit = false;
	uint32_t unit = 0;
	int err;

	m->references++;
	if (wants(m, VMT_MRC_LRU) && (!m->sampled || sample_hash(ref->key) < m->threshold)) {
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

struct opt_entry {
	uint32_t next;		/* the unit's next use; NEVER: none */
	uint32_t unit;
};

struct opt_heap {		/* a max-heap on next use */
	struct opt_entry *e;
	uint32_t *where;	/* a unit's place in @e, or NEVER when not resident */
	uint64_t n;
};

static void heap_set(struct opt_heap *h, uint64_t i, struct opt_entry e)
{
	h->e[i] = e;
	h->where[e.unit] = i;
}

static void heap_up(struct opt_heap *h, uint64_t i)
{
	struct opt_entry e = h->e[i];

	while (i && h->e[(i - 1) / 2].next < e.next) {
		heap_set(h, i, h->e[(i - 1) / 2]);
		i = (i - 1) / 2;
	}
	heap_set(h, i, e);
}

static void heap_down(struct opt_heap *h, uint64_t i)
{
	struct opt_entry e = h->e[i];

	for (;;) {
		uint64_t c = 2 * i + 1;

		if (c >= h->n)
			break;
		if (c + 1 < h->n && h->e[c + 1].next > h->e[c].next)
			c++;
		if (h->e[c].next <= e.next)
			break;
		heap_set(h, i, h->e[c]);
		i = c;
	}
	heap_set(h, i, e);
}

/* Belady's faults with @size units over the sequence and its next uses. */
static uint64_t opt_faults(const struct mrc *m, const uint32_t *next, struct opt_heap *h,
			   uint64_t size)
{
	uint64_t faults = 0;

	h->n = 0;
	memset(h->where, 0xff, m->footprint * sizeof(*h->where));
	for (uint64_t i = 0; i < m->references; i++) {
		struct opt_entry e = { next[i], m->sequence[i] };
		uint32_t at = h->where[e.unit];

		if (at != NEVER) {
			/* A hit: the unit's next use moves later, up the heap. */
			h->e[at].next = e.next;
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
	struct opt_heap h = { 0 };
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

static void lru_curve(const struct mrc *m, uint64_t *faults)
{
	double expected = m->references * m->rate, scale = 1;
	uint64_t reuses = m->lru_references - m->lru_cold, below = 0, d = 0;

	if (m->sampled) {
		/* SHARDS-adj: the shortfall of sampled references counts at distance 0. */
		double shortfall = expected - (double)m->lru_references;

		if (m->sd.units)
			below = shortfall > 0 ? (uint64_t)shortfall : 0;
		reuses += below;
		if (m->lru_references + below)
			scale = m->references / (double)(m->lru_references + below);
	}
	for (unsigned int i = 0; i < m->nr_curve_sizes; i++) {
		/* Sampled: a distance d stands for d / rate; it misses M units when d >= M * rate. */
		double scaled = m->curve_sizes[i] * m->rate;
		uint64_t limit = scaled;

		if (limit < scaled)	/* the ceiling */
			limit++;
		for (; d < limit && d < m->histogram_room; d++)
			below += m->histogram[d];
		if (m->sampled)
			faults[i] = (m->lru_cold + reuses - below) * scale + 0.5;
		else
			faults[i] = m->lru_cold + reuses - below;
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
	free(m->sizes);
	free(m->curve_sizes);
	free(m);
}

static const struct vmt_analysis_ops mrc_ops = {
	.name = "mrc",
	.reference = mrc_reference,
	.finish = mrc_finish,
	.destroy = mrc_destroy,
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
	    !(o->sample_rate >= 0 && o->sample_rate <= 1))
		return -EINVAL;
	m = calloc(1, sizeof(*m));
	if (!m)
		return -ENOMEM;
	m->analysis.ops = &mrc_ops;
	m->policies = o->policies;
	m->rate = o->sample_rate > 0 ? o->sample_rate : 1;
	m->sampled = m->rate < 1;
	m->threshold = m->sampled ? (uint64_t)(m->rate * 18446744073709551616.0) : UINT64_MAX;
	err = mrc_setup_sizes(m, o);
	if (!err && wants(m, VMT_MRC_LRU))
		err = vmt_stack_distance_init(&m->sd);
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
