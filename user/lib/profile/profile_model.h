/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/*
 * A profile in memory (vmtrace/profile.h says what it holds), its file
 * (profile_model.c: docs/FORMAT.md, "Profiles") and the numbers the
 * builder and the generator share. Internal to libvmtrace.
 */
#ifndef VMTRACE_INTERNAL_PROFILE_MODEL_H
#define VMTRACE_INTERNAL_PROFILE_MODEL_H

#include <stdint.h>

#include "vmtrace/profile.h"

/* The first accesses' instructions a thread keeps (PSnAP's pattern buffer). */
#define PM_PATTERN		1024
/*
 * Reuse distances (64-byte lines, the thread's LRU stack) binned: 0..7
 * exact, then four bins an octave (a quarter of it each), up to 2^32.
 */
#define PM_REUSE_BINS		128
/* The reuse "bin" of a line's first touch. */
#define PM_REUSE_COLD		PM_REUSE_BINS
/* No index: an instruction in no loop; a token past the kept ones. */
#define PM_NONE			UINT32_MAX

static inline unsigned int pm_reuse_bin(uint64_t d)
{
	unsigned int e;

	if (d < 8)
		return (unsigned int)d;
	e = 63 - (unsigned int)__builtin_clzll(d);
	if (e > 31)
		return PM_REUSE_BINS - 1;
	return 8 + (e - 3) * 4 + (unsigned int)((d >> (e - 2)) & 3);
}

/* The distances of bin @bin: [*lo, *hi]. */
static inline void pm_reuse_range(unsigned int bin, uint64_t *lo, uint64_t *hi)
{
	unsigned int e, q;

	if (bin < 8) {
		*lo = *hi = bin;
		return;
	}
	e = (bin - 8) / 4 + 3;
	q = (bin - 8) % 4;
	*lo = (UINT64_C(1) << e) + ((uint64_t)q << (e - 2));
	*hi = *lo + (UINT64_C(1) << (e - 2)) - 1;
}

/*
 * A weighted edge of a graph: to node @to, taken @count times, the first
 * and last at the @first-th and @last-th time its node was left (from 0):
 * when in the run it was taken, for the generator's schedule.
 */
struct pm_edge {
	uint32_t to;
	uint64_t count;
	uint64_t first, last;
};

struct pm_edges {
	uint32_t n;
	struct pm_edge *e;
	uint64_t visits;		/* the counts' sum: times the node was left */
};

/* A stride run: @run accesses in a row, each @stride bytes from the one before. */
struct pm_token {
	int64_t stride;
	uint32_t run;
	uint64_t count;			/* times it occurs */
	struct pm_edges next;		/* the tokens that follow it */
};

struct pm_insn {
	uint64_t ip;
	uint64_t count, reads, writes, rmws;
	uint32_t size;
	uint32_t loop;			/* PM_NONE: in none */
	uint64_t first;			/* its first access's address */
	uint64_t lo, hi;		/* the span of its addresses: [lo, hi] */
	/*
	 * Its accesses below and above its last one (version 3; 0 and 0 in
	 * an older file): a sweep that never stepped back, or forward.
	 */
	uint64_t back, ahead;
	uint32_t ntokens;
	struct pm_token *tokens;	/* kept runs; token index ntokens is "random" */
	uint32_t first_token;		/* the run its second access began */
	struct pm_edges random_next;	/* what follows a random access */
	uint64_t random;		/* accesses in no kept run */
	/*
	 * Their reuse distances, with when: an edge to each distance bin, or
	 * to PM_REUSE_COLD for a first touch of its line.
	 */
	struct pm_edges reuse;
	struct pm_edges next;		/* the instructions that follow it */
};

struct pm_loop_region {
	uint32_t region;
	uint64_t accesses, lines;
	uint64_t strides[VMT_PROFILE_STRIDE_BINS];
};

struct pm_loop {
	uint64_t ip_lo, ip_hi;
	uint64_t accesses;
	uint32_t insns;
	uint32_t nregions;
	struct pm_loop_region *regions;
};

struct pm_region {
	uint64_t lo, hi, lines, accesses;
};

/* Lines [lo, lo + n) (line numbers: addresses >> 6), each touched. */
struct pm_span {
	uint64_t lo, n;
};

struct pm_thread {
	uint32_t pid, tid;
	uint64_t accesses, outside_loops;
	uint32_t npattern;
	uint32_t *pattern;		/* instruction indices, npattern of them */
	uint32_t ninsns, nloops, nregions;
	struct pm_insn *insns;		/* in increasing ip order */
	struct pm_loop *loops;		/* in increasing ip_lo order */
	struct pm_region *regions;	/* in increasing address order */
	/*
	 * The lines it touched, as runs of consecutive lines in increasing
	 * order: the synthetic trace touches no other.
	 */
	uint32_t nspans;
	struct pm_span *spans;
};

/* At most this many slices of the trace say which threads ran when. */
#define PM_SLICES		1024
#define PM_SLICE_RUNS		16

struct vmt_profile {
	uint32_t nthreads;
	struct pm_thread *threads;
	/*
	 * The trace cut into nslices slices of slice_len accesses (the last
	 * one shorter), so that a thread that ran first, or paused, does so in
	 * the synthetic trace too: each slice's runs of one thread's accesses,
	 * in order (an edge to a thread, its count; first and last unused),
	 * or, for a slice of more than PM_SLICE_RUNS runs (threads running at
	 * once: mixed[s]), each thread's accesses in it, once each.
	 */
	uint64_t slice_len;
	uint32_t nslices;
	struct pm_edges *slices;
	uint8_t *mixed;
};

void pm_thread_free(struct pm_thread *t);
/* What went wrong, printf-style, into @err (nothing when @err is NULL). */
void pm_say(struct vmt_trace_error *err, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* The index of @ip among @t's instructions, or PM_NONE. */
uint32_t pm_insn_find(const struct pm_thread *t, uint64_t ip);

#endif /* VMTRACE_INTERNAL_PROFILE_MODEL_H */
