// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * The cache and TLB simulator (vmtrace/cachesim.h; docs/analysis/cachesim.md
 * says what it counts and by which conventions).
 *
 * Outline:
 * - building: each hierarchy's rows (a level's counts), its caches (one a
 *   core for a private level, one for a shared one; a unified level-1
 *   cache as an instruction and a data half) chained outward core by core;
 * - an access: the TLBs, other cores' copies invalidated on a write, then
 *   demand() at level 1, which goes outward line by line as lines miss;
 *   fill() and evicted() do what a fill's victim needs (write-backs,
 *   inclusive levels' back-invalidations, exclusive levels' victims);
 * - the parallel pass: the hierarchies dealt out to threads, group by
 *   group, the accesses handed over in batches;
 * - the analysis: records to accesses (a page end's two parts joined);
 * - the results: rows, per thread or process, per phase; the top
 *   instructions.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "vmtrace/cachesim.h"
#include "analysis/cache_array.h"
#include "base/grow_array.h"
#include "base/u64_map.h"
#include "base/work_pool.h"

#define MAX_ROWS	(VMT_CACHES_MAX + 1 + VMT_TLBS_MAX)

/* A read-modify-write is a write to the lines, and counted a read miss, as cachegrind counts it. */
enum kind { K_READ, K_WRITE, K_RMW, K_FETCH };

static bool writes(enum kind kind)
{
	return kind == K_WRITE || kind == K_RMW;
}

/* demand()'s result bits */
#define R_MISS		0x1
#define R_DIRTY		0x2	/* an exclusive level gave the line up dirty */

enum cls { C_COMPULSORY, C_CAPACITY, C_CONFLICT };

/* Whom a hierarchy's bus view goes to (vmt_cachesim_bus()). */
struct cs_bus {
	vmt_cachesim_bus_fn fn;
	void *ctx;
};

struct cs_cache {
	struct cs_array a;
	unsigned int shift;	/* log2 of the line's bytes */
	uint8_t write, inclusion;
	bool prefetch, tlb, classify;
	unsigned int row;	/* the row its counts go to, in all rows */
	struct cs_cache *next;	/* outward, for this cache's core */
	struct cs_cache **inner;	/* every cache inside it, any core's */
	unsigned int nr_inner;
	struct cs_table seen;	/* the lines ever accessed: compulsory misses */
	struct cs_fa_lru fa;	/* the fully associative LRU shadow: capacity misses */
	/*
	 * A level-1 cache the same as one of an earlier hierarchy, seeing the
	 * same accesses, is not simulated again: it follows that one (its
	 * leader), whose log of what it sent outward in the last access its
	 * own next level replays (see follow()).
	 */
	struct vmt_cache_config cfg;	/* a cache's (a TLB's is zeroes) */
	struct cs_cache *leader;
	/* a last level's: its hierarchy's bus view, or NULL (no one asked) */
	const struct cs_bus *bus;
	bool logging;
	struct cs_event *log;
	uint32_t nr_log, log_room;
	int last_result;
};

/*
 * What a leader sent outward: a demand access, or a write-back; or what its
 * prefetcher fetched, which a follower that is its hierarchy's last level
 * puts in its bus view (see follow()).
 */
struct cs_event {
	uint64_t addr, size;
	uint32_t pid;
	bool writeback, prefetch;
	uint8_t kind;
};

struct cs_row {
	char name[VMT_CACHE_NAME_MAX];
	bool tlb;
	/* a unified level-1 cache's halves: named NAMEI and NAMED, or NAME alone when nothing was fetched */
	bool fetch_half, data_half;
	bool fetch;		/* an instruction cache, or half */
	int copy_from;		/* a follower's: its leader's row (in all rows); else -1 */
};

struct cs_top_entry {
	uint64_t ip, misses, l1_misses;
	uint32_t pid;
};

struct cs_hier {
	unsigned int row_base, nr_rows;
	struct cs_row rows[MAX_ROWS];
	unsigned int last_row;		/* the outermost cache level's */
	struct cs_cache **l1i, **l1d, **tlb;	/* each core's */
	/* each core's private caches, inside first: [core * priv_stride + i], i < nr_priv */
	struct cs_cache **priv;
	unsigned int priv_stride, nr_priv, nr_priv_of_core;
	struct cs_cache *caches;	/* every one */
	unsigned int nr_caches;
	struct cs_table top_index;	/* (ip, pid) to its entry */
	struct cs_top_entry *top;
	uint64_t top_room, nr_top;
	/* the hierarchies that read one another's level-1 logs share a group */
	unsigned int group;
	struct cs_bus bus;	/* its last level caches' bus view, when fn is set */
};


/*
 * What simulating an access reads and writes beyond its hierarchy's caches:
 * a thread's own (see "The parallel pass").
 */
struct cs_run {
	struct vmt_cachesim_options o;
	struct vmt_cache_counts *counts;	/* in all: only the hierarchy's rows are written */
	struct vmt_cache_counts *cur;		/* the current access's entity's, or NULL */
	/* the access being simulated: whether the last level missed (for top) */
	bool ll_missed;
	unsigned int ll_row;
	const struct vmt_cache_access *cause;	/* and itself, for the bus view */
};

/* The parallel pass: an access as the reader hands it to the workers. */
struct cs_item {
	struct vmt_cache_access a;
	int64_t slot;		/* the entity's counts' slot, or -1 */
	uint16_t core;
	uint8_t kind;
};

/*
 * A worker's part of a batch: its hierarchies, over every access of it.
 * Each job is cache-line aligned and counts into rows of its own, added to
 * the shared ones after each batch: its run's fields and its level-1 rows
 * change at every access, and two threads writing one line would pass it
 * back and forth (with the counts shared, two threads took longer than one).
 */
struct cs_job {
	_Alignas(64) struct vmt_work work;	/* the pool's: first, so that a job is its work */
	struct cs_run run;
	struct vmt_cache_counts *counts;	/* run.counts: this job's, [nr_rows] */
	struct cs_group **groups;	/* its groups: [nr_groups], room for every one */
	unsigned int nr_groups;
	uint64_t cost;			/* in the deal: its groups', and the reading's */
	const struct cs_item *items;
	size_t nr_items;
	struct vmt_cache_counts *ent_counts;	/* as the batch began */
	unsigned int nr_rows;			/* an entity's rows */
	int error;
};

/*
 * Hierarchies that run together: those whose level-1 caches follow one
 * another's, in the order of their indexes (leaders first); and the time
 * they took since the last deal.
 */
struct cs_group {
	struct cs_hier **hiers;
	unsigned int nr_hiers;
	unsigned int cost;	/* hier_cost()'s, for the first deal */
	uint64_t ns;
};

#define BATCH	65536	/* options->batch's default */
#define READER_COST	32	/* the reading, in hier_cost()'s units, for the first deal */
#define DEAL_FIRST	8	/* batches before the deal of measured times */
#define DEAL_EVERY	256	/* and batches between deals after it */

struct vmt_cachesim {
	struct vmt_cachesim_options o;
	struct cs_hier *h;
	unsigned int nr_h, nr_rows;
	struct vmt_cache_counts *counts;	/* [nr_rows]: in all */
	/* per thread or process: ids to slots, slot i's counts at [i * nr_rows] */
	struct vmt_u64_map ent_index;
	uint32_t *ent_ids;
	struct vmt_cache_counts *ent_counts;
	uint64_t ent_room, ent_ids_room, nr_ent;
	/* by_marker: the counts in all at each phase's end */
	struct vmt_cache_counts *phase_ends;
	uint64_t phase_room, nr_phase_ends;
	struct vmt_u64_map thread_core;	/* core_by_thread: tid to core */
	unsigned int next_core;
	struct vmt_cachesim_totals totals;
	/* split records waiting for their second part: tid to an entry of pending */
	struct vmt_u64_map split_index;
	struct vmt_cache_access *pending;
	bool *pending_valid;
	uint64_t pending_room, nr_pending;
	uint64_t nr_waiting;	/* pending entries valid */
	uint64_t now;		/* the last record's time: a split access's when simulated */
	struct cs_run run;	/* vmt_cachesim_access()'s */
	int error;
	/* the parallel pass: jobs on a pool, a batch being filled, one in flight */
	struct vmt_work_pool *pool;
	struct cs_job *jobs;
	unsigned int nr_jobs;
	struct cs_group *groups;
	unsigned int nr_groups;
	struct cs_hier **group_hiers;	/* each group's hierarchies: its hiers point in */
	struct cs_group **job_groups;	/* each job's groups: its groups point in */
	bool *dealt;			/* deal()'s, a group */
	uint64_t batches;		/* handed over */
	uint64_t read_ns;		/* the reader's time outside submit_jobs() since the last deal */
	uint64_t returned;		/* when submit_jobs() last returned */
	struct cs_item *batch[2];
	size_t nr_batch, batch_size;
	unsigned int filling;	/* the batch being filled */
	bool in_flight;		/* the other one is being simulated */
};

#define CNT(run, row, field)					\
	do {							\
		(run)->counts[row].field++;			\
		if ((run)->cur)					\
			(run)->cur[row].field++;		\
	} while (0)

/* ---- Building ---- */

static unsigned int log2u(uint32_t v)
{
	unsigned int s = 0;

	while ((UINT32_C(1) << s) < v)
		s++;
	return s;
}

static int cache_init(struct cs_cache *c, const struct vmt_cachesim_options *o, uint32_t sets,
		      uint32_t ways, uint8_t policy, unsigned int shift, unsigned int row)
{
	int ret;

	memset(c, 0, sizeof(*c));
	c->shift = shift;
	c->row = row;
	c->classify = !o->no_classify;
	ret = cs_array_init(&c->a, sets, ways, policy, o->seed ? o->seed : 1);
	if (ret)
		return ret;
	if (c->classify && (cs_table_init(&c->seen, 1024) ||
			    cs_fa_lru_init(&c->fa, sets * ways)))
		return -ENOMEM;
	return 0;
}

static void cache_free(struct cs_cache *c)
{
	cs_array_free(&c->a);
	cs_table_free(&c->seen);
	cs_fa_lru_free(&c->fa);
	free(c->inner);
	free(c->log);
}

static struct cs_cache *new_cache(struct cs_hier *h)
{
	return &h->caches[h->nr_caches++];
}

static int cache_from_config(struct cs_cache *c, const struct vmt_cachesim_options *o,
			     const struct vmt_cache_config *cc, unsigned int row)
{
	uint32_t lines = (uint32_t)(cc->size / cc->line);
	uint32_t ways = cc->assoc ? cc->assoc : lines;
	int ret = cache_init(c, o, lines / ways, ways, cc->policy, log2u(cc->line), row);

	c->write = cc->write;
	c->inclusion = cc->inclusion;
	c->prefetch = cc->prefetch;
	c->cfg = *cc;
	return ret;
}

static int add_inner(struct cs_cache *outer, struct cs_cache *inner)
{
	struct cs_cache **p = realloc(outer->inner, (outer->nr_inner + 1) * sizeof(*p));

	if (!p)
		return -ENOMEM;
	p[outer->nr_inner++] = inner;
	outer->inner = p;
	return 0;
}

/* A cache of config @i for a core, or the shared one; NULL when memory runs out. */
static struct cs_cache *instance(struct vmt_cachesim *sim, struct cs_hier *h,
				 const struct vmt_cache_config *cc, unsigned int row,
				 struct cs_cache **shared, unsigned int core)
{
	struct cs_cache *c;

	if (cc->shared && *shared)
		return *shared;
	c = new_cache(h);
	if (cache_from_config(c, &sim->o, cc, h->row_base + row))
		return NULL;
	if (cc->shared)
		*shared = c;
	else
		h->priv[(size_t)core * h->priv_stride + h->nr_priv_of_core++] = c;
	return c;
}

/*
 * Hierarchy @hc's rows and caches: per core, level 1 (an instruction and a
 * data cache, or one serving both), then one cache a level, each the next
 * of those inside it.
 */
static int hier_build(struct vmt_cachesim *sim, struct cs_hier *h,
		      const struct vmt_hierarchy_config *hc)
{
	unsigned int cores = sim->o.cores, i, core, lvl, maxlvl = 0;
	unsigned int row_of[VMT_CACHES_MAX], irow_of[VMT_CACHES_MAX];
	struct cs_cache *shared[VMT_CACHES_MAX] = { 0 }, *shared_i[VMT_CACHES_MAX] = { 0 };
	int ret;

	h->row_base = sim->nr_rows;
	for (i = 0; i < MAX_ROWS; i++)
		h->rows[i].copy_from = -1;
	for (i = 0; i < hc->nr_caches; i++) {
		const struct vmt_cache_config *cc = &hc->caches[i];
		struct cs_row *r;

		if (cc->level == 1 && cc->kind == VMT_CACHE_UNIFIED) {
			r = &h->rows[h->nr_rows];
			snprintf(r->name, sizeof(r->name), "%s", cc->name);
			r->fetch_half = true;
			r->fetch = true;
			irow_of[i] = h->nr_rows++;
		}
		r = &h->rows[h->nr_rows];
		snprintf(r->name, sizeof(r->name), "%s", cc->name);
		r->data_half = cc->level == 1 && cc->kind == VMT_CACHE_UNIFIED;
		r->fetch = cc->level == 1 && cc->kind == VMT_CACHE_INSTRUCTION;
		row_of[i] = h->nr_rows++;
		if (cc->level > maxlvl) {
			maxlvl = cc->level;
			h->last_row = h->row_base + row_of[i];
		}
	}
	for (i = 0; i < hc->nr_tlbs; i++) {
		struct cs_row *r = &h->rows[h->nr_rows++];

		snprintf(r->name, sizeof(r->name), "%s", hc->tlbs[i].name);
		r->tlb = true;
	}
	sim->nr_rows += h->nr_rows;

	/* At most: every cache and TLB a core, the unified halves twice. */
	h->priv_stride = 2 * hc->nr_caches;
	h->caches = calloc((size_t)cores * (2 * hc->nr_caches + hc->nr_tlbs), sizeof(*h->caches));
	h->l1i = calloc(cores, sizeof(*h->l1i));
	h->l1d = calloc(cores, sizeof(*h->l1d));
	h->tlb = calloc(cores, sizeof(*h->tlb));
	h->priv = calloc((size_t)cores * h->priv_stride + 1, sizeof(*h->priv));
	if (!h->caches || !h->l1i || !h->l1d || !h->tlb || !h->priv)
		return -ENOMEM;

	for (core = 0; core < cores; core++) {
		struct cs_cache *prev_tlb = NULL, *in_i = NULL, *in_d = NULL;

		h->nr_priv_of_core = 0;
		for (i = 0; i < hc->nr_caches; i++) {
			const struct vmt_cache_config *cc = &hc->caches[i];
			struct cs_cache *c;

			if (cc->level != 1)
				continue;
			c = instance(sim, h, cc, row_of[i], &shared[i], core);
			if (!c)
				return -ENOMEM;
			if (cc->kind == VMT_CACHE_UNIFIED) {
				h->l1d[core] = c;
				c = instance(sim, h, cc, irow_of[i], &shared_i[i], core);
				if (!c)
					return -ENOMEM;
				h->l1i[core] = c;
			} else if (cc->kind == VMT_CACHE_INSTRUCTION) {
				h->l1i[core] = c;
			} else {
				h->l1d[core] = c;
			}
		}
		/* Without one of the two, the other serves both. */
		in_i = h->l1i[core] ? h->l1i[core] : h->l1d[core];
		in_d = h->l1d[core] ? h->l1d[core] : h->l1i[core];
		h->l1i[core] = in_i;
		h->l1d[core] = in_d;
		for (lvl = 2; lvl <= maxlvl; lvl++) {
			struct cs_cache *c = NULL;

			for (i = 0; i < hc->nr_caches && !c; i++)
				if (hc->caches[i].level == lvl)
					c = instance(sim, h, &hc->caches[i], row_of[i], &shared[i],
						     core);
			if (!c)
				return -ENOMEM;	/* vmt_hierarchy_check() saw every level there */
			in_i->next = c;
			in_d->next = c;
			in_i = in_d = c;
		}
		h->nr_priv = h->nr_priv_of_core;
		for (i = 0; i < hc->nr_tlbs; i++) {
			struct cs_cache *t = new_cache(h);
			const struct vmt_tlb_config *tc = &hc->tlbs[i];
			uint32_t ways = tc->assoc ? tc->assoc : tc->entries;

			ret = cache_init(t, &sim->o, tc->entries / ways, ways, tc->policy, 12,
					 h->row_base + h->nr_rows - hc->nr_tlbs + i);
			if (ret)
				return ret;
			t->tlb = true;
			if (prev_tlb)
				prev_tlb->next = t;
			else
				h->tlb[core] = t;
			prev_tlb = t;
		}
	}

	/* Who is inside whom: what an inclusive level takes lines from. */
	for (i = 0; i < h->nr_caches; i++) {
		struct cs_cache *c = &h->caches[i], *o;

		if (c->tlb)
			continue;
		for (o = c->next; o; o = o->next) {
			unsigned int k;
			bool have = false;

			for (k = 0; k < o->nr_inner; k++)
				have |= o->inner[k] == c;
			if (!have && add_inner(o, c))
				return -ENOMEM;
		}
	}
	return 0;
}

/* No level takes lines from the levels inside it (inclusive) or holds their victims (exclusive). */
static bool independent_levels(const struct vmt_hierarchy_config *hc)
{
	unsigned int i;

	for (i = 0; i < hc->nr_caches; i++)
		if (hc->caches[i].inclusion != VMT_CACHE_NON_INCLUSIVE)
			return false;
	return true;
}

static bool same_cache(const struct vmt_cache_config *a, const struct vmt_cache_config *b)
{
	return a->size == b->size && a->assoc == b->assoc && a->line == b->line &&
	       a->policy == b->policy && a->write == b->write && a->prefetch == b->prefetch;
}

/*
 * Hierarchy @i's level-1 caches that an earlier hierarchy has the same of,
 * serving the same accesses (instructions, data, or both), follow that
 * one instead of simulating them again: with one core, and no inclusive or
 * exclusive level in either hierarchy, nothing outside a level-1 cache
 * changes what is in it, so the two hold the same lines at every moment.
 * PSnAP's ten hierarchies have five level-1 caches between them.
 */
/* Hierarchies of group @a are of group @b from now on. */
static void join_groups(struct vmt_cachesim *sim, unsigned int a, unsigned int b)
{
	unsigned int i;

	for (i = 0; i < sim->nr_h; i++)
		if (sim->h[i].group == a)
			sim->h[i].group = b;
}

static void find_leaders(struct vmt_cachesim *sim, const struct vmt_hierarchy_config *hcs,
			 unsigned int i)
{
	struct cs_hier *h = &sim->h[i];
	struct cs_cache *mine[2] = { h->l1i[0], h->l1d[0] };
	unsigned int j, k, n = h->l1i[0] == h->l1d[0] ? 1 : 2;

	if (sim->o.cores != 1 || !independent_levels(&hcs[i]))
		return;
	for (k = 0; k < n; k++) {
		struct cs_cache *f = n == 1 ? h->l1d[0] : mine[k];

		for (j = 0; j < i && !f->leader; j++) {
			struct cs_hier *g = &sim->h[j];
			unsigned int gn = g->l1i[0] == g->l1d[0] ? 1 : 2;
			struct cs_cache *l = n == 1 ? g->l1d[0] : mine[k] == h->l1i[0] ?
					     g->l1i[0] : g->l1d[0];

			if (gn != n || !independent_levels(&hcs[j]) || !same_cache(&l->cfg, &f->cfg))
				continue;
			if (l->leader)
				l = l->leader;
			f->leader = l;
			l->logging = true;
			join_groups(sim, h->group, g->group);
			h->rows[f->row - h->row_base].copy_from = (int)l->row;
			cs_array_free(&f->a);
			cs_table_free(&f->seen);
			cs_fa_lru_free(&f->fa);
		}
	}
}

static int plan_jobs(struct vmt_cachesim *sim);

static void hier_free(struct cs_hier *h)
{
	unsigned int i;

	for (i = 0; i < h->nr_caches; i++)
		cache_free(&h->caches[i]);
	free(h->caches);
	free(h->l1i);
	free(h->l1d);
	free(h->tlb);
	free(h->priv);
	cs_table_free(&h->top_index);
	free(h->top);
}

int vmt_cachesim_create(struct vmt_cachesim **simp, const struct vmt_hierarchy_config *hierarchies,
			unsigned int nr_hierarchies, const struct vmt_cachesim_options *options,
			struct vmt_trace_error *err)
{
	struct vmt_cachesim *sim;
	unsigned int i;
	int ret;

	if (!nr_hierarchies) {
		snprintf(err->message, sizeof(err->message), "no hierarchy to simulate");
		return -EINVAL;
	}
	if (options->cores > VMT_CACHE_MAX_CORES) {
		snprintf(err->message, sizeof(err->message), "%u cores: at most %u",
			 options->cores, VMT_CACHE_MAX_CORES);
		return -EINVAL;
	}
	for (i = 0; i < nr_hierarchies; i++) {
		ret = vmt_hierarchy_check(&hierarchies[i], err);
		if (ret)
			return ret;
	}
	sim = calloc(1, sizeof(*sim));
	if (!sim)
		return -ENOMEM;
	sim->o = *options;
	if (!sim->o.cores)
		sim->o.cores = 1;
	sim->h = calloc(nr_hierarchies, sizeof(*sim->h));
	if (!sim->h)
		goto nomem;
	sim->nr_h = nr_hierarchies;
	for (i = 0; i < nr_hierarchies; i++) {
		ret = hier_build(sim, &sim->h[i], &hierarchies[i]);
		if (ret)
			goto fail;
		sim->h[i].group = i;
		find_leaders(sim, hierarchies, i);
		if (sim->o.top && cs_table_init(&sim->h[i].top_index, 1024))
			goto nomem;
	}
	sim->counts = calloc(sim->nr_rows, sizeof(*sim->counts));
	sim->run.o = sim->o;
	sim->run.counts = sim->counts;
	if (!sim->counts || vmt_u64_map_init(&sim->ent_index) ||
	    vmt_u64_map_init(&sim->thread_core) || vmt_u64_map_init(&sim->split_index))
		goto nomem;
	ret = plan_jobs(sim);
	if (ret)
		goto fail;
	*simp = sim;
	return 0;
nomem:
	ret = -ENOMEM;
fail:
	snprintf(err->message, sizeof(err->message), "%s", strerror(-ret));
	vmt_cachesim_destroy(sim);
	return ret;
}

void vmt_cachesim_destroy(struct vmt_cachesim *sim)
{
	unsigned int i;

	if (!sim)
		return;
	if (sim->pool)
		vmt_work_pool_destroy(sim->pool);
	for (i = 0; sim->jobs && i < sim->nr_jobs; i++)
		free(sim->jobs[i].counts);
	free(sim->jobs);
	free(sim->groups);
	free(sim->group_hiers);
	free(sim->job_groups);
	free(sim->dealt);
	free(sim->batch[0]);
	free(sim->batch[1]);
	for (i = 0; sim->h && i < sim->nr_h; i++)
		hier_free(&sim->h[i]);
	free(sim->h);
	free(sim->counts);
	vmt_u64_map_free(&sim->ent_index);
	free(sim->ent_ids);
	free(sim->ent_counts);
	free(sim->phase_ends);
	vmt_u64_map_free(&sim->thread_core);
	vmt_u64_map_free(&sim->split_index);
	free(sim->pending);
	free(sim->pending_valid);
	free(sim);
}

/* ---- An access ---- */

static int demand(struct cs_run *run, struct cs_cache *c, uint64_t addr, uint64_t size,
		  uint32_t pid, enum kind kind);
static int fill(struct cs_run *run, struct cs_cache *c, uint64_t line, uint32_t pid,
		bool dirty);

static uint64_t line_bytes(const struct cs_cache *c)
{
	return UINT64_C(1) << c->shift;
}

static int writeback_in(struct cs_run *run, struct cs_cache *c, uint64_t addr,
			uint64_t size, uint32_t pid);

/* A leader's log of what it sends outward in this access; 0 or -ENOMEM. */
static int log_event(struct cs_cache *c, uint64_t addr, uint64_t size, uint32_t pid,
		     bool writeback, bool prefetch, enum kind kind)
{
	if (c->nr_log == c->log_room) {
		uint32_t room = c->log_room ? 2 * c->log_room : 16;
		struct cs_event *p = realloc(c->log, room * sizeof(*p));

		if (!p)
			return -ENOMEM;
		c->log = p;
		c->log_room = room;
	}
	c->log[c->nr_log++] = (struct cs_event){ addr, size, pid, writeback, prefetch, (uint8_t)kind };
	return 0;
}

/*
 * A line leaving the last level for memory: the bus view's (@flags one of
 * VMT_EXACT_BUS_*), caused by the access being simulated. 0 or -errno.
 */
static int bus_line(const struct cs_run *run, const struct cs_bus *bus, uint64_t addr,
		    uint64_t size, bool write, uint8_t flags)
{
	struct vmt_cachesim_bus b = {
		.addr = addr, .size = (uint32_t)size,
		.access = write ? VMT_ACCESS_WRITE : VMT_ACCESS_READ,
		.flags = flags, .cause = run->cause,
	};
	int ret = bus->fn(bus->ctx, &b);

	return ret < 0 ? ret : 0;
}

/* A demand access that leaves the last level @c: a write going through, or a fill. */
static int bus_demand(const struct cs_run *run, const struct cs_cache *c, const struct cs_bus *bus,
		      uint64_t addr, uint64_t size, enum kind kind)
{
	bool through = writes(kind) && c->write == VMT_CACHE_WRITE_THROUGH;

	return bus_line(run, bus, addr, size, through,
			through ? VMT_EXACT_BUS_WRITEBACK : VMT_EXACT_BUS_FILL);
}

/* @c's demand access of [@addr, @addr + @size) to the next level: as demand(). */
static int demand_out(struct cs_run *run, struct cs_cache *c, uint64_t addr, uint64_t size,
		      uint32_t pid, enum kind kind)
{
	if (c->logging && log_event(c, addr, size, pid, false, false, kind))
		return -ENOMEM;
	if (c->next)
		return demand(run, c->next, addr, size, pid, kind);
	return c->bus ? bus_demand(run, c, c->bus, addr, size, kind) : 0;
}

/* @c's write-back of [@addr, @addr + @size) to the next level. */
static int writeback_out(struct cs_run *run, struct cs_cache *c, uint64_t addr,
			 uint64_t size, uint32_t pid)
{
	if (c->logging && log_event(c, addr, size, pid, true, false, K_WRITE))
		return -ENOMEM;
	if (c->next)
		return writeback_in(run, c->next, addr, size, pid);
	return c->bus ? bus_line(run, c->bus, addr, size, true, VMT_EXACT_BUS_WRITEBACK) : 0;
}

/* A write-back of [@addr, @addr + @size) arriving at @c from inside. */
static int writeback_in(struct cs_run *run, struct cs_cache *c, uint64_t addr,
			uint64_t size, uint32_t pid)
{
	uint64_t line, last = (addr + size - 1) >> c->shift;
	int ret;

	CNT(run, c->row, writebacks_in);
	for (line = addr >> c->shift; line <= last; line++) {
		uint32_t set = cs_array_set(&c->a, line);
		uint32_t way = cs_array_find(&c->a, set, line, pid);

		if (c->write == VMT_CACHE_WRITE_THROUGH) {
			/* Kept clean; the data goes on outward. */
			ret = writeback_out(run, c, line << c->shift, line_bytes(c), pid);
			if (ret)
				return ret;
			continue;
		}
		if (way != CS_NO_WAY) {
			c->a.state[(uint64_t)set * c->a.ways + way] |= CS_DIRTY;
			continue;
		}
		ret = fill(run, c, line, pid, true);
		if (ret)
			return ret;
	}
	return 0;
}

/*
 * (@line, @pid), dirty or not, left @c: taken from the levels inside when
 * @c is inclusive, written back when dirty, put in the next level when that
 * is exclusive.
 */
static int evicted(struct cs_run *run, struct cs_cache *c, uint64_t line, uint32_t pid,
		   bool dirty)
{
	uint64_t addr = line << c->shift;
	unsigned int k;

	if (c->inclusion == VMT_CACHE_INCLUSIVE) {
		for (k = 0; k < c->nr_inner; k++) {
			struct cs_cache *in = c->inner[k];
			uint64_t l, last = (addr + line_bytes(c) - 1) >> in->shift;

			for (l = addr >> in->shift; l <= last; l++) {
				uint32_t set = cs_array_set(&in->a, l);
				uint32_t way = cs_array_find(&in->a, set, l, pid);

				if (way == CS_NO_WAY)
					continue;
				if (cs_array_remove(&in->a, set, way) & CS_DIRTY)
					dirty = true;
				CNT(run, in->row, back_invalidations);
			}
		}
	}
	if (dirty)
		CNT(run, c->row, writebacks);
	if (c->next && c->next->inclusion == VMT_CACHE_EXCLUSIVE) {
		struct cs_cache *e = c->next;
		uint64_t l, last = (addr + line_bytes(c) - 1) >> e->shift;
		int ret;

		if (dirty)
			CNT(run, e->row, writebacks_in);
		for (l = addr >> e->shift; l <= last; l++) {
			uint32_t set = cs_array_set(&e->a, l);
			uint32_t way = cs_array_find(&e->a, set, l, pid);

			if (way != CS_NO_WAY) {
				if (dirty)
					e->a.state[(uint64_t)set * e->a.ways + way] |= CS_DIRTY;
				continue;
			}
			ret = fill(run, e, l, pid, dirty);
			if (ret)
				return ret;
		}
		return 0;
	}
	return dirty ? writeback_out(run, c, addr, line_bytes(c), pid) : 0;
}

/* Put (@line, @pid) in @c, and deal with the line it displaced. */
static int fill(struct cs_run *run, struct cs_cache *c, uint64_t line, uint32_t pid,
		bool dirty)
{
	uint32_t set = cs_array_set(&c->a, line), old_pid;
	uint64_t old_line;
	uint8_t old_state;

	cs_array_fill(&c->a, set, line, pid, dirty, &old_line, &old_pid, &old_state);
	if (!(old_state & CS_VALID))
		return 0;
	return evicted(run, c, old_line, old_pid, old_state & CS_DIRTY);
}

/*
 * The shadows see an access of (@line, @pid) at @c: whether it is the
 * line's first (*@first), and whether the fully associative cache hit.
 */
static int classify(struct cs_cache *c, uint64_t line, uint32_t pid, bool *first, bool *fa_hit)
{
	bool added;
	int r = cs_fa_lru_access(&c->fa, line, pid);

	if (r < 0)
		return r;
	*fa_hit = r;
	*first = false;
	if (r)
		return 0;	/* in the shadow: seen before */
	if (!cs_table_put(&c->seen, line, pid, 0, &added))
		return -ENOMEM;
	*first = added;
	return 0;
}

/*
 * A demand miss of @line at @c: the next-line prefetcher, when @c has one.
 * It fetches from memory only at the last level (the bus view's); a level
 * inside fills itself alone.
 */
static int prefetch(struct cs_run *run, struct cs_cache *c, uint64_t line, uint32_t pid)
{
	uint64_t addr = (line + 1) << c->shift;
	int ret;

	if (!c->prefetch || cs_array_find(&c->a, cs_array_set(&c->a, line + 1), line + 1,
					  pid) != CS_NO_WAY)
		return 0;
	CNT(run, c->row, prefetches);
	if (c->logging && log_event(c, addr, line_bytes(c), pid, false, true, K_READ))
		return -ENOMEM;
	if (!c->next && c->bus) {
		ret = bus_line(run, c->bus, addr, line_bytes(c), false, VMT_EXACT_BUS_PREFETCH);
		if (ret)
			return ret;
	}
	return fill(run, c, line + 1, pid, false);
}

/* A demand access of @c missed: by its kind, and by its class when @c classifies. */
static void count_miss(struct cs_run *run, const struct cs_cache *c, enum kind kind,
		       enum cls cls)
{
	CNT(run, c->row, misses);
	if (kind == K_WRITE)
		CNT(run, c->row, write_misses);
	else if (kind == K_FETCH)
		CNT(run, c->row, fetch_misses);
	else
		CNT(run, c->row, read_misses);
	if (!c->classify)
		return;
	if (cls == C_COMPULSORY)
		CNT(run, c->row, compulsory);
	else if (cls == C_CAPACITY)
		CNT(run, c->row, capacity);
	else
		CNT(run, c->row, conflict);
}

/* One line of a demand access at @c: R_MISS, R_DIRTY, or -errno; its class in *@cls. */
static int demand_line(struct cs_run *run, struct cs_cache *c, uint64_t line, uint32_t pid,
		       enum kind kind, enum cls *cls)
{
	uint32_t set, way;
	bool first = false, fa_hit = false;
	int ret, r = 0;

	if (cs_array_is_last(&c->a, line, pid)) {
		if (!writes(kind))
			return 0;
		set = c->a.last_set;
		way = c->a.last_way;
		goto write_hit;
	}
	/* Another line's access: this one is the last only once it is in (below). */
	c->a.last_valid = false;
	set = cs_array_set(&c->a, line);
	way = cs_array_find(&c->a, set, line, pid);
	if (c->classify) {
		ret = classify(c, line, pid, &first, &fa_hit);
		if (ret)
			return ret;
	}
	if (way != CS_NO_WAY) {
		if (c->inclusion == VMT_CACHE_EXCLUSIVE)	/* the line moves inside */
			return cs_array_remove(&c->a, set, way) & CS_DIRTY ? R_DIRTY : 0;
		cs_array_touch(&c->a, set, way);
		cs_array_set_last(&c->a, line, pid, set, way);
		if (!writes(kind))
			return 0;
write_hit:
		if (c->write == VMT_CACHE_WRITE_BACK) {
			c->a.state[(uint64_t)set * c->a.ways + way] |= CS_DIRTY;
			return 0;
		}
		ret = demand_out(run, c, line << c->shift, line_bytes(c), pid, kind);
		return ret < 0 ? ret : 0;
	}
	*cls = first ? C_COMPULSORY : fa_hit ? C_CONFLICT : C_CAPACITY;
	r = demand_out(run, c, line << c->shift, line_bytes(c), pid, kind);
	if (r < 0)
		return r;
	/* An exclusive level fills only inside; write-through writes no line on a miss. */
	if (c->inclusion == VMT_CACHE_EXCLUSIVE)
		return R_MISS | (r & R_DIRTY);
	if (writes(kind) && c->write == VMT_CACHE_WRITE_THROUGH) {
		ret = prefetch(run, c, line, pid);
		return ret ? ret : R_MISS;
	}
	ret = fill(run, c, line, pid,
		   (writes(kind) && c->write == VMT_CACHE_WRITE_BACK) || (r & R_DIRTY));
	if (ret)
		return ret;
	/*
	 * Where the line went: none when what its fill set off took it out
	 * again. Under SRRIP a fill is not a hit (2, not 0): the next access
	 * to it has something to do. A prefetch's fill, after, takes the
	 * shortcut away again (the prefetched line is the most recent).
	 */
	way = cs_array_find(&c->a, set, line, pid);
	if (way != CS_NO_WAY && c->a.policy != VMT_CACHE_SRRIP)
		cs_array_set_last(&c->a, line, pid, set, way);
	ret = prefetch(run, c, line, pid);
	return ret ? ret : R_MISS;
}

/*
 * A demand access of [@addr, @addr + @size) at @c: one access, a miss when
 * any of its lines misses (classified by the first that did); the lines
 * that miss go outward. R_MISS and R_DIRTY, or -errno.
 */
static int demand(struct cs_run *run, struct cs_cache *c, uint64_t addr, uint64_t size,
		  uint32_t pid, enum kind kind)
{
	uint64_t line, last = (addr + size - 1) >> c->shift;
	enum cls cls = C_COMPULSORY, lcls = C_COMPULSORY;
	int ret = 0, r;

	for (line = addr >> c->shift; line <= last; line++) {
		r = demand_line(run, c, line, pid, kind, &lcls);
		if (r < 0)
			return r;
		if ((r & R_MISS) && !(ret & R_MISS))
			cls = lcls;
		ret |= r;
	}
	CNT(run, c->row, accesses);
	if (!(ret & R_MISS)) {
		CNT(run, c->row, hits);
		return ret;
	}
	count_miss(run, c, kind, cls);
	if (c->row == run->ll_row)
		run->ll_missed = true;
	return ret;
}

/* The pages of an access at TLB level @t: one access, a miss when any page misses. */
static int tlb_demand(struct cs_run *run, struct cs_cache *t, uint64_t first,
		      uint64_t last, bool huge, uint32_t pid, enum kind kind)
{
	uint64_t page, tag_bit = huge ? UINT64_C(1) << 63 : 0;
	enum cls cls = C_COMPULSORY;
	bool miss = false;
	int ret;

	for (page = first; page <= last; page++) {
		uint64_t key = page | tag_bit;
		uint32_t set, way;
		bool seen_first = false, fa_hit = false;
		uint64_t ol;
		uint32_t op;
		uint8_t os;

		if (cs_array_is_last(&t->a, key, pid))
			continue;
		t->a.last_valid = false;
		set = cs_array_set(&t->a, page);
		way = cs_array_find(&t->a, set, key, pid);
		if (t->classify) {
			ret = classify(t, key, pid, &seen_first, &fa_hit);
			if (ret)
				return ret;
		}
		if (way != CS_NO_WAY) {
			cs_array_touch(&t->a, set, way);
			cs_array_set_last(&t->a, key, pid, set, way);
			continue;
		}
		if (!miss)
			cls = seen_first ? C_COMPULSORY : fa_hit ? C_CONFLICT : C_CAPACITY;
		miss = true;
		if (t->next) {
			ret = tlb_demand(run, t->next, page, page, huge, pid, kind);
			if (ret)
				return ret;
		}
		way = cs_array_fill(&t->a, set, key, pid, 0, &ol, &op, &os);
		if (t->a.policy != VMT_CACHE_SRRIP)
			cs_array_set_last(&t->a, key, pid, set, way);
	}
	CNT(run, t->row, accesses);
	if (!miss) {
		CNT(run, t->row, hits);
		return 0;
	}
	count_miss(run, t, kind, cls);
	return 0;
}

/*
 * A write by @core: every other core's private caches give up the lines of
 * [@addr, @addr + @size), from level 1 outward, each dirty one written back
 * to its next level (which, private too, gives it up in turn).
 */
static int invalidate_others(struct cs_run *run, struct cs_hier *h, unsigned int core,
			     uint64_t addr, uint64_t size, uint32_t pid)
{
	unsigned int o, k;
	int ret;

	for (o = 0; o < run->o.cores; o++) {
		if (o == core)
			continue;
		for (k = 0; k < h->nr_priv; k++) {
			struct cs_cache *c = h->priv[(size_t)o * h->priv_stride + k];
			uint64_t l, last = (addr + size - 1) >> c->shift;

			if (!c)
				continue;
			for (l = addr >> c->shift; l <= last; l++) {
				uint32_t set = cs_array_set(&c->a, l);
				uint32_t way = cs_array_find(&c->a, set, l, pid);

				if (way == CS_NO_WAY)
					continue;
				CNT(run, c->row, invalidations);
				if (!(cs_array_remove(&c->a, set, way) & CS_DIRTY))
					continue;
				/* To its next level: a private one gives it up in turn, below. */
				CNT(run, c->row, writebacks);
				ret = writeback_out(run, c, l << c->shift, line_bytes(c), pid);
				if (ret)
					return ret;
			}
		}
	}
	return 0;
}

static struct cs_top_entry *top_entry(struct cs_hier *h, uint64_t ip, uint32_t pid)
{
	struct cs_table_slot *s;
	bool added;

	s = cs_table_put(&h->top_index, ip, pid, (uint32_t)h->nr_top, &added);
	if (!s)
		return NULL;
	if (added) {
		if (vmt_grow_array((void **)&h->top, &h->top_room, h->nr_top + 1, sizeof(*h->top)))
			return NULL;
		h->top[h->nr_top].ip = ip;
		h->top[h->nr_top].pid = pid;
		h->nr_top++;
	}
	return &h->top[s->value];
}

/*
 * A follower's access: its leader has just simulated it; the follower's
 * next level gets what the leader sent outward, in the same order (its
 * prefetches stay inside); a follower that is its hierarchy's last level
 * puts all of it in the bus view, when it has one.
 */
static int follow(struct cs_run *run, struct cs_cache *f)
{
	const struct cs_cache *l = f->leader;
	uint32_t i;
	int ret;

	for (i = 0; (f->next || f->bus) && i < l->nr_log; i++) {
		const struct cs_event *e = &l->log[i];

		if (!f->next)
			ret = e->prefetch ? bus_line(run, f->bus, e->addr, e->size, false,
						     VMT_EXACT_BUS_PREFETCH) :
			      e->writeback ? bus_line(run, f->bus, e->addr, e->size, true,
						      VMT_EXACT_BUS_WRITEBACK) :
			      bus_demand(run, f, f->bus, e->addr, e->size, (enum kind)e->kind);
		else if (e->prefetch)
			continue;
		else
			ret = e->writeback ? writeback_in(run, f->next, e->addr, e->size, e->pid) :
			      demand(run, f->next, e->addr, e->size, e->pid, (enum kind)e->kind);
		if (ret < 0)
			return ret;
	}
	if (f->row == run->ll_row && (l->last_result & R_MISS))
		run->ll_missed = true;
	return l->last_result;
}

static int hier_access(struct cs_run *run, struct cs_hier *h, unsigned int core,
		       const struct vmt_cache_access *a, enum kind kind)
{
	struct cs_cache *l1 = kind == K_FETCH ? h->l1i[core] : h->l1d[core];
	uint64_t size = a->size ? a->size : 1;
	int ret;

	if (h->tlb[core]) {
		unsigned int shift = a->huge ? 21 : 12;

		ret = tlb_demand(run, h->tlb[core], a->addr >> shift,
				 (a->addr + size - 1) >> shift, a->huge, a->pid, kind);
		if (ret)
			return ret;
	}
	if (!l1)
		return 0;
	if (writes(kind) && run->o.cores > 1) {
		ret = invalidate_others(run, h, core, a->addr, size, a->pid);
		if (ret)
			return ret;
	}
	run->ll_missed = false;
	run->ll_row = h->last_row;
	run->cause = a;
	if (l1->leader) {
		ret = follow(run, l1);
	} else {
		l1->nr_log = 0;
		ret = demand(run, l1, a->addr, size, a->pid, kind);
		l1->last_result = ret;
	}
	if (ret < 0)
		return ret;
	if (run->o.top && a->ip) {
		struct cs_top_entry *e = top_entry(h, a->ip, a->pid);

		if (!e)
			return -ENOMEM;
		e->misses += run->ll_missed;
		e->l1_misses += ret & R_MISS;
	}
	return 0;
}

static int wait_jobs(struct vmt_cachesim *sim);

/*
 * The counts of the thread or process @id: a slot of their own. A new one
 * waits for the workers (the slots may move).
 */
static struct vmt_cache_counts *entity(struct vmt_cachesim *sim, uint32_t id)
{
	uint64_t *slot;
	bool added;

	slot = vmt_u64_map_put(&sim->ent_index, id, &added);
	if (!slot)
		return NULL;
	if (added) {
		if (wait_jobs(sim))
			return NULL;
		if (vmt_grow_array((void **)&sim->ent_counts, &sim->ent_room,
				   (sim->nr_ent + 1) * sim->nr_rows, sizeof(*sim->ent_counts)) ||
		    vmt_grow_array((void **)&sim->ent_ids, &sim->ent_ids_room, sim->nr_ent + 1,
				   sizeof(*sim->ent_ids)))
			return NULL;
		sim->ent_ids[sim->nr_ent] = id;
		*slot = sim->nr_ent++;
	}
	return &sim->ent_counts[*slot * sim->nr_rows];
}

static int core_of(struct vmt_cachesim *sim, const struct vmt_cache_access *a, unsigned int *core)
{
	uint64_t *c;
	bool added;

	if (!sim->o.core_by_thread) {
		*core = a->cpu % sim->o.cores;
		return 0;
	}
	c = vmt_u64_map_put(&sim->thread_core, a->tid, &added);
	if (!c)
		return -ENOMEM;
	if (added)
		*c = sim->next_core++ % sim->o.cores;
	*core = (unsigned int)*c;
	return 0;
}

static enum kind kind_of(const struct vmt_cache_access *a)
{
	return a->access & VMT_ACCESS_EXEC ? K_FETCH :
	       (a->access & VMT_ACCESS_RMW) == VMT_ACCESS_RMW ? K_RMW :
	       a->access & VMT_ACCESS_WRITE ? K_WRITE : K_READ;
}

/* What both passes do first: count @a in the totals, find its core and its entity's counts. */
static int prepare(struct vmt_cachesim *sim, const struct vmt_cache_access *a, enum kind kind,
		   unsigned int *core, struct vmt_cache_counts **cur)
{
	int ret = core_of(sim, a, core);

	if (ret)
		return ret;
	*cur = NULL;
	if (sim->o.per_thread || sim->o.per_process) {
		*cur = entity(sim, sim->o.per_thread ? a->tid : a->pid);
		if (!*cur)
			return sim->error ? sim->error : -ENOMEM;
	}
	sim->totals.accesses++;
	if (kind == K_FETCH)
		sim->totals.fetches++;
	else if (kind == K_RMW)
		sim->totals.rmws++;
	else if (kind == K_WRITE)
		sim->totals.writes++;
	else
		sim->totals.reads++;
	return 0;
}

static int flush_jobs(struct vmt_cachesim *sim);

int vmt_cachesim_access(struct vmt_cachesim *sim, const struct vmt_cache_access *a)
{
	enum kind kind = kind_of(a);
	unsigned int core, i;
	int ret = flush_jobs(sim);	/* what the parallel pass holds goes first */

	if (!ret)
		ret = prepare(sim, a, kind, &core, &sim->run.cur);
	for (i = 0; !ret && i < sim->nr_h; i++)
		ret = hier_access(&sim->run, &sim->h[i], core, a, kind);
	return ret;
}

int vmt_cachesim_bus(struct vmt_cachesim *sim, unsigned int hi, vmt_cachesim_bus_fn fn, void *ctx)
{
	struct cs_hier *h;
	unsigned int i;
	int ret;

	if (hi >= sim->nr_h)
		return -EINVAL;
	ret = flush_jobs(sim);	/* no worker in the middle of a batch */
	if (ret)
		return ret;
	h = &sim->h[hi];
	h->bus.fn = fn;
	h->bus.ctx = ctx;
	for (i = 0; i < h->nr_caches; i++) {
		struct cs_cache *c = &h->caches[i];

		if (!c->tlb && !c->next)
			c->bus = fn ? &h->bus : NULL;
	}
	return 0;
}

/*
 * ---- The parallel pass ----
 *
 * With options->threads above 1, the analysis's accesses go to worker
 * threads in batches (options->batch, BATCH by default: handing over
 * 4096 at a time took a third longer than 65536 on 2 threads, in the
 * threads' waking and waiting). The hierarchies run in groups, a group being
 * the hierarchies whose level-1 caches follow one another's (they read the
 * leader's log access by access, so they run in one job, in order), and the
 * groups are dealt out to the jobs (at most one a thread), the costliest
 * first, each to the job that has the least so far. Job 0 is the reader's
 * own, run before it reads on, so that N threads are N jobs: it starts with
 * the reading's cost. The first deal guesses the costs (a level-1 cache or
 * a TLB sees every access: 8; a level outside, or one that follows: 1; the
 * reading: READER_COST); after DEAL_FIRST batches, and every DEAL_EVERY
 * after that, they are dealt again by the time each group and the reading
 * took since the last deal, as they turn out for this trace's codec and
 * these caches' miss ratios (a guess fixed beforehand left one thread idle
 * a third of the time on one trace, the other on another). Between deals a
 * group stays on its thread, its caches' state in that core's caches.
 * A job simulates every access of the batch in its hierarchies, in the
 * trace's order, as one thread would: the counts are the same whatever the
 * threads and the deal. Each job writes only its hierarchies' caches and
 * rows (and the per-thread counts' rows of them); while the workers simulate
 * a batch, the reader fills the other, and waits for them only before it
 * grows the per-thread counts (entity()), cuts a phase, finishes, or answers
 * vmt_cachesim_access().
 */
static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void job_run(struct vmt_work *work, void *ctx)
{
	struct cs_job *j = (struct cs_job *)work;
	unsigned int i, k;
	size_t n;

	(void)ctx;
	for (k = 0; k < j->nr_groups && !j->error; k++) {
		struct cs_group *g = j->groups[k];
		uint64_t t0 = now_ns();

		for (n = 0; n < j->nr_items && !j->error; n++) {
			const struct cs_item *it = &j->items[n];

			j->run.cur = it->slot < 0 ? NULL : &j->ent_counts[it->slot * j->nr_rows];
			for (i = 0; i < g->nr_hiers && !j->error; i++)
				j->error = hier_access(&j->run, g->hiers[i], it->core, &it->a,
						       (enum kind)it->kind);
		}
		g->ns += now_ns() - t0;
	}
}

static void job_done(struct vmt_work *work, void *ctx)
{
	(void)work;
	(void)ctx;
}

/*
 * The groups dealt out to the jobs, the costliest first, each to the job
 * with the least so far: by hier_cost() with @measured false, else by the
 * times since the last deal (each group's, and the reading's for job 0).
 */
static uint64_t group_cost(const struct cs_group *g, bool measured)
{
	return measured ? g->ns : g->cost;
}

static void deal(struct vmt_cachesim *sim, bool measured)
{
	unsigned int i, k, g, best;
	bool *dealt = sim->dealt;

	memset(dealt, 0, sim->nr_groups * sizeof(*dealt));
	for (i = 0; i < sim->nr_jobs; i++) {
		sim->jobs[i].nr_groups = 0;
		sim->jobs[i].cost = 0;
	}
	sim->jobs[0].cost = measured ? sim->read_ns : READER_COST;
	for (k = 0; k < sim->nr_groups; k++) {
		for (g = 0, best = sim->nr_groups; g < sim->nr_groups; g++) {
			if (!dealt[g] && (best == sim->nr_groups ||
					  group_cost(&sim->groups[g], measured) >
					  group_cost(&sim->groups[best], measured)))
				best = g;
		}
		dealt[best] = true;
		for (i = 0, g = 1; g < sim->nr_jobs; g++)
			if (sim->jobs[g].cost < sim->jobs[i].cost)
				i = g;
		sim->jobs[i].groups[sim->jobs[i].nr_groups++] = &sim->groups[best];
		sim->jobs[i].cost += group_cost(&sim->groups[best], measured);
	}
	for (g = 0; g < sim->nr_groups; g++)
		sim->groups[g].ns = 0;
	sim->read_ns = 0;
}

/* @n rows of @s added to @d's, and @s's back to zeroes: counts are all uint64_t. */
static void counts_take(struct vmt_cache_counts *d, struct vmt_cache_counts *s, unsigned int n)
{
	uint64_t *dw = (uint64_t *)d, *sw = (uint64_t *)s;
	size_t i, words = n * sizeof(*d) / sizeof(uint64_t);

	_Static_assert(sizeof(*d) % sizeof(uint64_t) == 0, "counts are uint64_t");
	for (i = 0; i < words; i++) {
		dw[i] += sw[i];
		sw[i] = 0;
	}
}

/* Wait for the batch in flight, its jobs' counts added to the shared ones; their first error (it stays). */
static int wait_jobs(struct vmt_cachesim *sim)
{
	unsigned int i;

	if (sim->in_flight) {
		vmt_work_pool_wait(sim->pool);
		sim->in_flight = false;
		for (i = 0; i < sim->nr_jobs; i++) {
			counts_take(sim->counts, sim->jobs[i].counts, sim->nr_rows);
			if (!sim->error)
				sim->error = sim->jobs[i].error;
		}
	}
	return sim->error;
}

/* Hand the batch being filled to the workers; the other one is being filled next. */
static int submit_jobs(struct vmt_cachesim *sim)
{
	unsigned int i;
	uint64_t t = now_ns();
	int ret;

	if (sim->returned)
		sim->read_ns += t - sim->returned;
	ret = wait_jobs(sim);
	if (ret || !sim->nr_batch)
		return ret;
	/* The workers are done with the last batch: the groups may move. */
	if (++sim->batches == DEAL_FIRST || sim->batches % DEAL_EVERY == 0)
		deal(sim, true);
	for (i = 0; i < sim->nr_jobs; i++) {
		struct cs_job *j = &sim->jobs[i];

		j->items = sim->batch[sim->filling];
		j->nr_items = sim->nr_batch;
		j->ent_counts = sim->ent_counts;
		if (i)
			vmt_work_pool_submit(sim->pool, &j->work);
	}
	job_run(&sim->jobs[0].work, NULL);	/* the reader's own part */
	sim->in_flight = true;
	sim->filling ^= 1;
	sim->nr_batch = 0;
	sim->returned = now_ns();
	return 0;
}

/* Every access handed over simulated: what the counts' readers need. */
static int flush_jobs(struct vmt_cachesim *sim)
{
	int ret;

	if (!sim->pool)
		return sim->error;
	ret = submit_jobs(sim);
	return ret ? ret : wait_jobs(sim);
}

static int enqueue(struct vmt_cachesim *sim, const struct vmt_cache_access *a)
{
	enum kind kind = kind_of(a);
	struct cs_item *it;
	struct vmt_cache_counts *cur;
	unsigned int core;
	int ret = prepare(sim, a, kind, &core, &cur);

	if (ret)
		return ret;
	it = &sim->batch[sim->filling][sim->nr_batch++];
	it->a = *a;
	it->slot = cur ? (cur - sim->ent_counts) / sim->nr_rows : -1;
	it->core = (uint16_t)core;
	it->kind = (uint8_t)kind;
	return sim->nr_batch == sim->batch_size ? submit_jobs(sim) : 0;
}

/* A hierarchy's cost, as job_run() spends it (see above). */
static unsigned int hier_cost(const struct cs_hier *h)
{
	unsigned int i, cost = 0;

	for (i = 0; i < h->nr_caches; i++) {
		const struct cs_cache *c = &h->caches[i];

		cost += c->leader || (!c->tlb && c->cfg.level > 1) ? 1 : 8;
	}
	return cost;
}

static int plan_jobs(struct vmt_cachesim *sim)
{
	unsigned int threads = sim->o.threads, i, g, nr_groups = 0, at = 0;

	for (g = 0; g < sim->nr_h; g++)
		nr_groups += sim->h[g].group == g;
	if (threads > nr_groups)
		threads = nr_groups;
	if (threads < 2)
		return 0;
	sim->jobs = aligned_alloc(_Alignof(struct cs_job), threads * sizeof(*sim->jobs));
	if (sim->jobs)
		memset(sim->jobs, 0, threads * sizeof(*sim->jobs));
	sim->groups = calloc(nr_groups, sizeof(*sim->groups));
	sim->group_hiers = calloc(sim->nr_h, sizeof(*sim->group_hiers));
	sim->job_groups = calloc((size_t)threads * nr_groups, sizeof(*sim->job_groups));
	sim->dealt = calloc(nr_groups, sizeof(*sim->dealt));
	sim->batch_size = sim->o.batch ? sim->o.batch : BATCH;
	sim->batch[0] = malloc(sim->batch_size * sizeof(*sim->batch[0]));
	sim->batch[1] = malloc(sim->batch_size * sizeof(*sim->batch[1]));
	if (!sim->jobs || !sim->groups || !sim->group_hiers || !sim->job_groups || !sim->dealt ||
	    !sim->batch[0] || !sim->batch[1])
		return -ENOMEM;
	sim->nr_jobs = threads;
	/* A group is named by one of its hierarchies (join_groups()). */
	for (g = 0; g < sim->nr_h; g++) {
		struct cs_group *grp = &sim->groups[sim->nr_groups];

		if (sim->h[g].group != g)
			continue;
		grp->hiers = &sim->group_hiers[at];
		for (i = 0; i < sim->nr_h; i++) {
			if (sim->h[i].group != g)
				continue;
			grp->hiers[grp->nr_hiers++] = &sim->h[i];
			grp->cost += hier_cost(&sim->h[i]);
		}
		at += grp->nr_hiers;
		sim->nr_groups++;
	}
	for (i = 0; i < threads; i++) {
		struct cs_job *j = &sim->jobs[i];

		j->run = sim->run;
		j->counts = calloc(sim->nr_rows, sizeof(*j->counts));
		if (!j->counts)
			return -ENOMEM;
		j->run.counts = j->counts;
		j->nr_rows = sim->nr_rows;
		j->groups = &sim->job_groups[(size_t)i * nr_groups];
	}
	deal(sim, false);
	return vmt_work_pool_create(&sim->pool, threads - 1, threads - 1, false, job_run, job_done,
				    sim);
}

/* ---- The analysis: records to accesses ---- */

struct cs_analysis {
	struct vmt_analysis base;
	struct vmt_cachesim *sim;
};

static int simulate(struct vmt_cachesim *sim, const struct vmt_cache_access *a)
{
	if ((sim->o.addr_lo || sim->o.addr_hi) &&
	    (a->addr < sim->o.addr_lo || a->addr >= sim->o.addr_hi)) {
		sim->totals.out_of_range++;
		return 0;
	}
	return sim->pool ? enqueue(sim, a) : vmt_cachesim_access(sim, a);
}

/* The split part thread @tid holds back, or NULL. */
static struct vmt_cache_access *pending_of(struct vmt_cachesim *sim, uint32_t tid, bool make)
{
	uint64_t *slot;
	bool added;

	if (!make) {
		slot = vmt_u64_map_get(&sim->split_index, tid);
		return slot && sim->pending_valid[*slot] ? &sim->pending[*slot] : NULL;
	}
	slot = vmt_u64_map_put(&sim->split_index, tid, &added);
	if (!slot)
		return NULL;
	if (added) {
		uint64_t room = sim->pending_room;

		if (vmt_grow_array((void **)&sim->pending, &sim->pending_room, sim->nr_pending + 1,
				   sizeof(*sim->pending)) ||
		    vmt_grow_array((void **)&sim->pending_valid, &room, sim->nr_pending + 1,
				   sizeof(*sim->pending_valid)))
			return NULL;
		*slot = sim->nr_pending++;
	}
	sim->pending_valid[*slot] = true;
	sim->nr_waiting++;
	return &sim->pending[*slot];
}

static int flush_pending(struct vmt_cachesim *sim, struct vmt_cache_access *p)
{
	struct vmt_cache_access a = *p;

	/* Simulated now, after the records since its first part: their time or later. */
	if (a.time < sim->now)
		a.time = sim->now;

	sim->pending_valid[p - sim->pending] = false;
	sim->nr_waiting--;
	return simulate(sim, &a);
}

static int exact_access(struct vmt_cachesim *sim, const struct vmt_record *rec)
{
	const struct vmt_exact *e = &rec->exact;
	struct vmt_cache_access a = {
		.addr = e->addr, .ip = e->ip, .size = e->size ? e->size : 1,
		.pid = rec->hdr.pid, .tid = rec->hdr.tid, .cpu = rec->hdr.cpu,
		.access = e->access, .time = rec->hdr.time_ns,
	};
	struct vmt_cache_access *p = sim->nr_waiting ? pending_of(sim, a.tid, false) : NULL;
	int ret;

	sim->totals.exact_records++;
	if (sim->o.physical) {
		sim->totals.no_frame++;
		return 0;
	}
	if (p) {
		if ((e->flags & VMT_EXACT_SPLIT) && p->ip == a.ip && p->access == a.access &&
		    p->addr + p->size == a.addr) {
			p->size += a.size;
			sim->totals.merged_splits++;
			return flush_pending(sim, p);
		}
		ret = flush_pending(sim, p);
		if (ret)
			return ret;
	}
	if (e->flags & VMT_EXACT_SPLIT) {
		p = pending_of(sim, a.tid, true);
		if (!p)
			return -ENOMEM;
		*p = a;
		return 0;
	}
	return simulate(sim, &a);
}

static int reference_access(struct vmt_cachesim *sim, const struct vmt_record *rec)
{
	const struct vmt_reference *r = &rec->ref;
	struct vmt_cache_access a = {
		.addr = r->vaddr, .ip = r->ip, .size = 1,
		.pid = rec->hdr.pid, .tid = rec->hdr.tid, .cpu = rec->hdr.cpu,
		.huge = r->flags & VMT_REF_HUGE, .time = rec->hdr.time_ns,
	};

	sim->totals.reference_records++;
	a.access = r->access & VMT_ACCESS_EXEC ? VMT_ACCESS_EXEC :
		   r->access & VMT_ACCESS_WRITE ? VMT_ACCESS_WRITE : VMT_ACCESS_READ;
	if (sim->o.physical) {
		if (!r->pfn) {
			sim->totals.no_frame++;
			return 0;
		}
		a.addr = r->pfn << 12 | (r->vaddr & 0xfff);
		a.pid = 0;
	}
	return simulate(sim, &a);
}

static int end_phase(struct vmt_cachesim *sim)
{
	int ret = flush_jobs(sim);

	if (ret)
		return ret;
	if (vmt_grow_array((void **)&sim->phase_ends, &sim->phase_room,
			   (sim->nr_phase_ends + 1) * sim->nr_rows, sizeof(*sim->phase_ends)))
		return -ENOMEM;
	memcpy(&sim->phase_ends[sim->nr_phase_ends * sim->nr_rows], sim->counts,
	       sim->nr_rows * sizeof(*sim->counts));
	sim->nr_phase_ends++;
	return 0;
}

static int cs_record(struct vmt_analysis *analysis, const struct vmt_record *rec)
{
	struct vmt_cachesim *sim = ((struct cs_analysis *)analysis)->sim;

	if (sim->now < rec->hdr.time_ns)
		sim->now = rec->hdr.time_ns;
	switch (rec->hdr.type) {
	case VMT_REC_EXACT:
		return exact_access(sim, rec);
	case VMT_REC_REFERENCE:
		return reference_access(sim, rec);
	case VMT_REC_MARKER:
		return sim->o.by_marker ? end_phase(sim) : 0;
	default:
		return 0;
	}
}

static int cs_reference(struct vmt_analysis *analysis, const struct vmt_ref *ref)
{
	(void)analysis;
	(void)ref;
	return 0;	/* record() has simulated it already, with its byte address */
}

static int cs_finish(struct vmt_analysis *analysis)
{
	struct vmt_cachesim *sim = ((struct cs_analysis *)analysis)->sim;
	uint64_t i;
	int ret;

	for (i = 0; i < sim->nr_pending; i++) {
		if (!sim->pending_valid[i])
			continue;
		ret = flush_pending(sim, &sim->pending[i]);
		if (ret)
			return ret;
	}
	return flush_jobs(sim);
}

static void cs_destroy(struct vmt_analysis *analysis)
{
	free(analysis);
}

static const struct vmt_analysis_ops cs_ops = {
	.name = "cachesim",
	.reference = cs_reference,
	.record = cs_record,
	.finish = cs_finish,
	.destroy = cs_destroy,
};

int vmt_cachesim_analysis(struct vmt_cachesim *sim, struct vmt_analysis **analysis)
{
	struct cs_analysis *a = calloc(1, sizeof(*a));

	if (!a)
		return -ENOMEM;
	a->base.ops = &cs_ops;
	a->sim = sim;
	*analysis = &a->base;
	return 0;
}

/* ---- Results ---- */

void vmt_cachesim_totals(const struct vmt_cachesim *sim, struct vmt_cachesim_totals *totals)
{
	*totals = sim->totals;
	totals->phases = sim->o.by_marker ? sim->nr_phase_ends + 1 : 1;
}

static void counts_sub(struct vmt_cache_counts *d, const struct vmt_cache_counts *a,
		       const struct vmt_cache_counts *b)
{
	const uint64_t *pa = (const uint64_t *)a, *pb = (const uint64_t *)b;
	uint64_t *pd = (uint64_t *)d;
	size_t i;

	for (i = 0; i < sizeof(*d) / sizeof(uint64_t); i++)
		pd[i] = pa[i] - (pb ? pb[i] : 0);
}

/* Append the rows of one set of counts (@counts, less @base when not NULL). */
static void add_rows(const struct vmt_cachesim *sim, const struct vmt_cache_counts *counts,
		     const struct vmt_cache_counts *base, uint32_t id, uint32_t phase,
		     struct vmt_cachesim_row *rows, size_t *n)
{
	bool fetched = sim->totals.fetches > 0;
	unsigned int hi, r;

	for (hi = 0; hi < sim->nr_h; hi++) {
		const struct cs_hier *h = &sim->h[hi];

		for (r = 0; r < h->nr_rows; r++) {
			const struct cs_row *cr = &h->rows[r];
			struct vmt_cachesim_row *row = &rows[*n];
			unsigned int g = h->row_base + r;

			if (cr->fetch_half && !fetched)
				continue;
			memset(row, 0, sizeof(*row));
			row->hierarchy = hi;
			row->tlb = cr->tlb;
			row->fetch = cr->fetch;
			row->id = id;
			row->phase = phase;
			snprintf(row->level, sizeof(row->level), "%s%s", cr->name,
				 !fetched ? "" : cr->fetch_half ? "I" : cr->data_half ? "D" : "");
			if (cr->copy_from >= 0)
				g = (unsigned int)cr->copy_from;
			counts_sub(&row->counts, &counts[g], base ? &base[g] : NULL);
			(*n)++;
		}
	}
}

int vmt_cachesim_rows(const struct vmt_cachesim *sim, struct vmt_cachesim_row **rowsp, size_t *nr)
{
	uint64_t sets = 1 + sim->nr_ent, p;
	struct vmt_cachesim_row *rows;
	size_t n = 0, e;

	if (sim->o.by_marker)
		sets = sim->nr_phase_ends + 1;
	rows = calloc(sets * sim->nr_rows + 1, sizeof(*rows));
	if (!rows)
		return -ENOMEM;
	if (sim->o.by_marker) {
		for (p = 0; p <= sim->nr_phase_ends; p++) {
			const struct vmt_cache_counts *end = p < sim->nr_phase_ends ?
				&sim->phase_ends[p * sim->nr_rows] : sim->counts;
			const struct vmt_cache_counts *start = p ?
				&sim->phase_ends[(p - 1) * sim->nr_rows] : NULL;

			add_rows(sim, end, start, VMT_CACHESIM_ALL, (uint32_t)p, rows, &n);
		}
	} else {
		add_rows(sim, sim->counts, NULL, VMT_CACHESIM_ALL, 0, rows, &n);
		for (e = 0; e < sim->nr_ent; e++)
			add_rows(sim, &sim->ent_counts[e * sim->nr_rows], NULL, sim->ent_ids[e], 0,
				 rows, &n);
	}
	*rowsp = rows;
	*nr = n;
	return 0;
}

static int top_cmp(const void *a, const void *b)
{
	const struct vmt_cachesim_top *x = a, *y = b;

	if (x->misses != y->misses)
		return x->misses < y->misses ? 1 : -1;
	if (x->l1_misses != y->l1_misses)
		return x->l1_misses < y->l1_misses ? 1 : -1;
	return x->ip < y->ip ? -1 : x->ip > y->ip;
}

int vmt_cachesim_top(const struct vmt_cachesim *sim, unsigned int hi,
		     struct vmt_cachesim_top **topp, size_t *nr)
{
	const struct cs_hier *h;
	struct vmt_cachesim_top *top;
	uint64_t i;

	if (hi >= sim->nr_h)
		return -EINVAL;
	h = &sim->h[hi];
	top = calloc(h->nr_top + 1, sizeof(*top));
	if (!top)
		return -ENOMEM;
	for (i = 0; i < h->nr_top; i++) {
		top[i].ip = h->top[i].ip;
		top[i].pid = h->top[i].pid;
		top[i].misses = h->top[i].misses;
		top[i].l1_misses = h->top[i].l1_misses;
	}
	qsort(top, h->nr_top, sizeof(*top), top_cmp);
	*nr = h->nr_top < sim->o.top ? h->nr_top : sim->o.top;
	*topp = top;
	return 0;
}
