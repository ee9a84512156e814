/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/*
 * libvmtrace's cache and TLB simulator: trace-driven simulation of cache
 * hierarchies over a trace's accesses (exact records, or the one access a
 * page-protection fault stands for), several hierarchies in one pass.
 * docs/analysis/cachesim.md says what each number means.
 *
 * Conventions (cachegrind's, so that cachegrind is an oracle):
 * - an access that straddles two lines is one access: a miss when either
 *   line misses; the lines that missed go on to the next level;
 * - a read-modify-write is one access, and dirties the line;
 * - a level sees only the misses of the level inside it (its demand
 *   accesses) and, apart, their write-backs;
 * - two exact records of one access split at a page end are one access.
 *
 * A cache is set-associative: set = line address modulo the set count (any
 * count, not only powers of two), the tag is the line address and the
 * process (pid), so that two address spaces never share a line. An empty
 * way (the lowest-numbered) is filled before a policy chooses a victim.
 *
 * Functions return 0 or a negative errno and print nothing; the parsers
 * put what was wrong in a struct vmt_trace_error.
 */
#ifndef VMTRACE_CACHESIM_H
#define VMTRACE_CACHESIM_H

#include <stdbool.h>
#include <stdint.h>

#include "vmtrace/analysis.h"

#ifdef __cplusplus
extern "C" {
#endif

enum vmt_cache_policy {
	VMT_CACHE_LRU		= 0,	/* the least recently used way */
	VMT_CACHE_FIFO		= 1,	/* the way filled first; hits change nothing */
	/* each cache's own splitmix64 generator, seeded with the hierarchy's seed: next() % ways */
	VMT_CACHE_RANDOM	= 2,
	/*
	 * Tree pseudo-LRU (ways a power of two): a bit a node, 0 pointing
	 * left; an access sets the bits on its way's path to point away from
	 * it; the victim is where the bits point from the root.
	 */
	VMT_CACHE_PLRU		= 3,
	/*
	 * SRRIP-HP (Jaleel et al., 2010): 2-bit re-reference predictions,
	 * 2 on a fill, 0 on a hit; the victim is the lowest way at 3, all
	 * ways aged by one until one is.
	 */
	VMT_CACHE_SRRIP		= 4,
	VMT_CACHE_POLICIES,
};

/* How a level keeps the lines of the levels inside it. */
enum vmt_cache_inclusion {
	/* neither: a fill on a miss goes to every level the miss passed */
	VMT_CACHE_NON_INCLUSIVE	= 0,
	/* a superset: a line it evicts is taken from the levels inside too */
	VMT_CACHE_INCLUSIVE	= 1,
	/*
	 * a victim cache: it holds what the levels inside evicted; a hit moves
	 * the line inside, a miss fills inside only
	 */
	VMT_CACHE_EXCLUSIVE	= 2,
};

enum vmt_cache_write {
	/* write-back with write-allocate: a write dirties the line; dirty lines written back when evicted */
	VMT_CACHE_WRITE_BACK	= 0,
	/* write-through without write-allocate: every write goes on outward; a write miss fills nothing */
	VMT_CACHE_WRITE_THROUGH	= 1,
};

enum vmt_cache_kind {
	/* data and instruction fetches; at level 1, an instruction and a data half when the trace fetches */
	VMT_CACHE_UNIFIED	= 0,
	VMT_CACHE_DATA		= 1,
	VMT_CACHE_INSTRUCTION	= 2,
};

#define VMT_CACHE_NAME_MAX	16	/* with the NUL */
#define VMT_CACHE_MAX_LEVELS	4
#define VMT_CACHES_MAX		8	/* caches a hierarchy, instruction and data halves apart */
#define VMT_TLBS_MAX		4
#define VMT_CACHE_MAX_CORES	256

struct vmt_cache_config {
	char name[VMT_CACHE_NAME_MAX];
	uint64_t size;		/* bytes: assoc * line * sets */
	uint32_t assoc;		/* ways; 0: fully associative */
	uint32_t line;		/* bytes, a power of two */
	uint8_t level;		/* 1 (next to the core) .. VMT_CACHE_MAX_LEVELS */
	uint8_t kind;		/* enum vmt_cache_kind */
	uint8_t policy;		/* enum vmt_cache_policy */
	uint8_t inclusion;	/* enum vmt_cache_inclusion, towards the levels inside */
	uint8_t write;		/* enum vmt_cache_write */
	bool shared;		/* one for every core; else one a core */
	bool prefetch;		/* next-line prefetcher: a miss also fetches the next line */
};

/* A TLB level: every page is its entries' unit, 4 KiB or 2 MiB (huge records). */
struct vmt_tlb_config {
	char name[VMT_CACHE_NAME_MAX];
	uint32_t entries;
	uint32_t assoc;		/* ways; 0: fully associative */
	uint8_t level;		/* 1 .. VMT_CACHE_MAX_LEVELS, one core's each */
	uint8_t policy;		/* enum vmt_cache_policy */
};

#define VMT_HIERARCHY_NAME_MAX	32

struct vmt_hierarchy_config {
	char name[VMT_HIERARCHY_NAME_MAX];
	unsigned int nr_caches;
	struct vmt_cache_config caches[VMT_CACHES_MAX];
	unsigned int nr_tlbs;
	struct vmt_tlb_config tlbs[VMT_TLBS_MAX];
};

/*
 * Every hierarchy's check: names, sizes (a whole number of sets, at
 * least one; a line a power of two and no larger than the cache), levels
 * from 1 without a gap, one cache a level and core (or an instruction and
 * a data one at level 1), tree-PLRU on power-of-two ways, a shared level
 * outside no private one. 0, or -EINVAL with the reason in @err.
 */
struct vmt_trace_error;
int vmt_hierarchy_check(const struct vmt_hierarchy_config *h, struct vmt_trace_error *err);

/* "lru", "fifo", "random", "plru", "srrip"; NULL for an unknown one. */
const char *vmt_cache_policy_name(unsigned int policy);
/* The policy named @name, or -EINVAL. */
int vmt_cache_policy_from_name(const char *name);

/* ---- The simulator ---- */

/* The options a simulation shares across its hierarchies. */
struct vmt_cachesim_options {
	/* cores: private caches and TLBs each; 0 means 1 */
	unsigned int cores;
	/* false: a record's core is its CPU modulo @cores; true: each thread gets the next core */
	bool core_by_thread;
	uint64_t seed;		/* the random policy's; 0 means 1 */
	/* count per thread (tid) or per process (pid) as well as in all */
	bool per_thread, per_process;
	/* the instructions (ip) with the most last-level misses: how many to keep, 0: none */
	unsigned int top;
	/* a row set per marker phase: the counts are cut at each marker record */
	bool by_marker;
	/* physical addresses (a reference's frame) rather than (pid, virtual) */
	bool physical;
	/* only accesses whose first byte is in [@addr_lo, @addr_hi); both 0: any */
	uint64_t addr_lo, addr_hi;
	/* leave the three Cs out (0): the fully associative shadow caches cost time */
	bool no_classify;
	/*
	 * threads that simulate an analysis's accesses, hierarchies dealt out
	 * among them (0 or 1: the reader's alone); the counts are the same
	 */
	unsigned int threads;
	/* with threads: accesses handed over at a time (0: 65536) */
	unsigned int batch;
};

/* One level's counts, summed over the cores for a private level. */
struct vmt_cache_counts {
	uint64_t accesses, hits, misses;
	uint64_t read_misses, write_misses, fetch_misses;
	uint64_t compulsory, capacity, conflict;	/* misses by Dinero's three Cs */
	uint64_t writebacks;		/* dirty lines this level wrote outward */
	uint64_t writebacks_in;		/* write-backs the levels inside sent here */
	uint64_t invalidations;		/* lines another core's write took away */
	uint64_t back_invalidations;	/* lines an inclusive level outside took away */
	uint64_t prefetches;		/* lines the prefetcher fetched */
};

struct vmt_cachesim;

int vmt_cachesim_create(struct vmt_cachesim **sim, const struct vmt_hierarchy_config *hierarchies,
			unsigned int nr_hierarchies, const struct vmt_cachesim_options *options,
			struct vmt_trace_error *err);
void vmt_cachesim_destroy(struct vmt_cachesim *sim);

/* One access, as the trace gives it. */
struct vmt_cache_access {
	uint64_t addr;		/* its first byte (virtual, or physical) */
	uint64_t ip;		/* the instruction; 0 when unknown */
	uint32_t size;		/* bytes, at least 1 */
	uint32_t pid, tid;
	uint16_t cpu;
	uint8_t access;		/* VMT_ACCESS_READ, _WRITE, _RMW or _EXEC */
	bool huge;		/* a 2 MiB page held it (the TLB's unit) */
	/*
	 * ns, as the record's; only the bus view reads it (0 will do). The
	 * analysis gives an access split at a page end the time of the
	 * record that completed it (its second part's, or the thread's next
	 * record's), so that the bus view's times never go back.
	 */
	uint64_t time;
};

/* Simulate @a in every hierarchy. 0 or -ENOMEM. */
int vmt_cachesim_access(struct vmt_cachesim *sim, const struct vmt_cache_access *a);
/*
 * The analysis of a pass (vmt_analyze()): each exact record an access (a
 * page end's two parts one), each reference record the access a fault
 * stands for, each marker a phase's end with options->by_marker. It
 * belongs to @sim, which must outlive it.
 */
int vmt_cachesim_analysis(struct vmt_cachesim *sim, struct vmt_analysis **analysis);

/* What went in: accesses simulated, by kind. */
struct vmt_cachesim_totals {
	uint64_t accesses, reads, writes, rmws, fetches;
	uint64_t exact_records, reference_records;
	uint64_t merged_splits;	/* page-end parts joined to their first part */
	uint64_t no_frame;	/* physical: records without a frame, passed over */
	uint64_t out_of_range;	/* outside addr_lo..addr_hi, passed over */
	uint64_t phases;	/* with by_marker: 1 + the markers */
};
void vmt_cachesim_totals(const struct vmt_cachesim *sim, struct vmt_cachesim_totals *totals);

/*
 * The results, as rows: one a level of each hierarchy (caches outward, then
 * TLBs), in all (@group VMT_CACHESIM_ALL) and, with per_thread or
 * per_process, one set of rows a thread or process (its id in @id); with
 * by_marker, a set a phase.
 */
#define VMT_CACHESIM_ALL	UINT32_MAX
struct vmt_cachesim_row {
	unsigned int hierarchy;		/* its index in the array given */
	char level[VMT_CACHE_NAME_MAX + 1];	/* "L1D", "L2", "DTLB"... */
	bool tlb;
	bool fetch;			/* a level-1 instruction cache (or half): its accesses are the instructions */
	uint32_t id;			/* tid or pid; VMT_CACHESIM_ALL for all */
	uint32_t phase;			/* with by_marker; else 0 */
	struct vmt_cache_counts counts;
};
/* The rows in @rows (malloc()ed, the caller frees), their number in @nr. */
int vmt_cachesim_rows(const struct vmt_cachesim *sim, struct vmt_cachesim_row **rows, size_t *nr);

/* An instruction among the most-missing, for options->top. */
struct vmt_cachesim_top {
	uint64_t ip;
	uint32_t pid;
	uint64_t misses;		/* at the last cache level of the hierarchy */
	uint64_t l1_misses;
};
/* The top instructions of hierarchy @h, most misses first: in @top (malloc()ed), @nr of them. */
int vmt_cachesim_top(const struct vmt_cachesim *sim, unsigned int h, struct vmt_cachesim_top **top,
		     size_t *nr);

/*
 * ---- The bus view ----
 *
 * What leaves a hierarchy's last cache level for memory, a line at a time,
 * each with the access that caused it (vmtrace cachesim --emit writes it as
 * a trace; docs/analysis/cachesim.md, "The bus view"):
 * - a fill, VMT_EXACT_BUS_FILL with VMT_ACCESS_READ: a demand access missed
 *   at the last level, which reads the line (a write miss too: write-
 *   allocate). At a write-back last level (the default) the fills are its
 *   misses, a miss for each line of an access that straddles two;
 * - a write-back, VMT_EXACT_BUS_WRITEBACK with VMT_ACCESS_WRITE: a dirty
 *   line left the last level (its victim, or taken by another core's
 *   write), as many as its writebacks count; at a write-through last level,
 *   each write (or write-back from inside) going on to memory instead;
 * - a prefetch, VMT_EXACT_BUS_PREFETCH with VMT_ACCESS_READ: the last
 *   level's next-line prefetcher read the line, as many as its prefetches
 *   count (a level inside's prefetcher fills that level alone: the
 *   simulator's model, so nothing of it reaches memory).
 * The lines come in the order the simulator makes them, access by access:
 * a fill first, then the write-back of the line it displaced (when dirty),
 * then the prefetch it set off and its victim's write-back. The flags are
 * include/uapi/linux/vmtrace.h's (struct vmt_exact's).
 */
struct vmt_cachesim_bus {
	uint64_t addr;		/* the line's first byte */
	uint32_t size;		/* the line's bytes */
	uint8_t access;		/* VMT_ACCESS_READ or VMT_ACCESS_WRITE */
	uint8_t flags;		/* one of VMT_EXACT_BUS_FILL, _WRITEBACK, _PREFETCH */
	const struct vmt_cache_access *cause;	/* the access that caused it */
};
/* 0, or a negative errno, which stops the simulation with it. */
typedef int (*vmt_cachesim_bus_fn)(void *ctx, const struct vmt_cachesim_bus *line);
/*
 * Call @fn with each line that leaves hierarchy @h's last level, from now
 * on (call it before the first access); @fn NULL: no more. It runs on the
 * thread that simulates @h (with options->threads, a worker's), one line
 * at a time, in order. When no hierarchy has one, the simulator pays one
 * predictable branch a miss. 0, or -EINVAL for no hierarchy @h.
 */
int vmt_cachesim_bus(struct vmt_cachesim *sim, unsigned int h, vmt_cachesim_bus_fn fn, void *ctx);

/* ---- Configurations ---- */

/*
 * "NAME=SIZE:ASSOC:LINE[:POLICY]" (sizes with k, M or G; ASSOC a number or
 * "full"), a level outward of those in @h: added to @h. 0, or -EINVAL
 * with the reason in @err.
 */
int vmt_hierarchy_add_cache_spec(struct vmt_hierarchy_config *h, const char *spec,
				 struct vmt_trace_error *err);
/* "NAME=ENTRIES:ASSOC[:POLICY]": a TLB level outward of those in @h. */
int vmt_hierarchy_add_tlb_spec(struct vmt_hierarchy_config *h, const char *spec,
			       struct vmt_trace_error *err);
/*
 * The hierarchies of a config file's text (docs/analysis/cachesim.md, "The
 * config file"): appended to @h (room for @max), their number in *@nr.
 * 0, or -EINVAL with the line number and the reason in @err.
 */
int vmt_hierarchy_parse(const char *text, size_t len, struct vmt_hierarchy_config *h,
			unsigned int max, unsigned int *nr, struct vmt_trace_error *err);
/*
 * A preset's hierarchies ("psnap": ten; "psnap1".."psnap10", "cachegrind",
 * "drcachesim"...): appended to @h (room for @max), their number in *@nr;
 * -ENOENT for an unknown name.
 */
int vmt_hierarchy_preset(const char *name, struct vmt_hierarchy_config *h, unsigned int max,
			 unsigned int *nr);
/* The @i-th preset's name (NULL past the last), and a line on what it is in *@summary. */
const char *vmt_hierarchy_preset_name(unsigned int i, const char **summary);

#ifdef __cplusplus
}
#endif

#endif /* VMTRACE_CACHESIM_H */
