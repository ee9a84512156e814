// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests for HMTT's traffic: DMA requests by device and direction
 * (user/lib/analysis/analysis_dma.c) and the traffic analysis
 * (analysis_traffic.c: CPU and DMA reads and writes, bandwidth, kernel and
 * user mode, untranslatable traffic), on traces written here with device
 * names as the records' data: small ones whose counts are worked out by
 * hand, and a random one (seeded) against a brute-force recomputation of
 * the definitions.
 */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "vmtrace/analysis.h"

#include "temp_file.h"
#include "trace_file.h"

enum { BIDIR = 0, TO = 1, FROM = 2 };

#define NVME	"0000:00:04.0"
#define NIC	"0000:00:03.0"

/* A record and its data (a device's name; NULL: none). */
struct rec {
	struct vmt_record r;
	const char *data;
};

static struct rec ref(uint64_t time, uint32_t pid, uint64_t vaddr, uint64_t pfn, uint8_t access,
		      uint8_t kernel)
{
	struct rec x = { .r = reference_record(time, pid, vaddr) };

	x.r.ref.pfn = pfn;
	x.r.ref.access = access;
	x.r.ref.kernel_mode = kernel;
	return x;
}

static struct rec dma(uint64_t time, uint16_t cpu, uint8_t op, uint8_t dir, uint32_t size,
		      uint64_t phys, uint16_t index, uint16_t count, const char *dev)
{
	struct rec x = { .data = dev };

	x.r.hdr.time_ns = time;
	x.r.hdr.pid = x.r.hdr.tid = 99;
	x.r.hdr.cpu = cpu;
	x.r.hdr.type = VMT_REC_DMA;
	x.r.hdr.data_len = dev ? (uint32_t)strlen(dev) : 0;
	x.r.dma.op = op;
	x.r.dma.dir = dir;
	x.r.dma.size = size;
	x.r.dma.phys_addr = phys;
	x.r.dma.index = index;
	x.r.dma.count = count;
	return x;
}

static struct rec pagemap(uint64_t time, uint32_t pid, uint64_t vaddr, uint64_t pfn, uint8_t op)
{
	struct rec x = { .data = NULL };

	x.r.hdr.time_ns = time;
	x.r.hdr.pid = x.r.hdr.tid = pid;
	x.r.hdr.type = VMT_REC_PAGEMAP;
	x.r.pagemap.vaddr = vaddr;
	x.r.pagemap.pfn = pfn;
	x.r.pagemap.op = op;
	return x;
}

static struct rec exact(uint64_t time, uint32_t pid, uint64_t addr, uint16_t size, uint8_t access,
			uint8_t kernel, uint8_t flags)
{
	struct rec x = { .data = NULL };

	x.r.hdr.time_ns = time;
	x.r.hdr.pid = x.r.hdr.tid = pid;
	x.r.hdr.type = VMT_REC_EXACT;
	x.r.exact.addr = addr;
	x.r.exact.size = size;
	x.r.exact.access = access;
	x.r.exact.kernel_mode = kernel;
	x.r.exact.flags = flags;
	return x;
}

static struct vmt_trace *write_recs(const struct rec *recs, size_t n)
{
	struct vmt_trace_writer_options o = { .frame_bytes = 64 * 5, .codec = VMT_CODEC_VPC };
	struct vmt_trace_writer *w;
	struct vmt_trace_error err;
	struct vmt_trace *t;

	assert_int_equal(vmt_trace_writer_create(&w, path, &o, &err), 0);
	for (size_t i = 0; i < n; i++)
		assert_int_equal(vmt_trace_writer_append_record_data(w, &recs[i].r, recs[i].data),
				 0);
	assert_int_equal(vmt_trace_writer_close(w, &err), 0);
	assert_int_equal(vmt_trace_open(&t, path, 0, &err), 0);
	return t;
}

/* A dma analysis (named through the trace when @named) and a traffic one over @recs. */
static void run(const struct rec *recs, size_t n, enum vmt_ref_source source, uint64_t window,
		bool named, struct vmt_analysis **d, struct vmt_analysis **tr)
{
	struct vmt_ref_options o = { .source = source };
	struct vmt_trace *t = write_recs(recs, n);
	struct vmt_analysis *a[2];

	assert_int_equal(vmt_dma_traffic_create(d, window), 0);
	if (named)
		vmt_dma_traffic_set_trace(*d, t);
	assert_int_equal(vmt_traffic_create(tr, source, window), 0);
	a[0] = *d;
	a[1] = *tr;
	assert_int_equal(vmt_analyze(t, &o, a, 2, NULL), 0);
	vmt_trace_close(t);
}

static void assert_near(double x, double want)
{
	assert_true(x > want - 1e-9 && x < want + 1e-9);
}

static unsigned int bucket(uint64_t size)
{
	unsigned int b = 0;

	while (size) {
		b++;
		size >>= 1;
	}
	return b;
}

static const struct vmt_dma_device *row(const struct vmt_analysis *d, const char *name,
					uint8_t dir)
{
	const struct vmt_dma_device *devs;
	size_t n = vmt_dma_traffic_devices(d, &devs);

	for (size_t i = 0; i < n; i++)
		if (devs[i].dir == dir && !strcmp(devs[i].name, name))
			return &devs[i];
	return NULL;
}

/*
 * NVMe: a read as a map_sg call of 3 segments on CPU 0 (4096 + 4096 + 8192)
 * while the NIC maps a 1042-byte frame on CPU 1; another call of 2 x 64 KiB;
 * a write of 512 bytes (map_page); a call cut short (its segment 1 of 2
 * alone, as a trace cut by time leaves it: one request). The NIC: the frame
 * to the device, two 2048-byte receive buffers from it. An unnamed
 * bidirectional 100. Unmaps and allocations are not requests.
 */
static void test_devices_by_hand(void **state)
{
	struct rec recs[] = {
		ref(0, 1, 0x1000, 0, VMT_ACCESS_READ, 0),
		dma(10, 0, VMT_DMA_MAP_SG, FROM, 4096, 0x100000, 0, 3, NVME),
		dma(11, 1, VMT_DMA_MAP_PAGE, TO, 1042, 0x200000, 0, 1, NIC),
		dma(12, 0, VMT_DMA_MAP_SG, FROM, 4096, 0x101000, 1, 3, NVME),
		dma(13, 0, VMT_DMA_MAP_SG, FROM, 8192, 0x102000, 2, 3, NVME),
		dma(14, 0, VMT_DMA_MAP_SG, FROM, 65536, 0x110000, 0, 2, NVME),
		dma(15, 0, VMT_DMA_MAP_SG, FROM, 65536, 0x120000, 1, 2, NVME),
		dma(16, 1, VMT_DMA_UNMAP_PAGE, TO, 1042, 0, 0, 1, NIC),
		dma(17, 2, VMT_DMA_MAP_PAGE, TO, 512, 0x300000, 0, 1, NVME),
		dma(18, 2, VMT_DMA_MAP_PAGE, FROM, 2048, 0x400000, 0, 1, NIC),
		dma(19, 3, VMT_DMA_MAP_PAGE, FROM, 2048, 0x401000, 0, 1, NIC),
		dma(20, 3, VMT_DMA_ALLOC, BIDIR, 8192, 0x500000, 0, 1, NIC),
		dma(21, 1, VMT_DMA_MAP_SG, FROM, 4096, 0x600000, 1, 2, NVME),
		dma(22, 0, VMT_DMA_MAP_PAGE, BIDIR, 100, 0x700000, 0, 1, NULL),
	};
	struct vmt_analysis *d, *tr;
	const struct vmt_dma_device *devs, *x;
	size_t n;

	(void)state;
	run(recs, sizeof(recs) / sizeof(recs[0]), VMT_REF_FAULTS, 0, true, &d, &tr);
	n = vmt_dma_traffic_devices(d, &devs);
	assert_int_equal(n, 5);
	/* By name ("" first), then direction. */
	assert_string_equal(devs[0].name, "");
	assert_string_equal(devs[1].name, NIC);
	assert_int_equal(devs[1].dir, TO);
	assert_int_equal(devs[2].dir, FROM);
	assert_string_equal(devs[3].name, NVME);
	assert_int_equal(devs[3].dir, TO);
	assert_int_equal(devs[4].dir, FROM);

	x = row(d, NVME, FROM);
	assert_int_equal(x->requests, 3);
	assert_int_equal(x->segments, 6);
	assert_int_equal(x->bytes, 16384 + 131072 + 4096);
	assert_int_equal(x->sizes[bucket(16384)], 1);	/* [16384, 32767] */
	assert_int_equal(x->sizes[bucket(131072)], 1);
	assert_int_equal(x->sizes[bucket(4096)], 1);
	x = row(d, NVME, TO);
	assert_int_equal(x->requests, 1);
	assert_int_equal(x->bytes, 512);
	assert_int_equal(x->sizes[bucket(512)], 1);
	x = row(d, NIC, TO);
	assert_int_equal(x->requests, 1);
	assert_int_equal(x->segments, 1);
	assert_int_equal(x->bytes, 1042);
	assert_int_equal(x->sizes[11], 1);	/* [1024, 2047] */
	x = row(d, NIC, FROM);
	assert_int_equal(x->requests, 2);
	assert_int_equal(x->bytes, 4096);
	assert_int_equal(x->sizes[12], 2);	/* [2048, 4095] */
	x = row(d, "", BIDIR);
	assert_int_equal(x->requests, 1);
	assert_int_equal(x->bytes, 100);
	/* The size table still counts segments alone. */
	assert_int_equal(vmt_dma_traffic_sizes(d)[bucket(65536)].map_sg, 2);
	vmt_analysis_destroy(d);
	vmt_analysis_destroy(tr);

	/* Without the trace, no name can be read: a row per direction. */
	run(recs, sizeof(recs) / sizeof(recs[0]), VMT_REF_FAULTS, 0, false, &d, &tr);
	assert_int_equal(vmt_dma_traffic_devices(d, &devs), 3);
	x = row(d, "", FROM);
	assert_int_equal(x->requests, 3 + 2);
	assert_int_equal(x->bytes, 16384 + 131072 + 4096 + 4096);
	x = row(d, "", TO);
	assert_int_equal(x->requests, 2);
	assert_int_equal(x->bytes, 1042 + 512);
	vmt_analysis_destroy(d);
	vmt_analysis_destroy(tr);
}

/*
 * Reference records, pages of 4 KiB:
 *   t=0   pid 1 page 0x10 at frame 0x100, user read
 *   t=10  pid 1 page 0x11 at frame 0x101, user write
 *   t=20  pid 1 page 0x12, no frame, kernel write
 *   t=30  PAGEMAP map pid 2 page 0x20 at 0x200
 *   t=40  DMA to device 8192 at 0x100000 (frames 0x100, 0x101): 128 lines,
 *         both frames mapped: translatable
 *   t=50  PAGEMAP unmap pid 1 page 0x10
 *   t=60  DMA from device 4096 at 0x100800 (frames 0x100, 0x101: 32 lines
 *         each): 0x100 unmapped, 32 untranslatable
 *   t=70  pid 1 page 0x11 at frame 0x300 (moved: 0x101 holds nothing), kernel read
 *   t=80  DMA bidirectional 256 at 0x101fc0 (one line in 0x101, three in
 *         0x102): all 4 untranslatable
 *   t=90  DMA from device 4096 at 0x200000 (frame 0x200, mapped): 64 lines
 *   t=100 DMA from device 512, no phys: left out
 *   t=110 DMA alloc 65536 at 0x900000: not traffic
 *   t=120 pid 3 page 0x40 at frame 0x200 (two pages at 0x200), user read-modify-write
 */
static void test_traffic_by_hand(void **state)
{
	struct rec recs[] = {
		ref(0, 1, 0x10000, 0x100, VMT_ACCESS_READ, 0),
		ref(10, 1, 0x11000, 0x101, VMT_ACCESS_WRITE, 0),
		ref(20, 1, 0x12000, 0, VMT_ACCESS_WRITE, 1),
		pagemap(30, 2, 0x20000, 0x200, VMT_PAGEMAP_MAP),
		dma(40, 0, VMT_DMA_MAP_PAGE, TO, 8192, 0x100000, 0, 1, NIC),
		pagemap(50, 1, 0x10000, 0x100, VMT_PAGEMAP_UNMAP),
		dma(60, 0, VMT_DMA_MAP_SG, FROM, 4096, 0x100800, 0, 1, NVME),
		ref(70, 1, 0x11000, 0x300, VMT_ACCESS_READ, 1),
		dma(80, 0, VMT_DMA_MAP_PAGE, BIDIR, 256, 0x101fc0, 0, 1, NIC),
		dma(90, 0, VMT_DMA_MAP_PAGE, FROM, 4096, 0x200000, 0, 1, NVME),
		dma(100, 0, VMT_DMA_MAP_PAGE, FROM, 512, 0, 0, 1, NVME),
		dma(110, 0, VMT_DMA_ALLOC, BIDIR, 65536, 0x900000, 0, 1, NVME),
		ref(120, 3, 0x40000, 0x200, VMT_ACCESS_RMW, 0),
	};
	const struct vmt_traffic_interval *ivs;
	const struct vmt_traffic_result *r;
	struct vmt_analysis *d, *tr;

	(void)state;
	run(recs, sizeof(recs) / sizeof(recs[0]), VMT_REF_FAULTS, 0, true, &d, &tr);
	r = vmt_traffic_result(tr);
	/* Reads: 0x10, 0x11 (t=70), the RMW; writes: 0x11, 0x12, the RMW. */
	assert_int_equal(r->count[VMT_TRAFFIC_CPU_READ], 3);
	assert_int_equal(r->count[VMT_TRAFFIC_CPU_WRITE], 3);
	assert_int_equal(r->bytes[VMT_TRAFFIC_CPU_READ], 3 * 4096);
	assert_int_equal(r->bytes[VMT_TRAFFIC_CPU_WRITE], 3 * 4096);
	/* DMA reads: 8192 + 256; writes: 4096 + 256 + 4096 + 512. */
	assert_int_equal(r->count[VMT_TRAFFIC_DMA_READ], 2);
	assert_int_equal(r->bytes[VMT_TRAFFIC_DMA_READ], 8448);
	assert_int_equal(r->count[VMT_TRAFFIC_DMA_WRITE], 4);
	assert_int_equal(r->bytes[VMT_TRAFFIC_DMA_WRITE], 8960);
	assert_int_equal(r->basis[VMT_TRAFFIC_CPU_READ], VMT_TRAFFIC_ESTIMATED);
	assert_int_equal(r->basis[VMT_TRAFFIC_DMA_WRITE], VMT_TRAFFIC_UPPER_BOUND);
	assert_int_equal(r->fault_references, 5);
	assert_int_equal(r->exact_accesses + r->bus_records, 0);
	/* User: 0x10 read, 0x11 write, the RMW; kernel: 0x12 write, 0x11 read. */
	assert_int_equal(r->mode[0].references, 3);
	assert_int_equal(r->mode[0].reads, 2);
	assert_int_equal(r->mode[0].writes, 2);
	assert_int_equal(r->mode[0].read_bytes, 8192);
	assert_int_equal(r->mode[1].references, 2);
	assert_int_equal(r->mode[1].reads, 1);
	assert_int_equal(r->mode[1].writes, 1);
	assert_int_equal(r->mode[1].write_bytes, 4096);
	/* Untranslatable: 4 CPU references with a frame, none; DMA lines 128 + 64 + 4 + 64. */
	assert_int_equal(r->cpu_references, 4);
	assert_int_equal(r->cpu_untranslatable, 0);
	assert_int_equal(r->dma_lines, 260);
	assert_int_equal(r->dma_untranslatable, 36);
	assert_int_equal(r->dma_no_phys, 1);
	assert_near(vmt_traffic_untranslatable(tr), 100.0 * 36 / 264);
	/* One interval, 0 to 120 + 1 ns. */
	assert_int_equal(vmt_traffic_intervals(tr, &ivs), 1);
	assert_int_equal(ivs[0].duration_ns, 121);
	assert_int_equal(ivs[0].bytes[VMT_TRAFFIC_DMA_WRITE], 8960);
	vmt_analysis_destroy(d);
	vmt_analysis_destroy(tr);
}

/*
 * Exact records: a load of 8 (user), a store of 4 (kernel), a
 * read-modify-write of 2, an undecoded access (size 0), and bus records: a
 * fill and a prefetch of 64 (reads), a write-back of 64.
 */
static void test_traffic_exact(void **state)
{
	struct rec recs[] = {
		exact(0, 1, 0x1000, 8, VMT_ACCESS_READ, 0, 0),
		exact(1, 1, 0x1008, 4, VMT_ACCESS_WRITE, 1, 0),
		exact(2, 1, 0x1010, 2, VMT_ACCESS_RMW, 0, 0),
		exact(3, 1, 0x1018, 0, VMT_ACCESS_READ, 0, 0),
		exact(4, 1, 0x2000, 64, VMT_ACCESS_READ, 0, VMT_EXACT_BUS_FILL),
		exact(5, 1, 0x2040, 64, VMT_ACCESS_READ, 0, VMT_EXACT_BUS_PREFETCH),
		exact(6, 1, 0x3000, 64, VMT_ACCESS_WRITE, 1, VMT_EXACT_BUS_WRITEBACK),
		dma(7, 0, VMT_DMA_MAP_PAGE, TO, 128, 0x5000, 0, 1, NIC),
	};
	const struct vmt_traffic_result *r;
	struct vmt_analysis *d, *tr;

	(void)state;
	run(recs, sizeof(recs) / sizeof(recs[0]), VMT_REF_EXACT, 0, true, &d, &tr);
	r = vmt_traffic_result(tr);
	assert_int_equal(r->exact_accesses, 4);
	assert_int_equal(r->bus_records, 3);
	assert_int_equal(r->count[VMT_TRAFFIC_CPU_READ], 5);
	assert_int_equal(r->bytes[VMT_TRAFFIC_CPU_READ], 8 + 2 + 0 + 64 + 64);
	assert_int_equal(r->count[VMT_TRAFFIC_CPU_WRITE], 3);
	assert_int_equal(r->bytes[VMT_TRAFFIC_CPU_WRITE], 4 + 2 + 64);
	assert_int_equal(r->basis[VMT_TRAFFIC_CPU_WRITE], VMT_TRAFFIC_OBSERVED);
	assert_int_equal(r->mode[1].references, 2);
	assert_int_equal(r->mode[1].write_bytes, 68);
	assert_int_equal(r->mode[0].references, 5);
	/* No frame: exact accesses are no physical traffic; the DMA's two lines are. */
	assert_int_equal(r->cpu_references, 0);
	assert_int_equal(r->dma_lines, 2);
	assert_int_equal(r->dma_untranslatable, 2);
	vmt_analysis_destroy(d);
	vmt_analysis_destroy(tr);
}

/*
 * Intervals of 100 ns from the first record (50): [50, 150) holds a read
 * and a DMA read, [150, 250) nothing, [250, 350) a write at 260 and the
 * trace's end: it lasts 260 + 1 - 250 = 11 ns.
 */
static void test_traffic_intervals(void **state)
{
	struct rec recs[] = {
		ref(50, 1, 0x1000, 0, VMT_ACCESS_READ, 0),
		dma(149, 0, VMT_DMA_MAP_PAGE, TO, 1000, 0, 0, 1, NIC),
		ref(260, 1, 0x2000, 0, VMT_ACCESS_WRITE, 0),
	};
	const struct vmt_traffic_interval *ivs;
	struct vmt_analysis *d, *tr;

	(void)state;
	run(recs, 3, VMT_REF_FAULTS, 100, true, &d, &tr);
	assert_int_equal(vmt_traffic_intervals(tr, &ivs), 3);
	assert_int_equal(ivs[0].start_ns, 50);
	assert_int_equal(ivs[0].duration_ns, 100);
	assert_int_equal(ivs[0].bytes[VMT_TRAFFIC_CPU_READ], 4096);
	assert_int_equal(ivs[0].bytes[VMT_TRAFFIC_DMA_READ], 1000);
	assert_int_equal(ivs[1].duration_ns, 100);
	assert_int_equal(ivs[1].bytes[VMT_TRAFFIC_CPU_READ] + ivs[1].bytes[VMT_TRAFFIC_DMA_READ], 0);
	assert_int_equal(ivs[2].start_ns, 250);
	assert_int_equal(ivs[2].duration_ns, 11);
	assert_int_equal(ivs[2].bytes[VMT_TRAFFIC_CPU_WRITE], 4096);
	assert_int_equal(vmt_traffic_result(tr)->end_ns, 261);
	vmt_analysis_destroy(d);
	vmt_analysis_destroy(tr);
}

/* ---- A random trace against a brute-force model ---- */

#define RANDOM_RECORDS	4000
#define PAGES		24	/* per process, 3 processes */
#define FRAMES		32
#define WINDOW		1000

static const char *const names[] = { "nvme", "eth", "sda" };

/* The model's state: each (pid, page)'s frame known now (0: none). */
static uint64_t known[4][PAGES];

static bool model_translatable(uint64_t pfn)
{
	/* Frame 0 is none: a record with pfn 0 names no frame. */
	if (!pfn)
		return false;
	for (int p = 1; p <= 3; p++)
		for (int v = 0; v < PAGES; v++)
			if (known[p][v] == pfn)
				return true;
	return false;
}

/* A call the generator made: its device, direction and summed size. */
struct call {
	int dev;
	uint8_t dir;
	uint64_t size, segments;
};

static void test_random_brute_force(void **state)
{
	static struct rec recs[RANDOM_RECORDS + 64];
	static struct call calls[RANDOM_RECORDS];
	uint64_t bytes[VMT_TRAFFIC_KINDS] = { 0 }, counts[VMT_TRAFFIC_KINDS] = { 0 };
	static uint64_t iv_bytes[512][VMT_TRAFFIC_KINDS];
	uint64_t mode_refs[2] = { 0 }, mode_reads[2] = { 0 }, mode_writes[2] = { 0 };
	uint64_t cpu_frames = 0, lines = 0, bad = 0, no_phys = 0, last = 0;
	size_t n = 0, nr_calls = 0, i;
	/* Per CPU, the call whose segments are still to come. */
	int open_call[4] = { -1, -1, -1, -1 };
	unsigned int open_left[4] = { 0 }, open_next[4] = { 0 };
	const struct vmt_traffic_interval *ivs;
	const struct vmt_traffic_result *r;
	const struct vmt_dma_device *devs;
	struct vmt_analysis *d, *tr;
	uint64_t t = 1000, start = 0;
	size_t nd, nr_ivs;

	(void)state;
	srand(20261128);
	memset(known, 0, sizeof(known));
	while (n < RANDOM_RECORDS) {
		int kind = rand() % 10;
		uint16_t cpu = (uint16_t)(rand() % 4);

		t += 1 + (uint64_t)(rand() % 40);
		if (open_call[cpu] >= 0 && rand() % 2) {
			/* The next segment of this CPU's open call. */
			struct call *c = &calls[open_call[cpu]];
			uint32_t size = 512u << (rand() % 5);
			uint64_t phys = (uint64_t)(rand() % (FRAMES + 2)) << 12 |
					(uint64_t)(rand() % 64) << 6;

			recs[n++] = dma(t, cpu, VMT_DMA_MAP_SG, c->dir, size, phys,
					(uint16_t)open_next[cpu], (uint16_t)(open_next[cpu] +
									 open_left[cpu]),
					names[c->dev]);
			c->size += size;
			c->segments++;
			open_next[cpu]++;
			if (!--open_left[cpu])
				open_call[cpu] = -1;
			continue;
		}
		if (kind < 5) {
			uint32_t pid = 1 + (uint32_t)(rand() % 3);
			uint64_t vpn = (uint64_t)(rand() % PAGES);
			uint64_t pfn = rand() % 4 ? 1 + (uint64_t)(rand() % FRAMES) : 0;
			uint8_t access = (uint8_t[]){ VMT_ACCESS_READ, VMT_ACCESS_WRITE,
						      VMT_ACCESS_RMW, VMT_ACCESS_EXEC }[rand() % 4];

			recs[n++] = ref(t, pid, vpn << 12 | 8, pfn, access, (uint8_t)(rand() % 2));
			recs[n - 1].r.hdr.cpu = cpu;
		} else if (kind < 7) {
			uint32_t pid = 1 + (uint32_t)(rand() % 3);
			uint64_t vpn = (uint64_t)(rand() % PAGES);

			recs[n++] = pagemap(t, pid, vpn << 12, 1 + (uint64_t)(rand() % FRAMES),
					    (uint8_t)(rand() % 2));
		} else if (kind < 8 && open_call[cpu] < 0) {
			/* A map_sg call of 1 to 4 segments: its first now. */
			struct call *c = &calls[nr_calls];
			unsigned int segs = 1 + (unsigned int)(rand() % 4);

			c->dev = rand() % 3;
			c->dir = (uint8_t)(rand() % 3);
			c->size = c->segments = 0;
			open_call[cpu] = (int)nr_calls++;
			open_left[cpu] = segs;
			open_next[cpu] = 0;
			/* Its segments come in the branch above. */
			continue;
		} else {
			int op = (int[]){ VMT_DMA_MAP_PAGE, VMT_DMA_MAP_PAGE, VMT_DMA_UNMAP_PAGE,
					  VMT_DMA_ALLOC }[rand() % 4];
			int dev = rand() % 3;
			uint8_t dir = (uint8_t)(rand() % 3);
			uint32_t size = 1 + (uint32_t)(rand() % 20000);
			uint64_t phys = rand() % 5 ? (uint64_t)(1 + rand() % FRAMES) << 12 |
						     (uint64_t)(rand() % 4096) : 0;

			recs[n++] = dma(t, cpu, (uint8_t)op, dir, size, phys, 0, 1, names[dev]);
			if (op == VMT_DMA_MAP_PAGE) {
				calls[nr_calls++] = (struct call){ dev, dir, size, 1 };
			}
		}
	}
	/* Calls left open: their last segments now. */
	for (uint16_t cpu = 0; cpu < 4; cpu++) {
		while (open_call[cpu] >= 0) {
			struct call *c = &calls[open_call[cpu]];

			t++;
			recs[n++] = dma(t, cpu, VMT_DMA_MAP_SG, c->dir, 4096, 0x5000,
					(uint16_t)open_next[cpu],
					(uint16_t)(open_next[cpu] + open_left[cpu]), names[c->dev]);
			c->size += 4096;
			c->segments++;
			open_next[cpu]++;
			if (!--open_left[cpu])
				open_call[cpu] = -1;
		}
	}

	/* The model: every record in order, each definition as written. */
	for (i = 0; i < n && !start; i++)
		if (recs[i].r.hdr.type == VMT_REC_REFERENCE ||
		    (recs[i].r.hdr.type == VMT_REC_DMA && (recs[i].r.dma.op == VMT_DMA_MAP_PAGE ||
							   recs[i].r.dma.op == VMT_DMA_MAP_SG)))
			start = recs[i].r.hdr.time_ns;
	for (i = 0; i < n; i++) {
		const struct vmt_record *x = &recs[i].r;
		/* Only records not counted come before the first counted one. */
		size_t iv = x->hdr.time_ns > start ? (x->hdr.time_ns - start) / WINDOW : 0;

		assert_true(iv < 512);

		if (x->hdr.type == VMT_REC_REFERENCE) {
			bool w = x->ref.access & VMT_ACCESS_WRITE;
			bool rd = (x->ref.access & VMT_ACCESS_READ) || !w;
			int k = x->ref.kernel_mode;
			uint32_t pid = x->hdr.pid;
			uint64_t vpn = x->ref.vaddr >> 12;

			if (x->ref.pfn) {
				known[pid][vpn] = x->ref.pfn;
				cpu_frames++;
			}
			mode_refs[k]++;
			if (rd) {
				counts[VMT_TRAFFIC_CPU_READ]++;
				bytes[VMT_TRAFFIC_CPU_READ] += 4096;
				iv_bytes[iv][VMT_TRAFFIC_CPU_READ] += 4096;
				mode_reads[k]++;
			}
			if (w) {
				counts[VMT_TRAFFIC_CPU_WRITE]++;
				bytes[VMT_TRAFFIC_CPU_WRITE] += 4096;
				iv_bytes[iv][VMT_TRAFFIC_CPU_WRITE] += 4096;
				mode_writes[k]++;
			}
			last = x->hdr.time_ns;
		} else if (x->hdr.type == VMT_REC_PAGEMAP) {
			uint64_t vpn = x->pagemap.vaddr >> 12;

			known[x->hdr.pid][vpn] = x->pagemap.op == VMT_PAGEMAP_MAP ?
						 x->pagemap.pfn : 0;
		} else if (x->dma.op == VMT_DMA_MAP_PAGE || x->dma.op == VMT_DMA_MAP_SG) {
			uint8_t dir = x->dma.dir;

			if (dir != FROM) {
				counts[VMT_TRAFFIC_DMA_READ]++;
				bytes[VMT_TRAFFIC_DMA_READ] += x->dma.size;
				iv_bytes[iv][VMT_TRAFFIC_DMA_READ] += x->dma.size;
			}
			if (dir != TO) {
				counts[VMT_TRAFFIC_DMA_WRITE]++;
				bytes[VMT_TRAFFIC_DMA_WRITE] += x->dma.size;
				iv_bytes[iv][VMT_TRAFFIC_DMA_WRITE] += x->dma.size;
			}
			if (!x->dma.phys_addr) {
				no_phys++;
			} else {
				/* Each byte's line once: the lines from the first byte's to the last's. */
				for (uint64_t a = x->dma.phys_addr & ~UINT64_C(63);
				     a < x->dma.phys_addr + x->dma.size; a += 64) {
					lines++;
					bad += !model_translatable(a >> 12);
				}
			}
			last = x->hdr.time_ns;
		}
	}

	run(recs, n, VMT_REF_FAULTS, WINDOW, true, &d, &tr);
	r = vmt_traffic_result(tr);
	for (int k = 0; k < VMT_TRAFFIC_KINDS; k++) {
		assert_int_equal(r->count[k], counts[k]);
		assert_int_equal(r->bytes[k], bytes[k]);
	}
	for (int k = 0; k < 2; k++) {
		assert_int_equal(r->mode[k].references, mode_refs[k]);
		assert_int_equal(r->mode[k].reads, mode_reads[k]);
		assert_int_equal(r->mode[k].writes, mode_writes[k]);
	}
	assert_int_equal(r->cpu_references, cpu_frames);
	assert_int_equal(r->cpu_untranslatable, 0);
	assert_int_equal(r->dma_lines, lines);
	assert_int_equal(r->dma_untranslatable, bad);
	assert_int_equal(r->dma_no_phys, no_phys);
	assert_true(bad > 0 && bad < lines);
	assert_int_equal(r->end_ns, last + 1);
	nr_ivs = (last - start) / WINDOW + 1;
	assert_true(nr_ivs > 10);
	assert_int_equal(r->start_ns, start);
	assert_int_equal(vmt_traffic_intervals(tr, &ivs), nr_ivs);
	for (i = 0; i < nr_ivs; i++)
		for (int k = 0; k < VMT_TRAFFIC_KINDS; k++)
			assert_int_equal(ivs[i].bytes[k], iv_bytes[i][k]);

	/* By device: the calls the generator made. */
	nd = vmt_dma_traffic_devices(d, &devs);
	for (int dev = 0; dev < 3; dev++) {
		for (uint8_t dir = 0; dir < 3; dir++) {
			uint64_t req = 0, segs = 0, sum = 0, sizes[VMT_DMA_SIZE_BUCKETS] = { 0 };
			const struct vmt_dma_device *x = row(d, names[dev], dir);

			for (i = 0; i < nr_calls; i++) {
				if (calls[i].dev != dev || calls[i].dir != dir || !calls[i].segments)
					continue;
				req++;
				segs += calls[i].segments;
				sum += calls[i].size;
				sizes[bucket(calls[i].size)]++;
			}
			if (!req) {
				assert_null(x);
				continue;
			}
			assert_non_null(x);
			assert_int_equal(x->requests, req);
			assert_int_equal(x->segments, segs);
			assert_int_equal(x->bytes, sum);
			for (int b = 0; b < VMT_DMA_SIZE_BUCKETS; b++)
				assert_int_equal(x->sizes[b], sizes[b]);
			nd--;
		}
	}
	assert_int_equal(nd, 0);
	vmt_analysis_destroy(d);
	vmt_analysis_destroy(tr);
}

static void test_bad_source(void **state)
{
	struct vmt_analysis *a = NULL;

	(void)state;
	assert_int_equal(vmt_traffic_create(&a, (enum vmt_ref_source)7, 0), -EINVAL);
	assert_null(a);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_devices_by_hand, setup, teardown),
		cmocka_unit_test_setup_teardown(test_traffic_by_hand, setup, teardown),
		cmocka_unit_test_setup_teardown(test_traffic_exact, setup, teardown),
		cmocka_unit_test_setup_teardown(test_traffic_intervals, setup, teardown),
		cmocka_unit_test_setup_teardown(test_random_brute_force, setup, teardown),
		cmocka_unit_test(test_bad_source),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
