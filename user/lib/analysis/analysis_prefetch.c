// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * HMTT's prefetch rate (formula (2)): a sequential prefetcher at the
 * memory controller modelled over the references' lines, its prefetches
 * against all the DRAM accesses (vmtrace/analysis.h states the model;
 * docs/analysis/hmtt.md).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "vmtrace/analysis.h"
#include "analysis/analysis_util.h"

/*
 * A tracker: the line it saw last, the last it prefetched (@last when none
 * is ahead: ahead >= last always), the contiguous lines it has seen (up to
 * VMT_PREFETCH_CONFIRM), and when it was last used (0: never, free). A
 * table is @trackers of them and a clock; a lookup scans them all (the
 * default table is 8), O(trackers) an access.
 */
struct tracker {
	uint64_t last;
	uint64_t ahead;
	uint64_t stamp;
	unsigned int seen;
};

struct table {
	struct tracker *t;
	uint64_t clock;
};

struct prefetch {
	struct vmt_analysis analysis;
	struct vmt_ref_options options;
	struct vmt_prefetch_config config;
	struct vmt_u64_map table_of;	/* pid -> index in @tables (per process) */
	struct table *tables;
	size_t nr, room;
	struct vmt_prefetch_result result;
};

static struct prefetch *to_prefetch(const struct vmt_analysis *a)
{
	return (struct prefetch *)a;
}

static struct table *prefetch_table(struct prefetch *p, uint32_t pid)
{
	uint64_t *slot = NULL;
	bool added = p->nr == 0;
	struct table *table;

	if (p->config.per_process) {
		slot = vmt_u64_map_put(&p->table_of, pid, &added);
		if (!slot)
			return NULL;
		if (!added)
			return &p->tables[*slot];
	} else if (!added) {
		return &p->tables[0];
	}
	if (p->nr == p->room) {
		size_t room = p->room ? p->room * 2 : 16;
		struct table *grown = realloc(p->tables, room * sizeof(*grown));

		if (!grown)
			return NULL;
		p->tables = grown;
		p->room = room;
	}
	table = &p->tables[p->nr];
	table->t = calloc(p->config.trackers, sizeof(*table->t));
	if (!table->t)
		return NULL;
	table->clock = 0;
	if (slot)
		*slot = p->nr;
	p->nr++;
	p->result.tables = p->nr;
	return table;
}

static void prefetch_access(struct prefetch *p, struct table *table, uint64_t x)
{
	struct vmt_prefetch_result *r = &p->result;
	struct tracker *best = NULL, *victim = NULL, *t;
	unsigned int i;
	uint64_t from;

	for (i = 0; i < p->config.trackers; i++) {
		t = &table->t[i];
		if (!t->stamp) {
			if (!victim || victim->stamp)
				victim = t;
			continue;
		}
		if (!victim || (victim->stamp && t->stamp < victim->stamp))
			victim = t;
		/* X = L, or L < X <= max(L + 1, P) */
		if ((x == t->last || (x > t->last && x <= (t->ahead > t->last ? t->ahead :
							    t->last + 1))) &&
		    (!best || t->stamp > best->stamp))
			best = t;
	}
	r->accesses++;
	if (!best) {
		r->demand++;
		*victim = (struct tracker){ .last = x, .ahead = x, .seen = 1,
					    .stamp = ++table->clock };
		return;
	}
	best->stamp = ++table->clock;
	if (x == best->last) {
		r->repeats++;
		return;
	}
	if (x <= best->ahead) {
		r->served++;
	} else {
		r->demand++;
		best->ahead = x;
	}
	best->last = x;
	if (best->seen < VMT_PREFETCH_CONFIRM && ++best->seen == VMT_PREFETCH_CONFIRM)
		r->streams++;
	if (best->seen < VMT_PREFETCH_CONFIRM)
		return;
	from = best->ahead + 1;	/* ahead >= x */
	if (x + p->config.degree >= from) {
		r->prefetches += x + p->config.degree - from + 1;
		best->ahead = x + p->config.degree;
	}
}

static int prefetch_record(struct vmt_analysis *a, const struct vmt_record *rec)
{
	struct prefetch *p = to_prefetch(a);
	struct table *table;
	struct vmt_ref ref;

	if (!vmt_ref_from_record(rec, &p->options, &ref)) {
		/* Physical: a reference without a frame (an exact access has none), not one out of --addr. */
		if (p->options.space == VMT_REF_PHYSICAL &&
		    (p->options.source == VMT_REF_EXACT ? rec->hdr.type == VMT_REC_EXACT :
		     rec->hdr.type == VMT_REC_REFERENCE && !rec->ref.pfn))
			p->result.no_frame++;
		return 0;
	}
	table = prefetch_table(p, ref.pid);
	if (!table)
		return -ENOMEM;
	prefetch_access(p, table, ref.addr >> VMT_REF_LINE_SHIFT);
	return 0;
}

static void prefetch_destroy(struct vmt_analysis *a)
{
	struct prefetch *p = to_prefetch(a);

	for (size_t i = 0; i < p->nr; i++)
		free(p->tables[i].t);
	free(p->tables);
	vmt_u64_map_free(&p->table_of);
	free(p);
}

static const struct vmt_analysis_ops prefetch_ops = {
	.name = "prefetch",
	.reference = vmt_analysis_no_reference,
	.record = prefetch_record,
	.destroy = prefetch_destroy,
};

int vmt_prefetch_create(struct vmt_analysis **analysis, const struct vmt_ref_options *options,
			const struct vmt_prefetch_config *config)
{
	struct prefetch *p;

	if (config->trackers < 1 || config->trackers > VMT_PREFETCH_MAX_TRACKERS ||
	    config->degree < 1 || config->degree > VMT_PREFETCH_MAX_DEGREE ||
	    options->space > VMT_REF_PHYSICAL || options->source > VMT_REF_EXACT)
		return -EINVAL;
	p = calloc(1, sizeof(*p));
	if (!p)
		return -ENOMEM;
	if (vmt_u64_map_init(&p->table_of)) {
		free(p);
		return -ENOMEM;
	}
	p->analysis.ops = &prefetch_ops;
	p->options = *options;
	/* The controller fetches lines, whatever unit the other analyses count in. */
	p->options.unit = VMT_REF_LINE;
	p->config = *config;
	*analysis = &p->analysis;
	return 0;
}

const struct vmt_prefetch_result *vmt_prefetch_result(const struct vmt_analysis *analysis)
{
	return &to_prefetch(analysis)->result;
}

double vmt_prefetch_rate(const struct vmt_analysis *analysis)
{
	const struct vmt_prefetch_result *r = &to_prefetch(analysis)->result;
	uint64_t dram = r->demand + r->prefetches;

	return dram ? 100.0 * (double)r->prefetches / (double)dram : 0.0;
}
