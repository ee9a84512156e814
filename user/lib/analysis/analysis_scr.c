// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * HMTT's stream coverage rate, after Mohan et al. (vmtrace/analysis.h;
 * docs/analysis/hmtt.md).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "vmtrace/analysis.h"
#include "analysis/analysis_util.h"

/*
 * A window is a ring of the last W references' addresses, each with a
 * "covered" flag that stays open while it is in the ring. A new reference
 * a_i looks for every pair j < k before it in the ring with a_i - a_k =
 * a_k - a_j != 0 (O(W^2) compares); each one found covers all three. A
 * reference's flag is counted when the ring drops it, or at the end, so a
 * stream's first two references are covered too (a pure stride sequence
 * has an SCR of exactly 1):
 *
 *   ring (W = 4):  [a_j]  [a_k]  [ x ]  <- a_i    a_i - a_k == a_k - a_j
 *                    *      *             *        all three covered
 *
 * Each address is written twice, at h and h + W, so the W before the head
 * are one run of memory, base[-1] the latest, base[-W] the oldest, and the
 * compares need no modulo. Virtual: a ring a process (pid -> ring), as
 * each program's address space is its own; physical: one ring for all, or
 * (VMT_SCR_RINGS_PROCESS) a ring a process, as a memory controller that
 * knew the process would keep them. Memory: 2W addresses and W flags a
 * ring.
 *
 * The loop over k runs from the latest back, so the first pair found has
 * the nearest k: its stride, a_i - a_k, is the one the histogram of
 * strides counts for a_i (one stride a reference, however many pairs).
 */
struct scr_ring {
	uint64_t *addr;		/* 2 * W: addr[h] == addr[h + W] */
	bool *covered;		/* W */
	unsigned int len;	/* entries held, up to the window */
	unsigned int head;	/* where the next goes, < W */
};

struct scr {
	struct vmt_analysis analysis;
	struct vmt_ref_options options;
	unsigned int window;
	bool per_process;		/* a ring a pid; else one for all */
	unsigned int shift;		/* a stride's unit: 12 (pages) or 6 (lines) */
	struct vmt_scr_stride_bucket strides[VMT_SCR_STRIDE_BUCKETS];
	struct vmt_u64_map rings_of;	/* pid -> index in @rings (virtual) */
	struct scr_ring *rings;
	size_t nr, room;
	struct vmt_scr_result result;
};

static struct scr *to_scr(const struct vmt_analysis *a)
{
	return (struct scr *)a;
}

static struct scr_ring *scr_ring(struct scr *s, uint32_t pid)
{
	uint64_t *slot = NULL;
	struct scr_ring *ring;
	bool added = s->nr == 0;

	if (s->per_process) {
		slot = vmt_u64_map_put(&s->rings_of, pid, &added);
		if (!slot)
			return NULL;
		if (!added)
			return &s->rings[*slot];
	} else if (!added) {
		return &s->rings[0];
	}
	if (s->nr == s->room) {
		size_t room = s->room ? s->room * 2 : 16;
		struct scr_ring *grown = realloc(s->rings, room * sizeof(*grown));

		if (!grown)
			return NULL;
		s->rings = grown;
		s->room = room;
	}
	ring = &s->rings[s->nr];
	ring->addr = malloc(2 * s->window * sizeof(*ring->addr));
	ring->covered = malloc(s->window * sizeof(*ring->covered));
	if (!ring->addr || !ring->covered) {
		free(ring->addr);
		free(ring->covered);
		return NULL;
	}
	ring->len = ring->head = 0;
	if (slot)
		*slot = s->nr;
	s->nr++;
	return ring;
}

/* The flag of the entry @back references before the head (1: the latest). */
static bool *scr_covered(const struct scr_ring *ring, unsigned int window, unsigned int back)
{
	return &ring->covered[(ring->head + window - back) % window];
}

/* |stride| (in units, 1 or more) to its bucket: 1..15 exact, then [2^b, 2^(b+1)) for b = 4..63. */
static unsigned int stride_bucket(uint64_t mag)
{
	return mag < 16 ? (unsigned int)mag - 1 : 11 + (63 - (unsigned int)__builtin_clzll(mag));
}

/* A reference completed a stream with @diff = a_i - a_k (bytes, not 0): count its stride. */
static void scr_stride(struct scr *s, uint64_t diff)
{
	bool backward = diff >> 63;
	uint64_t mag = (backward ? 0 - diff : diff) >> s->shift;
	struct vmt_scr_stride_bucket *b = &s->strides[stride_bucket(mag ? mag : 1)];

	if (backward)
		b->backward++;
	else
		b->forward++;
	s->result.completing++;
}

static void scr_add(struct scr *s, struct scr_ring *ring, uint64_t a)
{
	const uint64_t *base = ring->addr + ring->head + s->window;
	unsigned int w = s->window, k, j;
	bool found = false;
	uint64_t ak, aj;

	/* The ring is full: the oldest, i - (W - 1) back, would leave; count it. */
	if (ring->len == w) {
		s->result.covered += ring->covered[ring->head];
		ring->len--;
	}
	/* k and j back from i: 1 <= k < j <= len (len <= W - 1, so i - j < W). */
	for (k = 1; k < ring->len; k++) {
		ak = base[-(int)k];
		if (ak == a)
			continue;
		aj = ak - (a - ak);
		for (j = k + 1; j <= ring->len; j++) {
			if (base[-(int)j] == aj) {
				*scr_covered(ring, w, k) = *scr_covered(ring, w, j) = true;
				if (!found)
					scr_stride(s, a - ak);
				found = true;
			}
		}
	}
	ring->addr[ring->head] = ring->addr[ring->head + w] = a;
	ring->covered[ring->head] = found;
	ring->head = ring->head + 1 == w ? 0 : ring->head + 1;
	ring->len++;
	s->result.references++;
}

static int scr_record(struct vmt_analysis *a, const struct vmt_record *rec)
{
	struct scr *s = to_scr(a);
	struct scr_ring *ring;
	struct vmt_ref ref;

	if (!vmt_ref_from_record(rec, &s->options, &ref))
		return 0;
	ring = scr_ring(s, ref.pid);
	if (!ring)
		return -ENOMEM;
	scr_add(s, ring, ref.addr);
	return 0;
}

static int scr_finish(struct vmt_analysis *a)
{
	struct scr *s = to_scr(a);
	size_t r;

	for (r = 0; r < s->nr; r++) {
		struct scr_ring *ring = &s->rings[r];

		while (ring->len) {
			s->result.covered += *scr_covered(ring, s->window, ring->len);
			ring->len--;
		}
	}
	return 0;
}

static void scr_destroy(struct vmt_analysis *a)
{
	struct scr *s = to_scr(a);
	size_t r;

	for (r = 0; r < s->nr; r++) {
		free(s->rings[r].addr);
		free(s->rings[r].covered);
	}
	free(s->rings);
	vmt_u64_map_free(&s->rings_of);
	free(s);
}

static const struct vmt_analysis_ops scr_ops = {
	.name = "scr",
	.reference = vmt_analysis_no_reference,
	.record = scr_record,
	.finish = scr_finish,
	.destroy = scr_destroy,
};

int vmt_scr_create(struct vmt_analysis **analysis, enum vmt_ref_space space,
		   enum vmt_ref_unit unit, unsigned int window)
{
	struct vmt_ref_options o = { .space = space, .unit = unit };

	return vmt_scr_create_from(analysis, &o, window);
}

int vmt_scr_create_from(struct vmt_analysis **analysis, const struct vmt_ref_options *options,
			unsigned int window)
{
	return vmt_scr_create_rings(analysis, options, window, VMT_SCR_RINGS_SPACE);
}

int vmt_scr_create_rings(struct vmt_analysis **analysis, const struct vmt_ref_options *options,
			 unsigned int window, enum vmt_scr_rings rings)
{
	struct scr *s;
	unsigned int b;

	if (window < VMT_SCR_MIN_WINDOW || window > VMT_SCR_MAX_WINDOW ||
	    options->space > VMT_REF_PHYSICAL || options->unit > VMT_REF_LINE ||
	    options->source > VMT_REF_EXACT || rings > VMT_SCR_RINGS_MERGED ||
	    (rings == VMT_SCR_RINGS_MERGED && options->space == VMT_REF_VIRTUAL))
		return -EINVAL;
	s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	if (vmt_u64_map_init(&s->rings_of)) {
		free(s);
		return -ENOMEM;
	}
	s->analysis.ops = &scr_ops;
	s->options = *options;
	s->window = window;
	s->per_process = rings == VMT_SCR_RINGS_PROCESS ||
			 (rings == VMT_SCR_RINGS_SPACE && options->space == VMT_REF_VIRTUAL);
	s->shift = options->unit == VMT_REF_LINE ? VMT_REF_LINE_SHIFT : VMT_REF_PAGE_SHIFT;
	for (b = 0; b < VMT_SCR_STRIDE_BUCKETS; b++) {
		s->strides[b].lo = b < 15 ? b + 1 : UINT64_C(1) << (b - 11);
		s->strides[b].hi = b < 15 ? b + 1 : (UINT64_C(1) << (b - 11) << 1) - 1;
	}
	*analysis = &s->analysis;
	return 0;
}

const struct vmt_scr_result *vmt_scr_result(const struct vmt_analysis *analysis)
{
	return &to_scr(analysis)->result;
}

double vmt_scr_rate(const struct vmt_analysis *analysis)
{
	const struct vmt_scr_result *r = &to_scr(analysis)->result;

	return r->references ? 100.0 * (double)r->covered / (double)r->references : 0.0;
}

const struct vmt_scr_stride_bucket *vmt_scr_strides(const struct vmt_analysis *analysis)
{
	return to_scr(analysis)->strides;
}
