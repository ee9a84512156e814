// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * HMTT's memory traffic: the CPU's reads and writes beside the devices'
 * DMA (its Table 3), their bytes per interval, the references of kernel
 * and user mode, and the share of the physical traffic whose frames no
 * known virtual page maps (its Figure 17). vmtrace/analysis.h says what
 * each counts; docs/analysis/hmtt.md defines them.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "vmtrace/analysis.h"
#include "analysis/analysis_util.h"
#include "base/grow_array.h"

/* enum dma_data_direction, as the kernel's DMA API numbers it. */
enum { DMA_DIR_BIDIRECTIONAL = 0, DMA_DIR_TO_DEVICE = 1, DMA_DIR_FROM_DEVICE = 2 };

#define LINE_SHIFT	6

/*
 * The intervals: an array indexed by (time - start) / window, as dma's.
 * The mappings: @pages, (pid, page) key -> the frame it is known mapped
 * at (0: none now); @frames, frame -> how many pages are known mapped at
 * it. Memory: an entry a page and a frame seen, and an interval a window
 * of the trace's span.
 */
struct traffic {
	struct vmt_analysis analysis;
	enum vmt_ref_source source;
	uint64_t window_ns;
	bool started;
	struct vmt_traffic_interval *intervals;
	uint64_t nr, room;
	struct vmt_traffic_result result;
	struct vmt_u64_map pages, frames;
	/* The record of the reference coming next (record() is before reference()). */
	uint16_t ref_type;
	uint16_t exact_size;
	uint8_t exact_flags;
	uint64_t ref_pfn;
};

static struct traffic *to_traffic(const struct vmt_analysis *a)
{
	return (struct traffic *)a;
}

/*
 * The interval holding @time_ns, made (with those before it) as needed, in
 * *@iv: 0, -ENOMEM, or -EOVERFLOW past VMT_MAX_INTERVALS.
 */
static int traffic_interval(struct traffic *t, uint64_t time_ns, struct vmt_traffic_interval **iv)
{
	struct vmt_traffic_result *r = &t->result;
	uint64_t i;
	int err;

	if (!t->started) {
		t->started = true;
		r->start_ns = time_ns;
	}
	if (time_ns + 1 > r->end_ns)
		r->end_ns = time_ns + 1;
	/* A record a little before the first (CPUs' clocks) joins the first interval. */
	i = t->window_ns && time_ns > r->start_ns ? (time_ns - r->start_ns) / t->window_ns : 0;
	if (i >= VMT_MAX_INTERVALS)
		return -EOVERFLOW;
	err = vmt_grow_array((void **)&t->intervals, &t->room, i + 1, sizeof(t->intervals[0]));
	if (err)
		return err;
	while (t->nr <= i) {
		memset(&t->intervals[t->nr], 0, sizeof(t->intervals[0]));
		t->intervals[t->nr].start_ns = r->start_ns + t->nr * t->window_ns;
		t->nr++;
	}
	*iv = &t->intervals[i];
	return 0;
}

/* ---- Mappings ---- */

/* Page @page (a vmt_ref_key()) known mapped at @pfn from now on. */
static int traffic_map(struct traffic *t, uint64_t page, uint64_t pfn)
{
	uint64_t *at, *count;
	bool added;

	at = vmt_u64_map_put(&t->pages, page, &added);
	if (!at)
		return -ENOMEM;
	if (*at == pfn)
		return 0;
	if (*at) {
		/* It moved: its old frame holds it no longer. */
		count = vmt_u64_map_get(&t->frames, *at);
		if (count && *count)
			(*count)--;
	}
	*at = pfn;
	count = vmt_u64_map_put(&t->frames, pfn, &added);
	if (!count)
		return -ENOMEM;
	(*count)++;
	return 0;
}

static void traffic_unmap(struct traffic *t, uint64_t page)
{
	uint64_t *at = vmt_u64_map_get(&t->pages, page), *count;

	if (!at || !*at)
		return;
	count = vmt_u64_map_get(&t->frames, *at);
	if (count && *count)
		(*count)--;
	*at = 0;
}

/* Whether some page is known mapped at @pfn now. */
static bool traffic_translatable(struct traffic *t, uint64_t pfn)
{
	uint64_t *count = vmt_u64_map_get(&t->frames, pfn);

	return count && *count;
}

/* ---- DMA ---- */

/* A map record's 64-byte lines at its physical address, each judged by its frame. */
static void traffic_dma_lines(struct traffic *t, const struct vmt_dma *dma)
{
	struct vmt_traffic_result *r = &t->result;
	uint64_t first, last, pfn;

	if (!dma->size)
		return;
	/* No physical address, or a range past the last byte's: left out, counted. */
	if (!dma->phys_addr || dma->phys_addr + dma->size - 1 < dma->phys_addr) {
		r->dma_no_phys++;
		return;
	}
	first = dma->phys_addr >> LINE_SHIFT;
	last = (dma->phys_addr + dma->size - 1) >> LINE_SHIFT;
	r->dma_lines += last - first + 1;
	for (pfn = first >> (VMT_REF_PAGE_SHIFT - LINE_SHIFT);
	     pfn <= last >> (VMT_REF_PAGE_SHIFT - LINE_SHIFT); pfn++) {
		uint64_t lo = pfn << (VMT_REF_PAGE_SHIFT - LINE_SHIFT);
		uint64_t hi = lo + (UINT64_C(1) << (VMT_REF_PAGE_SHIFT - LINE_SHIFT)) - 1;

		if (!traffic_translatable(t, pfn))
			r->dma_untranslatable += (hi < last ? hi : last) - (lo > first ? lo : first) + 1;
	}
}

static int traffic_dma(struct traffic *t, const struct vmt_record *rec)
{
	const struct vmt_dma *dma = &rec->dma;
	struct vmt_traffic_result *r = &t->result;
	struct vmt_traffic_interval *iv;
	int err;

	if (dma->op != VMT_DMA_MAP_PAGE && dma->op != VMT_DMA_MAP_SG)
		return 0;
	err = traffic_interval(t, rec->hdr.time_ns, &iv);
	if (err)
		return err;
	if (dma->dir == DMA_DIR_TO_DEVICE || dma->dir == DMA_DIR_BIDIRECTIONAL) {
		r->count[VMT_TRAFFIC_DMA_READ]++;
		r->bytes[VMT_TRAFFIC_DMA_READ] += dma->size;
		iv->bytes[VMT_TRAFFIC_DMA_READ] += dma->size;
	}
	if (dma->dir == DMA_DIR_FROM_DEVICE || dma->dir == DMA_DIR_BIDIRECTIONAL) {
		r->count[VMT_TRAFFIC_DMA_WRITE]++;
		r->bytes[VMT_TRAFFIC_DMA_WRITE] += dma->size;
		iv->bytes[VMT_TRAFFIC_DMA_WRITE] += dma->size;
	}
	traffic_dma_lines(t, dma);
	return 0;
}

static int traffic_record(struct vmt_analysis *a, const struct vmt_record *rec)
{
	struct traffic *t = to_traffic(a);
	uint64_t page;

	t->ref_type = rec->hdr.type;
	switch (rec->hdr.type) {
	case VMT_REC_DMA:
		return traffic_dma(t, rec);
	case VMT_REC_EXACT:
		t->exact_size = rec->exact.size;
		t->exact_flags = rec->exact.flags;
		return 0;
	case VMT_REC_REFERENCE:
	case VMT_REC_EVICT:
		/* A record that names a frame shows its page mapped there. */
		t->ref_pfn = rec->ref.pfn;
		if (!rec->ref.pfn)
			return 0;
		page = vmt_ref_key(VMT_REF_VIRTUAL, rec->hdr.pid, rec->ref.vaddr,
				   VMT_REF_PAGE_SHIFT);
		return traffic_map(t, page, rec->ref.pfn);
	case VMT_REC_PAGEMAP: {
		/* A THP's record is its 512 pages, at its 512 frames from the first. */
		uint64_t n = rec->pagemap.huge ?
			     UINT64_C(1) << (VMT_REF_HUGE_SHIFT - VMT_REF_PAGE_SHIFT) : 1;

		for (uint64_t i = 0; i < n; i++) {
			int err = 0;

			page = vmt_ref_key(VMT_REF_VIRTUAL, rec->hdr.pid,
					   rec->pagemap.vaddr + (i << VMT_REF_PAGE_SHIFT),
					   VMT_REF_PAGE_SHIFT);
			/* An unmap is of the page, whichever frame it names. */
			if (rec->pagemap.op == VMT_PAGEMAP_UNMAP)
				traffic_unmap(t, page);
			else if (rec->pagemap.pfn)
				err = traffic_map(t, page, rec->pagemap.pfn + i);
			if (err)
				return err;
		}
		return 0;
	}
	}
	return 0;
}

/* ---- The CPU's references ---- */

static int traffic_reference(struct vmt_analysis *a, const struct vmt_ref *ref)
{
	struct traffic *t = to_traffic(a);
	struct vmt_traffic_result *r = &t->result;
	struct vmt_traffic_mode *mode = &r->mode[ref->kernel_mode ? 1 : 0];
	bool write = ref->access & VMT_ACCESS_WRITE;
	/* A read-modify-write is a read and a write; anything but a write, a read. */
	bool read = (ref->access & VMT_ACCESS_READ) || !write;
	struct vmt_traffic_interval *iv;
	uint64_t bytes;
	int err = traffic_interval(t, ref->time_ns, &iv);

	if (err)
		return err;
	if (t->ref_type == VMT_REC_EXACT) {
		bytes = t->exact_size;
		if (t->exact_flags & (VMT_EXACT_BUS_FILL | VMT_EXACT_BUS_WRITEBACK |
				      VMT_EXACT_BUS_PREFETCH))
			r->bus_records++;
		else
			r->exact_accesses++;
	} else {
		bytes = ref->size;
		r->fault_references++;
		if (t->ref_pfn) {
			r->cpu_references++;
			r->cpu_untranslatable += !traffic_translatable(t, t->ref_pfn);
		}
	}
	mode->references++;
	if (read) {
		r->count[VMT_TRAFFIC_CPU_READ]++;
		r->bytes[VMT_TRAFFIC_CPU_READ] += bytes;
		iv->bytes[VMT_TRAFFIC_CPU_READ] += bytes;
		mode->reads++;
		mode->read_bytes += bytes;
	}
	if (write) {
		r->count[VMT_TRAFFIC_CPU_WRITE]++;
		r->bytes[VMT_TRAFFIC_CPU_WRITE] += bytes;
		iv->bytes[VMT_TRAFFIC_CPU_WRITE] += bytes;
		mode->writes++;
		mode->write_bytes += bytes;
	}
	return 0;
}

/* Each interval's length: the window, the last cut at the last record's time + 1 ns. */
static int traffic_finish(struct vmt_analysis *a)
{
	struct traffic *t = to_traffic(a);
	uint64_t end = t->result.end_ns;
	size_t i;

	for (i = 0; i < t->nr; i++) {
		struct vmt_traffic_interval *iv = &t->intervals[i];
		uint64_t stop = t->window_ns ? iv->start_ns + t->window_ns : end;

		iv->duration_ns = stop < end ? stop - iv->start_ns :
				  end > iv->start_ns ? end - iv->start_ns : 0;
	}
	return 0;
}

static void traffic_destroy(struct vmt_analysis *a)
{
	struct traffic *t = to_traffic(a);

	vmt_u64_map_free(&t->pages);
	vmt_u64_map_free(&t->frames);
	free(t->intervals);
	free(t);
}

static const struct vmt_analysis_ops traffic_ops = {
	.name = "traffic",
	.reference = traffic_reference,
	.record = traffic_record,
	.finish = traffic_finish,
	.destroy = traffic_destroy,
};

int vmt_traffic_create(struct vmt_analysis **analysis, enum vmt_ref_source source,
		       uint64_t window_ns)
{
	struct traffic *t;

	if (source != VMT_REF_FAULTS && source != VMT_REF_EXACT)
		return -EINVAL;
	t = calloc(1, sizeof(*t));
	if (!t)
		return -ENOMEM;
	if (vmt_u64_maps_init(&t->pages, &t->frames)) {
		free(t);
		return -ENOMEM;
	}
	t->analysis.ops = &traffic_ops;
	t->source = source;
	t->window_ns = window_ns;
	t->result.basis[VMT_TRAFFIC_CPU_READ] = t->result.basis[VMT_TRAFFIC_CPU_WRITE] =
		source == VMT_REF_EXACT ? VMT_TRAFFIC_OBSERVED : VMT_TRAFFIC_ESTIMATED;
	t->result.basis[VMT_TRAFFIC_DMA_READ] = t->result.basis[VMT_TRAFFIC_DMA_WRITE] =
		VMT_TRAFFIC_UPPER_BOUND;
	*analysis = &t->analysis;
	return 0;
}

const struct vmt_traffic_result *vmt_traffic_result(const struct vmt_analysis *analysis)
{
	return &to_traffic(analysis)->result;
}

size_t vmt_traffic_intervals(const struct vmt_analysis *analysis,
			     const struct vmt_traffic_interval **intervals)
{
	*intervals = to_traffic(analysis)->intervals;
	return to_traffic(analysis)->nr;
}

double vmt_traffic_untranslatable(const struct vmt_analysis *analysis)
{
	const struct vmt_traffic_result *r = &to_traffic(analysis)->result;
	uint64_t all = r->cpu_references + r->dma_lines;

	return all ? 100.0 * (double)(r->cpu_untranslatable + r->dma_untranslatable) /
		     (double)all : 0.0;
}
