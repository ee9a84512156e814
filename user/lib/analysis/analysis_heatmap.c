// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * Heatmap (vmtrace/analysis.h): references counted over address (rows) and
 * time (columns), as damo's heatmap shows DAMON's records, with the empty
 * stretches of the address space collapsed so the rows go to memory in use.
 *
 * Two passes over the trace (vmt_analyze() twice with the same analysis),
 * rather than one pass into a map of (unit, fine time slice) binned at the
 * end: the rows' layout needs every referenced address and the columns the
 * time span before a reference can be binned, and two passes give exact
 * cell boundaries with memory bounded by the footprint plus the grid
 * (rows x columns), where the map would hold footprint x slices. The price
 * is decoding the trace twice.
 *
 * 1. survey: the time span, the referenced units (a map: footprint), and,
 *    in virtual space, the ranges VMA records ever mapped;
 *    then the layout: segments of the address space, each a row or more:
 *
 *      referenced:  ##  #   #            (1 GiB of nothing)          ###  #
 *      segments:    [---------]  ~~ 1.0 GiB unused ~~                [------]
 *
 *    With VMA records, a segment is a run of adjacent mappings with a
 *    reference in them (and references outside every mapping are clustered
 *    as below); without, references are clustered: a gap between referenced
 *    units is collapsed when it is wider than two rows would be (2/rows of
 *    the span left once wider gaps are collapsed). At most rows / 2
 *    segments: beyond, the narrowest collapsed gaps are shown after all.
 *    Rows go to segments in proportion to their bytes, one at least each.
 * 2. count: each reference adds 1 to its cell; the column of a reference
 *    at t is (t - first) * cols / (last - first + 1).
 *
 * In parts (the commands' MPI runs), each part surveys the whole trace, so
 * that every part has the one layout, and counts its part: the grids add.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "vmtrace/analysis.h"
#include "base/pack.h"
#include "base/u64_map.h"

struct range {
	uint64_t start, end;
};

struct ranges {
	struct range *r;
	size_t nr, room;
};

enum heatmap_phase { SURVEY, COUNT, DONE };

struct heatmap {
	struct vmt_analysis analysis;
	struct vmt_heatmap_options options;
	enum heatmap_phase phase;
	uint64_t first_ns, last_ns, references;
	struct vmt_u64_map units;		/* survey: unit address -> its size */
	struct ranges mapped;			/* survey: VMA ranges, ever mapped */
	struct vmt_heatmap_segment *segments;
	unsigned int nr_segments;
	struct vmt_heatmap_row *rows;
	unsigned int nr_rows;
	uint64_t *counts;			/* nr_rows x cols, row-major */
	uint64_t outside;			/* counted references in no row */
};

static struct heatmap *to_heatmap(const struct vmt_analysis *a)
{
	return (struct heatmap *)a;
}

static int ranges_add(struct ranges *rs, uint64_t start, uint64_t end)
{
	if (rs->nr == rs->room) {
		size_t room = rs->room ? rs->room * 2 : 64;
		struct range *grown = realloc(rs->r, room * sizeof(*grown));

		if (!grown)
			return -ENOMEM;
		rs->r = grown;
		rs->room = room;
	}
	rs->r[rs->nr].start = start;
	rs->r[rs->nr++].end = end;
	return 0;
}

static int by_start(const void *x, const void *y)
{
	const struct range *a = x, *b = y;

	return a->start < b->start ? -1 : a->start > b->start;
}

/* Sorted, touching or overlapping ranges made one. */
static void ranges_merge(struct ranges *rs)
{
	size_t out = 0;

	if (!rs->nr)
		return;
	qsort(rs->r, rs->nr, sizeof(*rs->r), by_start);
	for (size_t i = 1; i < rs->nr; i++) {
		if (rs->r[i].start <= rs->r[out].end) {
			if (rs->r[i].end > rs->r[out].end)
				rs->r[out].end = rs->r[i].end;
		} else {
			rs->r[++out] = rs->r[i];
		}
	}
	rs->nr = out + 1;
}

static int heatmap_record(struct vmt_analysis *a, const struct vmt_record *rec)
{
	struct heatmap *h = to_heatmap(a);
	int err;

	if (h->phase != SURVEY || rec->hdr.type != VMT_REC_VMA || rec->vma.op != VMT_VMA_MAP ||
	    rec->vma.end <= rec->vma.start)
		return 0;
	err = ranges_add(&h->mapped, rec->vma.start, rec->vma.end);
	/* The same mappings come back at each change near them: keep them few. */
	if (!err && h->mapped.nr == h->mapped.room && h->mapped.nr >= 4096)
		ranges_merge(&h->mapped);
	return err;
}

/* The row holding @addr (rows sorted and apart), or NULL. */
static const struct vmt_heatmap_row *row_of(const struct heatmap *h, uint64_t addr)
{
	unsigned int lo = 0, hi = h->nr_rows;

	while (lo < hi) {
		unsigned int mid = lo + (hi - lo) / 2;

		if (h->rows[mid].end <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < h->nr_rows && h->rows[lo].start <= addr ? &h->rows[lo] : NULL;
}

unsigned int vmt_heatmap_column(const struct vmt_analysis *analysis, uint64_t time_ns)
{
	const struct heatmap *h = to_heatmap(analysis);

	return (unsigned __int128)(time_ns - h->first_ns) * h->options.cols /
	       (h->last_ns - h->first_ns + 1);
}

static int heatmap_reference(struct vmt_analysis *a, const struct vmt_ref *ref)
{
	struct heatmap *h = to_heatmap(a);
	const struct vmt_heatmap_row *row;
	uint64_t *size;
	bool added;

	if (h->phase == SURVEY) {
		if (!h->references++)
			h->first_ns = ref->time_ns;
		h->last_ns = ref->time_ns;
		size = vmt_u64_map_put(&h->units, ref->addr, &added);
		if (!size)
			return -ENOMEM;
		if (ref->size > *size)
			*size = ref->size;
		return 0;
	}
	if (h->phase != COUNT || ref->time_ns < h->first_ns || ref->time_ns > h->last_ns) {
		h->outside++;
		return 0;
	}
	row = row_of(h, ref->addr);
	if (!row) {
		h->outside++;
		return 0;
	}
	h->counts[(size_t)(row - h->rows) * h->options.cols + vmt_heatmap_column(a, ref->time_ns)]++;
	return 0;
}

/* The referenced units as sorted, merged ranges. */
static int referenced_ranges(struct heatmap *h, struct ranges *out)
{
	size_t pos = 0;
	uint64_t addr, size;
	int err;

	while (vmt_u64_map_next(&h->units, &pos, &addr, &size)) {
		err = ranges_add(out, addr, addr + size);
		if (err)
			return err;
	}
	ranges_merge(out);
	return 0;
}

static int by_gap_desc(const void *x, const void *y)
{
	const struct range *a = x, *b = y;
	uint64_t ga = a->end - a->start, gb = b->end - b->start;

	return ga > gb ? -1 : ga < gb;
}

/*
 * Cluster sorted, apart ranges @rs in place: a gap is collapsed when wider
 * than 2/rows of the span that remains once the gaps wider than it are
 * collapsed (widest first, until one is not). The ranges become clusters.
 */
static int cluster(struct ranges *rs, unsigned int rows)
{
	struct range *gaps;
	uint64_t covered, threshold;
	size_t nr_gaps, k = 0, out = 0;

	if (rs->nr < 2)
		return 0;
	nr_gaps = rs->nr - 1;
	gaps = malloc(nr_gaps * sizeof(*gaps));
	if (!gaps)
		return -ENOMEM;
	for (size_t i = 0; i < nr_gaps; i++) {
		gaps[i].start = rs->r[i].end;
		gaps[i].end = rs->r[i + 1].start;
	}
	qsort(gaps, nr_gaps, sizeof(*gaps), by_gap_desc);
	covered = rs->r[rs->nr - 1].end - rs->r[0].start;
	while (k < nr_gaps) {
		threshold = covered / rows * 2;
		if (gaps[k].end - gaps[k].start <= threshold)
			break;
		covered -= gaps[k].end - gaps[k].start;
		k++;
	}
	/* The smallest collapsed gap: narrower ones are kept inside clusters. */
	threshold = k ? gaps[k - 1].end - gaps[k - 1].start : UINT64_MAX;
	free(gaps);
	for (size_t i = 1; i < rs->nr; i++) {
		if (rs->r[i].start - rs->r[out].end < threshold)
			rs->r[out].end = rs->r[i].end;
		else
			rs->r[++out] = rs->r[i];
	}
	rs->nr = out + 1;
	return 0;
}

/*
 * With mappings: the merged mapped ranges holding a referenced range, and
 * the referenced ranges outside every mapping clustered on their own.
 */
static int mapped_segments(struct heatmap *h, const struct ranges *refd, struct ranges *out)
{
	struct ranges loose = { 0 };
	size_t m = 0;
	int err = 0;

	ranges_merge(&h->mapped);
	for (size_t i = 0; !err && i < refd->nr; i++) {
		while (m < h->mapped.nr && h->mapped.r[m].end <= refd->r[i].start)
			m++;
		if (m < h->mapped.nr && h->mapped.r[m].start <= refd->r[i].start &&
		    refd->r[i].end <= h->mapped.r[m].end) {
			if (!out->nr || out->r[out->nr - 1].start != h->mapped.r[m].start)
				err = ranges_add(out, h->mapped.r[m].start, h->mapped.r[m].end);
		} else {
			err = ranges_add(&loose, refd->r[i].start, refd->r[i].end);
		}
	}
	if (!err)
		err = cluster(&loose, h->options.rows);
	for (size_t i = 0; !err && i < loose.nr; i++)
		err = ranges_add(out, loose.r[i].start, loose.r[i].end);
	free(loose.r);
	if (!err)
		ranges_merge(out);
	return err;
}

/* At most @max segments: the narrowest gaps between them closed. */
static void limit_segments(struct ranges *segs, unsigned int max)
{
	while (segs->nr > max) {
		size_t narrowest = 1;

		for (size_t i = 2; i < segs->nr; i++)
			if (segs->r[i].start - segs->r[i - 1].end <
			    segs->r[narrowest].start - segs->r[narrowest - 1].end)
				narrowest = i;
		segs->r[narrowest - 1].end = segs->r[narrowest].end;
		memmove(&segs->r[narrowest], &segs->r[narrowest + 1],
			(segs->nr - narrowest - 1) * sizeof(*segs->r));
		segs->nr--;
	}
}

/*
 * Rows for the segments: one each, the rest in proportion to their bytes
 * (largest remainder); a row's height a whole number of @unit bytes.
 */
static int lay_rows(struct heatmap *h, const struct ranges *segs, uint64_t unit)
{
	unsigned int rows = h->options.rows, spare = rows - (unsigned int)segs->nr, given = 0;
	unsigned int *share = calloc(segs->nr, sizeof(*share));
	uint64_t total = 0;

	h->segments = calloc(segs->nr, sizeof(*h->segments));
	h->rows = calloc(rows, sizeof(*h->rows));
	if (!share || !h->segments || !h->rows) {
		free(share);
		return -ENOMEM;
	}
	for (size_t i = 0; i < segs->nr; i++)
		total += segs->r[i].end - segs->r[i].start;
	for (size_t i = 0; i < segs->nr; i++) {
		share[i] = (unsigned __int128)spare * (segs->r[i].end - segs->r[i].start) / total;
		given += share[i];
	}
	/* What rounding down left: to the segments in order, one each. */
	for (size_t i = 0; given < spare; i = (i + 1) % segs->nr, given++)
		share[i]++;
	for (size_t i = 0; i < segs->nr; i++) {
		struct vmt_heatmap_segment *seg = &h->segments[i];
		uint64_t bytes = segs->r[i].end - segs->r[i].start;
		uint64_t height = (bytes + share[i]) / (share[i] + 1);

		height = (height + unit - 1) / unit * unit;
		seg->start = segs->r[i].start;
		seg->end = segs->r[i].end;
		seg->gap_before = i ? seg->start - segs->r[i - 1].end : 0;
		seg->first_row = h->nr_rows;
		for (uint64_t lo = seg->start; lo < seg->end; lo += height) {
			struct vmt_heatmap_row *row = &h->rows[h->nr_rows++];

			row->start = lo;
			row->end = seg->end - lo > height ? lo + height : seg->end;
			row->segment = (unsigned int)i;
		}
		seg->nr_rows = h->nr_rows - seg->first_row;
	}
	h->nr_segments = (unsigned int)segs->nr;
	free(share);
	return 0;
}

static int heatmap_layout(struct heatmap *h)
{
	struct ranges refd = { 0 }, segs = { 0 };
	uint64_t unit = UINT64_MAX, addr, size;
	size_t pos = 0;
	int err;

	if (!h->references)
		return 0;	/* nothing to lay out: no second pass */
	while (vmt_u64_map_next(&h->units, &pos, &addr, &size))
		if (size < unit)
			unit = size;
	err = referenced_ranges(h, &refd);
	vmt_u64_map_free(&h->units);		/* the survey's; the count needs the rows */
	if (!err && h->mapped.nr) {
		err = mapped_segments(h, &refd, &segs);
	} else if (!err) {
		segs = refd;
		refd.r = NULL;
		err = cluster(&segs, h->options.rows);
	}
	if (!err) {
		limit_segments(&segs, h->options.rows / 2 ? h->options.rows / 2 : 1);
		err = lay_rows(h, &segs, unit);
	}
	if (!err) {
		h->counts = calloc((size_t)h->nr_rows * h->options.cols, sizeof(*h->counts));
		if (!h->counts)
			err = -ENOMEM;
	}
	free(refd.r);
	free(segs.r);
	return err;
}

static int heatmap_finish(struct vmt_analysis *a)
{
	struct heatmap *h = to_heatmap(a);

	if (h->phase == SURVEY) {
		h->phase = h->references ? COUNT : DONE;
		return heatmap_layout(h);
	}
	h->phase = DONE;
	return 0;
}

static void heatmap_destroy(struct vmt_analysis *a)
{
	struct heatmap *h = to_heatmap(a);

	vmt_u64_map_free(&h->units);
	free(h->mapped.r);
	free(h->segments);
	free(h->rows);
	free(h->counts);
	free(h);
}

/*
 * In parts, the count alone: every part surveys the whole trace (so each
 * has the same layout), then counts its part by time. Packed: the phase,
 * the grid's size, its counts and the references outside it.
 */
static int heatmap_pack(struct vmt_analysis *a, void **data, size_t *size)
{
	struct heatmap *h = to_heatmap(a);
	struct vmt_packer p = { 0 };
	size_t cells = h->phase == COUNT ? (size_t)h->nr_rows * h->options.cols : 0;

	if (h->phase == SURVEY)
		return -EOPNOTSUPP;
	vmt_pack_u64(&p, h->phase);
	vmt_pack_u64(&p, h->nr_rows);
	vmt_pack_u64(&p, h->options.cols);
	for (size_t i = 0; i < cells; i++)
		vmt_pack_u64(&p, h->counts[i]);
	vmt_pack_u64(&p, h->outside);
	return vmt_pack_done(&p, data, size);
}

static int heatmap_merge(struct vmt_analysis *a, const void *data, size_t size)
{
	struct heatmap *h = to_heatmap(a);
	struct vmt_unpacker u = { .p = data, .end = (const uint8_t *)data + size };
	size_t cells = h->phase == COUNT ? (size_t)h->nr_rows * h->options.cols : 0;

	if (h->phase == SURVEY)
		return -EOPNOTSUPP;
	/* Another layout is another survey: not a part of this one. */
	if (vmt_unpack_u64(&u) != h->phase || vmt_unpack_u64(&u) != h->nr_rows ||
	    vmt_unpack_u64(&u) != h->options.cols)
		return u.err ? -EBADMSG : -EINVAL;
	for (size_t i = 0; i < cells; i++)
		h->counts[i] += vmt_unpack_u64(&u);
	h->outside += vmt_unpack_u64(&u);
	return u.err || u.p != u.end ? -EBADMSG : 0;
}

/* Surveying, it has no layout yet: only counting splits (by time). */
static bool heatmap_splits(const struct vmt_analysis *a)
{
	return to_heatmap(a)->phase != SURVEY;
}

static const struct vmt_analysis_ops heatmap_ops = {
	.name = "heatmap",
	.reference = heatmap_reference,
	.record = heatmap_record,
	.finish = heatmap_finish,
	.destroy = heatmap_destroy,
	.pack = heatmap_pack,
	.merge = heatmap_merge,
	.splits = heatmap_splits,
};

int vmt_heatmap_create(struct vmt_analysis **analysis, const struct vmt_heatmap_options *options)
{
	struct heatmap *h;

	if (!options->rows || !options->cols || options->rows > VMT_HEATMAP_MAX_ROWS ||
	    options->cols > VMT_HEATMAP_MAX_COLS)
		return -EINVAL;
	h = calloc(1, sizeof(*h));
	if (!h)
		return -ENOMEM;
	if (vmt_u64_map_init(&h->units)) {
		free(h);
		return -ENOMEM;
	}
	h->analysis.ops = &heatmap_ops;
	h->options = *options;
	*analysis = &h->analysis;
	return 0;
}

bool vmt_heatmap_needs_pass(const struct vmt_analysis *analysis)
{
	return to_heatmap(analysis)->phase != DONE;
}

uint64_t vmt_heatmap_references(const struct vmt_analysis *analysis)
{
	return to_heatmap(analysis)->references;
}

void vmt_heatmap_time(const struct vmt_analysis *analysis, uint64_t *first_ns, uint64_t *last_ns)
{
	*first_ns = to_heatmap(analysis)->first_ns;
	*last_ns = to_heatmap(analysis)->last_ns;
}

const struct vmt_heatmap_segment *vmt_heatmap_segments(const struct vmt_analysis *analysis,
						       unsigned int *nr)
{
	*nr = to_heatmap(analysis)->nr_segments;
	return to_heatmap(analysis)->segments;
}

const struct vmt_heatmap_row *vmt_heatmap_rows(const struct vmt_analysis *analysis,
					       unsigned int *nr)
{
	*nr = to_heatmap(analysis)->nr_rows;
	return to_heatmap(analysis)->rows;
}

const uint64_t *vmt_heatmap_counts(const struct vmt_analysis *analysis, unsigned int *cols,
				   uint64_t *outside)
{
	const struct heatmap *h = to_heatmap(analysis);

	*cols = h->options.cols;
	if (outside)
		*outside = h->outside;
	return h->counts;
}
