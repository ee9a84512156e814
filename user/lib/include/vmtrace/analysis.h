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
 *
 * Outline: references (vmt_ref_options, vmt_ref, vmt_ref_from_record());
 * the analysis object and the one pass (vmt_analyze()), in parts for MPI
 * (pack, merge, finish) and per process; then each analysis, a section
 * each: working-set size; heatmap; SAD reduction; mrc and reuse; HMTT's
 * (DMA traffic and DMA by device, memory traffic, virtual to physical,
 * interleaving, SCR, the prefetcher, DRAM and its address maps).
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

/* Which records an analysis reads as references. */
enum vmt_ref_source {
	VMT_REF_FAULTS = 0,	/* reference records: the pages the tracer saw referenced */
	/*
	 * Exact records: every load, store and fetch (exact mode's, lackey's,
	 * din's, cachesim --emit's), each in the unit of its first byte;
	 * virtual alone (they have no frame)
	 */
	VMT_REF_EXACT,
};

struct vmt_ref_options {
	enum vmt_ref_space space;
	enum vmt_ref_unit unit;
	/*
	 * Only references whose address (in @space) is in [@addr_lo, @addr_hi);
	 * both 0: any address.
	 */
	uint64_t addr_lo, addr_hi;
	enum vmt_ref_source source;
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
 * when it is none (another record type; a physical unit without a frame;
 * an address outside the options' range).
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
 * pack():	optional: in parts (vmt_analyze_part()), the state after a part,
 *		before finish(), as bytes (*@data malloc()ed)
 * merge():	with pack(): a later part's packed state into this one, the
 *		parts in time order, before finish(); -EBADMSG for bytes that
 *		are not a part
 * splits():	optional, with pack(): false when this analysis's options
 *		need the whole trace in one pass (FIFO, CLOCK, a sample), so
 *		that its pack() would fail; absent, pack() means it splits
 */
struct vmt_analysis;

struct vmt_analysis_ops {
	const char *name;
	int (*reference)(struct vmt_analysis *analysis, const struct vmt_ref *ref);
	int (*record)(struct vmt_analysis *analysis, const struct vmt_record *rec);
	int (*finish)(struct vmt_analysis *analysis);
	void (*destroy)(struct vmt_analysis *analysis);
	int (*pack)(struct vmt_analysis *analysis, void **data, size_t *size);
	int (*merge)(struct vmt_analysis *analysis, const void *data, size_t size);
	bool (*splits)(const struct vmt_analysis *analysis);
};

struct vmt_analysis {
	const struct vmt_analysis_ops *ops;
};

/* What one pass saw. */
struct vmt_analyze_stats {
	uint64_t records;	/* records the filter passed */
	uint64_t references;	/* references handed to the analyses */
	uint64_t no_frame;	/* physical space: references without a frame, passed over */
	uint64_t out_of_range;	/* references outside the address range, passed over */
	uint64_t first_ns;	/* time of the first reference (0: none) */
	uint64_t last_ns;	/* and of the last */
	/*
	 * On an error: true when an analysis returned it (or @options were
	 * bad), false when reading the trace failed (then
	 * vmt_trace_error_message() may say more).
	 */
	bool analysis_error;
};

/*
 * One pass over @trace in time order, through its filter, handing every
 * reference (and record, to those that want them) to each of the
 * @nr_analyses @analyses, then finish() to each. @stats may be NULL.
 * Return: 0, the first error an analysis returned, or the reader's
 * (@stats->analysis_error tells which).
 */
int vmt_analyze(struct vmt_trace *trace, const struct vmt_ref_options *options,
		struct vmt_analysis *const *analyses, unsigned int nr_analyses,
		struct vmt_analyze_stats *stats);

/* Frees @analysis (NULL: nothing). */
void vmt_analysis_destroy(struct vmt_analysis *analysis);

/*
 * In parts (the commands' MPI runs, docs/analysis/parallel.md): the trace
 * cut by time (vmt_trace_time_parts()), each part read by a pass that does
 * not finish (vmt_analyze_part(), @trace's filter narrowed to the part),
 * its analyses packed (vmt_analysis_pack()) and merged in time order into
 * the first part's (vmt_analysis_merge()), its stats too
 * (vmt_analyze_stats_merge()); then vmt_analysis_finish() gives what one
 * pass over the whole gives. -EOPNOTSUPP: the analysis does not split.
 */
int vmt_analyze_part(struct vmt_trace *trace, const struct vmt_ref_options *options,
		     struct vmt_analysis *const *analyses, unsigned int nr_analyses,
		     struct vmt_analyze_stats *stats);
int vmt_analysis_pack(struct vmt_analysis *analysis, void **data, size_t *size);
/* Whether @analysis can be run in parts (vmt_analysis_pack() and merge() work). */
bool vmt_analysis_splits(const struct vmt_analysis *analysis);
int vmt_analysis_merge(struct vmt_analysis *analysis, const void *data, size_t size);
int vmt_analysis_finish(struct vmt_analysis *analysis);
void vmt_analyze_stats_merge(struct vmt_analyze_stats *stats,
			     const struct vmt_analyze_stats *later);

/*
 * Per process: an analysis that runs one analysis of its own for each pid,
 * made by @create(@ctx, pid, &analysis) at the pid's first reference, and
 * hands it that pid's references and records alone. A record of a process
 * that has no analysis yet goes to none: one from before the process's
 * first reference (which a --pid filter would keep), or of a process that
 * never references.
 */
typedef int (*vmt_analysis_create_fn)(void *ctx, uint32_t pid, struct vmt_analysis **analysis);

int vmt_per_process_create(struct vmt_analysis **analysis, vmt_analysis_create_fn create,
			   void *ctx);
/*
 * Which record is a process's first reference, the one that makes its
 * analysis: a reference record (VMT_REF_FAULTS, the default) or an exact
 * one (VMT_REF_EXACT): the pass's vmt_ref_options.source, before the pass.
 */
void vmt_per_process_set_source(struct vmt_analysis *analysis, enum vmt_ref_source source);
/* How many processes, and the @i-th (in order of first reference). */
unsigned int vmt_per_process_count(const struct vmt_analysis *analysis);
struct vmt_analysis *vmt_per_process_get(const struct vmt_analysis *analysis, unsigned int i,
					 uint32_t *pid);

/* ---- Working-set size ---- */

/*
 * The working-set size over time: the distinct units referenced in each
 * window of @window_ns, the windows tumbling from the first reference.
 * -EINVAL when @window_ns is 0.
 */
int vmt_wss_create(struct vmt_analysis **analysis, uint64_t window_ns);
/*
 * Count only the units whose key's hash is @share modulo @shares, for a
 * run split among processes by units (each reads every reference; their
 * packed analyses merge into the whole's). -EINVAL: @share not below
 * @shares.
 */
int vmt_wss_share(struct vmt_analysis *analysis, unsigned int share, unsigned int shares);

struct vmt_wss_window {
	uint64_t start_ns;	/* the trace's time at its start */
	uint64_t units;		/* distinct units referenced in it: its working set */
	uint64_t bytes;		/* their bytes */
	uint64_t references;
};

/*
 * The windows that saw a reference, in time order, *@nr of them; those
 * between them that saw none (size 0) are left out, and counted in the
 * summary's percentiles and mean.
 */
const struct vmt_wss_window *vmt_wss_windows(const struct vmt_analysis *analysis, size_t *nr);

#define VMT_WSS_MAX_PERCENTILES	16

struct vmt_wss_summary {
	uint64_t windows;	/* from the first reference's to the last's */
	uint64_t empty_windows;	/* of them, those without a reference */
	uint64_t window_ns;
	double mean_units, mean_bytes;
	unsigned int nr_percentiles;
	unsigned int percent[VMT_WSS_MAX_PERCENTILES];
	uint64_t units[VMT_WSS_MAX_PERCENTILES];	/* nearest-rank percentiles */
	uint64_t bytes[VMT_WSS_MAX_PERCENTILES];
};

/*
 * The windows' sizes at each of @percents (0..100; nearest rank: the
 * smallest size at least that share of the windows do not exceed), and
 * their mean. -EINVAL: a percent above 100 or too many; -ENODATA: no
 * window (no reference).
 */
int vmt_wss_summarize(const struct vmt_analysis *analysis, const unsigned int *percents,
		      unsigned int nr_percents, struct vmt_wss_summary *summary);

/* ---- Heatmap ---- */

/*
 * References counted over address (rows) and time (columns), the empty
 * stretches of the address space collapsed (user/lib/analysis/analysis_heatmap.c
 * has the layout). Two passes: run vmt_analyze() with the analysis while
 * vmt_heatmap_needs_pass() says so, on the same trace and filter; the
 * first surveys (time span, referenced units, mappings) and lays out the
 * rows, the second counts. One address space: in virtual space, give it
 * one process's references (vmt_per_process_create() or a pid filter).
 */
#define VMT_HEATMAP_MAX_ROWS	4096
#define VMT_HEATMAP_MAX_COLS	4096

struct vmt_heatmap_options {
	unsigned int rows, cols;	/* 1 to the maxima above */
};

/* -EINVAL: rows or cols 0 or above the maxima. */
int vmt_heatmap_create(struct vmt_analysis **analysis, const struct vmt_heatmap_options *options);
bool vmt_heatmap_needs_pass(const struct vmt_analysis *analysis);
/* The references the first pass saw (0: no heatmap). */
uint64_t vmt_heatmap_references(const struct vmt_analysis *analysis);
/* The first and last reference's times: column c starts where
 * vmt_heatmap_column() turns from c - 1 to c. */
void vmt_heatmap_time(const struct vmt_analysis *analysis, uint64_t *first_ns, uint64_t *last_ns);
/* The column of a reference at @time_ns: (t - first) * cols / (last - first + 1). */
unsigned int vmt_heatmap_column(const struct vmt_analysis *analysis, uint64_t time_ns);

/* A stretch of address space shown, after a collapsed one of gap_before bytes. */
struct vmt_heatmap_segment {
	uint64_t start, end;		/* [start, end) */
	uint64_t gap_before;		/* collapsed between the previous one and this (0: first) */
	unsigned int first_row, nr_rows;
};

struct vmt_heatmap_row {
	uint64_t start, end;		/* [start, end), within its segment */
	unsigned int segment;
};

/* In address order; the rows may be fewer than asked (a small segment). */
const struct vmt_heatmap_segment *vmt_heatmap_segments(const struct vmt_analysis *analysis,
						       unsigned int *nr);
const struct vmt_heatmap_row *vmt_heatmap_rows(const struct vmt_analysis *analysis,
					       unsigned int *nr);
/*
 * The counts, row-major (rows x *@cols): the references of a cell. *@outside:
 * references of the second pass in no cell (0 unless the trace or filter
 * changed between the passes); may be NULL.
 */
const uint64_t *vmt_heatmap_counts(const struct vmt_analysis *analysis, unsigned int *cols,
				   uint64_t *outside);
/* ---- SAD reduction ---- */

/*
 * Laplace's SAD (Safely Allowed Drop) reduction, after Kaplan, Smaragdakis
 * and Wilson, "Trace reduction for virtual memory simulations" (SIGMETRICS
 * '99): a trace with fewer references whose LRU simulation takes exactly
 * the faults of the original's for every memory of at least R units. The
 * rule and why it holds are in sad_reduce.c and docs/analysis/reduce.md.
 *
 * The analysis writes the reduced trace as it goes, to a writer the caller
 * made and closes: every record the pass sees, in time order, but the
 * references the rule drops; with, as opaque streams (docs/FORMAT.md),
 * "ref_index" (a struct vmt_trace_ref_index for each kept reference, in
 * the order they are written), "reduction" (struct vmt_trace_reduction),
 * and the input's "session", copied.
 */
enum vmt_reduction_method {
	VMT_REDUCTION_SAD	= 1,
};

#define VMT_REDUCTION_PER_PROCESS	0x1	/* each process's references on their own */

/* The one entry of a reduced trace's opaque stream "reduction". */
struct vmt_trace_reduction {
	uint32_t size;		/* sizeof(struct vmt_trace_reduction), for growth */
	uint32_t method;	/* enum vmt_reduction_method */
	uint32_t flags;		/* VMT_REDUCTION_* */
	uint32_t space;		/* enum vmt_ref_space of the units */
	uint32_t unit;		/* enum vmt_ref_unit */
	uint32_t reserved0;
	uint64_t r;		/* R: exact for memories of R units or more */
	uint64_t references;	/* in the unreduced stream (what the filters passed) */
	uint64_t kept;		/* of them, in this trace */
	uint64_t reserved[4];
};

/*
 * An entry of the opaque stream "ref_index": the i-th reference record of
 * the reduced trace, in written order (VMT_ORDER_WRITTEN; also time order,
 * but for references of equal time), had place @index among the
 * references of the trace it was reduced from, counted as vmt_analyze()
 * counts them (struct vmt_ref.index).
 */
struct vmt_trace_ref_index {
	uint64_t time_ns;	/* the record's time: the stream can be sought by time */
	uint64_t index;
};

struct vmt_sad_options {
	uint64_t r;		/* R, 1 or more */
	bool per_process;
	/*
	 * Records held at most while their references wait for their fate
	 * (the window to end); 0: the default, 131072 or 4 R. A full queue
	 * ends the oldest waiting window early, which costs reduction, never
	 * exactness.
	 */
	uint32_t queue_records;
};

struct vmt_sad_stats {
	uint64_t references;	/* references seen */
	uint64_t kept;		/* of them, written */
	uint64_t records;	/* other records written */
	uint64_t windows;	/* windows of R units closed */
	uint64_t early_ends;	/* of them, ended early by a full queue */
	uint64_t no_frame;	/* --space physical: references without a frame, left out */
};

/*
 * The reduction of @in's references, in units as @ref says, written into
 * @out: -EINVAL for R = 0. @in must stay open until vmt_analyze() returns
 * (records' data is read from it as they are written).
 */
int vmt_sad_create(struct vmt_analysis **analysis, struct vmt_trace *in,
		   struct vmt_trace_writer *out, const struct vmt_ref_options *ref,
		   const struct vmt_sad_options *options);
void vmt_sad_stats(const struct vmt_analysis *analysis, struct vmt_sad_stats *stats);
/* A reduced trace's parameters, or -ENOENT for a trace that is not one. */
int vmt_trace_reduction(struct vmt_trace *trace, struct vmt_trace_reduction *out);
/* ---- mrc and reuse: miss-ratio curves, reuse distances and times ---- */

/*
 * Miss-ratio curves (analysis_mrc.c): the faults a memory of M units would
 * take under each policy, for each size M asked.
 *
 * LRU:   exact for every size from one pass, by LRU stack distances;
 *        sampled (SHARDS) when @sample_rate is in (0, 1).
 * FIFO:  a simulation for each size.
 * CLOCK: a simulation for each size: one reference bit a unit, set by each
 *        reference, the fault's included; the hand clears set bits and
 *        evicts the first unit whose bit is clear (second chance).
 * OPT:   Belady's: evicts the unit used again furthest in the future; a
 *        simulation for each size after the pass, over the references kept
 *        as 4-byte unit numbers (its memory grows with the trace's length).
 *
 * A size at or above the footprint takes the cold misses alone.
 */
enum vmt_mrc_policy {
	VMT_MRC_LRU,
	VMT_MRC_FIFO,
	VMT_MRC_CLOCK,
	VMT_MRC_OPT,
	VMT_MRC_NR_POLICIES,
};

struct vmt_mrc_options {
	unsigned int policies;	/* a bit 1 << VMT_MRC_* for each */
	const uint64_t *sizes;	/* in units, each at least 1; NULL: powers of two and the footprint */
	unsigned int nr_sizes;
	double sample_rate;	/* 0 or 1: exact; in (0, 1): LRU sampled at this rate */
	uint64_t sample_size;	/* 0: no bound; else LRU sampled (SHARDS, fixed size): at most
				 * this many units, from sample_rate (0: 1) down as needed */
};

/* -EINVAL: no policy, a size of 0, a rate outside [0, 1], a sample_size above 2^30 or without LRU. */
int vmt_mrc_create(struct vmt_analysis **analysis, const struct vmt_mrc_options *options);
/* The most units the LRU sample held at once (sample_size: at most it). */
uint64_t vmt_mrc_sample_peak(const struct vmt_analysis *analysis);
/* The policy's name as --policy takes it ("lru"...), or NULL. */
const char *vmt_mrc_policy_name(enum vmt_mrc_policy policy);
/* After the pass: the references and units it saw. */
uint64_t vmt_mrc_references(const struct vmt_analysis *analysis);
uint64_t vmt_mrc_footprint(const struct vmt_analysis *analysis);
/* The sizes of the curve, ascending and each once: the options', or the automatic ones. */
unsigned int vmt_mrc_nr_sizes(const struct vmt_analysis *analysis);
uint64_t vmt_mrc_size(const struct vmt_analysis *analysis, unsigned int i);
/* The faults of @policy at the @i-th size: 0, or -EINVAL (a policy not asked, no such size). */
int vmt_mrc_faults(const struct vmt_analysis *analysis, enum vmt_mrc_policy policy,
		   unsigned int i, uint64_t *faults);

/*
 * Reuse (analysis_reuse.c), as DynamoRIO's reuse_distance: for each
 * reference to a unit seen before, its reuse distance (the distinct other
 * units referenced since the unit's previous reference: its LRU stack
 * distance) and its reuse time (the references in between); and the units
 * referenced most.
 *
 * Histograms count every value below VMT_REUSE_EXACT on its own, and
 * the rest in powers of two: [16, 31], [32, 63]...
 */
#define VMT_REUSE_EXACT		16
#define VMT_REUSE_BUCKETS	(VMT_REUSE_EXACT + 64 - 4)

struct vmt_reuse_histogram {
	uint64_t count;		/* reuses: references to a unit seen before */
	double mean;
	uint64_t median;	/* distances: exact; times: the low end of the median's bucket */
	uint64_t max;
	unsigned int nr_buckets;	/* up to the last one not empty */
	struct {
		uint64_t low, high;	/* the values it counts, both included */
		uint64_t count;
	} buckets[VMT_REUSE_BUCKETS];
};

struct vmt_reuse_unit {
	uint64_t key;
	uint64_t addr;		/* its first byte */
	uint32_t pid;		/* of its first reference */
	uint64_t references;
	uint64_t distant;	/* references at a reuse distance of VMT_REUSE_DISTANT or more */
};
#define VMT_REUSE_DISTANT	64

/* @top: how many of the units referenced most to keep. */
int vmt_reuse_create(struct vmt_analysis **analysis, unsigned int top);
/* After the pass. */
uint64_t vmt_reuse_references(const struct vmt_analysis *analysis);
uint64_t vmt_reuse_footprint(const struct vmt_analysis *analysis);
const struct vmt_reuse_histogram *vmt_reuse_distances(const struct vmt_analysis *analysis);
const struct vmt_reuse_histogram *vmt_reuse_times(const struct vmt_analysis *analysis);
/* The units referenced most, most first (ties: first referenced first); how many in *@n. */
const struct vmt_reuse_unit *vmt_reuse_top(const struct vmt_analysis *analysis, unsigned int *n);
/* ---- HMTT's analyses: DMA, traffic, v2p, interleaving, SCR, prefetch, DRAM ---- */

/*
 * After HMTT (Bao et al., "HMTT: a platform independent full-system memory
 * trace monitoring system", SIGMETRICS 2008), which traced the memory bus
 * and so saw the devices' DMA, the page tables' mappings, every process's
 * references merged, and the streams a prefetcher could follow. Each is an
 * analysis for vmt_analyze(); docs/analysis/hmtt.md defines what they count.
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
 * DMA requests by device and direction (HMTT's Table 4 and Figure 16). A
 * request is one call: a dma_map_page_attrs() (its map_page record) or a
 * dma_map_sg_attrs() (its map_sg segments, index 0 to count - 1 one after
 * another on one CPU, their sizes summed); coherent allocations are none.
 * A device is named by its records' data (dev_name()), read from the trace
 * given to vmt_dma_traffic_set_trace() before the pass; without it, or
 * when the data cannot be read, its name is "".
 */
struct vmt_dma_device {
	const char *name;	/* the device's; the analysis's until destroyed */
	uint8_t dir;		/* enum dma_data_direction: 0 bidirectional, 1 to, 2 from device */
	uint64_t requests;	/* calls */
	uint64_t segments;	/* map records: map_page ones and map_sg segments */
	uint64_t bytes;		/* their sizes summed */
	/* Requests by size, bucket i as struct vmt_dma_size_bucket's (past 2^32 - 1: the last). */
	uint64_t sizes[VMT_DMA_SIZE_BUCKETS];
};

/* The trace the pass reads, whose data names the devices (may be NULL: none named). */
void vmt_dma_traffic_set_trace(struct vmt_analysis *analysis, struct vmt_trace *trace);
/* After the pass: a row per (device, direction) that mapped, by name then direction. */
size_t vmt_dma_traffic_devices(const struct vmt_analysis *analysis,
			       const struct vmt_dma_device **devices);

/*
 * Memory traffic (HMTT's Table 3 and Figure 17), from the pass's
 * references (@source's: reference records, or exact ones) and the
 * VMT_REC_DMA, VMT_REC_PAGEMAP and frame-naming records:
 *
 * - CPU reads and writes: a reference whose access has VMT_ACCESS_WRITE
 *   is a write, one with VMT_ACCESS_READ or without the write bit a read
 *   (a read-modify-write is both); its bytes are an exact record's size
 *   (observed: every access; a bus record of cachesim --emit is a line
 *   its access says read or written), or a reference record's unit's size
 *   (estimated: a page touched stands for its unit's bytes);
 * - DMA reads and writes: map_page records and map_sg segments, a
 *   mapping's size the most the device moves (an upper bound): to the
 *   device a read, from it a write, bidirectional both; coherent
 *   allocations are none;
 * - per interval of @window_ns (0: the whole trace is one), each kind's
 *   bytes; an interval lasts the window, the last one until the last
 *   counted record's time + 1 ns;
 * - the references of user and kernel mode (kernel_mode);
 * - untranslatable: of the physical traffic, CPU references that name a
 *   frame (one each) and the 64-byte lines of the map records at their
 *   phys_addr, those whose 4 KiB frame no (pid, virtual page) is known
 *   mapped at, at the record's time. Known: seen at the frame in a
 *   reference, eviction or PAGEMAP map record, and since neither seen at
 *   another frame nor unmapped (PAGEMAP unmap). A reference record shows
 *   its own mapping first, so a CPU reference is never untranslatable.
 */
enum vmt_traffic_kind {
	VMT_TRAFFIC_CPU_READ,
	VMT_TRAFFIC_CPU_WRITE,
	VMT_TRAFFIC_DMA_READ,
	VMT_TRAFFIC_DMA_WRITE,
	VMT_TRAFFIC_KINDS,
};

/* What a kind's bytes are. */
enum vmt_traffic_basis {
	VMT_TRAFFIC_OBSERVED,	/* every access's bytes */
	VMT_TRAFFIC_ESTIMATED,	/* a unit's bytes for a page touched */
	VMT_TRAFFIC_UPPER_BOUND,	/* the most a mapping lets a device move */
};

struct vmt_traffic_interval {
	uint64_t start_ns;
	uint64_t duration_ns;	/* after the pass */
	uint64_t bytes[VMT_TRAFFIC_KINDS];
};

struct vmt_traffic_mode {
	uint64_t references;
	uint64_t reads, writes;	/* a read-modify-write in both */
	uint64_t read_bytes, write_bytes;
};

struct vmt_traffic_result {
	uint64_t count[VMT_TRAFFIC_KINDS];	/* CPU: references; DMA: map records */
	uint64_t bytes[VMT_TRAFFIC_KINDS];
	enum vmt_traffic_basis basis[VMT_TRAFFIC_KINDS];
	uint64_t fault_references;	/* the CPU references: reference records, */
	uint64_t exact_accesses;	/* exact records of a program's accesses, */
	uint64_t bus_records;		/* and exact records with a VMT_EXACT_BUS_* flag */
	struct vmt_traffic_mode mode[2];	/* [0] user mode, [1] kernel mode */
	uint64_t cpu_references;	/* untranslatable: CPU references that name a frame, */
	uint64_t cpu_untranslatable;	/* of them, untranslatable (none: see above) */
	uint64_t dma_lines;		/* the map records' 64-byte lines, */
	uint64_t dma_untranslatable;	/* of them, untranslatable */
	uint64_t dma_no_phys;		/* map records without a physical address, left out */
	uint64_t start_ns, end_ns;	/* the first counted record's time, the last's + 1 */
};

/* -EINVAL: an unknown @source. */
int vmt_traffic_create(struct vmt_analysis **analysis, enum vmt_ref_source source,
		       uint64_t window_ns);
const struct vmt_traffic_result *vmt_traffic_result(const struct vmt_analysis *analysis);
/* The intervals from the first counted record on, empty ones included. */
size_t vmt_traffic_intervals(const struct vmt_analysis *analysis,
			     const struct vmt_traffic_interval **intervals);
/* The summary: untranslatable CPU references and DMA lines in percent of both (0: none). */
double vmt_traffic_untranslatable(const struct vmt_analysis *analysis);

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

/* A page seen with a frame, and the frame it was last seen at. */
struct vmt_v2p_page {
	uint32_t pid;
	uint64_t vpn;		/* its virtual page number (4 KiB pages) */
	uint64_t pfn;		/* the frame it was last seen at */
	uint64_t mappings;	/* the times it was mapped */
	bool mapped;		/* false: a PAGEMAP unmap of it came after */
};

/*
 * The pages seen with a frame, in the order they were first seen: start
 * *@pos at 0; 1 with *@page set, 0 past the last. After the pass.
 */
int vmt_v2p_next_page(const struct vmt_analysis *analysis, size_t *pos,
		      struct vmt_v2p_page *page);

/*
 * Interleaving: the references in time order, all processes merged, cut
 * into runs of consecutive references by one process (pid); of all the
 * processes and of each (named by the last TASK or COMM record of its
 * leader, tid = pid), and a slice of the stream kept to draw.
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

/* HMTT's mark (its Fig. 13d): runs shorter than this many references. */
#define VMT_INTERLEAVE_SHORT_RUN	40

/* One process's runs in the merged stream. */
struct vmt_interleave_process {
	uint32_t pid;
	uint64_t references;
	uint64_t runs;
	uint64_t longest;
	uint64_t median;	/* the lower of two middles */
	uint64_t short_runs;	/* runs of fewer than VMT_INTERLEAVE_SHORT_RUN references */
	double mean;		/* references / runs */
	char comm[VMT_COMM_LEN + 1];	/* its name, from TASK and COMM records; "" if none */
};

/* A run length and how many runs had it. */
struct vmt_interleave_length {
	uint64_t length;
	uint64_t runs;
};

/* The processes, in the order of their first references; after the pass. */
size_t vmt_interleave_processes(const struct vmt_analysis *analysis,
				const struct vmt_interleave_process **processes);
/* The @i-th process's run lengths, shortest first, each distinct length once (exact). */
size_t vmt_interleave_process_lengths(const struct vmt_analysis *analysis, size_t i,
				      const struct vmt_interleave_length **lengths);

/* A reference of the slice: its place in the merged stream, its unit's address and pid. */
struct vmt_interleave_ref {
	uint64_t index;		/* 0, 1, ...: among the references this analysis saw */
	uint64_t time_ns;
	uint64_t addr;		/* its unit's first byte, in the pass's space */
	uint32_t pid;
};

/* At most this many references in a slice. */
#define VMT_INTERLEAVE_MAX_SLICE	(1u << 20)

/*
 * Before the pass: keep the references @first .. @first + @count - 1 (a
 * slice of the merged stream, to draw). -EINVAL: @count 0 or above
 * VMT_INTERLEAVE_MAX_SLICE, or @first + @count past 2^64; -ENOMEM.
 */
int vmt_interleave_keep_slice(struct vmt_analysis *analysis, uint64_t first, uint64_t count);
/* The slice kept, in stream order (fewer when the stream ended first). */
size_t vmt_interleave_slice(const struct vmt_analysis *analysis,
			    const struct vmt_interleave_ref **refs);

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
	uint64_t completing;	/* those that complete one: the i of a triple */
};

/*
 * The windows: VMT_SCR_RINGS_SPACE, the space's own (virtual: a window a
 * process; physical: one for all); VMT_SCR_RINGS_PROCESS, a window a
 * process in either space (physical: what a memory controller that knew
 * each reference's process would see); VMT_SCR_RINGS_MERGED, one window
 * for all, physical alone (virtual addresses of two processes do not
 * compare).
 */
enum vmt_scr_rings {
	VMT_SCR_RINGS_SPACE	= 0,
	VMT_SCR_RINGS_PROCESS,
	VMT_SCR_RINGS_MERGED,
};

/*
 * The strides of the references that complete a stream, one a reference:
 * that of the triple j < k < i whose k is the latest, a_i - a_k, in pages
 * of 4 KiB (@unit page; a huge page's address is its first 4 KiB page's)
 * or lines. By |stride|: buckets 0..14 are 1..15, then [2^b, 2^(b+1) - 1]
 * for b = 4..63; @forward the positive strides, @backward the negative.
 */
#define VMT_SCR_STRIDE_BUCKETS	75

struct vmt_scr_stride_bucket {
	uint64_t lo;
	uint64_t hi;
	uint64_t forward;
	uint64_t backward;
};

/*
 * SCR in @options' space and unit over the records it names as references
 * (@options->source: exact accesses have virtual addresses alone), within
 * its address range. -EINVAL: a window outside [VMT_SCR_MIN_WINDOW,
 * VMT_SCR_MAX_WINDOW].
 */
int vmt_scr_create_from(struct vmt_analysis **analysis, const struct vmt_ref_options *options,
			unsigned int window);
/* The same with the windows @rings; -EINVAL also for merged virtual windows. */
int vmt_scr_create_rings(struct vmt_analysis **analysis, const struct vmt_ref_options *options,
			 unsigned int window, enum vmt_scr_rings rings);
/* The same over reference records, any address. */
int vmt_scr_create(struct vmt_analysis **analysis, enum vmt_ref_space space,
		   enum vmt_ref_unit unit, unsigned int window);
const struct vmt_scr_result *vmt_scr_result(const struct vmt_analysis *analysis);
/* The summary: covered / references, in percent. */
double vmt_scr_rate(const struct vmt_analysis *analysis);
/* All VMT_SCR_STRIDE_BUCKETS buckets, empty ones too; their counts add up to @completing. */
const struct vmt_scr_stride_bucket *vmt_scr_strides(const struct vmt_analysis *analysis);

/*
 * DRAM: the references as a memory controller would send them to DRAM,
 * each a 64-byte line, through an address map that says which address
 * bits select the channel, rank, bank group, bank, row and column. Over
 * the accesses in time order: row-buffer hits, misses and conflicts under
 * an open-page policy; bank-level parallelism; and how often each address
 * bit changes between consecutive accesses (HMTT's address-bit figure).
 *
 * A map's field is a list of field bits, its least significant first, each
 * the XOR (the parity) of the address bits of a mask: a plain bit is a
 * mask of one. The text form (vmt_dram_map_parse()), fields apart by ';':
 *
 *   ch=6;rank=16;bg=7,8;bank=9^13,10^14;row=17-32;col=0-5,11-15
 *
 * each FIELD=ITEM[,ITEM...], FIELD one of ch, rank, bg, bank, row, col;
 * an ITEM is a bit (0..63), a range L-H (bits L to H, the lowest first),
 * or such terms of equal length joined by '^', XORed bit by bit
 * (13-15^18-20: 13^18, 14^19, 15^20). bank and row are needed, the others
 * may be left out (no bits: one channel, rank...). No field bit may be
 * the XOR of others (a bit in two fields overlaps). At most
 * VMT_DRAM_MAX_BANK_BITS bits select a bank (ch, rank, bg and bank).
 * docs/analysis/hmtt.md has the presets and where they come from.
 */
enum vmt_dram_field {
	VMT_DRAM_CHANNEL,
	VMT_DRAM_RANK,
	VMT_DRAM_BANK_GROUP,
	VMT_DRAM_BANK,
	VMT_DRAM_ROW,
	VMT_DRAM_COLUMN,
	VMT_DRAM_NR_FIELDS,
};

#define VMT_DRAM_MAX_FIELD_BITS	64
#define VMT_DRAM_MAX_BANK_BITS	12

struct vmt_dram_map {
	unsigned int nr_bits[VMT_DRAM_NR_FIELDS];
	/* Bit i of a field is the parity of an address's bits in masks[field][i]. */
	uint64_t masks[VMT_DRAM_NR_FIELDS][VMT_DRAM_MAX_FIELD_BITS];
};

/*
 * @spec as a map: 0, or -EINVAL with what is wrong in @err (of @size
 * bytes; may be NULL).
 */
int vmt_dram_map_parse(const char *spec, struct vmt_dram_map *map, char *err, size_t size);
/* The preset @name's map ("ddr4-1ch"...): 0, or -ENOENT. */
int vmt_dram_map_preset(const char *name, struct vmt_dram_map *map);
/* The @i-th preset's name (NULL past the last), and a line or two on it in *@summary. */
const char *vmt_dram_map_preset_name(unsigned int i, const char **summary);
/*
 * @map in the text form vmt_dram_map_parse() reads, into @buf of @size
 * (cut short to fit, '\0' ended): the length it needs, without the '\0'.
 */
size_t vmt_dram_map_format(const struct vmt_dram_map *map, char *buf, size_t size);
/*
 * The value of @field at @addr; and its bank, one number: the channel's,
 * rank's, bank group's and bank's bits side by side, the channel's highest.
 */
uint64_t vmt_dram_decode(const struct vmt_dram_map *map, enum vmt_dram_field field,
			 uint64_t addr);
uint64_t vmt_dram_bank(const struct vmt_dram_map *map, uint64_t addr);
/* The address bits @field reads, its masks ORed. */
uint64_t vmt_dram_field_bits(const struct vmt_dram_map *map, enum vmt_dram_field field);

#define VMT_DRAM_MIN_WINDOW	2
#define VMT_DRAM_MAX_WINDOW	65536

struct vmt_dram_result {
	uint64_t references;	/* accesses: references with an address in the space */
	uint64_t no_frame;	/* physical: references without a frame, passed over */
	/* Open page: per bank, the last row accessed stays open. */
	uint64_t hits;		/* to the open row */
	uint64_t misses;	/* to a bank with no row open yet (empty) */
	uint64_t conflicts;	/* to a bank with another row open */
	uint64_t banks;		/* the map's: 2^(its ch, rank, bg and bank bits) */
	uint64_t banks_touched;	/* of them, accessed */
	/*
	 * Bank-level parallelism: the distinct banks among each @window
	 * consecutive accesses (windows sliding by one access; fewer accesses
	 * than @window are one window), summed over the @windows.
	 */
	unsigned int window;
	uint64_t windows;
	uint64_t window_banks;
	uint64_t max_banks;	/* the most in one window */
	/* Address bits: of the @pairs of consecutive accesses, those in which bit b changed. */
	uint64_t pairs;
	uint64_t flips[64];
};

/*
 * DRAM over @options' space and source (exact accesses have virtual
 * addresses alone: a stand-in for physical ones), within its address range,
 * each reference's line; @map copied. -EINVAL: a window outside
 * [VMT_DRAM_MIN_WINDOW, VMT_DRAM_MAX_WINDOW], a map without row or bank
 * bits or with too many bank bits.
 */
int vmt_dram_create(struct vmt_analysis **analysis, const struct vmt_ref_options *options,
		    const struct vmt_dram_map *map, unsigned int window);
const struct vmt_dram_result *vmt_dram_result(const struct vmt_analysis *analysis);
/* The summary: row-buffer hits in percent of the accesses. */
double vmt_dram_hit_rate(const struct vmt_analysis *analysis);
/* The mean distinct banks a window: window_banks / windows (0: no access). */
double vmt_dram_blp(const struct vmt_analysis *analysis);

/*
 * Prefetch rate, HMTT's formula (2): DATA_PREFETCHES / DRAM_ACCESSES of a
 * sequential prefetcher at the memory controller, modelled over the
 * references' 64-byte lines in time order (docs/analysis/hmtt.md):
 *
 * - a table of @trackers stream trackers, each with the line it saw last
 *   (L), the contiguous lines it has seen up to L (1, 2, 3 or more) and the
 *   last line it has prefetched (P, L before any);
 * - an access to line X goes to the most recently used tracker it matches:
 *   a repeat when X = L (neither a DRAM access nor a prefetch: a cache
 *   holds the line), an advance when X = L + 1 or L < X <= P; else it is a
 *   demand DRAM access and takes the least recently used tracker (its
 *   unused prefetches dropped), now at X with 1 line seen;
 * - an advance to X <= P is served by a prefetch, else it is a demand DRAM
 *   access; the tracker is now at X, one more line seen; from
 *   VMT_PREFETCH_CONFIRM lines seen on (a confirmed stream), it prefetches
 *   the lines max(P, X) + 1 .. X + @degree, each a DRAM access;
 * - DRAM accesses = demand accesses not served + prefetches; the rate =
 *   prefetches / DRAM accesses.
 *
 * @per_process: a table a process (each alone, as on a core of its own),
 * their counts added up; else one table for every process's accesses
 * merged (the memory bus's view).
 */
#define VMT_PREFETCH_CONFIRM		3
#define VMT_PREFETCH_MAX_TRACKERS	1024
#define VMT_PREFETCH_MAX_DEGREE		64

struct vmt_prefetch_config {
	unsigned int trackers;	/* 1..VMT_PREFETCH_MAX_TRACKERS */
	unsigned int degree;	/* lines ahead: 1..VMT_PREFETCH_MAX_DEGREE */
	bool per_process;
};

struct vmt_prefetch_result {
	uint64_t accesses;	/* references with an address in the space */
	uint64_t no_frame;	/* physical: references without a frame, passed over */
	uint64_t repeats;	/* to a tracker's last line */
	uint64_t served;	/* advances to a line prefetched */
	uint64_t demand;	/* demand DRAM accesses: accesses - repeats - served */
	uint64_t prefetches;	/* lines prefetched: DATA_PREFETCHES */
	uint64_t streams;	/* trackers confirmed */
	uint64_t tables;	/* tracker tables: processes, or 1 */
};

/*
 * The prefetcher over @options' space and source (exact accesses have
 * virtual addresses alone), within its address range, each reference's
 * line. -EINVAL: trackers or degree out of range.
 */
int vmt_prefetch_create(struct vmt_analysis **analysis, const struct vmt_ref_options *options,
			const struct vmt_prefetch_config *config);
const struct vmt_prefetch_result *vmt_prefetch_result(const struct vmt_analysis *analysis);
/* The summary: prefetches / (demand + prefetches), in percent (0: no DRAM access). */
double vmt_prefetch_rate(const struct vmt_analysis *analysis);

#ifdef __cplusplus
}
#endif

#endif /* VMTRACE_ANALYSIS_H */
