// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * HMTT's DMA traffic against the CPU's references, and DMA requests by
 * device and direction (vmtrace/analysis.h; docs/analysis/hmtt.md defines
 * what it counts).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "vmtrace/analysis.h"
#include "analysis/analysis_util.h"
#include "base/grow_array.h"

struct dma_sg_call {
	size_t open;		/* 1 + its row in devices[]; 0: no call open */
	uint32_t next;		/* the segment index expected next */
	uint64_t size;		/* the segments' bytes so far */
};

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
	uint64_t nr, room;
	uint64_t records;
	struct vmt_dma_size_bucket sizes[VMT_DMA_SIZE_BUCKETS];
	/* By device and direction: the trace that names the devices, and a row each. */
	struct vmt_trace *trace;
	struct vmt_dma_device *devices;
	size_t nr_devices, room_devices;
	/* Per CPU, the map_sg call whose segments are coming in (devices[open - 1]; 0: none). */
	struct dma_sg_call *calls;
	size_t nr_calls;
	char name[VMT_MAX_DATA_LEN + 1];
};

static struct dma_traffic *to_dma(const struct vmt_analysis *a)
{
	return (struct dma_traffic *)a;
}

/*
 * The interval holding @time_ns, made (with those before it) as needed, in
 * *@iv: 0, -ENOMEM, or -EOVERFLOW past VMT_MAX_INTERVALS.
 */
static int dma_interval(struct dma_traffic *d, uint64_t time_ns, struct vmt_dma_interval **iv)
{
	uint64_t i;
	int err;

	if (!d->started) {
		d->started = true;
		d->start_ns = time_ns;
	}
	/* A record a little before the first (CPUs' clocks) joins the first interval. */
	i = d->window_ns && time_ns > d->start_ns ? (time_ns - d->start_ns) / d->window_ns : 0;
	if (i >= VMT_MAX_INTERVALS)
		return -EOVERFLOW;
	err = vmt_grow_array((void **)&d->intervals, &d->room, i + 1, sizeof(d->intervals[0]));
	if (err)
		return err;
	while (d->nr <= i) {
		memset(&d->intervals[d->nr], 0, sizeof(d->intervals[0]));
		d->intervals[d->nr].start_ns = d->start_ns + d->nr * d->window_ns;
		d->nr++;
	}
	*iv = &d->intervals[i];
	return 0;
}

static int dma_reference(struct vmt_analysis *a, const struct vmt_ref *ref)
{
	struct vmt_dma_interval *iv;
	int err = dma_interval(to_dma(a), ref->time_ns, &iv);

	if (err)
		return err;
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

/*
 * ---- By device and direction ----
 *
 * A row per (device name, direction), in order of first request until
 * finish() sorts them. A request is a call: a map_page record, or a map_sg
 * call's segments (index 0 to count - 1, one after another on one CPU),
 * their sizes summed. A segment out of that sequence (an interrupt's call
 * between, a trace cut by time) closes the call open on its CPU and starts
 * one of its own.
 */

/* The row of (@name, @dir), made when new; NULL: no memory. */
static struct vmt_dma_device *dma_device(struct dma_traffic *d, const char *name, uint8_t dir)
{
	struct vmt_dma_device *dev;
	size_t i;

	for (i = 0; i < d->nr_devices; i++)
		if (d->devices[i].dir == dir && !strcmp(d->devices[i].name, name))
			return &d->devices[i];
	if (d->nr_devices == d->room_devices) {
		size_t room = d->room_devices ? 2 * d->room_devices : 8;
		struct vmt_dma_device *grown = realloc(d->devices, room * sizeof(*grown));

		if (!grown)
			return NULL;
		d->devices = grown;
		d->room_devices = room;
	}
	dev = &d->devices[d->nr_devices];
	memset(dev, 0, sizeof(*dev));
	dev->name = strdup(name);
	if (!dev->name)
		return NULL;
	dev->dir = dir;
	d->nr_devices++;
	return dev;
}

static void dma_request(struct vmt_dma_device *dev, uint64_t size)
{
	dev->requests++;
	dev->sizes[size > UINT32_MAX ? VMT_DMA_SIZE_BUCKETS - 1 :
		   dma_size_bucket((uint32_t)size)]++;
}

static void dma_close_call(struct dma_traffic *d, struct dma_sg_call *call)
{
	if (call->open)
		dma_request(&d->devices[call->open - 1], call->size);
	call->open = 0;
}

/* The device's name: the record's data, "" when it has none or it cannot be read. */
static const char *dma_device_name(struct dma_traffic *d, const struct vmt_record *rec)
{
	int len = 0;

	if (d->trace && rec->hdr.data_len)
		len = vmt_trace_record_data(d->trace, rec, d->name, sizeof(d->name) - 1);
	d->name[len > 0 ? len : 0] = '\0';
	return d->name;
}

static int dma_device_record(struct dma_traffic *d, const struct vmt_record *rec)
{
	const struct vmt_dma *dma = &rec->dma;
	struct vmt_dma_device *dev = dma_device(d, dma_device_name(d, rec), dma->dir);
	struct dma_sg_call *call;
	size_t row;

	if (!dev)
		return -ENOMEM;
	dev->segments++;
	dev->bytes += dma->size;
	if (dma->op == VMT_DMA_MAP_PAGE) {
		dma_request(dev, dma->size);
		return 0;
	}
	row = (size_t)(dev - d->devices) + 1;
	if (rec->hdr.cpu >= d->nr_calls) {
		size_t n = (size_t)rec->hdr.cpu + 1;
		struct dma_sg_call *grown = realloc(d->calls, n * sizeof(*grown));

		if (!grown)
			return -ENOMEM;
		memset(grown + d->nr_calls, 0, (n - d->nr_calls) * sizeof(*grown));
		d->calls = grown;
		d->nr_calls = n;
	}
	call = &d->calls[rec->hdr.cpu];
	if (call->open && (call->open != row || dma->index != call->next || !dma->index))
		dma_close_call(d, call);
	if (!call->open) {
		call->open = row;
		call->size = 0;
	}
	call->size += dma->size;
	call->next = (uint32_t)dma->index + 1;
	if (call->next >= dma->count)
		dma_close_call(d, call);
	return 0;
}

static int dma_device_compare(const void *a, const void *b)
{
	const struct vmt_dma_device *x = a, *y = b;
	int c = strcmp(x->name, y->name);

	return c ? c : (int)x->dir - (int)y->dir;
}

static int dma_finish(struct vmt_analysis *a)
{
	struct dma_traffic *d = to_dma(a);
	size_t i;

	for (i = 0; i < d->nr_calls; i++)
		dma_close_call(d, &d->calls[i]);
	if (d->nr_devices)
		qsort(d->devices, d->nr_devices, sizeof(d->devices[0]), dma_device_compare);
	return 0;
}

static int dma_record(struct vmt_analysis *a, const struct vmt_record *rec)
{
	struct dma_traffic *d = to_dma(a);
	const struct vmt_dma *dma = &rec->dma;
	struct vmt_dma_size_bucket *size;
	struct vmt_dma_interval *iv;
	int err;

	if (rec->hdr.type != VMT_REC_DMA)
		return 0;
	d->records++;
	if (dma->op != VMT_DMA_MAP_PAGE && dma->op != VMT_DMA_MAP_SG && dma->op != VMT_DMA_ALLOC)
		return 0;
	err = dma_interval(d, rec->hdr.time_ns, &iv);
	if (err)
		return err;
	iv->maps++;
	if (dma->op != VMT_DMA_ALLOC) {
		err = dma_device_record(d, rec);
		if (err)
			return err;
	}
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
	size_t i;

	for (i = 0; i < d->nr_devices; i++)
		free((char *)d->devices[i].name);
	free(d->devices);
	free(d->calls);
	free(d->intervals);
	free(d);
}

static const struct vmt_analysis_ops dma_traffic_ops = {
	.name = "dma",
	.reference = dma_reference,
	.record = dma_record,
	.finish = dma_finish,
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

void vmt_dma_traffic_set_trace(struct vmt_analysis *analysis, struct vmt_trace *trace)
{
	to_dma(analysis)->trace = trace;
}

size_t vmt_dma_traffic_devices(const struct vmt_analysis *analysis,
			       const struct vmt_dma_device **devices)
{
	*devices = to_dma(analysis)->devices;
	return to_dma(analysis)->nr_devices;
}
