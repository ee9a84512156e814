/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/*
 * libvmtrace's analyses: what a trace's memory references say. One driver,
 * vmt_analyze(), reads a trace once, in time order, through its filter
 * (vmt_trace_set_filter()), turns each record that is a reference into a
 * struct vmt_ref, and hands it to every analysis asked for, as
 * DynamoRIO's drcachesim hands memrefs to its analysis tools.
 *
 * Which records are references, and the unit they are counted in, is the
 * driver's choice (struct vmt_ref_options), made once for every analysis:
 *
 * - a unit is a virtual page of one address space (the same address in two
 *   processes is two units), or a physical frame (VMT_REF_PHYSICAL; records
 *   with no frame are passed over and counted);
 * - a page is 4 KiB, or 2 MiB when the record says a transparent huge page
 *   held the address (VMT_REF_HUGE); VMT_REF_LINE counts 64-byte lines.
 *
 * Each analysis keeps memory in proportion to the units it sees (the
 * footprint), not to the trace's length. Functions return 0 or a negative
 * errno and print nothing.
 */
#ifndef VMTRACE_ANALYSIS_H
#define VMTRACE_ANALYSIS_H

#include <stdbool.h>
#include <stdint.h>

#include "vmtrace/trace.h"

#ifdef __cplusplus
extern "C" {
#endif

enum vmt_ref_space {
	VMT_REF_VIRTUAL		= 0,	/* (pid, virtual page) */
	VMT_REF_PHYSICAL	= 1,	/* physical frame, whichever process */
};

enum vmt_ref_unit {
	VMT_REF_PAGE		= 0,	/* 4 KiB, or 2 MiB where the record says huge */
	VMT_REF_LINE		= 1,	/* 64-byte cache lines */
};

#define VMT_REF_PAGE_SHIFT	12
#define VMT_REF_HUGE_SHIFT	21
#define VMT_REF_LINE_SHIFT	6

struct vmt_ref_options {
	enum vmt_ref_space space;
	enum vmt_ref_unit unit;
};

/* One reference, as every analysis sees it. */
struct vmt_ref {
	uint64_t key;		/* the unit: equal keys, the same unit (see vmt_ref_key()) */
	uint64_t addr;		/* the unit's first byte: virtual, or physical */
	uint64_t time_ns;	/* the record's time */
	uint64_t index;		/* 0, 1, 2, ...: its place among the references analysed */
	uint32_t pid;
	uint32_t tid;
	uint32_t size;		/* the unit's bytes */
	uint16_t cpu;
	uint8_t access;		/* VMT_ACCESS_* */
	uint8_t kernel_mode;
};

/*
 * The key of the unit at @addr of size 1 << @shift: virtual units are
 * (pid << 42 | unit number), which holds every 48-bit user address at line
 * granularity; physical ones the unit number alone.
 */
static inline uint64_t vmt_ref_key(enum vmt_ref_space space, uint32_t pid, uint64_t addr,
				   unsigned int shift)
{
	uint64_t unit = addr >> shift;

	if (space == VMT_REF_PHYSICAL)
		return unit;
	return (uint64_t)pid << 42 | (unit & ((UINT64_C(1) << 42) - 1));
}

/*
 * @rec as a reference: 1 with *@ref filled in (its index left alone), 0
 * when it is none (another record type; a physical unit without a frame).
 */
int vmt_ref_from_record(const struct vmt_record *rec, const struct vmt_ref_options *options,
			struct vmt_ref *ref);

/*
 * An analysis: an object with these operations, made by its own
 * constructor (vmt_lru_curve_create()...), whose results its own accessors
 * give once vmt_analyze() has returned.
 *
 * reference():	one reference, in time order; 0 or -errno (stops the pass)
 * record():	optional: every record the filter passes, references
 *		included, before their reference() (DMA, mappings, tasks)
 * finish():	optional: the end of the trace
 * destroy():	frees the analysis
 */
struct vmt_analysis;

struct vmt_analysis_ops {
	const char *name;
	int (*reference)(struct vmt_analysis *analysis, const struct vmt_ref *ref);
	int (*record)(struct vmt_analysis *analysis, const struct vmt_record *rec);
	int (*finish)(struct vmt_analysis *analysis);
	void (*destroy)(struct vmt_analysis *analysis);
};

struct vmt_analysis {
	const struct vmt_analysis_ops *ops;
};

/* What one pass saw. */
struct vmt_analyze_stats {
	uint64_t records;	/* records the filter passed */
	uint64_t references;	/* references handed to the analyses */
	uint64_t no_frame;	/* physical space: references without a frame, passed over */
	uint64_t first_ns;	/* time of the first reference (0: none) */
	uint64_t last_ns;	/* and of the last */
};

/*
 * One pass over @trace in time order, through its filter, handing every
 * reference (and record, to those that want them) to each of the
 * @nr_analyses @analyses, then finish() to each. @stats may be NULL.
 * Return: 0, the first error an analysis returned, or the reader's.
 */
int vmt_analyze(struct vmt_trace *trace, const struct vmt_ref_options *options,
		struct vmt_analysis *const *analyses, unsigned int nr_analyses,
		struct vmt_analyze_stats *stats);

/* Frees @analysis (NULL: nothing). */
void vmt_analysis_destroy(struct vmt_analysis *analysis);

/*
 * Per process: an analysis that runs one analysis of its own for each pid,
 * made by @create(@ctx, pid, &analysis) at the pid's first reference, and
 * hands it that pid's references (and records) alone. Other records of a
 * process with no analysis yet (a DMA mapping, a switch, a task's birth)
 * go to every process's analysis made so far.
 */
typedef int (*vmt_analysis_create_fn)(void *ctx, uint32_t pid, struct vmt_analysis **analysis);

int vmt_per_process_create(struct vmt_analysis **analysis, vmt_analysis_create_fn create,
			   void *ctx);
/* How many processes, and the @i-th (in order of first reference). */
unsigned int vmt_per_process_count(const struct vmt_analysis *analysis);
struct vmt_analysis *vmt_per_process_get(const struct vmt_analysis *analysis, unsigned int i,
					 uint32_t *pid);

/* ---- HMTT's analyses: DMA traffic, virtual to physical, interleaving, SCR ---- */

/*
 * After HMTT (Bao et al., "HMTT: a platform independent full-system memory
 * trace monitoring system", SIGMETRICS 2008), which traced the memory bus
 * and so saw the devices' DMA, the page tables' mappings, every process's
 * references merged, and the streams a prefetcher could follow. Each is an
 * analysis for vmt_analyze(); docs/ANALYSIS-hmtt.md defines what they count.
 */

/* A range of values and how many fell in it: [lo, hi]. */
struct vmt_hist_bucket {
	uint64_t lo;
	uint64_t hi;
	uint64_t count;
};

/*
 * DMA traffic against the CPU's traced references, per interval of
 * @window_ns (0: the whole trace is one interval), from VMT_REC_DMA
 * records. A mapping's size is the traffic it stands for: a device moves
 * at most that many bytes through it. Bidirectional mappings count as both
 * a read and a write. A CPU reference is a page (or line) touched, not a
 * byte count: its bytes are its unit's size (struct vmt_ref.size).
 */
struct vmt_dma_interval {
	uint64_t start_ns;
	uint64_t read_bytes;	/* the device reads memory: to device, and bidirectional */
	uint64_t write_bytes;	/* the device writes memory: from device, and bidirectional */
	uint64_t bidirectional_bytes;	/* in both of the above */
	uint64_t coherent_bytes;	/* dma_alloc_attrs(): set aside, in neither */
	uint64_t maps;		/* map and alloc records */
	uint64_t references;	/* the CPU's */
	uint64_t cpu_bytes;	/* the references' units' bytes */
};

/* Request sizes in power-of-two ranges: bucket 0 is 0, bucket i is [2^(i-1), 2^i). */
#define VMT_DMA_SIZE_BUCKETS	33

struct vmt_dma_size_bucket {
	uint64_t lo;
	uint64_t hi;
	uint64_t map_page;	/* dma_map_page_attrs() */
	uint64_t map_sg;	/* scatter-gather segments, each counted alone */
	uint64_t alloc;		/* coherent allocations */
};

int vmt_dma_traffic_create(struct vmt_analysis **analysis, uint64_t window_ns);
/* The intervals from the first reference or DMA record on, empty ones included. */
size_t vmt_dma_traffic_intervals(const struct vmt_analysis *analysis,
				 const struct vmt_dma_interval **intervals);
/* Every interval's counts added up. */
void vmt_dma_traffic_total(const struct vmt_analysis *analysis, struct vmt_dma_interval *total);
/* DMA records of every op, unmaps and frees included (0: the trace has none). */
uint64_t vmt_dma_traffic_records(const struct vmt_analysis *analysis);
const struct vmt_dma_size_bucket *vmt_dma_traffic_sizes(const struct vmt_analysis *analysis);
/*
 * @iv's DMA reads and writes as percentages of all its bytes (CPU bytes,
 * DMA reads and DMA writes): HMTT's Table 3. 0 and 0 for an empty interval.
 */
void vmt_dma_interval_shares(const struct vmt_dma_interval *iv, double *read_pct,
			     double *write_pct);
/* The summary: DMA's share of the trace's bytes in percent (reads + writes). */
double vmt_dma_traffic_share(const struct vmt_analysis *analysis);

/*
 * Virtual to physical, from reference records that name a frame and
 * VMT_REC_PAGEMAP records, at 4 KiB granularity (a huge page's 4 KiB
 * pages as the records name them). A page (pid, virtual page number) is
 * mapped each time it is seen at a frame other than the one it was last
 * seen at, or again after a PAGEMAP unmap; a frame is mapped each time it
 * is seen holding a page other than the one it last held, or again after
 * an unmap. Contiguity: of the pairs of pages (vpn, vpn + 1) of one process
 * both seen with a frame, those whose last frames are (pfn, pfn + 1).
 */
struct vmt_v2p_result {
	uint64_t sightings;	/* references with a frame and PAGEMAP maps */
	uint64_t unmaps;	/* PAGEMAP unmaps */
	uint64_t pages;		/* distinct (pid, virtual page) seen with a frame */
	uint64_t frames;	/* distinct frames */
	uint64_t page_mappings;	/* summed over the pages */
	uint64_t frame_mappings;	/* summed over the frames */
	uint64_t remapped_pages;	/* pages mapped more than once */
	uint64_t remapped_frames;	/* frames mapped more than once */
	uint64_t adjacent_pairs;	/* (vpn, vpn + 1) of one process, both seen */
	uint64_t contiguous_pairs;	/* of which the frames are (pfn, pfn + 1) */
};

int vmt_v2p_create(struct vmt_analysis **analysis);
const struct vmt_v2p_result *vmt_v2p_result(const struct vmt_analysis *analysis);
/* Pages, and frames, by how many times they were mapped: exact to 15, then [2^k, 2^(k+1)). */
size_t vmt_v2p_page_histogram(const struct vmt_analysis *analysis,
			      const struct vmt_hist_bucket **buckets);
size_t vmt_v2p_frame_histogram(const struct vmt_analysis *analysis,
			       const struct vmt_hist_bucket **buckets);
/* The summary: contiguous pairs in percent of the adjacent pairs (0: none). */
double vmt_v2p_contiguity(const struct vmt_analysis *analysis);

/*
 * Interleaving: the references in time order, all processes merged, cut
 * into runs of consecutive references by one process (pid).
 */
struct vmt_interleave_result {
	uint64_t references;
	uint64_t runs;
	uint64_t switches;	/* runs - 1: one process's reference after another's */
	uint64_t processes;
	uint64_t longest;	/* the longest run's references */
	uint64_t median;	/* the median run length (the lower of two middles) */
	double mean;		/* references / runs */
};

int vmt_interleave_create(struct vmt_analysis **analysis);
const struct vmt_interleave_result *vmt_interleave_result(const struct vmt_analysis *analysis);
/* Runs by length: exact to 15, then [2^k, 2^(k+1)). */
size_t vmt_interleave_histogram(const struct vmt_analysis *analysis,
				const struct vmt_hist_bucket **buckets);
/* The summary: the mean run length. */
double vmt_interleave_mean_run(const struct vmt_analysis *analysis);

/*
 * Stream coverage rate (SCR), HMTT's metric after Mohan et al.
 * ("Identifying and exploiting spatial regularity in data memory
 * references", SC 2003): the share of references that belong to a
 * fixed-stride stream seen within a window of @window references. Three
 * references j < k < i of one window (i - j < @window) whose addresses
 * step by one stride, a_i - a_k = a_k - a_j != 0, form a stream, and all
 * three are covered. Addresses are units (struct vmt_ref.addr) in @space
 * and @unit, taken from the records themselves, so one pass can measure
 * the virtual and the physical rate. Virtual: each process's references
 * in a window of their own (the program's view); physical: one window over
 * every process's references merged (the memory bus's view, HMTT's).
 */
#define VMT_SCR_MIN_WINDOW	3
#define VMT_SCR_MAX_WINDOW	1024

struct vmt_scr_result {
	uint64_t references;	/* references with an address in the space */
	uint64_t covered;	/* those in a stream */
};

/* -EINVAL: a window outside [VMT_SCR_MIN_WINDOW, VMT_SCR_MAX_WINDOW]. */
int vmt_scr_create(struct vmt_analysis **analysis, enum vmt_ref_space space,
		   enum vmt_ref_unit unit, unsigned int window);
const struct vmt_scr_result *vmt_scr_result(const struct vmt_analysis *analysis);
/* The summary: covered / references, in percent. */
double vmt_scr_rate(const struct vmt_analysis *analysis);

#ifdef __cplusplus
}
#endif

#endif /* VMTRACE_ANALYSIS_H */
