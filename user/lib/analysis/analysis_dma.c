// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * HMTT's DMA traffic against the CPU's references (vmtrace/analysis.h;
 * docs/analysis/hmtt.md defines what it counts).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "vmtrace/analysis.h"
#include "analysis/analysis_util.h"

/*
 * Records come in time order, so the intervals only grow at the end: an
 * array indexed by (time - start) / window. It holds one interval per
 * window of the trace's span, empty or not: memory grows with span /
 * window, which the caller chose, not with the footprint.
 */
struct dma_traffic {
	struct vmt_analysis analysis;
	uint64_t window_ns;
	bool started;
	uint64_t start_ns;
	struct vmt_dma_interval *intervals;
	size_t nr, room;
	uint64_t records;
	struct vmt_dma_size_bucket sizes[VMT_DMA_SIZE_BUCKETS];
};

static struct dma_traffic *to_dma(const struct vmt_analysis *a)
{
	return (struct dma_traffic *)a;
}

/* The interval holding @time_ns, made (with those before it) as needed; NULL: no memory. */
static struct vmt_dma_interval *dma_interval(struct dma_traffic *d, uint64_t time_ns)
{
	size_t i;

	if (!d->started) {
		d->started = true;
		d->start_ns = time_ns;
	}
	/* A record a little before the first (CPUs' clocks) joins the first interval. */
	i = d->window_ns && time_ns > d->start_ns ? (time_ns - d->start_ns) / d->window_ns : 0;
	if (i >= d->room) {
		size_t room = d->room ? d->room : 16;
		struct vmt_dma_interval *grown;

		while (room <= i)
			room *= 2;
		grown = realloc(d->intervals, room * sizeof(*grown));
		if (!grown)
			return NULL;
		d->intervals = grown;
		d->room = room;
	}
	while (d->nr <= i) {
		memset(&d->intervals[d->nr], 0, sizeof(d->intervals[0]));
		d->intervals[d->nr].start_ns = d->start_ns + d->nr * d->window_ns;
		d->nr++;
	}
	return &d->intervals[i];
}

static int dma_reference(struct vmt_analysis *a, const struct vmt_ref *ref)
{
	struct vmt_dma_interval *iv = dma_interval(to_dma(a), ref->time_ns);

	if (!iv)
		return -ENOMEM;
	iv->references++;
	iv->cpu_bytes += ref->size;
	return 0;
}

static unsigned int dma_size_bucket(uint32_t size)
{
	return size ? vmt_log2_floor(size) + 1 : 0;
}

/* enum dma_data_direction, as the kernel's DMA API numbers it. */
enum { DMA_DIR_BIDIRECTIONAL = 0, DMA_DIR_TO_DEVICE = 1, DMA_DIR_FROM_DEVICE = 2 };

static int dma_record(struct vmt_analysis *a, const struct vmt_record *rec)
{
	struct dma_traffic *d = to_dma(a);
	const struct vmt_dma *dma = &rec->dma;
	struct vmt_dma_size_bucket *size;
	struct vmt_dma_interval *iv;

	if (rec->hdr.type != VMT_REC_DMA)
		return 0;
	d->records++;
	if (dma->op != VMT_DMA_MAP_PAGE && dma->op != VMT_DMA_MAP_SG && dma->op != VMT_DMA_ALLOC)
		return 0;
	iv = dma_interval(d, rec->hdr.time_ns);
	if (!iv)
		return -ENOMEM;
	iv->maps++;
	size = &d->sizes[dma_size_bucket(dma->size)];
	if (dma->op == VMT_DMA_ALLOC) {
		iv->coherent_bytes += dma->size;
		size->alloc++;
		return 0;
	}
	if (dma->op == VMT_DMA_MAP_PAGE)
		size->map_page++;
	else
		size->map_sg++;
	if (dma->dir == DMA_DIR_TO_DEVICE || dma->dir == DMA_DIR_BIDIRECTIONAL)
		iv->read_bytes += dma->size;
	if (dma->dir == DMA_DIR_FROM_DEVICE || dma->dir == DMA_DIR_BIDIRECTIONAL)
		iv->write_bytes += dma->size;
	if (dma->dir == DMA_DIR_BIDIRECTIONAL)
		iv->bidirectional_bytes += dma->size;
	return 0;
}

static void dma_destroy(struct vmt_analysis *a)
{
	struct dma_traffic *d = to_dma(a);

	free(d->intervals);
	free(d);
}

static const struct vmt_analysis_ops dma_traffic_ops = {
	.name = "dma",
	.reference = dma_reference,
	.record = dma_record,
	.destroy = dma_destroy,
};

int vmt_dma_traffic_create(struct vmt_analysis **analysis, uint64_t window_ns)
{
	struct dma_traffic *d = calloc(1, sizeof(*d));
	unsigned int i;

	if (!d)
		return -ENOMEM;
	d->analysis.ops = &dma_traffic_ops;
	d->window_ns = window_ns;
	for (i = 1; i < VMT_DMA_SIZE_BUCKETS; i++) {
		d->sizes[i].lo = UINT64_C(1) << (i - 1);
		d->sizes[i].hi = (UINT64_C(1) << i) - 1;
	}
	*analysis = &d->analysis;
	return 0;
}

size_t vmt_dma_traffic_intervals(const struct vmt_analysis *analysis,
				 const struct vmt_dma_interval **intervals)
{
	*intervals = to_dma(analysis)->intervals;
	return to_dma(analysis)->nr;
}

void vmt_dma_traffic_total(const struct vmt_analysis *analysis, struct vmt_dma_interval *total)
{
	const struct dma_traffic *d = to_dma(analysis);
	size_t i;

	memset(total, 0, sizeof(*total));
	total->start_ns = d->start_ns;
	for (i = 0; i < d->nr; i++) {
		const struct vmt_dma_interval *iv = &d->intervals[i];

		total->read_bytes += iv->read_bytes;
		total->write_bytes += iv->write_bytes;
		total->bidirectional_bytes += iv->bidirectional_bytes;
		total->coherent_bytes += iv->coherent_bytes;
		total->maps += iv->maps;
		total->references += iv->references;
		total->cpu_bytes += iv->cpu_bytes;
	}
}

uint64_t vmt_dma_traffic_records(const struct vmt_analysis *analysis)
{
	return to_dma(analysis)->records;
}

const struct vmt_dma_size_bucket *vmt_dma_traffic_sizes(const struct vmt_analysis *analysis)
{
	return to_dma(analysis)->sizes;
}

void vmt_dma_interval_shares(const struct vmt_dma_interval *iv, double *read_pct,
			     double *write_pct)
{
	double all = (double)iv->cpu_bytes + (double)iv->read_bytes + (double)iv->write_bytes;

	*read_pct = all > 0 ? 100.0 * (double)iv->read_bytes / all : 0.0;
	*write_pct = all > 0 ? 100.0 * (double)iv->write_bytes / all : 0.0;
}

double vmt_dma_traffic_share(const struct vmt_analysis *analysis)
{
	struct vmt_dma_interval total;
	double read_pct, write_pct;

	vmt_dma_traffic_total(analysis, &total);
	vmt_dma_interval_shares(&total, &read_pct, &write_pct);
	return read_pct + write_pct;
}
