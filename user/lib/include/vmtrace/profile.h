/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/*
 * libvmtrace's memory profiles (after PSnAP, issue 33): what a trace's
 * exact accesses do, kept in a file of a few kilobytes, and synthetic
 * traces made from it that hit caches as the original does.
 * docs/analysis/profile.md says what a profile keeps and what it loses;
 * docs/FORMAT.md, "Profiles", its file.
 *
 * A profile holds, for each thread:
 * - its instructions: each one's accesses by kind, its size, its first
 *   address and span, its stride runs ("tokens": a stride and how many
 *   times in a row), the order its tokens follow one another (a graph
 *   with counts: PSnAP's stride ordering, exact rather than binned), the
 *   reuse distances of its accesses that follow no kept run, and the
 *   instruction that follows it (a graph with counts);
 * - its first accesses' instructions (PSnAP's pattern buffer);
 * - its regions (addresses within 256 bytes of one another, PSnAP's rule)
 *   and their working sets;
 * - its loops, found in the trace's instruction stream (a backward step
 *   from instruction a to b is a loop over [b, a]; an instruction belongs
 *   to the narrowest loop around it), each with PSnAP's stride histogram
 *   (bins 0, +-1, +-2, +-4 ... +-256 bytes and "random") and working set
 *   in each region, and the accesses outside every loop counted.
 * Functions return 0 or a negative errno and print nothing; what was wrong
 * goes in a struct vmt_trace_error.
 */
#ifndef VMTRACE_PROFILE_H
#define VMTRACE_PROFILE_H

#include <stdint.h>

#include "vmtrace/trace.h"

#ifdef __cplusplus
extern "C" {
#endif

#define VMT_PROFILE_VERSION	3

/* PSnAP's stride bins: 0, -256..-1 and 1..256 by powers of two, then the rest. */
#define VMT_PROFILE_STRIDE_BINS	20
/* The bin of @stride (bytes): 0 for 0, 1..9 for +1..+256, 10..18 for -1..-256, 19 past. */
unsigned int vmt_profile_stride_bin(int64_t stride);
/* "0", "+1", "-256", "random"... */
const char *vmt_profile_stride_bin_name(unsigned int bin);

struct vmt_profile;

struct vmt_profile_options {
	/* stride runs kept an instruction, the rest made random: 0 means 32 */
	unsigned int max_tokens;
};

/*
 * The profile of @trace's exact accesses (two passes in time order, through
 * its filter). -ENODATA when it has none.
 */
int vmt_profile_build(struct vmt_trace *trace, const struct vmt_profile_options *options,
		      struct vmt_profile **profile, struct vmt_trace_error *err);
void vmt_profile_free(struct vmt_profile *profile);

/* To a file, and back: -EBADMSG (or -EPROTO for another version) for a damaged one. */
int vmt_profile_write(const struct vmt_profile *profile, const char *path,
		      struct vmt_trace_error *err);
int vmt_profile_read(struct vmt_profile **profile, const char *path, struct vmt_trace_error *err);
int vmt_profile_read_memory(struct vmt_profile **profile, const void *data, size_t size,
			    struct vmt_trace_error *err);
/* The file's bytes (what vmt_profile_write() writes) in *@data (malloc()ed), *@size of them. */
int vmt_profile_encode(const struct vmt_profile *profile, void **data, size_t *size,
		       struct vmt_trace_error *err);

/* ---- What a profile holds ---- */

struct vmt_profile_thread {
	uint32_t pid, tid;
	uint64_t accesses;
	uint64_t outside_loops;		/* accesses of instructions in no loop */
	uint32_t insns, loops, regions;
	uint32_t tokens;		/* stride runs kept, all instructions */
	uint64_t random;		/* accesses in no kept run */
};
uint32_t vmt_profile_nr_threads(const struct vmt_profile *profile);
int vmt_profile_thread(const struct vmt_profile *profile, uint32_t thread,
		       struct vmt_profile_thread *info);

struct vmt_profile_region {
	uint64_t lo, hi;		/* [lo, hi): its first and past its last line */
	uint64_t lines;			/* 64-byte lines touched: the working set */
	uint64_t accesses;
};
int vmt_profile_region(const struct vmt_profile *profile, uint32_t thread, uint32_t region,
		       struct vmt_profile_region *info);

struct vmt_profile_loop {
	uint64_t ip_lo, ip_hi;		/* the instructions [ip_lo, ip_hi] */
	uint64_t accesses;
	uint32_t insns;
	uint32_t regions;		/* regions it touches: vmt_profile_loop_region() */
};
int vmt_profile_loop(const struct vmt_profile *profile, uint32_t thread, uint32_t loop,
		     struct vmt_profile_loop *info);

/* A loop's share of one region: its accesses, working set and strides there. */
struct vmt_profile_loop_region {
	uint32_t region;
	uint64_t accesses, lines;
	uint64_t strides[VMT_PROFILE_STRIDE_BINS];	/* from the loop's previous access there */
};
int vmt_profile_loop_region(const struct vmt_profile *profile, uint32_t thread, uint32_t loop,
			    uint32_t i, struct vmt_profile_loop_region *info);

/*
 * The loop of thread @thread's instruction @ip: its index, or -ENOENT when
 * the instruction is in none (or not in the profile).
 */
int vmt_profile_loop_of(const struct vmt_profile *profile, uint32_t thread, uint64_t ip);
/* The thread of @tid, or -ENOENT. */
int vmt_profile_thread_of(const struct vmt_profile *profile, uint32_t tid);

/* ---- Locality surfaces ---- */

/*
 * PSnAP's picture of a trace: the share of its exact accesses at each
 * stride (from the same instruction's previous access, PSnAP's bins) and
 * reuse distance (64-byte lines, the thread's LRU stack: bin 0 for 0, bin k
 * for [2^(k-1), 2^k) up to 64K, the last for 64K or more and first
 * touches).
 */
#define VMT_SURFACE_REUSE_BINS	18
struct vmt_locality_surface {
	uint64_t accesses;
	uint64_t cell[VMT_PROFILE_STRIDE_BINS][VMT_SURFACE_REUSE_BINS];
};
int vmt_locality_surface(struct vmt_trace *trace, struct vmt_locality_surface *surface,
			 struct vmt_trace_error *err);
/* "0", "1", "2-3" ... "32K-64K", ">=64K" */
const char *vmt_surface_reuse_bin_name(unsigned int bin);

/* ---- Synthesis ---- */

struct vmt_profile_synth_options {
	uint64_t seed;			/* 0 means 1 */
	/* accesses in all, shared among the threads as in the profile; 0: as many as it counted */
	uint64_t accesses;
};

/*
 * A synthetic trace: exact records (time = their index, in ns; no values),
 * appended to @writer, the threads interleaved in proportion to their
 * accesses. The same profile, options and seed give the same records.
 */
int vmt_profile_synth(const struct vmt_profile *profile,
		      const struct vmt_profile_synth_options *options,
		      struct vmt_trace_writer *writer, uint64_t *written,
		      struct vmt_trace_error *err);

#ifdef __cplusplus
}
#endif

#endif /* VMTRACE_PROFILE_H */
