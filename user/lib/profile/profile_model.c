// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * Profiles in memory and in their file (docs/FORMAT.md, "Profiles"): a
 * 40-byte header, then the body of varints compressed (version 2 and 3:
 * raw LZMA2, some fields coded against what the reader knows already;
 * version 3 adds each instruction's steps back and ahead; version 1, still
 * read: a zstd frame), every count and index checked on
 * the way in so that a damaged file is refused, never followed. Also the
 * accessors of vmtrace/profile.h and PSnAP's stride bins.
 *
 * Outline, in order (about 900 lines): the stride bins; freeing a profile
 * and finding an instruction (pm_insn_find()); writing (put() and put_signed() varints,
 * an edge list, an instruction, a thread, vmt_profile_encode() and
 * vmt_profile_write()); reading, each count held to the bytes left
 * (get_count(), get_index(), get_array(), then edges, instructions,
 * threads, slices, vmt_profile_read_memory() and vmt_profile_read());
 * the accessors (vmt_profile_nr_threads() to vmt_profile_thread_of()).
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <lzma.h>
#include <zstd.h>

#include "base/bytes.h"
#include "base/varint.h"
#include "profile/profile_model.h"

#define PM_MAGIC		"VMTPROF\0"
#define PM_HEADER		40
/*
 * A body's bytes at most: thousands of times what a profile needs (they
 * are kilobytes), and a bound on what a damaged file can make the reader
 * allocate, as every count is held to the bytes left to hold its items.
 */
#define PM_MAX_BODY		(UINT64_C(64) << 20)
/* Counts at most: the generator's running sums of them stay in an int64_t. */
#define PM_MAX_COUNT		(UINT64_C(1) << 62)
/*
 * Version 2's body: raw LZMA2 (no container: a small profile is hundreds
 * of bytes) at xz's preset 6, which makes what -9e makes of a profile in
 * two thirds of zstd -19's time; the dictionary no larger than the body.
 */
#define PM_XZ_PRESET		6

static const char *const bin_names[VMT_PROFILE_STRIDE_BINS] = {
	"0", "+1", "+2", "+4", "+8", "+16", "+32", "+64", "+128", "+256",
	"-1", "-2", "-4", "-8", "-16", "-32", "-64", "-128", "-256", "random",
};

unsigned int vmt_profile_stride_bin(int64_t stride)
{
	uint64_t m = stride < 0 ? -(uint64_t)stride : (uint64_t)stride;
	unsigned int b;

	if (!stride)
		return 0;
	if (m > 256)
		return VMT_PROFILE_STRIDE_BINS - 1;
	/* The bin of the smallest power of two at least |stride|, 2^(b - 1): 3 -> 4, b 3. */
	b = m == 1 ? 1 : 65 - (unsigned int)__builtin_clzll(m - 1);
	return stride > 0 ? b : b + 9;
}

const char *vmt_profile_stride_bin_name(unsigned int bin)
{
	return bin < VMT_PROFILE_STRIDE_BINS ? bin_names[bin] : NULL;
}

void pm_say(struct vmt_trace_error *err, const char *fmt, ...)
{
	va_list ap;

	if (!err)
		return;
	va_start(ap, fmt);
	vsnprintf(err->message, sizeof(err->message), fmt, ap);
	va_end(ap);
}

static void edges_free(struct pm_edges *e)
{
	free(e->e);
	e->e = NULL;
	e->n = 0;
}

void pm_thread_free(struct pm_thread *t)
{
	for (uint32_t i = 0; i < t->ninsns && t->insns; i++) {
		struct pm_insn *in = &t->insns[i];

		for (uint32_t k = 0; k < in->ntokens && in->tokens; k++)
			edges_free(&in->tokens[k].next);
		free(in->tokens);
		edges_free(&in->random_next);
		edges_free(&in->reuse);
		edges_free(&in->next);
	}
	free(t->insns);
	free(t->pattern);
	for (uint32_t l = 0; l < t->nloops && t->loops; l++)
		free(t->loops[l].regions);
	free(t->loops);
	free(t->regions);
	free(t->spans);
	memset(t, 0, sizeof(*t));
}

void vmt_profile_free(struct vmt_profile *p)
{
	if (!p)
		return;
	for (uint32_t i = 0; i < p->nthreads && p->threads; i++)
		pm_thread_free(&p->threads[i]);
	free(p->threads);
	for (uint32_t s = 0; s < p->nslices && p->slices; s++)
		edges_free(&p->slices[s]);
	free(p->slices);
	free(p->mixed);
	free(p);
}

uint32_t pm_insn_find(const struct pm_thread *t, uint64_t ip)
{
	uint32_t lo = 0, hi = t->ninsns;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (t->insns[mid].ip < ip)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < t->ninsns && t->insns[lo].ip == ip ? lo : PM_NONE;
}

/* ---- Writing ---- */

struct out {
	struct vmt_buf b;
	int failed;
};

static void put(struct out *o, uint64_t v)
{
	if (o->failed || vmt_buf_reserve(&o->b, o->b.size + 10)) {
		o->failed = 1;
		return;
	}
	do {
		uint8_t byte = v & 0x7f;

		v >>= 7;
		o->b.data[o->b.size++] = byte | (v ? 0x80 : 0);
	} while (v);
}

static void put_signed(struct out *o, int64_t v)
{
	put(o, vmt_zigzag((uint64_t)v));
}

/*
 * Edges (version 2): each one's to as is, or, for an instruction's next
 * ones (@self its index, else -1), from @self (the next instruction is
 * mostly a near one); its last visit less the fewest visits its count
 * needs after its first (0 for an edge taken at every visit).
 */
/* The LZMA2 filter of a body of @n bytes: the decoder's dictionary is as large as the encoder's. */
static int lzma2_filter(lzma_options_lzma *options, lzma_filter *filters, size_t n)
{
	if (lzma_lzma_preset(options, PM_XZ_PRESET))
		return -EINVAL;
	options->dict_size = n < LZMA_DICT_SIZE_MIN ? LZMA_DICT_SIZE_MIN : (uint32_t)n;
	filters[0].id = LZMA_FILTER_LZMA2;
	filters[0].options = options;
	filters[1].id = LZMA_VLI_UNKNOWN;
	return 0;
}

static void put_edges(struct out *o, const struct pm_edges *e, int64_t self)
{
	put(o, e->n);
	for (uint32_t i = 0; i < e->n; i++) {
		if (self >= 0)
			put_signed(o, (int64_t)e->e[i].to - self);
		else
			put(o, e->e[i].to);
		put(o, e->e[i].count);
		put(o, e->e[i].first);
		put(o, e->e[i].last - e->e[i].first - (e->e[i].count - 1));
	}
}

/*
 * Instruction @i (version 2: its lo from the one before's, *@prev_lo; its first
 * from its lo; version 3: then its steps back and ahead).
 */
static void put_insn(struct out *o, const struct pm_insn *in, uint32_t i, uint64_t prev_ip,
		     uint64_t *prev_lo)
{
	put_signed(o, (int64_t)(in->ip - prev_ip));
	put(o, in->count);
	put(o, in->reads);
	put(o, in->writes);
	put(o, in->rmws);
	put(o, in->size);
	put(o, in->loop == PM_NONE ? 0 : (uint64_t)in->loop + 1);
	put_signed(o, (int64_t)(in->lo - *prev_lo));
	put(o, in->first - in->lo);
	put(o, in->hi - in->lo);
	put(o, in->back);
	put(o, in->ahead);
	*prev_lo = in->lo;
	put(o, in->ntokens);
	for (uint32_t k = 0; k < in->ntokens; k++) {
		put_signed(o, in->tokens[k].stride);
		put(o, in->tokens[k].run);
		put(o, in->tokens[k].count);
		put_edges(o, &in->tokens[k].next, -1);
	}
	put(o, in->first_token == PM_NONE ? 0 : (uint64_t)in->first_token + 1);
	put_edges(o, &in->random_next, -1);
	put(o, in->random);
	put_edges(o, &in->reuse, -1);
	put_edges(o, &in->next, i);
}

static void put_thread(struct out *o, const struct pm_thread *t)
{
	uint64_t prev = 0, prev_lo = 0;

	put(o, t->pid);
	put(o, t->tid);
	put(o, t->accesses);
	put(o, t->outside_loops);
	put(o, t->ninsns);
	for (uint32_t i = 0; i < t->ninsns; i++) {
		put_insn(o, &t->insns[i], i, prev, &prev_lo);
		prev = t->insns[i].ip;
	}
	put(o, t->npattern);
	for (uint32_t i = 0; i < t->npattern; i++)
		put(o, t->pattern[i]);
	put(o, t->nregions);
	prev = 0;
	for (uint32_t r = 0; r < t->nregions; r++) {
		const struct pm_region *g = &t->regions[r];

		put(o, g->lo - prev);
		put(o, g->hi - g->lo);
		put(o, g->lines);
		put(o, g->accesses);
		prev = g->hi;
	}
	put(o, t->nspans);
	prev = 0;
	for (uint32_t k = 0; k < t->nspans; k++) {
		put(o, t->spans[k].lo - prev);
		put(o, t->spans[k].n);
		prev = t->spans[k].lo + t->spans[k].n;
	}
	put(o, t->nloops);
	for (uint32_t l = 0; l < t->nloops; l++) {
		const struct pm_loop *lp = &t->loops[l];

		put(o, lp->ip_lo);
		put(o, lp->ip_hi - lp->ip_lo);
		put(o, lp->accesses);
		put(o, lp->insns);
		put(o, lp->nregions);
		for (uint32_t i = 0; i < lp->nregions; i++) {
			const struct pm_loop_region *lr = &lp->regions[i];
			uint32_t nonzero = 0;

			put(o, lr->region);
			put(o, lr->accesses);
			put(o, lr->lines);
			for (unsigned int b = 0; b < VMT_PROFILE_STRIDE_BINS; b++)
				nonzero += !!lr->strides[b];
			put(o, nonzero);
			for (unsigned int b = 0; b < VMT_PROFILE_STRIDE_BINS; b++) {
				if (lr->strides[b]) {
					put(o, b);
					put(o, lr->strides[b]);
				}
			}
		}
	}
}

int vmt_profile_encode(const struct vmt_profile *p, void **data, size_t *size,
		       struct vmt_trace_error *err)
{
	struct out o = { 0 };
	lzma_options_lzma options;
	lzma_filter filters[2];
	size_t bound, z = 0;
	uint8_t *file;

	put(&o, p->nthreads);
	for (uint32_t i = 0; i < p->nthreads; i++)
		put_thread(&o, &p->threads[i]);
	put(&o, p->slice_len);
	put(&o, p->nslices);
	for (uint32_t s = 0; s < p->nslices; s++) {
		put(&o, (uint64_t)p->slices[s].n << 1 | p->mixed[s]);
		for (uint32_t i = 0; i < p->slices[s].n; i++) {
			put(&o, p->slices[s].e[i].to);
			put(&o, p->slices[s].e[i].count);
		}
	}
	if (o.failed) {
		vmt_buf_free(&o.b);
		pm_say(err, "out of memory encoding the profile");
		return -ENOMEM;
	}
	/* LZMA2 stores what it cannot shrink, in chunks of 64 KiB with 3 bytes each. */
	bound = o.b.size + o.b.size / 4096 + 64;
	file = malloc(PM_HEADER + bound);
	if (!file) {
		vmt_buf_free(&o.b);
		pm_say(err, "out of memory encoding the profile");
		return -ENOMEM;
	}
	if (lzma2_filter(&options, filters, o.b.size))
		goto lzma_failed;
	/*
	 * The encoder's own choices (the decoder needs none of them): xz's
	 * preset 6 with hash chains of 4 bytes for its binary trees, matches
	 * cut at 32 bytes and no position bits. On make bench's eight
	 * profiles, 30% less time in LZMA for 0.4% more bytes (sqlite3's, of
	 * 6,130 instructions, is the one that spends much in it).
	 */
	options.mf = LZMA_MF_HC4;
	options.nice_len = 32;
	options.pb = 0;
	if (lzma_raw_buffer_encode(filters, NULL, o.b.data, o.b.size, file + PM_HEADER, &z,
				   bound) != LZMA_OK) {
lzma_failed:
		pm_say(err, "xz: cannot compress the profile");
		vmt_buf_free(&o.b);
		free(file);
		return -EIO;
	}
	memcpy(file, PM_MAGIC, 8);
	vmt_put32(file + 8, VMT_PROFILE_VERSION);
	vmt_put32(file + 12, 0);			/* flags */
	vmt_put64(file + 16, o.b.size);
	vmt_put64(file + 24, z);
	vmt_put32(file + 32, vmt_crc32(file + PM_HEADER, z));
	vmt_put32(file + 36, 0);			/* reserved */
	vmt_buf_free(&o.b);
	*data = file;
	*size = PM_HEADER + z;
	return 0;
}

int vmt_profile_write(const struct vmt_profile *p, const char *path, struct vmt_trace_error *err)
{
	void *data;
	size_t size;
	FILE *f;
	int ret = vmt_profile_encode(p, &data, &size, err);

	if (ret)
		return ret;
	f = fopen(path, "wb");
	if (!f) {
		ret = -errno;
		pm_say(err, "%s: %s", path, strerror(errno));
		free(data);
		return ret;
	}
	if (fwrite(data, 1, size, f) != size || fflush(f)) {
		ret = -errno;
		pm_say(err, "%s: %s", path, strerror(errno));
	}
	if (fclose(f) && !ret) {
		ret = -errno;
		pm_say(err, "%s: %s", path, strerror(errno));
	}
	free(data);
	return ret;
}

/* ---- Reading ---- */

struct in {
	const uint8_t *p, *end;
	int bad;
	uint32_t version;	/* the file's: 1 to 3 */
};

static uint64_t get(struct in *in)
{
	uint64_t v = 0;

	if (in->bad || vmt_get_varint(&in->p, in->end, &v)) {
		in->bad = 1;
		return 0;
	}
	return v;
}

/* A count of things of at least @min_bytes each in the file: no more than the bytes left allow. */
static uint64_t get_count(struct in *in, size_t min_bytes)
{
	uint64_t v = get(in);

	if (v > (uint64_t)(in->end - in->p) / min_bytes) {
		in->bad = 1;
		return 0;
	}
	return v;
}

/* An index below @n. */
static uint32_t get_index(struct in *in, uint64_t n)
{
	uint64_t v = get(in);

	if (v >= n)
		in->bad = 1;
	return in->bad ? 0 : (uint32_t)v;
}

static void *get_array(struct in *in, uint64_t n, size_t size)
{
	void *a;

	if (in->bad || !n)
		return NULL;
	a = calloc(n, size);
	if (!a)
		in->bad = 2;
	return a;
}

/* Edges to @nodes nodes (version 2: an instruction's next ones from @self, else -1). */
static void get_edges(struct in *in, struct pm_edges *e, uint64_t nodes, int64_t self)
{
	e->n = (uint32_t)get_count(in, 4);
	e->e = get_array(in, e->n, sizeof(*e->e));
	e->visits = 0;
	for (uint32_t i = 0; i < e->n && !in->bad; i++) {
		struct pm_edge *x = &e->e[i];

		if (in->version >= 2 && self >= 0) {
			uint64_t to = (uint64_t)self + vmt_unzigzag(get(in));

			if (to >= nodes)
				in->bad = 1;
			x->to = in->bad ? 0 : (uint32_t)to;
		} else {
			x->to = get_index(in, nodes);
		}
		x->count = get(in);
		x->first = get(in);
		if (in->version >= 2) {
			/* The visits past the fewest its count needs: none may wrap. */
			uint64_t past = get(in);

			if (!x->count || past > UINT64_MAX - (x->count - 1) ||
			    past + (x->count - 1) > UINT64_MAX - x->first)
				in->bad = 1;
			x->last = in->bad ? x->first : x->first + past + (x->count - 1);
		} else {
			x->last = x->first + get(in);
		}
		/* Taken @count times between its first and last: no fewer than 1, no more than fit. */
		if (!x->count || x->last < x->first || x->count - 1 > x->last - x->first)
			in->bad = 1;
		e->visits += x->count;
	}
	if (in->bad)
		e->n = 0;
}

static void get_insn(struct in *in, struct pm_insn *x, uint32_t i, uint64_t prev_ip,
		     uint64_t *prev_lo, uint32_t ninsns)
{
	x->ip = prev_ip + (uint64_t)vmt_unzigzag(get(in));
	x->count = get(in);
	x->reads = get(in);
	x->writes = get(in);
	x->rmws = get(in);
	x->size = (uint32_t)get(in);
	x->loop = (uint32_t)get(in) - 1;	/* 0 -> PM_NONE, checked against the loops later */
	if (in->version >= 2) {
		x->lo = *prev_lo + (uint64_t)vmt_unzigzag(get(in));
		x->first = x->lo + get(in);
		*prev_lo = x->lo;
	} else {
		x->first = get(in);
		x->lo = get(in);
	}
	x->hi = x->lo + get(in);
	if (in->version >= 3) {
		x->back = get(in);
		x->ahead = get(in);
	}
	x->ntokens = (uint32_t)get_count(in, 4);
	x->tokens = get_array(in, x->ntokens, sizeof(*x->tokens));
	for (uint32_t k = 0; k < x->ntokens && !in->bad; k++) {
		x->tokens[k].stride = (int64_t)vmt_unzigzag(get(in));
		x->tokens[k].run = (uint32_t)get(in);
		x->tokens[k].count = get(in);
		get_edges(in, &x->tokens[k].next, (uint64_t)x->ntokens + 1, -1);
		if (!x->tokens[k].run)
			in->bad = 1;
	}
	x->first_token = (uint32_t)get_index(in, (uint64_t)x->ntokens + 2) - 1;
	get_edges(in, &x->random_next, (uint64_t)x->ntokens + 1, -1);
	x->random = get(in);
	get_edges(in, &x->reuse, PM_REUSE_COLD + 1, -1);
	get_edges(in, &x->next, ninsns, i);
	/* Its kinds add up to its count, and no count is past the generator's sums. */
	if (!x->count || x->count > PM_MAX_COUNT || x->reads > x->count ||
	    x->writes > x->count - x->reads || x->rmws != x->count - x->reads - x->writes ||
	    !x->size || x->hi < x->lo || x->back > x->count - 1 || x->ahead > x->count - 1 - x->back)
		in->bad = 1;
}

static void get_thread(struct in *in, struct pm_thread *t)
{
	uint64_t prev = 0, prev_lo = 0;

	t->pid = (uint32_t)get(in);
	t->tid = (uint32_t)get(in);
	t->accesses = get(in);
	t->outside_loops = get(in);
	if (!t->accesses)
		in->bad = 1;
	t->ninsns = (uint32_t)get_count(in, 16);
	t->insns = get_array(in, t->ninsns, sizeof(*t->insns));
	for (uint32_t i = 0; i < t->ninsns && !in->bad; i++) {
		get_insn(in, &t->insns[i], i, prev, &prev_lo, t->ninsns);
		if (i && t->insns[i].ip <= prev)
			in->bad = 1;
		prev = t->insns[i].ip;
	}
	if (!t->ninsns)
		in->bad = 1;
	t->npattern = (uint32_t)get(in);
	if (t->npattern > PM_PATTERN)
		in->bad = 1;
	t->pattern = get_array(in, t->npattern, sizeof(*t->pattern));
	for (uint32_t i = 0; i < t->npattern && !in->bad; i++)
		t->pattern[i] = get_index(in, t->ninsns);
	t->nregions = (uint32_t)get_count(in, 4);
	t->regions = get_array(in, t->nregions, sizeof(*t->regions));
	prev = 0;
	for (uint32_t r = 0; r < t->nregions && !in->bad; r++) {
		struct pm_region *g = &t->regions[r];

		g->lo = prev + get(in);
		g->hi = g->lo + get(in);
		g->lines = get(in);
		g->accesses = get(in);
		if (g->lo < prev || g->hi <= g->lo)
			in->bad = 1;
		prev = g->hi;
	}
	t->nspans = (uint32_t)get_count(in, 2);
	t->spans = get_array(in, t->nspans, sizeof(*t->spans));
	prev = 0;
	for (uint32_t k = 0; k < t->nspans && !in->bad; k++) {
		t->spans[k].lo = prev + get(in);
		t->spans[k].n = get(in);
		/* In order, apart (a gap between runs), not empty, within 64-bit addresses. */
		if (t->spans[k].lo < prev || (k && t->spans[k].lo == prev) || !t->spans[k].n ||
		    t->spans[k].lo > (UINT64_MAX >> 6) || t->spans[k].n > (UINT64_MAX >> 6) - t->spans[k].lo)
			in->bad = 1;
		prev = t->spans[k].lo + t->spans[k].n;
	}
	if (!t->nspans)
		in->bad = 1;
	t->nloops = (uint32_t)get_count(in, 5);
	t->loops = get_array(in, t->nloops, sizeof(*t->loops));
	for (uint32_t l = 0; l < t->nloops && !in->bad; l++) {
		struct pm_loop *lp = &t->loops[l];

		lp->ip_lo = get(in);
		lp->ip_hi = lp->ip_lo + get(in);
		lp->accesses = get(in);
		lp->insns = (uint32_t)get(in);
		lp->nregions = (uint32_t)get_count(in, 4);
		lp->regions = get_array(in, lp->nregions, sizeof(*lp->regions));
		for (uint32_t i = 0; i < lp->nregions && !in->bad; i++) {
			struct pm_loop_region *lr = &lp->regions[i];
			uint64_t nonzero;

			lr->region = get_index(in, t->nregions);
			lr->accesses = get(in);
			lr->lines = get(in);
			nonzero = get(in);
			if (nonzero > VMT_PROFILE_STRIDE_BINS)
				in->bad = 1;
			for (uint64_t k = 0; k < nonzero && !in->bad; k++) {
				uint32_t b = get_index(in, VMT_PROFILE_STRIDE_BINS);

				lr->strides[b] = get(in);
			}
		}
		if (in->bad)
			lp->nregions = 0;
	}
	for (uint32_t i = 0; i < t->ninsns && !in->bad; i++)
		if (t->insns[i].loop != PM_NONE && t->insns[i].loop >= t->nloops)
			in->bad = 1;
}

/*
 * The slices: each a list of (thread, count), the counts of a thread over
 * all slices its accesses, every slice but the last slice_len accesses.
 */
static void get_slices(struct in *in, struct vmt_profile *p)
{
	uint64_t *sum = in->bad || !p->nthreads ? NULL : calloc(p->nthreads, sizeof(*sum));

	if (!in->bad && !sum)
		in->bad = p->nthreads ? 2 : 1;
	p->slice_len = get(in);
	p->nslices = (uint32_t)get_count(in, 1);
	if (p->nslices > PM_SLICES || !p->nslices || !p->slice_len)
		in->bad = in->bad ? in->bad : 1;
	p->slices = get_array(in, p->nslices, sizeof(*p->slices));
	p->mixed = get_array(in, p->nslices, sizeof(*p->mixed));
	for (uint32_t s = 0; s < p->nslices && !in->bad; s++) {
		struct pm_edges *e = &p->slices[s];
		uint64_t n = 0, v = get(in);

		/* Runs: at most PM_SLICE_RUNS, no two alike in a row; mixed: each thread once. */
		p->mixed[s] = v & 1;
		e->n = (uint32_t)(v >> 1);
		if (v >> 1 > (uint64_t)(in->end - in->p) / 2 ||
		    (!p->mixed[s] && e->n > PM_SLICE_RUNS))
			in->bad = in->bad ? in->bad : 1;
		e->e = get_array(in, e->n, sizeof(*e->e));
		for (uint32_t i = 0; i < e->n && !in->bad; i++) {
			e->e[i].to = get_index(in, p->nthreads);
			e->e[i].count = get(in);
			if (in->bad || !e->e[i].count || e->e[i].count > p->slice_len - n) {
				in->bad = in->bad ? in->bad : 1;
			} else {
				n += e->e[i].count;
				sum[e->e[i].to] += e->e[i].count;
			}
			for (uint32_t k = 0; k < i && !in->bad && p->mixed[s]; k++)
				if (e->e[k].to == e->e[i].to)
					in->bad = 1;
			if (!in->bad && !p->mixed[s] && i && e->e[i - 1].to == e->e[i].to)
				in->bad = 1;
		}
		e->visits = n;
		if (!in->bad && (s + 1 < p->nslices ? n != p->slice_len : !n))
			in->bad = 1;
	}
	for (uint32_t i = 0; i < p->nthreads && !in->bad; i++)
		if (sum[i] != p->threads[i].accesses)
			in->bad = 1;
	free(sum);
}

int vmt_profile_read_memory(struct vmt_profile **profile, const void *data, size_t size,
			    struct vmt_trace_error *err)
{
	const uint8_t *file = data;
	struct vmt_profile *p;
	struct in in;
	uint64_t raw, z;
	uint32_t version;
	uint8_t *body;
	size_t got;

	if (size < PM_HEADER || memcmp(file, PM_MAGIC, 8)) {
		pm_say(err, "not a vmtrace profile (no VMTPROF header)");
		return -EBADMSG;
	}
	version = vmt_get32(file + 8);
	if (version < 1 || version > VMT_PROFILE_VERSION) {
		pm_say(err, "profile format version %u; this vmtrace reads versions 1 to %u",
		    version, VMT_PROFILE_VERSION);
		return -EPROTO;
	}
	raw = vmt_get64(file + 16);
	z = vmt_get64(file + 24);
	if (z != size - PM_HEADER) {
		pm_say(err, "damaged profile: %llu bytes of body, the header says %llu",
		    (unsigned long long)(size - PM_HEADER), (unsigned long long)z);
		return -EBADMSG;
	}
	if (!vmt_checksum_matches(vmt_get32(file + 32), vmt_crc32(file + PM_HEADER, z))) {
		pm_say(err, "damaged profile: checksum mismatch");
		return -EBADMSG;
	}
	if (!raw || raw > PM_MAX_BODY) {
		pm_say(err, "damaged profile: a body of %llu bytes", (unsigned long long)raw);
		return -EBADMSG;
	}
	/* A zstd frame says its size (version 1's encoder wrote it): no allocation on trust. */
	if (version == 1 && ZSTD_getFrameContentSize(file + PM_HEADER, z) != raw) {
		pm_say(err, "damaged profile: its body is not the %llu bytes the header says",
		    (unsigned long long)raw);
		return -EBADMSG;
	}
	body = malloc(raw);
	if (!body) {
		pm_say(err, "out of memory reading the profile");
		return -ENOMEM;
	}
	if (version == 1) {
		got = ZSTD_decompress(body, raw, file + PM_HEADER, z);
		if (ZSTD_isError(got) || got != raw) {
			pm_say(err, "damaged profile: its body does not decompress (%s)",
			    ZSTD_isError(got) ? ZSTD_getErrorName(got) : "short");
			free(body);
			return -EBADMSG;
		}
	} else {
		lzma_options_lzma options;
		lzma_filter filters[2];
		size_t in_pos = 0;

		got = 0;
		if (lzma2_filter(&options, filters, raw) ||
		    lzma_raw_buffer_decode(filters, NULL, file + PM_HEADER, &in_pos, z, body, &got,
					   raw) != LZMA_OK || in_pos != z || got != raw) {
			pm_say(err, "damaged profile: its body does not decompress to the %llu bytes the header says",
			    (unsigned long long)raw);
			free(body);
			return -EBADMSG;
		}
	}
	p = calloc(1, sizeof(*p));
	in = (struct in){ body, body + raw, 0, version };
	if (p) {
		/* A thread is 24 bytes at least: 8 numbers and an instruction of 16. */
		p->nthreads = (uint32_t)get_count(&in, 24);
		p->threads = get_array(&in, p->nthreads, sizeof(*p->threads));
		for (uint32_t i = 0; i < p->nthreads && !in.bad; i++)
			get_thread(&in, &p->threads[i]);
		get_slices(&in, p);
		if (!p->nthreads || in.p != in.end)
			in.bad = in.bad ? in.bad : 1;
		/* The threads' accesses add up within the generator's sums (its round robin). */
		for (uint64_t i = 0, total = 0; i < p->nthreads && !in.bad; i++) {
			if (p->threads[i].accesses > PM_MAX_COUNT - total)
				in.bad = 1;
			else
				total += p->threads[i].accesses;
		}
	}
	free(body);
	if (!p || in.bad == 2) {
		vmt_profile_free(p);
		pm_say(err, "out of memory reading the profile");
		return -ENOMEM;
	}
	if (in.bad) {
		vmt_profile_free(p);
		pm_say(err, "damaged profile: a count or index out of range");
		return -EBADMSG;
	}
	*profile = p;
	return 0;
}

int vmt_profile_read(struct vmt_profile **profile, const char *path, struct vmt_trace_error *err)
{
	FILE *f = fopen(path, "rb");
	uint8_t *data = NULL;
	size_t size = 0, room = 0, n;
	int ret;

	if (!f) {
		ret = -errno;
		pm_say(err, "%s: %s", path, strerror(errno));
		return ret;
	}
	do {
		if (size == room) {
			uint8_t *bigger = realloc(data, room = room ? room * 2 : 65536);

			if (!bigger) {
				free(data);
				fclose(f);
				pm_say(err, "out of memory reading %s", path);
				return -ENOMEM;
			}
			data = bigger;
		}
		n = fread(data + size, 1, room - size, f);
		size += n;
	} while (n);
	if (ferror(f)) {
		ret = -EIO;
		pm_say(err, "%s: read error", path);
	} else {
		ret = vmt_profile_read_memory(profile, data, size, err);
		if (ret && err) {
			char msg[sizeof(err->message)];

			snprintf(msg, sizeof(msg), "%s", err->message);
			pm_say(err, "%s: %s", path, msg);
		}
	}
	fclose(f);
	free(data);
	return ret;
}

/* ---- Accessors ---- */

uint32_t vmt_profile_nr_threads(const struct vmt_profile *p)
{
	return p->nthreads;
}

int vmt_profile_thread(const struct vmt_profile *p, uint32_t thread, struct vmt_profile_thread *info)
{
	const struct pm_thread *t;

	if (thread >= p->nthreads)
		return -ENOENT;
	t = &p->threads[thread];
	memset(info, 0, sizeof(*info));
	info->pid = t->pid;
	info->tid = t->tid;
	info->accesses = t->accesses;
	info->outside_loops = t->outside_loops;
	info->insns = t->ninsns;
	info->loops = t->nloops;
	info->regions = t->nregions;
	for (uint32_t i = 0; i < t->ninsns; i++) {
		info->tokens += t->insns[i].ntokens;
		info->random += t->insns[i].random;
	}
	return 0;
}

int vmt_profile_region(const struct vmt_profile *p, uint32_t thread, uint32_t region,
		       struct vmt_profile_region *info)
{
	const struct pm_region *g;

	if (thread >= p->nthreads || region >= p->threads[thread].nregions)
		return -ENOENT;
	g = &p->threads[thread].regions[region];
	*info = (struct vmt_profile_region){ g->lo, g->hi, g->lines, g->accesses };
	return 0;
}

int vmt_profile_loop(const struct vmt_profile *p, uint32_t thread, uint32_t loop,
		     struct vmt_profile_loop *info)
{
	const struct pm_loop *lp;

	if (thread >= p->nthreads || loop >= p->threads[thread].nloops)
		return -ENOENT;
	lp = &p->threads[thread].loops[loop];
	*info = (struct vmt_profile_loop){ lp->ip_lo, lp->ip_hi, lp->accesses, lp->insns,
					   lp->nregions };
	return 0;
}

int vmt_profile_loop_region(const struct vmt_profile *p, uint32_t thread, uint32_t loop,
			    uint32_t i, struct vmt_profile_loop_region *info)
{
	const struct pm_loop_region *lr;

	if (thread >= p->nthreads || loop >= p->threads[thread].nloops ||
	    i >= p->threads[thread].loops[loop].nregions)
		return -ENOENT;
	lr = &p->threads[thread].loops[loop].regions[i];
	info->region = lr->region;
	info->accesses = lr->accesses;
	info->lines = lr->lines;
	memcpy(info->strides, lr->strides, sizeof(info->strides));
	return 0;
}

int vmt_profile_loop_of(const struct vmt_profile *p, uint32_t thread, uint64_t ip)
{
	uint32_t i;

	if (thread >= p->nthreads)
		return -ENOENT;
	i = pm_insn_find(&p->threads[thread], ip);
	if (i == PM_NONE || p->threads[thread].insns[i].loop == PM_NONE)
		return -ENOENT;
	return (int)p->threads[thread].insns[i].loop;
}

int vmt_profile_thread_of(const struct vmt_profile *p, uint32_t tid)
{
	for (uint32_t i = 0; i < p->nthreads; i++)
		if (p->threads[i].tid == tid)
			return (int)i;
	return -ENOENT;
}
