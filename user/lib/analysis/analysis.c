// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * The analyses' driver (vmtrace/analysis.h): one pass over a trace in time
 * order, references as struct vmt_ref, each handed to every analysis; or a
 * part's pass (vmt_analyze_part()), whose analyses are packed and merged
 * before they finish; and the per-process analysis, which packs and merges
 * each process's analysis when they do.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "vmtrace/analysis.h"
#include "base/pack.h"
#include "base/u64_map.h"

int vmt_ref_from_record(const struct vmt_record *rec, const struct vmt_ref_options *options,
			struct vmt_ref *ref)
{
	bool exact = options->source == VMT_REF_EXACT;
	bool huge = !exact && (rec->ref.flags & VMT_REF_HUGE);
	unsigned int shift;
	uint64_t addr;

	if (rec->hdr.type != (exact ? VMT_REC_EXACT : VMT_REC_REFERENCE))
		return 0;
	if (options->unit == VMT_REF_LINE)
		shift = VMT_REF_LINE_SHIFT;
	else
		shift = huge ? VMT_REF_HUGE_SHIFT : VMT_REF_PAGE_SHIFT;
	if (exact) {
		/* An exact access has no frame: in the physical space, none. */
		if (options->space == VMT_REF_PHYSICAL)
			return 0;
		addr = rec->exact.addr;
		/*
		 * A virtual unit's key holds 48 bits of address (vmt_ref_key()),
		 * all a user address has; an imported one may have more: left
		 * out, and counted as out of range.
		 */
		if (addr >> 48)
			return 0;
	} else if (options->space == VMT_REF_PHYSICAL) {
		if (!rec->ref.pfn)
			return 0;
		/* The frame the record names holds the page; the offset is the address's. */
		addr = rec->ref.pfn << VMT_REF_PAGE_SHIFT |
		       (rec->ref.vaddr & ((UINT64_C(1) << VMT_REF_PAGE_SHIFT) - 1));
	} else {
		addr = rec->ref.vaddr;
	}
	if ((options->addr_lo || options->addr_hi) &&
	    (addr < options->addr_lo || addr >= options->addr_hi))
		return 0;
	addr &= ~((UINT64_C(1) << shift) - 1);
	ref->key = vmt_ref_key(options->space, rec->hdr.pid, addr, shift);
	ref->addr = addr;
	ref->time_ns = rec->hdr.time_ns;
	ref->pid = rec->hdr.pid;
	ref->tid = rec->hdr.tid;
	ref->size = UINT32_C(1) << shift;
	ref->cpu = rec->hdr.cpu;
	ref->access = exact ? rec->exact.access : rec->ref.access;
	ref->kernel_mode = exact ? rec->exact.kernel_mode : rec->ref.kernel_mode;
	return 1;
}

static int vmt_analyze_record(const struct vmt_record *rec, const struct vmt_ref_options *options,
			      struct vmt_analysis *const *analyses, unsigned int n,
			      struct vmt_analyze_stats *stats)
{
	struct vmt_ref ref;
	unsigned int i;
	int ret;

	stats->records++;
	for (i = 0; i < n; i++) {
		if (analyses[i]->ops->record) {
			ret = analyses[i]->ops->record(analyses[i], rec);
			if (ret)
				return ret;
		}
	}
	if (!vmt_ref_from_record(rec, options, &ref)) {
		bool exact = options->source == VMT_REF_EXACT;

		if (rec->hdr.type != (exact ? VMT_REC_EXACT : VMT_REC_REFERENCE))
			return 0;
		if (options->space == VMT_REF_PHYSICAL && (exact || !rec->ref.pfn))
			stats->no_frame++;
		else
			stats->out_of_range++;
		return 0;
	}
	ref.index = stats->references++;
	if (!stats->first_ns)
		stats->first_ns = ref.time_ns;
	stats->last_ns = ref.time_ns;
	for (i = 0; i < n; i++) {
		ret = analyses[i]->ops->reference(analyses[i], &ref);
		if (ret)
			return ret;
	}
	return 0;
}

int vmt_analyze(struct vmt_trace *trace, const struct vmt_ref_options *options,
		struct vmt_analysis *const *analyses, unsigned int nr_analyses,
		struct vmt_analyze_stats *stats)
{
	struct vmt_analyze_stats own;
	unsigned int i;
	int ret;

	if (!stats)
		stats = &own;
	ret = vmt_analyze_part(trace, options, analyses, nr_analyses, stats);
	for (i = 0; !ret && i < nr_analyses; i++) {
		ret = vmt_analysis_finish(analyses[i]);
		stats->analysis_error = ret != 0;
	}
	return ret;
}

int vmt_analysis_finish(struct vmt_analysis *analysis)
{
	return analysis->ops->finish ? analysis->ops->finish(analysis) : 0;
}

int vmt_analysis_pack(struct vmt_analysis *analysis, void **data, size_t *size)
{
	return analysis->ops->pack ? analysis->ops->pack(analysis, data, size) : -EOPNOTSUPP;
}

bool vmt_analysis_splits(const struct vmt_analysis *analysis)
{
	const struct vmt_analysis_ops *ops = analysis->ops;

	return ops->pack && ops->merge && (!ops->splits || ops->splits(analysis));
}

int vmt_analysis_merge(struct vmt_analysis *analysis, const void *data, size_t size)
{
	return analysis->ops->merge ? analysis->ops->merge(analysis, data, size) : -EOPNOTSUPP;
}

void vmt_analyze_stats_merge(struct vmt_analyze_stats *stats,
			     const struct vmt_analyze_stats *later)
{
	stats->records += later->records;
	stats->references += later->references;
	stats->no_frame += later->no_frame;
	stats->out_of_range += later->out_of_range;
	if (later->references) {
		if (!stats->first_ns)
			stats->first_ns = later->first_ns;
		stats->last_ns = later->last_ns;
	}
	stats->analysis_error |= later->analysis_error;
}

int vmt_analyze_part(struct vmt_trace *trace, const struct vmt_ref_options *options,
		     struct vmt_analysis *const *analyses, unsigned int nr_analyses,
		     struct vmt_analyze_stats *stats)
{
	struct vmt_analyze_stats own;
	struct vmt_trace_cursor *cursor;
	const struct vmt_record *rec;
	uint32_t stream;
	int ret;

	if (!stats)
		stats = &own;
	memset(stats, 0, sizeof(*stats));
	if (options->space > VMT_REF_PHYSICAL || options->unit > VMT_REF_LINE ||
	    options->addr_lo > options->addr_hi) {
		stats->analysis_error = true;
		return -EINVAL;
	}
	ret = vmt_trace_cursor_create(trace, VMT_ORDER_TIME, &cursor);
	if (ret)
		return ret;
	while ((ret = vmt_trace_cursor_next(cursor, &rec, &stream)) == 1) {
		ret = vmt_analyze_record(rec, options, analyses, nr_analyses, stats);
		if (ret) {
			stats->analysis_error = true;
			break;
		}
	}
	vmt_trace_cursor_free(cursor);
	return ret;
}

void vmt_analysis_destroy(struct vmt_analysis *analysis)
{
	if (analysis)
		analysis->ops->destroy(analysis);
}

/* ---- Per process ---------------------------------------------------------- */

struct per_process {
	struct vmt_analysis analysis;
	vmt_analysis_create_fn create;
	void *ctx;
	struct vmt_u64_map index;	/* pid -> its place in @subs */
	struct vmt_analysis **subs;
	uint32_t *pids;
	unsigned int nr, room;
	uint16_t first_type;	/* the record type of a process's first reference */
};

static struct per_process *to_per_process(const struct vmt_analysis *a)
{
	return (struct per_process *)a;
}

/* The analysis of @pid, made at its first reference; NULL and *@err set on failure. */
static struct vmt_analysis *per_process_sub(struct per_process *pp, uint32_t pid, int *err)
{
	uint64_t *slot;
	bool added;

	slot = vmt_u64_map_put(&pp->index, pid, &added);
	if (!slot) {
		*err = -ENOMEM;
		return NULL;
	}
	if (!added)
		return pp->subs[*slot];
	if (pp->nr == pp->room) {
		unsigned int room = pp->room ? pp->room * 2 : 16;
		struct vmt_analysis **subs = realloc(pp->subs, room * sizeof(*subs));
		uint32_t *pids = subs ? realloc(pp->pids, room * sizeof(*pids)) : NULL;

		if (subs)
			pp->subs = subs;
		if (!subs || !pids) {
			*err = -ENOMEM;
			return NULL;
		}
		pp->pids = pids;
		pp->room = room;
	}
	*err = pp->create(pp->ctx, pid, &pp->subs[pp->nr]);
	if (*err)
		return NULL;
	pp->pids[pp->nr] = pid;
	*slot = pp->nr;
	return pp->subs[pp->nr++];
}

static int per_process_reference(struct vmt_analysis *a, const struct vmt_ref *ref)
{
	struct per_process *pp = to_per_process(a);
	struct vmt_analysis *sub;
	int err = 0;

	sub = per_process_sub(pp, ref->pid, &err);
	return sub ? sub->ops->reference(sub, ref) : err;
}

static int per_process_record(struct vmt_analysis *a, const struct vmt_record *rec)
{
	struct per_process *pp = to_per_process(a);
	uint64_t *slot = vmt_u64_map_get(&pp->index, rec->hdr.pid);
	unsigned int i;
	int err;

	if (rec->hdr.type == pp->first_type) {
		/* A process's first reference makes its analysis, which sees this record. */
		struct vmt_analysis *sub = per_process_sub(pp, rec->hdr.pid, &err);

		if (!sub)
			return err;
		return sub->ops->record ? sub->ops->record(sub, rec) : 0;
	}
	/* Another process's, or from before this one's first reference: not its. */
	if (!slot)
		return 0;
	i = *slot;
	return pp->subs[i]->ops->record ? pp->subs[i]->ops->record(pp->subs[i], rec) : 0;
}

static int per_process_finish(struct vmt_analysis *a)
{
	struct per_process *pp = to_per_process(a);
	unsigned int i;
	int err;

	for (i = 0; i < pp->nr; i++) {
		if (pp->subs[i]->ops->finish) {
			err = pp->subs[i]->ops->finish(pp->subs[i]);
			if (err)
				return err;
		}
	}
	return 0;
}

static void per_process_destroy(struct vmt_analysis *a)
{
	struct per_process *pp = to_per_process(a);
	unsigned int i;

	for (i = 0; i < pp->nr; i++)
		vmt_analysis_destroy(pp->subs[i]);
	free(pp->subs);
	free(pp->pids);
	vmt_u64_map_free(&pp->index);
	free(pp);
}

/* Packed: the processes in order of first reference, each its pid and its analysis packed. */
static int per_process_pack(struct vmt_analysis *a, void **data, size_t *size)
{
	struct per_process *pp = to_per_process(a);
	struct vmt_packer p = { 0 };
	int err = 0;

	vmt_pack_u64(&p, pp->nr);
	for (unsigned int i = 0; !err && i < pp->nr; i++) {
		void *sub;
		size_t len;

		err = vmt_analysis_pack(pp->subs[i], &sub, &len);
		if (err)
			break;
		vmt_pack_u64(&p, pp->pids[i]);
		vmt_pack_bytes(&p, sub, len);
		free(sub);
	}
	if (err) {
		vmt_buf_free(&p.buf);
		return err;
	}
	return vmt_pack_done(&p, data, size);
}

/* A later part's processes: each merged into its analysis, made if the process is new. */
static int per_process_merge(struct vmt_analysis *a, const void *data, size_t size)
{
	struct per_process *pp = to_per_process(a);
	struct vmt_unpacker u = { .p = data, .end = (const uint8_t *)data + size };
	uint64_t n = vmt_unpack_u64(&u);
	int err = 0;

	for (uint64_t i = 0; !err && !u.err && i < n; i++) {
		uint32_t pid = (uint32_t)vmt_unpack_max(&u, UINT32_MAX);
		const void *sub_data;
		struct vmt_analysis *sub;
		size_t len;

		sub_data = vmt_unpack_span(&u, &len);
		if (u.err)
			break;
		sub = per_process_sub(pp, pid, &err);
		if (sub)
			err = vmt_analysis_merge(sub, sub_data, len);
	}
	if (!err && (u.err || u.p != u.end))
		err = -EBADMSG;
	return err;
}

/*
 * The processes' analyses are made alike, as the processes appear: one
 * made already (a heatmap's, past its survey) or, before any, one made now
 * says whether they all split.
 */
static bool per_process_splits(const struct vmt_analysis *a)
{
	const struct per_process *pp = (const struct per_process *)a;
	struct vmt_analysis *probe = NULL;
	bool splits;

	if (pp->nr)
		return vmt_analysis_splits(pp->subs[0]);
	if (pp->create(pp->ctx, 0, &probe) || !probe)
		return false;
	splits = vmt_analysis_splits(probe);
	vmt_analysis_destroy(probe);
	return splits;
}

static const struct vmt_analysis_ops per_process_ops = {
	.name = "per-process",
	.reference = per_process_reference,
	.record = per_process_record,
	.finish = per_process_finish,
	.destroy = per_process_destroy,
	.pack = per_process_pack,
	.merge = per_process_merge,
	.splits = per_process_splits,
};

void vmt_per_process_set_source(struct vmt_analysis *analysis, enum vmt_ref_source source)
{
	to_per_process(analysis)->first_type = source == VMT_REF_EXACT ? VMT_REC_EXACT :
					       VMT_REC_REFERENCE;
}

int vmt_per_process_create(struct vmt_analysis **analysis, vmt_analysis_create_fn create,
			   void *ctx)
{
	struct per_process *pp = calloc(1, sizeof(*pp));

	if (!pp)
		return -ENOMEM;
	pp->first_type = VMT_REC_REFERENCE;
	if (vmt_u64_map_init(&pp->index)) {
		free(pp);
		return -ENOMEM;
	}
	pp->analysis.ops = &per_process_ops;
	pp->create = create;
	pp->ctx = ctx;
	*analysis = &pp->analysis;
	return 0;
}

unsigned int vmt_per_process_count(const struct vmt_analysis *analysis)
{
	return to_per_process(analysis)->nr;
}

struct vmt_analysis *vmt_per_process_get(const struct vmt_analysis *analysis, unsigned int i,
					 uint32_t *pid)
{
	const struct per_process *pp = to_per_process(analysis);

	if (i >= pp->nr)
		return NULL;
	*pid = pp->pids[i];
	return pp->subs[i];
}
