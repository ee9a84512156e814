// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target for profile files (user/lib/profile/profile_model.c),
 * each input read twice, with no byte choosing between the two:
 *
 *   - the input taken as a whole file (vmt_profile_read_memory()): its
 *     40-byte header, its compressed body and the varints in it. Built with
 *     FUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION, the reader takes any CRC,
 *     but a mutation of a compressed body seldom still decompresses;
 *   - the input taken as the body alone, the varints, three times:
 *     compressed as version 1 (ZSTD_compress()), as version 2 (raw LZMA2,
 *     whose body codes some fields against others) and as version 3 (the
 *     same, and each instruction's steps back and ahead), and put behind a
 *     header made here with its CRC (vmt_crc32()), so that mutations reach
 *     every version's parser.
 *
 * A file is refused with a message, or read; then (abort() otherwise):
 *   - every accessor answers for every thread, region, loop and loop's
 *     region, and -ENOENT one past the last and for a thread past the last;
 *   - a thread has an instruction; its regions are [lo, hi) with lo < hi,
 *     in increasing order without overlap; its loops' regions are its
 *     regions; its counts of stride runs and random accesses are its
 *     instructions' sums; vmt_profile_thread_of() of its tid is it or a
 *     thread before it with the same tid;
 *   - its instructions (profile_model.h) are in increasing ip order, and
 *     each holds what the generator follows without a check: count, size
 *     and runs not 0, lo <= hi, steps back and ahead no more than its
 *     accesses after its first, pattern and first run in range,
 *     reuse edges to a bin or PM_REUSE_COLD, edges to a node in range taken 1 to last - first + 1 times;
 *   - vmt_profile_loop_of() of each instruction's ip is its loop (an index
 *     below the thread's loops) or -ENOENT when in none, and of an ip no
 *     instruction has, -ENOENT;
 *   - encoded again (vmt_profile_encode()), it reads back, and encodes to
 *     the same bytes;
 *   - vmt_profile_synth() makes SYNTH_ACCESSES accesses of it into a trace
 *     writer on /dev/null (uncompressed), all of them, or fails with
 *     -ENOMEM and a message.
 * A profile whose body is over MAX_CHECKED_BODY bytes (a small zstd frame
 * may say a large one) is only read and freed, and one of more than
 * MAX_SYNTH_THREADS threads not synthesized, to keep each input fast.
 *
 * Seeds (tests/fuzz/corpus/fuzz_profile_read/): *.prof, files `vmtrace
 * profile` made of small lackey traces (a stream and a pointer chase, a
 * loop nest, random loads, two threads), of version 1; nbody-v2.prof, of
 * version 2 (vmt-loops' nbody recorded in the VM); stream-chase-v3.prof and
 * sweep-v3.prof, of version 3 (tests/unit/profile.sh's traces); *.body,
 * four of their bodies (the bytes after the header, decompressed).
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <lzma.h>
#include <zstd.h>

#include "vmtrace/profile.h"
#include "vmtrace/trace.h"
#include "base/bytes.h"
#include "profile/profile_model.h"

#define HEADER			40
#define MAX_CHECKED_BODY	(64u << 10)
#define MAX_SYNTH_THREADS	256
#define SYNTH_ACCESSES		2000

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_message(const struct vmt_trace_error *err)
{
	size_t len = strnlen(err->message, sizeof(err->message));

	if (!len || len == sizeof(err->message))
		abort();
}

/* To a node below @nodes, taken 1 or more times, no more than fit between its first and last. */
static void check_edges(const struct pm_edges *e, uint64_t nodes)
{
	if (e->n && !e->e)
		abort();
	for (uint32_t i = 0; i < e->n; i++) {
		const struct pm_edge *x = &e->e[i];

		if (x->to >= nodes || !x->count || x->last < x->first ||
		    x->count - 1 > x->last - x->first)
			abort();
	}
}

/* What the generator follows without a check, and loop_of() by each ip. */
static void walk_insns(const struct vmt_profile *p, uint32_t k, const struct pm_thread *t,
		       const struct vmt_profile_thread *th)
{
	uint64_t tokens = 0, random = 0;

	for (uint32_t i = 0; i < t->ninsns; i++) {
		const struct pm_insn *in = &t->insns[i];
		int l = vmt_profile_loop_of(p, k, in->ip);

		if (i && in->ip <= t->insns[i - 1].ip)
			abort();
		if (!in->count || !in->size || in->hi < in->lo || in->back > in->count - 1 ||
		    in->ahead > in->count - 1 - in->back)
			abort();
		if (pm_insn_find(t, in->ip) != i)
			abort();
		if (in->loop == PM_NONE ? l != -ENOENT : (l < 0 || (uint32_t)l != in->loop ||
							  in->loop >= th->loops))
			abort();
		/* An ip between this instruction and the next is no instruction's. */
		if (in->ip + 1 && (i + 1 == t->ninsns || t->insns[i + 1].ip != in->ip + 1) &&
		    vmt_profile_loop_of(p, k, in->ip + 1) != -ENOENT)
			abort();
		if (in->ntokens && !in->tokens)
			abort();
		for (uint32_t j = 0; j < in->ntokens; j++) {
			unsigned int bin = vmt_profile_stride_bin(in->tokens[j].stride);

			if (!in->tokens[j].run || bin >= VMT_PROFILE_STRIDE_BINS ||
			    !vmt_profile_stride_bin_name(bin))
				abort();
			check_edges(&in->tokens[j].next, (uint64_t)in->ntokens + 1);
		}
		if (in->first_token != PM_NONE && in->first_token > in->ntokens)
			abort();
		check_edges(&in->random_next, (uint64_t)in->ntokens + 1);
		check_edges(&in->reuse, PM_REUSE_COLD + 1);
		check_edges(&in->next, t->ninsns);
		tokens += in->ntokens;
		random += in->random;
	}
	if (tokens != th->tokens || random != th->random)
		abort();
	if (t->npattern > PM_PATTERN)
		abort();
	for (uint32_t i = 0; i < t->npattern; i++)
		if (t->pattern[i] >= t->ninsns)
			abort();
}

static void walk_thread(const struct vmt_profile *p, uint32_t k)
{
	const struct pm_thread *t = &p->threads[k];
	struct vmt_profile_loop_region lr;
	struct vmt_profile_thread th, tj;
	struct vmt_profile_region g;
	struct vmt_profile_loop lp;
	uint64_t prev_hi = 0;
	int j;

	if (vmt_profile_thread(p, k, &th) || !th.insns)
		abort();
	if (th.pid != t->pid || th.tid != t->tid || th.insns != t->ninsns ||
	    th.loops != t->nloops || th.regions != t->nregions)
		abort();
	j = vmt_profile_thread_of(p, th.tid);
	if (j < 0 || (uint32_t)j > k || vmt_profile_thread(p, (uint32_t)j, &tj) || tj.tid != th.tid)
		abort();
	for (uint32_t r = 0; r < th.regions; r++) {
		if (vmt_profile_region(p, k, r, &g) || g.lo >= g.hi || (r && g.lo < prev_hi))
			abort();
		prev_hi = g.hi;
	}
	if (vmt_profile_region(p, k, th.regions, &g) != -ENOENT)
		abort();
	for (uint32_t l = 0; l < th.loops; l++) {
		if (vmt_profile_loop(p, k, l, &lp))
			abort();
		for (uint32_t i = 0; i < lp.regions; i++)
			if (vmt_profile_loop_region(p, k, l, i, &lr) || lr.region >= th.regions)
				abort();
		if (vmt_profile_loop_region(p, k, l, lp.regions, &lr) != -ENOENT)
			abort();
	}
	if (vmt_profile_loop(p, k, th.loops, &lp) != -ENOENT ||
	    vmt_profile_loop_region(p, k, th.loops, 0, &lr) != -ENOENT)
		abort();
	walk_insns(p, k, t, &th);
}

static void walk(const struct vmt_profile *p)
{
	uint32_t n = vmt_profile_nr_threads(p);
	struct vmt_profile_loop_region lr;
	struct vmt_profile_thread th;
	struct vmt_profile_region g;
	struct vmt_profile_loop lp;

	if (!n)
		abort();
	for (uint32_t k = 0; k < n; k++)
		walk_thread(p, k);
	if (vmt_profile_thread(p, n, &th) != -ENOENT ||
	    vmt_profile_region(p, n, 0, &g) != -ENOENT ||
	    vmt_profile_loop(p, n, 0, &lp) != -ENOENT ||
	    vmt_profile_loop_region(p, n, 0, 0, &lr) != -ENOENT ||
	    vmt_profile_loop_of(p, n, p->threads[0].insns[0].ip) != -ENOENT)
		abort();
}

/* Encoded, read back and encoded again: the same bytes. */
static void reencode(const struct vmt_profile *p)
{
	struct vmt_trace_error err = { { 0 } };
	struct vmt_profile *back;
	void *first, *second;
	size_t n1, n2;

	if (vmt_profile_encode(p, &first, &n1, &err))
		abort();
	if (vmt_profile_read_memory(&back, first, n1, &err))
		abort();
	walk(back);
	if (vmt_profile_encode(back, &second, &n2, &err))
		abort();
	if (n1 != n2 || memcmp(first, second, n1))
		abort();
	free(first);
	free(second);
	vmt_profile_free(back);
}

static void synth(const struct vmt_profile *p, uint64_t seed)
{
	struct vmt_trace_writer_options wo = { .frame_bytes = 64 << 10, .codec = VMT_CODEC_NONE };
	struct vmt_profile_synth_options so = { .seed = seed, .accesses = SYNTH_ACCESSES };
	struct vmt_trace_error err = { { 0 } };
	struct vmt_trace_writer *w;
	uint64_t written = 99;
	int ret;

	if (vmt_trace_writer_create(&w, "/dev/null", &wo, &err))
		abort();
	ret = vmt_profile_synth(p, &so, w, &written, &err);
	if (ret) {
		if (ret != -ENOMEM || written >= SYNTH_ACCESSES)
			abort();
		check_message(&err);
		vmt_trace_writer_abandon(w);
		return;
	}
	if (written != SYNTH_ACCESSES || vmt_trace_writer_close(w, &err))
		abort();
}

/* Read @size bytes at @file, a copy of exact size (ASan sees a read past its end). */
static void read_file(const uint8_t *file, size_t size, uint64_t body)
{
	struct vmt_trace_error err = { { 0 } };
	struct vmt_profile *p = NULL;
	int ret;

	ret = vmt_profile_read_memory(&p, file, size, &err);
	if (ret) {
		if ((ret != -EBADMSG && ret != -EPROTO && ret != -ENOMEM) || p)
			abort();
		check_message(&err);
		return;
	}
	if (!p)
		abort();
	if (body <= MAX_CHECKED_BODY) {
		walk(p);
		reencode(p);
		if (vmt_profile_nr_threads(p) <= MAX_SYNTH_THREADS)
			synth(p, body);
	}
	vmt_profile_free(p);
}

static void as_file(const uint8_t *data, size_t size)
{
	uint8_t *file = malloc(size ? size : 1);

	if (!file)
		return;
	memcpy(file, data, size);
	read_file(file, size, size >= HEADER ? vmt_get64(file + 16) : 0);
	free(file);
}

/* @size bytes compressed as version 1 (zstd) or 2 and 3 (raw LZMA2, the dictionary the reader assumes). */
static size_t compress_body(const uint8_t *data, size_t size, uint8_t *tmp, size_t bound,
			    uint32_t version)
{
	lzma_options_lzma options;
	lzma_filter filters[2];
	size_t z = 0;

	if (version == 1) {
		z = ZSTD_compress(tmp, bound, data, size, 1);
		if (ZSTD_isError(z))
			abort();
		return z;
	}
	if (lzma_lzma_preset(&options, 0))
		abort();
	options.dict_size = size < LZMA_DICT_SIZE_MIN ? LZMA_DICT_SIZE_MIN : (uint32_t)size;
	filters[0].id = LZMA_FILTER_LZMA2;
	filters[0].options = &options;
	filters[1].id = LZMA_VLI_UNKNOWN;
	if (lzma_raw_buffer_encode(filters, NULL, data, size, tmp, &z, bound) != LZMA_OK)
		abort();
	return z;
}

static void as_body(const uint8_t *data, size_t size, uint32_t version)
{
	/* LZMA2 stores what it cannot shrink, in chunks of 64 KiB with 3 bytes each. */
	size_t bound = ZSTD_compressBound(size) + size / 4096 + 64, z;
	uint8_t *tmp = malloc(bound), *file;

	if (!tmp)
		return;
	z = compress_body(data, size, tmp, bound, version);
	file = malloc(HEADER + z);
	if (!file) {
		free(tmp);
		return;
	}
	memcpy(file, "VMTPROF\0", 8);
	vmt_put32(file + 8, version);
	vmt_put32(file + 12, 0);
	vmt_put64(file + 16, size);
	vmt_put64(file + 24, z);
	memcpy(file + HEADER, tmp, z);
	vmt_put32(file + 32, vmt_crc32(file + HEADER, z));
	vmt_put32(file + 36, 0);
	free(tmp);
	read_file(file, HEADER + z, size);
	free(file);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	as_file(data, size);
	as_body(data, size, 1);
	as_body(data, size, 2);
	as_body(data, size, 3);
	return 0;
}
