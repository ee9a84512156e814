// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * HMTT's virtual-to-physical analysis: how often pages and frames were
 * mapped, and how often virtually adjacent pages are physically adjacent
 * (vmtrace/analysis.h; docs/analysis/hmtt.md).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "vmtrace/analysis.h"
#include "analysis/analysis_util.h"

/*
 * Two tables of the same shape, one a side of the mapping: pages (key:
 * vmt_ref_key() of (pid, 4 KiB page)) with the frame each was last seen
 * at, and frames with the page each last held. A sighting of (page, frame)
 * is a new mapping on a side whose entry held something else or was
 * unmapped since. Memory: an entry a page and a frame seen; the entries
 * stay in the order first seen (vmt_v2p_next_page()).
 */
struct v2p_entry {
	uint64_t key;		/* its own key (vmt_v2p_next_page()) */
	uint64_t last;		/* the other side's key last seen */
	uint64_t mappings;
	bool mapped;
};

struct v2p_side {
	struct vmt_u64_map index;	/* key -> its entry in @entries */
	struct v2p_entry *entries;
	size_t nr, room;
	struct vmt_hist_bucket *hist;	/* by mappings, made by finish() */
	size_t nr_hist;
};

struct v2p {
	struct vmt_analysis analysis;
	struct v2p_side pages, frames;
	struct vmt_v2p_result result;
};

static struct v2p *to_v2p(const struct vmt_analysis *a)
{
	return (struct v2p *)a;
}

/* @key's entry, made unmapped when new; NULL: no memory. */
static struct v2p_entry *v2p_entry(struct v2p_side *side, uint64_t key)
{
	uint64_t *slot;
	bool added;

	slot = vmt_u64_map_put(&side->index, key, &added);
	if (!slot)
		return NULL;
	if (!added)
		return &side->entries[*slot];
	if (side->nr == side->room) {
		size_t room = side->room ? side->room * 2 : 1024;
		struct v2p_entry *grown = realloc(side->entries, room * sizeof(*grown));

		if (!grown)
			return NULL;
		side->entries = grown;
		side->room = room;
	}
	*slot = side->nr;
	memset(&side->entries[side->nr], 0, sizeof(side->entries[0]));
	side->entries[side->nr].key = key;
	return &side->entries[side->nr++];
}

static int v2p_see(struct v2p_side *side, uint64_t key, uint64_t other)
{
	struct v2p_entry *e = v2p_entry(side, key);

	if (!e)
		return -ENOMEM;
	if (!e->mapped || e->last != other)
		e->mappings++;
	e->mapped = true;
	e->last = other;
	return 0;
}

static int v2p_record(struct vmt_analysis *a, const struct vmt_record *rec)
{
	struct v2p *v = to_v2p(a);
	uint64_t vaddr, pfn, page, n = 1;
	struct v2p_entry *e;
	int err;

	switch (rec->hdr.type) {
	case VMT_REC_REFERENCE:
	case VMT_REC_EVICT:
		vaddr = rec->ref.vaddr;
		pfn = rec->ref.pfn;
		break;
	case VMT_REC_PAGEMAP:
		vaddr = rec->pagemap.vaddr;
		pfn = rec->pagemap.pfn;
		break;
	default:
		return 0;
	}
	if (!pfn)
		return 0;
	/* A THP's PAGEMAP record is its 512 pages, at its 512 frames from the first. */
	if (rec->hdr.type == VMT_REC_PAGEMAP && rec->pagemap.huge)
		n = UINT64_C(1) << (VMT_REF_HUGE_SHIFT - VMT_REF_PAGE_SHIFT);
	if (rec->hdr.type == VMT_REC_PAGEMAP && rec->pagemap.op == VMT_PAGEMAP_UNMAP)
		v->result.unmaps++;
	else
		v->result.sightings++;
	for (uint64_t i = 0; i < n; i++) {
		page = vmt_ref_key(VMT_REF_VIRTUAL, rec->hdr.pid, vaddr + (i << VMT_REF_PAGE_SHIFT),
				   VMT_REF_PAGE_SHIFT);
		if (rec->hdr.type == VMT_REC_PAGEMAP && rec->pagemap.op == VMT_PAGEMAP_UNMAP) {
			e = v2p_entry(&v->pages, page);
			if (!e)
				return -ENOMEM;
			e->mapped = false;
			e = v2p_entry(&v->frames, pfn + i);
			if (!e)
				return -ENOMEM;
			if (e->last == page)
				e->mapped = false;
			continue;
		}
		err = v2p_see(&v->pages, page, pfn + i);
		if (!err)
			err = v2p_see(&v->frames, pfn + i, page);
		if (err)
			return err;
	}
	return 0;
}

/* A side's count, mappings, remapped entries and histogram. */
static int v2p_side_finish(struct v2p_side *side, uint64_t *count, uint64_t *mappings,
			   uint64_t *remapped)
{
	uint64_t counts[VMT_VALUE_BUCKETS] = { 0 };
	size_t i;

	*count = side->nr;
	*mappings = *remapped = 0;
	for (i = 0; i < side->nr; i++) {
		uint64_t m = side->entries[i].mappings;

		/* An entry made by an unmap alone was never seen mapped. */
		if (!m) {
			(*count)--;
			continue;
		}
		*mappings += m;
		*remapped += m > 1;
		counts[vmt_value_bucket(m)]++;
	}
	free(side->hist);
	return vmt_value_hist_compact(counts, &side->hist, &side->nr_hist);
}

static int v2p_finish(struct vmt_analysis *a)
{
	struct v2p *v = to_v2p(a);
	struct vmt_v2p_result *r = &v->result;
	uint64_t key, value, *next;
	size_t pos = 0;
	int err;

	err = v2p_side_finish(&v->pages, &r->pages, &r->page_mappings, &r->remapped_pages);
	if (!err)
		err = v2p_side_finish(&v->frames, &r->frames, &r->frame_mappings,
				      &r->remapped_frames);
	if (err)
		return err;
	/*
	 * Contiguity: a key's page number is its low bits, so key + 1 is the
	 * next page of the same process (no user page number reaches 2^42 - 1).
	 */
	r->adjacent_pairs = r->contiguous_pairs = 0;
	while (vmt_u64_map_next(&v->pages.index, &pos, &key, &value)) {
		const struct v2p_entry *e = &v->pages.entries[value];

		next = vmt_u64_map_get(&v->pages.index, key + 1);
		if (!e->mappings || !next || !v->pages.entries[*next].mappings)
			continue;
		r->adjacent_pairs++;
		r->contiguous_pairs += v->pages.entries[*next].last == e->last + 1;
	}
	return 0;
}

static void v2p_side_free(struct v2p_side *side)
{
	vmt_u64_map_free(&side->index);
	free(side->entries);
	free(side->hist);
}

static void v2p_destroy(struct vmt_analysis *a)
{
	struct v2p *v = to_v2p(a);

	v2p_side_free(&v->pages);
	v2p_side_free(&v->frames);
	free(v);
}

static const struct vmt_analysis_ops v2p_ops = {
	.name = "v2p",
	.reference = vmt_analysis_no_reference,
	.record = v2p_record,
	.finish = v2p_finish,
	.destroy = v2p_destroy,
};

int vmt_v2p_create(struct vmt_analysis **analysis)
{
	struct v2p *v = calloc(1, sizeof(*v));

	if (!v)
		return -ENOMEM;
	if (vmt_u64_maps_init(&v->pages.index, &v->frames.index)) {
		free(v);
		return -ENOMEM;
	}
	v->analysis.ops = &v2p_ops;
	*analysis = &v->analysis;
	return 0;
}

const struct vmt_v2p_result *vmt_v2p_result(const struct vmt_analysis *analysis)
{
	return &to_v2p(analysis)->result;
}

size_t vmt_v2p_page_histogram(const struct vmt_analysis *analysis,
			      const struct vmt_hist_bucket **buckets)
{
	*buckets = to_v2p(analysis)->pages.hist;
	return to_v2p(analysis)->pages.nr_hist;
}

size_t vmt_v2p_frame_histogram(const struct vmt_analysis *analysis,
			       const struct vmt_hist_bucket **buckets)
{
	*buckets = to_v2p(analysis)->frames.hist;
	return to_v2p(analysis)->frames.nr_hist;
}

double vmt_v2p_contiguity(const struct vmt_analysis *analysis)
{
	const struct vmt_v2p_result *r = &to_v2p(analysis)->result;

	return r->adjacent_pairs ? 100.0 * (double)r->contiguous_pairs /
				   (double)r->adjacent_pairs : 0.0;
}

int vmt_v2p_next_page(const struct vmt_analysis *analysis, size_t *pos,
		      struct vmt_v2p_page *page)
{
	const struct v2p_side *pages = &to_v2p(analysis)->pages;
	const uint64_t vpn_mask = (UINT64_C(1) << 42) - 1;

	/* The entries are in the order first seen (unmaps' included). */
	for (; *pos < pages->nr; (*pos)++) {
		const struct v2p_entry *e = &pages->entries[*pos];

		/* An entry made by an unmap alone was never seen mapped. */
		if (!e->mappings)
			continue;
		page->pid = (uint32_t)(e->key >> 42);
		page->vpn = e->key & vpn_mask;
		page->pfn = e->last;
		page->mappings = e->mappings;
		page->mapped = e->mapped;
		(*pos)++;
		return 1;
	}
	return 0;
}
